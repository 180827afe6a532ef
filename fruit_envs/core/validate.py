"""The validation layer at every boundary, written once for all games.

* Actions: `as_action` / `as_actions` turn what a user passes into int64 action ids, or raise
  `InvalidActionError` with one rule and one message for every API: an action is a Python int or a
  numpy integer in `0..A-1` (never a bool, float or string); a batch of N is an integer array of shape
  `(N,)` (or a list of N such ints).
* Seeds: `check_seed` (None or a non-negative int).
* States: `check_state` checks a state's schema against the game's own `init` (field names, dtypes,
  shapes, one batch size, the config), the value bounds the game declares (`field_bounds(config)`),
  the game's invariants, and that exactly the live games have a legal action.
* Descriptions: `Reader` reads a `from_description` dict field by field, every error a
  `DescriptionError` naming the field; `read_header` reads the fields every game shares, and
  `finish` runs `check_state` on the result.
* Paths: `writable_file` / `writable_dir`, checked before any work starts.
"""

from __future__ import annotations

import functools
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.errors import DescriptionError, InvalidActionError, StateError
from fruit_envs.core.rules_api import game_rules, position_problems
from fruit_envs.core.spec import Config, GameSpec, get_spec

# ----------------------------------------------------------------------------------------------
# Actions


def is_int(value: Any) -> bool:
    """A Python int or numpy integer, not a bool (`True` is an int to Python, never to us)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value: Any) -> bool:
    """An int or a finite float, not a bool and not text: what a JSON number read from data may be (Python's
    reader takes NaN and Infinity, which JSON has not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def quoted(value: Any) -> str:
    """`value` as a message quotes it: its repr, cut at 60 characters (data may hold anything, of any length)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def action_rule(num_actions: int) -> str:
    return f"an action is an integer 0..{num_actions - 1} (a Python int or numpy integer; not a bool, float or str)"


def _shown(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of dtype {value.dtype} and shape {value.shape}"
    return f"{quoted(value)} ({type(value).__name__})"


def as_action(action: Any, num_actions: int | None, where: str = "action") -> int:
    """One action as an int, or `InvalidActionError`; `num_actions=None` checks the type only."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if not is_int(action) or (num_actions is not None and not 0 <= action < num_actions):
        rule = action_rule(num_actions) if num_actions is not None else action_rule(1).replace("0..0", "id")
        raise InvalidActionError(action, f"{where}: {_shown(action)} is not an action; {rule}")
    return int(action)


def as_actions(actions: Any, n: int, num_actions: int, where: str = "actions") -> np.ndarray:
    """`(n,)` int64 actions from an integer array of shape `(n,)` or a list of n ints, or `InvalidActionError`."""
    rule = f"{action_rule(num_actions)}; a batch of {n} takes an integer array of shape ({n},)"
    if isinstance(actions, (list, tuple)):
        if len(actions) != n:
            raise InvalidActionError(actions, f"{where}: {len(actions)} actions for {n} games; {rule}")
        for k, a in enumerate(actions):
            as_action(a, num_actions, f"{where}[{k}]")
        return np.array([int(a) for a in actions], dtype=np.int64)
    if not isinstance(actions, np.ndarray) or actions.dtype.kind not in "iu" or actions.shape != (n,):
        raise InvalidActionError(actions, f"{where}: {_shown(actions)} is not a batch of {n} actions; {rule}")
    outside = (actions < 0) | (actions >= num_actions)
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        raise InvalidActionError(actions, f"{where}[{k}]: {actions[k]!r} is not an action; {rule}")
    return actions.astype(np.int64)


def check_seed(seed: Any, where: str = "seed") -> int | None:
    """None, or a non-negative int (numpy's own message about negative seeds names no argument)."""
    if seed is None:
        return None
    if not is_int(seed) or seed < 0:
        raise ValueError(f"{where} must be None or a non-negative integer, got {_shown(seed)}")
    return int(seed)


# ----------------------------------------------------------------------------------------------
# States


@functools.cache
def _template(game: str, config: Config):
    """A freshly set-up game of this config: the dtypes and shapes every state must have."""
    spec = get_spec(game)
    return spec.rules.init(config, frng.keys_from_seed(0, 1))


def field_bounds(spec: GameSpec, config: Config) -> dict[str, tuple]:
    """Inclusive `(low, high)` of the public schema's fields and of the game's own (`rules.field_bounds`)."""
    bounds = {
        "to_move": (0, config.num_players - 1),
        "step_count": (0, spec.max_game_length(config)),
    }
    declared = game_rules(spec).field_bounds
    if declared is not None:
        bounds.update(declared(config))
    return bounds


def check_arrays(spec: GameSpec, config: Config, arrays: dict, where: str = "state") -> int:
    """Field names, types, dtypes, shapes and value bounds of a state's arrays; returns the batch size."""
    template = _template(spec.id, config).arrays()
    missing, unknown = sorted(set(template) - set(arrays)), sorted(set(arrays) - set(template))
    if missing or unknown:
        raise StateError(
            f"{where}: a {spec.name} state has the fields {sorted(template)}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unknown {unknown}" if unknown else "")
        )
    n = None
    for name, model in template.items():
        array = arrays[name]
        if not isinstance(array, np.ndarray):
            raise StateError(f"{where}: field {name!r} must be a numpy array, got {type(array).__name__}")
        if array.dtype != model.dtype:
            raise StateError(f"{where}: field {name!r} has dtype {array.dtype}, a {spec.name} state has {model.dtype}")
        expected = ("n", *model.shape[1:])
        if array.ndim != model.ndim or array.shape[1:] != model.shape[1:]:
            raise StateError(
                f"{where}: field {name!r} has shape {array.shape}, expected {expected} for {config.num_players} players"
            )
        if n is None:
            n = array.shape[0]
        elif array.shape[0] != n:
            raise StateError(f"{where}: field {name!r} holds {array.shape[0]} games, the others {n} (one batch size)")
    for name, (low, high) in field_bounds(spec, config).items():
        array = arrays[name]
        outside = (array < low) | (array > high)
        if outside.any():
            index = tuple(int(i) for i in np.argwhere(outside)[0])
            lo, hi = (np.broadcast_to(bound, array.shape)[index].item() for bound in (low, high))
            raise StateError(
                f"{where}: field {name!r} holds {array[index].item()!r} at {index}; allowed there: {lo}..{hi}"
            )
    stray = arrays["truncated"] & ~arrays["done"]
    if stray.any():
        raise StateError(f"{where}: game {int(np.flatnonzero(stray)[0])} is truncated but not done")
    return int(n)


