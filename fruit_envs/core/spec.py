"""Declared facts about each game (`GameSpec`), its configuration, and the registry of games.

Like OpenSpiel's game declarations: a game states its player counts, action count, observation
shape, length bound, reward bounds and information structure, and the conformance suite checks the
game against what it declared.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from fruit_envs.core.errors import UnknownOptionError
from fruit_envs.core.rules_api import RulesModule, check_capabilities


def option(default: Any, choices: tuple | None = None, doc: str = "", kind: type | None = None):
    """A configuration field with its allowed values and a one-line description."""
    return field(default=default, metadata={"choices": choices, "doc": doc, "kind": kind})


def outcome_rewards(won: np.ndarray) -> np.ndarray:
    """The outcome a game the rules ended pays under `reward="terminal"`, from `(n, P)` winner flags.

    The contract every game, adapter and evaluation follows (written here once; docs/termination.md shows it
    in every API):

    * *Terminated*: the rules end the game. `reward="terminal"` pays +1 each winner, -1 each other
      player, 0 all round when everyone shares the win (a full draw): this function.
    * *Truncated*: a cap that is not a rule cuts the game off (a safety net against endless play,
      declared as `GameSpec.truncation`). No outcome is paid: 0 to everyone, no end-of-game scoring,
      `truncated=True` and `terminated=False` in every API (the final observation is still given;
      SB3 bootstraps from it, so an outcome paid there would be counted twice). A truncated game
      has no winners (`game_winners`); evaluations count it as unfinished, neither win nor loss.
    * `reward="score"` pays score deltas as they happen, and nothing extra at a cut-off.
    """
    rewards = np.where(won, 1.0, -1.0).astype(np.float32)
    rewards[won.all(axis=1)] = 0.0
    return rewards


def game_winners(rules: ModuleType, state) -> np.ndarray:
    """`(n, P)` bool: the winners of the games the rules ended; none in a truncated or unfinished game
    (see `outcome_rewards`). `rules.winners` alone says who leads, whatever the state."""
    return rules.winners(state) & (state.done & ~state.truncated)[:, None]


def outcome_codes(won: np.ndarray, seats: np.ndarray, truncated: np.ndarray) -> np.ndarray:
    """`(n,)` int8 result of seat `seats[g]` in each finished game: +1 win, -1 loss, 0 a full draw or a
    truncated game (no outcome; tell the two apart by `truncated`)."""
    out = np.where(won[np.arange(len(won)), seats], 1, -1)
    out[won.all(axis=1) | truncated] = 0
    return out.astype(np.int8)


@dataclass(frozen=True)
class Config:
    """Constructor options of one game; each game subclasses it with its variants.

    Fields are plain JSON-able values so a configuration can be logged, saved and restored.
    """

    num_players: int
    reward: str = option(
        "terminal",
        ("terminal", "score"),
        "'terminal': +1 each winner, -1 each loser, 0 all round in a full draw; "
        "'score': per-step deltas of the game score, for shaping",
    )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def options(cls) -> dict[str, dataclasses.Field]:
        """The variant/option fields (everything but `num_players`)."""
        return {f.name: f for f in dataclasses.fields(cls) if f.name != "num_players"}


@dataclass(frozen=True)
class GameSpec:
    """Facts a game declares; config-dependent facts are asked of the rules module."""

    id: str  # "cherry_picking"
    name: str  # "Cherry Picking"
    env_name: str  # "CherryPicking": Gymnasium id fruit_envs/CherryPicking-v{version}
    version: int
    player_counts: tuple[int, ...]
    default_num_players: int
    config_cls: type[Config]
    num_actions: int
    observation_dtype: np.dtype
    chance: bool
    hidden_information: bool
    simultaneous: bool
    rules_module: str  # import path of the rules module
    wait_action: int | None = None  # the single legal action of a seat that is not deciding (parallel env)
    zero_sum: bool = False
    rulebook_player_counts: tuple[int, ...] | None = None  # counts the rulebook covers (default: all)
    # True when no rule depends on a seat's absolute number (no fixed start player, no tie-break by
    # seat): an observation relative to the observer then loses nothing. False: it must say the seat.
    symmetric_seats: bool = False
    # The safety cap that truncates a game (not a rule; see `outcome_rewards`), in words, or None when
    # no game is ever truncated. `max_game_length` stays an upper bound either way.
    truncation: str | None = None
    # The optional parts of the rules contract the rules module has (`rules_api.CAPABILITIES`: `advance`,
    # `legal_masks`, `PHASE_NAMES`, ...): adapters use exactly these, and the conformance suite checks them.
    capabilities: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_capabilities(self.capabilities, f"GameSpec {self.id!r}")

    @property
    def official_player_counts(self) -> tuple[int, ...]:
        return self.rulebook_player_counts or self.player_counts

    @property
    def rules(self) -> RulesModule:
        module = _RULES.get(self.rules_module)
        if module is None:
            module = _RULES[self.rules_module] = importlib.import_module(self.rules_module)
        return module

    @property
    def gym_id(self) -> str:
        return f"fruit_envs/{self.env_name}-v{self.version}"

    @property
    def pettingzoo_name(self) -> str:
        return f"{self.id}_v{self.version}"

    def make_config(self, num_players: int | None = None, **options: Any) -> Config:
        """A validated configuration: a bad value raises `ValueError`, an unknown option `UnknownOptionError`
        (a `TypeError`, as for any unexpected keyword); both name what is allowed."""
        if num_players is None:
            num_players = self.default_num_players
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(
                f"{self.name}: num_players must be an integer in {list(self.player_counts)}, got {num_players!r}"
            )
        if int(num_players) not in self.player_counts:
            raise ValueError(f"{self.name} supports num_players in {list(self.player_counts)}, got {num_players}")
        allowed = self.config_cls.options()
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            # Python's own wording ("unexpected keyword argument 'x'") is what clients match to retry without x
            plural = "s" if len(unknown) > 1 else ""
            raise UnknownOptionError(
                f"{self.name}: unknown option(s) {unknown}; allowed options are {sorted(allowed)} "
                f"(unexpected keyword argument{plural} {', '.join(map(repr, unknown))})"
            )
        values = {name: self._option_value(name, allowed[name], value) for name, value in options.items()}
        return self.config_cls(num_players=int(num_players), **values)

    def _option_value(self, name: str, f: dataclasses.Field, value: Any) -> Any:
        """`value` as the option's own type (numpy scalars become Python ones), or `ValueError`:
        `True` is not an int and `15.0` is not `15`, even where Python's `==` says so."""
        choices, kind = f.metadata.get("choices"), f.metadata.get("kind") or type(f.default)
        if kind is bool:
            exact = isinstance(value, (bool, np.bool_))
        elif kind is int:
            exact = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
        elif kind is float:
            exact = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
        else:
            exact = isinstance(value, kind)
        allowed = f"; choose one of {list(choices)}" if choices is not None else ""
        if not exact:
            kinds = {bool: "True or False", int: "an int", float: "a number", str: "a str"}
            raise ValueError(
                f"{self.name}: option {name} must be {kinds.get(kind, kind.__name__)}, "
                f"got {value!r} ({type(value).__name__}){allowed}"
            )
        value = kind(value)
        if choices is not None and value not in choices:
            raise ValueError(f"{self.name}: option {name}={value!r} is not allowed{allowed}")
        return value

    def config_from_dict(self, d: dict) -> Config:
        """The config a `Config.to_dict()` wrote (saved states, records, descriptions); bad ones raise `ValueError`."""
        if not isinstance(d, dict) or "num_players" not in d:
            raise ValueError(f"{self.name}: a config is a dict with num_players and options, got {d!r}")
        d = dict(d)
        return self.make_config(d.pop("num_players"), **d)

    def observation_shape(self, config: Config) -> tuple[int, ...]:
        return self.rules.observation_shape(config)

    def max_game_length(self, config: Config) -> int:
        """Upper bound on the number of decisions (steps) in one game."""
        return self.rules.max_game_length(config)

    def reward_bounds(self, config: Config) -> tuple[float, float]:
        """Bounds on any single step's reward for any player."""
        return self.rules.reward_bounds(config)

    def describe_options(self) -> str:
        lines = [f"num_players: one of {list(self.player_counts)} (default {self.default_num_players})"]
        for name, f in self.config_cls.options().items():
            choices = f.metadata.get("choices")
            allowed = f" one of {list(choices)}" if choices is not None else ""
            lines.append(f"{name}:{allowed} (default {f.default!r}) - {f.metadata.get('doc', '')}")
        return "\n".join(lines)


