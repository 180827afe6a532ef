"""The policy: every kind of POLICY turned into one agent per game and player count, and the wrappers that
log its actions and stop a cell at its first fault."""

from __future__ import annotations

import pickle
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.agents import AGENT_NAMES, make_agent, resolve_agent, state_kwargs
from fruit_envs.agents.resolve import DOTTED, factory_builder
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.protocol import Protocol
from fruit_envs.core import record as frecord
from fruit_envs.core import validate
from fruit_envs.core.errors import InvalidActionError


@dataclass
class PolicySource:
    """What was given as POLICY, and how to build its agent for a game and player count."""

    label: str
    kind: str  # name, model, object, factory, reference
    build: Any  # (spec, config) -> agent
    text: str | None = None  # the text it was resolved from (name, model path, import path): what a worker reads

    def fingerprint(self) -> str | None:
        """sha256 of the file the policy's text names (a model, a `file.py`, a module's source), so a stopped run
        is not continued with a changed policy and a card names what played; None where there is none (an agent
        name, an object). Finds a module's file without importing it or its parents: a hash runs nothing."""
        import hashlib

        if self.text is None:
            return None
        text = _absolute(self.text)
        path = text.removeprefix("ppo-sample:").removeprefix("ppo:")
        if path == text and self.kind in ("name", "reference"):
            return None  # a shipped agent by name (search:OPTIONS included): no file of its own
        if ":" in path and not path.endswith((".zip", ".json")):
            target = path.rpartition(":")[0]
            path = target if target.endswith(".py") else module_file(target) or ""
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path and Path(path).is_file() else None

    def traveller(self, protocol: Protocol, workers: bool) -> PolicyTraveller:
        """What carries this policy to the processes that play its cells: its text, or (an object or a factory)
        itself, checked before any game that it can be sent (`workers`) with a message naming the way out."""
        if self.text is not None:
            return PolicyTraveller(self.label, str(protocol.path.resolve()), text=_absolute(self.text))
        traveller = PolicyTraveller(self.label, str(protocol.path), build=self.build)
        if workers:
            from fruit_envs.core.units import check_sendable

            try:
                check_sendable(self.build, f"policy {self.label!r}", _SEND_HINT)
            except ValueError as error:
                raise BenchmarkError(str(error)) from None
        return traveller


def module_file(name: str) -> str | None:
    """The source file an import of module `name` would run, found without importing it or any parent package:
    the top-level name in the current folder (where `resolve_agent` looks first) or through the import system's
    finders, then each submodule through the finders in its parent's folders. None where there is none or `name`
    is not dotted identifiers."""
    import importlib.machinery
    import os

    if not DOTTED.fullmatch(name):
        return None
    parts = name.split(".")
    found = importlib.machinery.PathFinder.find_spec(parts[0], [os.getcwd()]) or _find(parts[0], None)
    for depth in range(1, len(parts)):
        folders = None if found is None else found.submodule_search_locations
        found = _find(".".join(parts[: depth + 1]), list(folders)) if folders else None
    origin = None if found is None else found.origin
    return origin if origin and Path(origin).is_file() else None


def _find(name: str, folders: list[str] | None):
    """The spec the import system's finders give `name` (in `folders`, a package's), without importing it."""
    import sys

    for finder in sys.meta_path:
        try:
            found = finder.find_spec(name, folders)
        except Exception:  # noqa: BLE001 (a finder that cannot look: the next one may)
            found = None
        if found is not None:
            return found
    return None


def _absolute(text: str) -> str:
    """A policy's text with a file it names (a model `.zip`, `ppo:PATH`, `file.py:make`) made absolute, so a
    worker started elsewhere (a Ray node's own folder) finds the same file."""
    for prefix in ("ppo:", "ppo-sample:", ""):
        rest = text[len(prefix) :] if text.startswith(prefix) else None
        if rest is None:
            continue
        path, sep, attr = rest.rpartition(":") if rest.partition(":")[0].endswith(".py") else (rest, "", "")
        if (path.endswith((".zip", ".json", ".py"))) and Path(path).is_file():
            return f"{prefix}{Path(path).resolve()}{sep}{attr}"
    return text


_SEND_HINT = (
    "give it by import path instead ('package.module:make' or 'path/to/file.py:make', a factory "
    "make(game_spec, config) -> agent that each worker imports), or run with --workers 1 (workers=1)"
)


@dataclass
class PolicyTraveller:
    """A policy on its way to a worker: rebuilt there from its text, or unpickled (cloudpickle) from `build`.
    Agents built in a process are kept there for the next cell (`agent_for`)."""

    label: str
    protocol: str
    text: str | None = None
    build: Any = None
    run: str = field(default_factory=lambda: uuid.uuid4().hex)  # which run's cells it plays (`play.remember`)

    def __getstate__(self) -> dict:
        import cloudpickle

        state = dict(self.__dict__)
        state["build"] = None if self.build is None else cloudpickle.dumps(self.build)
        return state

    def __setstate__(self, state: dict) -> None:
        if state.get("build") is not None:
            state["build"] = pickle.loads(state["build"])
        self.__dict__.update(state)

    def agent(self, spec, config) -> Any:
        if self.build is None:
            from fruit_envs.benchmarks.benchmark.protocol import load_protocol

            self.build = resolve_policy(self.text, load_protocol(Path(self.protocol))).build
        return self.build(spec, config)