def check_state(state: Any, where: str = "state", config: Config | None = None, batch_size: int | None = None) -> None:
    """Raise `StateError` unless `state` is a sound batch of positions of its game (and `config`).

    Checks, in order: the state's class and config, `check_arrays`, the game's position invariants
    (`rules.position_invariants`, else `rules.invariants`), and that a game has a legal action
    exactly while it is live.
    """
    from fruit_envs.core.state import BatchState

    if not isinstance(state, BatchState):
        raise StateError(f"{where}: expected a game state (a BatchState), got {type(state).__name__}")
    spec = get_spec(state.GAME)
    rules = spec.rules
    if type(state) is not rules.State:
        raise StateError(f"{where}: a {spec.name} state must be a {rules.__name__}.State, got {type(state).__name__}")
    if not isinstance(state.config, spec.config_cls):
        raise StateError(f"{where}: config must be a {spec.config_cls.__name__}, got {state.config!r}")
    if config is not None and state.config != config:
        raise StateError(f"{where}: the state's config {state.config} differs from the expected {config}")
    n = check_arrays(spec, state.config, state.arrays(), where)
    if batch_size is not None and n != batch_size:
        raise StateError(f"{where}: expected a batch of {batch_size} game{'s' * (batch_size != 1)}, got {n}")
    problems = position_problems(spec, state)
    if problems:
        raise StateError(f"{where}: not a consistent {spec.name} position: " + "; ".join(problems))
    movable = rules.legal_mask(state).any(axis=1)
    stuck = ~state.done & ~movable
    if stuck.any():
        g = int(np.flatnonzero(stuck)[0])
        raise StateError(
            f"{where}: game {g} is live but player_{int(state.to_move[g])}, the seat to move, has no legal action"
        )
    if (state.done & movable).any():
        raise StateError(f"{where}: game {int(np.flatnonzero(state.done & movable)[0])} is over but has legal actions")