_REGISTRY: dict[str, GameSpec] = {}
_RULES: dict[str, ModuleType] = {}  # rules modules by import path, looked up once


def register_game(spec: GameSpec) -> GameSpec:
    if spec.id in _REGISTRY and _REGISTRY[spec.id] is not spec:
        raise ValueError(f"game {spec.id!r} is already registered")
    _REGISTRY[spec.id] = spec
    return spec


def get_spec(game: str | GameSpec) -> GameSpec:
    """Look a game up by id ("cherry_picking"), PettingZoo name ("cherry_picking_v0") or env name."""
    if isinstance(game, GameSpec):
        return game
    for spec in _REGISTRY.values():
        if game in (spec.id, spec.pettingzoo_name, spec.env_name, spec.gym_id):
            return spec
    raise ValueError(f"unknown game {game!r}; registered games are {sorted(_REGISTRY)}")


def registered_games() -> list[GameSpec]:
    return list(_REGISTRY.values())


def companion_name(spec: GameSpec, part: str) -> str:
    """Import path of a module beside a game's rules (`part`: "picture", "text"): its package + `.part`."""
    return spec.rules_module.rsplit(".", 1)[0] + "." + part


@functools.cache
def companion_module(game: str | GameSpec, part: str) -> ModuleType | None:
    """The game's `part` module (its picture or its words), or None when the game has none; an import error
    inside that module is raised, not taken for its absence."""
    name = companion_name(get_spec(game), part)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            return None
        raise


def retired_version(module_name: str, game: str, retired: str | None = None) -> None:
    """Raise the `ImportError` of a retired environment version module (`fruit_envs.<game>_v<old>`),
    naming the current module and Gymnasium id; the changes are listed in CHANGELOG.md. `retired`: how the
    message names the old version (default: its module's name; a registry passes the id that was asked for)."""
    spec = get_spec(game)
    old = retired or module_name.rsplit(".", 1)[-1]
    raise ImportError(
        f"{old} is retired: {spec.name} is now fruit_envs.{spec.pettingzoo_name} (Gymnasium id {spec.gym_id}); "
        f"its observations or rules changed, see CHANGELOG.md. Saved states and game records of the old "
        f"version cannot be loaded by the new rules."
    )
