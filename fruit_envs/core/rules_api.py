"""The rules contract: what every game's rules module provides, and the one place that looks it up.

A game's `rules.py` satisfies `RulesModule` (the required functions and constants, `REQUIRED`) and may
have any of the optional capabilities of `OptionalRules` (`CAPABILITIES`); those it has it declares on
its spec, `GameSpec(capabilities=(...))`, so what a game can do is data read once, not discovered by
probing. Adapters read the declared parts through `game_rules(spec)` (resolved where they are built,
never per step) and the lookups here (`phase_name`, `action_names`, `running_scores`,
`position_problems`); nothing else asks a rules module whether it has something (`hasattr`/`getattr`).
`contract_problems(spec)` names what a module lacks or declares wrongly: the conformance suite
(`fruit_envs.testing.check_game`) fails on it first. `fruit_envs/games/README.md` documents each part.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from fruit_envs.core.spec import Config, GameSpec
    from fruit_envs.core.state import BatchState


class RulesModule(Protocol):
    """What every game's `rules.py` provides: pure functions over a batched `State` (axis 0 = game)."""

    SPEC: GameSpec
    State: type[BatchState]
    OBSERVATION_HIGH: float

    def init(self, config: Config, keys: np.ndarray) -> BatchState:
        """`len(keys)` games set up, each from its own key (`fruit_envs.core.rng`)."""

    def legal_mask(self, state: BatchState, player: int | np.ndarray | None = None) -> np.ndarray:
        """`(n, A)` bool: `player`'s legal actions (default: the seat to move); all False when done."""

    def acting(self, state: BatchState) -> np.ndarray:
        """`(n, P)` bool: the seats with a decision pending before anything public changes."""

    def step(
        self, state: BatchState, actions: np.ndarray, active: np.ndarray | None = None, *, in_place: bool = False
    ) -> tuple[BatchState, np.ndarray]:
        """One decision per game: the next state (a new one, or `state` itself with `in_place=True`) and
        `(n, P)` float32 rewards; games done or not `active` are left as they were and get 0."""

    def observe(self, state: BatchState, player: int | np.ndarray) -> np.ndarray:
        """`(n, O)` what `player` may know, nothing more, within `[0, OBSERVATION_HIGH]`."""

    def observation_layout(self, config: Config) -> dict[str, slice]:
        """The named blocks of the observation, in order, covering it."""

    def observation_shape(self, config: Config) -> tuple[int, ...]:
        """`(O,)`, the shape every observation has."""

    def max_game_length(self, config: Config) -> int:
        """An upper bound on the decisions of one game."""

    def reward_bounds(self, config: Config) -> tuple[float, float]:
        """Bounds on any one step's reward of any seat."""

    def final_scores(self, state: BatchState) -> np.ndarray:
        """`(n, P)` the game's own score of each seat."""

    def winners(self, state: BatchState) -> np.ndarray:
        """`(n, P)` bool: who wins (or leads) by the rulebook's rule, several where they share it."""

    def render(self, state: BatchState, i: int = 0) -> str:
        """A readable text picture of game `i` (the referee's view)."""

    def describe(self, state: BatchState, i: int = 0) -> dict:
        """Game `i` as JSON-able data, hidden parts under `"hidden"`; `from_description` inverts it."""

    def from_description(self, d: dict) -> BatchState:
        """The batch-of-one position `describe` wrote (raises `DescriptionError` on bad input)."""

    def action_to_string(self, config: Config, action: int) -> str:
        """The readable name of `action`."""

    def string_to_action(self, config: Config, text: str) -> int:
        """The action `action_to_string` names `text`."""

    def redeal_hidden(self, state: BatchState, player: int | np.ndarray, keys: np.ndarray) -> BatchState:
        """A copy with everything `player` cannot see re-dealt, consistently with what it knows."""

    def invariants(self, state: BatchState) -> list[str]:
        """Conservation and consistency problems of a position reached in play; empty when sound."""