# ----------------------------------------------------------------------------------------------
# Descriptions

REQUIRED = object()


class Reader:
    """Reads a description dict field by field; each error is a `DescriptionError` naming its path."""

    def __init__(self, spec: GameSpec):
        self.spec = spec

    def fail(self, field: str | None, problem: str):
        raise DescriptionError(field, problem, self.spec.name)

    @staticmethod
    def join(path: str, key) -> str:
        if isinstance(key, int):
            return f"{path}[{key}]"
        return f"{path}.{key}" if path else str(key)

    def mapping(self, value: Any, path: str, allowed=None, required=()) -> dict:
        """A dict with string keys among `allowed` (any when None) holding every `required` key."""
        if not isinstance(value, dict):
            self.fail(path or None, f"must be a dict, got {_shown(value)}")
        if allowed is not None:
            unknown = [k for k in value if k not in allowed]
            if unknown:
                self.fail(self.join(path, unknown[0]), f"unknown field; allowed here: {sorted(map(str, allowed))}")
        for key in required:
            if key not in value:
                self.fail(self.join(path, key), "missing")
        return value

    def get(self, node: dict, key: str, path: str, default: Any = REQUIRED) -> Any:
        if key in node:
            return node[key]
        if default is REQUIRED:
            self.fail(self.join(path, key), "missing")
        return default

    def integer(self, value: Any, path: str, low: int | None = None, high: int | None = None) -> int:
        if not is_int(value):
            self.fail(path, f"must be an integer, got {_shown(value)}")
        if (low is not None and value < low) or (high is not None and value > high):
            if low is not None and high is not None:
                bounds = f"{low}..{high}"
            else:
                bounds = f">= {low}" if low is not None else f"<= {high}"
            self.fail(path, f"must be in {bounds}, got {value}")
        return int(value)

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            self.fail(path, f"must be true or false, got {_shown(value)}")
        return bool(value)

    def string(self, value: Any, path: str, choices=None) -> str:
        if not isinstance(value, str):
            self.fail(path, f"must be a string, got {_shown(value)}")
        if choices is not None and value not in choices:
            self.fail(path, f"must be one of {list(choices)}, got {value!r}")
        return value

    def choice(self, value: Any, path: str, choices) -> int:
        """The index of `value` (a string) in `choices`."""
        return list(choices).index(self.string(value, path, choices))

    def items(self, value: Any, path: str, length: int | None = None, max_length: int | None = None) -> list:
        if not isinstance(value, list):
            self.fail(path, f"must be a list, got {_shown(value)}")
        if length is not None and len(value) != length:
            self.fail(path, f"must hold {length} entries, got {len(value)}")
        if max_length is not None and len(value) > max_length:
            self.fail(path, f"holds {len(value)} entries, at most {max_length} are possible")
        return value

    def seat(self, value: Any, path: str, num_players: int, none: bool = False) -> int | None:
        """`"player_k"` as k (None allowed when `none`)."""
        seats = [f"player_{k}" for k in range(num_players)]
        if value is None and none:
            return None
        if not isinstance(value, str) or value not in seats:
            self.fail(path, f"must be one of {seats}{' or null' if none else ''}, got {_shown(value)}")
        return seats.index(value)

    def seats_mapping(self, value: Any, path: str, num_players: int, required: bool = False) -> dict:
        """A dict keyed by seat names `player_k` (all of them when `required`)."""
        seats = [f"player_{k}" for k in range(num_players)]
        return self.mapping(value, path, seats, seats if required else ())