def resolve_policy(policy: Any, protocol: Protocol | None = None) -> PolicySource:
    """A `PolicySource` from anything `fruit_envs.agents.resolve_agent` takes (an agent name, a model path,
    `module:make`, `file.py:make`), `reference:NAME` (a reference agent of the protocol, e.g. search at its
    fixed budget), an agent or a factory; anything else is a `BenchmarkError` listing what is allowed."""
    if isinstance(policy, Path):
        policy = str(policy)
    if isinstance(policy, str):
        text = policy.strip()
        if text.startswith("reference:") and protocol is not None:
            name = text.partition(":")[2]
            if name not in protocol.references:
                raise BenchmarkError(
                    f"policy {text!r}: protocol v{protocol.version} has references {list(protocol.references)}"
                )
            agents = protocol.references[name]
            return PolicySource(
                text, "reference", lambda spec, config: make_agent(agents[spec.id], spec, config), text=text
            )
        try:
            source = resolve_agent(text)
        except ValueError as error:
            problem = str(error).removeprefix(f"agent {text!r}: ")
            raise BenchmarkError(f"policy {text!r}: {problem}") from None
        return PolicySource(source.label, source.kind, source.build, text=text)
    if hasattr(policy, "act"):
        return PolicySource(frecord.agent_label(policy), "object", lambda spec, config: policy)
    if callable(policy):
        name = getattr(policy, "__qualname__", None) or type(policy).__name__
        module = getattr(policy, "__module__", None)
        label = f"{module}:{name}" if module else name
        return PolicySource(label, "factory", factory_builder(policy, label))
    raise BenchmarkError(
        f"policy must be an agent name ({', '.join(AGENT_NAMES)}), a model .zip, 'package.module:make' or "
        f"'path/to/file.py:make', an object with act(obs, mask, rng) or a factory make(game_spec, config) -> agent; "
        f"got {policy!r}"
    )


def is_privileged(agent: Any) -> bool:
    """A policy that reads the true state of the game (`needs_state`, as search does) sees more than its seat."""
    return bool(getattr(agent, "needs_state", False))


class _Fault(Exception):
    """Raised inside a cell by `_Checked`: the policy's failure at one decision of one game, or, when it
    raised or answered malformed for the whole batch (`batch`: the cell's games in it), of that batch;
    `game`, `seat` and `step` then name the batch's first game, the one saved as the replayable example."""

    def __init__(self, problem: str, game: int, seat: int, step: int, attempted: Any = None, batch: Any = None) -> None:
        super().__init__(problem)
        self.problem, self.game, self.seat, self.step, self.attempted = problem, game, seat, step, attempted
        self.batch = None if batch is None else [int(g) for g in batch]


class _Logged:
    """Plays an agent of a cell and writes its actions into the cell's history `(G, T)`, so a game that
    fails can be saved from its start. Gets the games' states and indices from the arena (`needs_state`,
    `needs_games`) and passes the state on only to an agent that asks for it."""

    needs_state = True
    needs_games = True
    reports_faults = True  # its faults reach the cell as they are raised (play_games does not wrap them)

    def __init__(self, agent: Any, history: np.ndarray):
        self.agent, self.history = agent, history
        self.name = frecord.agent_label(agent)

    def choose(self, obs, mask, rng, state, seats, games) -> Any:
        extra = state_kwargs(self.agent, state, seats)
        if getattr(self.agent, "needs_games", False):
            extra["games"] = games
        return self.agent.act(obs, mask, rng, **extra)

    def act(self, obs, mask, rng, state, seats, games) -> np.ndarray:
        actions = np.asarray(self.choose(obs, mask, rng, state, seats, games), dtype=np.int64)
        self.history[games, state.step_count] = actions
        return actions


class _Checked(_Logged):
    """The policy under test: anything it raises and any action that is malformed (another shape, not an
    integer, out of range) or illegal stops the cell as a `_Fault` naming the game, seat and step (an
    exception or a malformed answer belongs to the whole batch: the fault names the batch)."""

    def act(self, obs, mask, rng, state, seats, games) -> np.ndarray:
        n, num_actions = mask.shape
        first = (int(games[0]), int(seats[0]), int(state.step_count[0]))
        try:
            raw = self.choose(obs, mask, rng, state, seats, games)
        except Exception as error:
            raise _Fault(f"raised {type(error).__name__}: {error}", *first, batch=games) from error
        try:
            actions = validate.as_actions(raw, n, num_actions, "its actions")
        except InvalidActionError as error:
            raise _Fault(
                f"returned a malformed batch of actions ({error}; one integer action per row of the mask)",
                *first,
                attempted=_shown(raw),
                batch=games,
            ) from None
        illegal = ~mask[np.arange(n), actions]
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            legal = np.flatnonzero(mask[i]).tolist()
            raise _Fault(
                f"chose action {int(actions[i])}, which is not legal here (legal: {legal})",
                int(games[i]),
                int(seats[i]),
                int(state.step_count[i]),
                attempted=int(actions[i]),
            )
        self.history[games, state.step_count] = actions
        return actions


def _shown(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