class OptionalRules(Protocol):
    """The optional parts of the contract: a game has each only where its `SPEC.capabilities` names it."""

    PHASE_NAMES: tuple[str, ...]  # names of `state.phase`'s values, for messages, pictures and replays

    def advance(self, state: BatchState, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One game (a batch of one) stepped in place by a legal `action`: its rewards `(P,)`, every seat's
        mask `(P, A)` and the observation `(O,)` of the seat to move after, in one call (the AEC step)."""

    def legal_masks(self, state: BatchState) -> np.ndarray:
        """`(n, P, A)` bool: every seat's `legal_mask` in one call (games where all seats decide at once)."""

    def potential(self, state: BatchState) -> np.ndarray:
        """`(n, P)` each seat's running score, public arithmetic (reward shaping; default `final_scores`)."""

    def field_bounds(self, config: Config) -> dict[str, tuple]:
        """Inclusive `(low, high)` of the game's own state fields, checked on every loaded state."""

    def position_invariants(self, state: BatchState) -> list[str]:
        """What any position must satisfy, a hand-built one included (default `invariants`)."""

    def observation_rows(self, config: Config) -> dict[str, int]:
        """Observation blocks made of like rows, and each row's width (a network may share weights)."""

    def truncation_causes(self, state: BatchState) -> dict[str, np.ndarray]:
        """`(n,)` bool per cause of a cut-off: each truncated game has exactly one, other games none."""


def _members(protocol: type) -> tuple[str, ...]:
    """A protocol's constants, then its functions, in the order written."""
    own = vars(protocol)
    functions = [name for name, value in own.items() if inspect.isfunction(value) and not name.startswith("_")]
    return (*own.get("__annotations__", {}), *functions)


REQUIRED: tuple[str, ...] = _members(RulesModule)
CAPABILITIES: tuple[str, ...] = _members(OptionalRules)
_CONSTANTS = frozenset({*vars(RulesModule).get("__annotations__", {}), *vars(OptionalRules)["__annotations__"]})


def check_capabilities(names: tuple[str, ...], where: str) -> None:
    """`ValueError` unless `names` is a tuple of distinct `CAPABILITIES` (what `GameSpec` checks)."""
    if not isinstance(names, tuple) or not all(isinstance(name, str) for name in names):
        raise ValueError(f"{where}: capabilities must be a tuple of names from {list(CAPABILITIES)}, got {names!r}")
    unknown = [name for name in names if name not in CAPABILITIES]
    if unknown or len(set(names)) != len(names):
        what = f"unknown {unknown}" if unknown else f"repeated names in {list(names)}"
        raise ValueError(f"{where}: capabilities has {what}; the optional parts are {list(CAPABILITIES)}")


@dataclass(frozen=True)
class GameRules:
    """A game's rules module with its declared capabilities looked up: each is the module's own function
    (or `PHASE_NAMES` tuple) where `SPEC.capabilities` names it, else None."""

    module: RulesModule
    phase_names: tuple[str, ...] | None = None
    advance: Callable[[BatchState, int], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    legal_masks: Callable[[BatchState], np.ndarray] | None = None
    potential: Callable[[BatchState], np.ndarray] | None = None
    field_bounds: Callable[[Config], dict[str, tuple]] | None = None
    position_invariants: Callable[[BatchState], list[str]] | None = None
    observation_rows: Callable[[Config], dict[str, int]] | None = None
    truncation_causes: Callable[[BatchState], dict[str, np.ndarray]] | None = None


def _declared(spec: GameSpec, name: str):
    """The rules module's `name` where the spec declares it, else None; a declared part the module lacks
    counts as absent here (`contract_problems` names it). The one place a rules module is probed."""
    return getattr(spec.rules, name, None) if name in spec.capabilities else None


def game_rules(spec: GameSpec) -> GameRules:
    """`spec`'s rules with the capabilities it declares looked up now (a fresh look each call, so a patched
    module is seen: resolve it where an env is built, not per step)."""
    found = {name.lower(): _declared(spec, name) for name in spec.capabilities}
    return GameRules(spec.rules, **found)


def contract_problems(spec: GameSpec) -> list[str]:
    """What `spec`'s rules module breaks of the contract, each naming the parts: required ones missing or
    not functions, declared capabilities it lacks, capabilities it has but does not declare (nothing would
    call them), a `PHASE_NAMES` that is not a tuple of names. Empty when it conforms."""
    module, problems = spec.rules, []
    where = getattr(module, "__name__", repr(module))
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        problems.append(f"{where} lacks the required {', '.join(missing)}")
    for name in (*REQUIRED, *spec.capabilities):
        if name not in _CONSTANTS and hasattr(module, name) and not callable(getattr(module, name)):
            problems.append(f"{where}.{name} is not a function")
    if hasattr(module, "SPEC") and module.SPEC.rules_module != spec.rules_module:
        problems.append(f"{where}.SPEC names another rules module, {module.SPEC.rules_module!r}")
    absent = [name for name in spec.capabilities if not hasattr(module, name)]
    if absent:
        problems.append(f"SPEC.capabilities declares {', '.join(absent)}, which {where} does not have")
    undeclared = [name for name in CAPABILITIES if name not in spec.capabilities and hasattr(module, name)]
    if undeclared:
        problems.append(
            f"{where} has {', '.join(undeclared)}, which SPEC.capabilities does not declare (so nothing calls it)"
        )
    names = _declared(spec, "PHASE_NAMES")
    if names is not None and not (isinstance(names, tuple) and names and all(isinstance(n, str) for n in names)):
        problems.append(f"{where}.PHASE_NAMES must be a non-empty tuple of str, got {names!r}")
    return problems


# ----------------------------------------------------------------------------------------------
# Lookups every adapter shares, each written once


def phase_names(spec: GameSpec) -> tuple[str, ...] | None:
    """The game's names of `state.phase`'s values, None where it declares no phases."""
    return _declared(spec, "PHASE_NAMES")


def phase_name(spec: GameSpec, state: BatchState, i: int = 0) -> str | None:
    """The name of game `i`'s phase in `state` (for messages and pictures), None where the game has none."""
    names = phase_names(spec)
    return None if names is None else names[int(state.phase[i])]


@functools.cache
def action_names(spec: GameSpec, config: Config) -> tuple[str, ...]:
    """Every action's readable name under `config` (`rules.action_to_string`), action 0 first."""
    return tuple(spec.rules.action_to_string(config, a) for a in range(spec.num_actions))


def running_scores(spec: GameSpec, state: BatchState) -> np.ndarray:
    """`(n, P)` each seat's running score: the rules' `potential` where declared, else `final_scores`."""
    return (_declared(spec, "potential") or spec.rules.final_scores)(state)


def position_problems(spec: GameSpec, state: BatchState) -> list[str]:
    """What makes `state` no position at all (`position_invariants` where declared, else `invariants`)."""
    return (_declared(spec, "position_invariants") or spec.rules.invariants)(state)