HEADER = ("game", "version", "config", "rng_key", "done", "truncated", "step_count")


def read_header(reader: Reader, d: Any) -> tuple[Config, dict]:
    """The fields every description shares: `(config, {"rng_key", "done", "truncated", "step_count"})`;
    all but `config` may be left out (key 0, a live game, no steps taken)."""
    spec = reader.spec
    reader.mapping(d, "", required=("config",))
    if "game" in d and d["game"] != spec.id:
        reader.fail("game", f"this is {spec.id!r}, the description is of {d['game']!r}")
    if "version" in d:
        version = reader.integer(d["version"], "version")
        if version != spec.version:
            reader.fail(
                "version",
                f"the description is of {spec.id} v{version}, rules are v{spec.version} ({spec.pettingzoo_name}); "
                "positions cannot cross rule versions",
            )
    config_dict = reader.mapping(d["config"], "config", required=("num_players",))
    try:
        config = spec.config_from_dict(config_dict)
    except (ValueError, TypeError) as error:
        reader.fail("config", str(error))
    key = d.get("rng_key", 0)
    if isinstance(key, str) and key.isascii() and key.isdecimal():
        key = int(key)
    header = {
        "rng_key": reader.integer(key, "rng_key", 0, 2**64 - 1),
        "done": reader.boolean(d.get("done", False), "done"),
        "truncated": reader.boolean(d.get("truncated", False), "truncated"),
        "step_count": reader.integer(d.get("step_count", 0), "step_count", 0, spec.max_game_length(config)),
    }
    if header["truncated"] and not header["done"]:
        reader.fail("truncated", "a truncated game is done: set done to true as well")
    return config, header


def finish(reader: Reader, state) -> Any:
    """The state a description built, after `check_state`; a problem is a `DescriptionError` of the whole position."""
    try:
        check_state(state, "position")
    except StateError as error:
        reader.fail(None, str(error).removeprefix("position: "))
    return state


# ----------------------------------------------------------------------------------------------
# Paths: checked before any work starts, so a long game or run is never lost at the end


def writable_file(path: str | Path, what: str = "file") -> Path:
    """`path` as a `Path` once a file has been opened for writing there, its missing folders made;
    what the check made is removed again, an existing file is left as it was. Else `ValueError`.

    Checked by doing, not by `os.access`: root passes `os.access` almost everywhere, and a file
    system can refuse what the permission bits allow (read-only mounts, /proc)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder; give a file name")
    made = _make_folders(path.parent, f"{what} {str(path)!r}")
    try:
        existed = path.exists()
        with open(path, "ab"):  # appending nothing changes nothing in a file that exists
            pass
        if not existed:
            path.unlink()
    except OSError as error:
        raise ValueError(f"{what} {str(path)!r} cannot be written ({_reason(error)})") from None
    finally:
        _remove_folders(made)
    return path


def writable_dir(path: str | Path, what: str = "folder") -> Path:
    """`path` as a `Path` once a file has been written in it (it may not exist yet: it is made, then
    removed again with whatever else the check made); else `ValueError`."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a file, not a folder")
    made = _make_folders(path, f"{what} {str(path)!r}")
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ValueError(f"{what} {str(path)!r}: cannot write in it ({_reason(error)})") from None
    finally:
        _remove_folders(made)
    return path


def _make_folders(folder: Path, what: str) -> list[Path]:
    """Make `folder` and its missing parents; returns the folders made, deepest last."""
    missing = []
    folder = folder.absolute()
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{what}: {str(folder)!r} is a file, so no folder can be made below it")
    made = []
    for new in reversed(missing):
        try:
            new.mkdir()
        except FileExistsError:
            continue  # made meanwhile by someone else: not ours to remove
        except OSError as error:
            _remove_folders(made)
            raise ValueError(f"{what}: cannot make the folder {str(new)!r} ({_reason(error)})") from None
        made.append(new)
    return made


def _remove_folders(made: list[Path]) -> None:
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            return  # something else was put there meanwhile: leave it and its parents


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__
