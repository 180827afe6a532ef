"""Game records: one compact, versioned JSON line per game, enough to replay it exactly.

    {"format": "fruit_envs.record", "format_version": 1, "game": "cherry_picking", "rules_version": 0,
     "config": {"num_players": 2, ...}, "key": "1234567890123456789", "actions": [17, 3, 53, ...],
     "players": ["greedy", "random"],
     "outcome": {"scores": [61, 48], "winners": [0], "length": 102, "truncated": false, "digest": "9c1f..."},
     "meta": {"source": "tournament", "fruit_envs": "0.1.0", "time": "2026-11-29 13:15:00"}}

A game starts from `key`, the per-game random key given to `rules.init` (a decimal string: uint64 does
not survive every JSON reader), or, for a position set up by hand, from `start`, its `describe()`.
`actions` are every decision in order; the seat of each is the one to move. `outcome.digest` is a
hash of the final `describe()`, so a replay proves it reached the very same end, not just the same
scores. A game that ended by an illegal action records it under `outcome.illegal` (`{"seats": [...],
"actions": [...]}`, not applied; the offenders lose, everyone else wins).

Optional `decisions` (issue 58): why each agent decided as it did, where the agent says,
`{"version": 1, "items": [...]}` with one item per action: null (a person, or an agent that says nothing) or
`{"kind": "probability" | "rollout value" | "heuristic score", "value": the agent's value estimate or null,
"actions": [[action, number or null], ...]}` over the legal actions. A reader that does not know the version
ignores the field; the game replays the same either way.

A record replays only with the rules version that made it (`rules_version` = the game's
`SPEC.version`, the `_v0` of its environment name); another version is refused with a clear message.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.core import validate
from fruit_envs.core.spec import GameSpec, game_winners, get_spec

FORMAT = "fruit_envs.record"
FORMAT_VERSION = 1
DECISIONS_VERSION = 1  # of the optional `decisions` field
DECISION_KINDS = ("probability", "rollout value", "heuristic score")


class RecordError(ValueError):
    """A record that cannot be read or replayed here (bad format, unknown game, other rules version)."""


class ReplayMismatch(RecordError):
    """A replay that did not reproduce its record (an illegal action, or another outcome)."""


@dataclass
class GameRecord:
    game: str
    rules_version: int
    config: dict
    actions: list[int]
    key: int | None = None  # the key given to rules.init, or None when the game starts from `start`
    start: dict | None = None  # describe() of a hand-set starting position
    players: list[str] | None = None  # who sat where (agent labels), when known
    outcome: dict | None = None  # None: the game was not finished
    meta: dict = field(default_factory=dict)
    decisions: list | None = None  # per action, why its agent chose it (None where unknown); see the module

    def to_dict(self) -> dict:
        d: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "rules_version": self.rules_version,
            "config": self.config,
        }
        if self.key is not None:
            d["key"] = str(int(self.key))
        if self.start is not None:
            d["start"] = self.start
        d["actions"] = [int(a) for a in self.actions]
        if self.players is not None:
            d["players"] = list(self.players)
        d["outcome"] = self.outcome
        d["meta"] = self.meta
        if self.decisions is not None:
            d["decisions"] = {"version": DECISIONS_VERSION, "items": self.decisions}
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict, where: str = "record") -> GameRecord:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise RecordError(f'{where}: not a fruit_envs game record (no "format": "{FORMAT}")')
        version = d.get("format_version")
        if not validate.is_int(version) or version < 1:
            raise RecordError(f"{where}: format_version must be a positive integer, got {version!r}")
        if version > FORMAT_VERSION:
            raise RecordError(
                f"{where}: record format version {version!r} is newer than this fruit_envs reads "
                f"(up to {FORMAT_VERSION}); upgrade fruit_envs"
            )
        return cls(
            game=_field(d, "game", str, where),
            rules_version=_field(d, "rules_version", int, where),
            config=_config(d, where),
            actions=_actions(d, where),
            key=_key(d.get("key"), where),
            start=_field(d, "start", dict, where, optional=True),
            players=_players(d, where),
            outcome=_outcome(d, where),
            meta=_field(d, "meta", dict, where, optional=True) or {},
            decisions=_decisions(d, where),
        )

    @property
    def seats(self) -> list[str]:
        return [f"player_{k}" for k in range(int(self.config["num_players"]))]

    def label(self, seat: int) -> str:
        """`player_k`, with the agent's label when known: `player_1 (greedy)`."""
        name = f"player_{seat}"
        if self.players and seat < len(self.players) and self.players[seat]:
            return f"{name} ({self.players[seat]})"
        return name


# --- reading a record's fields: every problem a RecordError naming the field -----------------------

_TYPE_NAMES = {str: "a string", int: "an integer", dict: "an object", list: "a list", bool: "true or false"}


def _check_type(value: Any, kind: type, name: str, where: str) -> Any:
    ok = validate.is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        raise RecordError(f"{where}: {name} must be {_TYPE_NAMES[kind]}, got {value!r}")
    return value


def _field(d: dict, name: str, kind: type, where: str, optional: bool = False) -> Any:
    if name not in d or (optional and d[name] is None):
        if optional:
            return None
        raise RecordError(f'{where}: malformed record (no "{name}")')
    return _check_type(d[name], kind, name, where)


def _config(d: dict, where: str) -> dict:
    config = _field(d, "config", dict, where)
    players = config.get("num_players")
    if not validate.is_int(players) or players < 1:
        raise RecordError(f"{where}: config.num_players must be a positive integer, got {players!r}")
    return dict(config)


def _actions(d: dict, where: str) -> list[int]:
    actions = _field(d, "actions", list, where)
    try:
        return [validate.as_action(a, None, f"{where}: actions[{t}]") for t, a in enumerate(actions)]
    except ValueError as error:
        raise RecordError(str(error)) from None


def _key(key: Any, where: str) -> int | None:
    """The decimal string (or int) of a uint64 key, or None."""
    if key is None:
        return None
    if isinstance(key, str) and key.isascii() and key.isdecimal():
        key = int(key)
    if not validate.is_int(key) or not 0 <= key < 2**64:
        raise RecordError(f"{where}: key must be a decimal string of an integer in 0..2**64-1, got {key!r}")
    return int(key)


def _players(d: dict, where: str) -> list[str] | None:
    players = _field(d, "players", list, where, optional=True)
    if players is not None and not all(isinstance(p, str) for p in players):
        raise RecordError(f"{where}: players must be a list of agent labels (strings), got {str(players)[:200]}")
    seats = d["config"]["num_players"]
    if players is not None and len(players) != seats:
        raise RecordError(f"{where}: players lists {len(players)} labels for {seats} seats (one label per seat)")
    return players


def _decisions(d: dict, where: str) -> list | None:
    """`decisions`: None if absent or of a version this reader does not know; otherwise one item per action,
    each null or `{"kind", "value", "actions": [[action, number or null], ...]}`."""
    raw = d.get("decisions")
    if raw is None or (isinstance(raw, dict) and validate.is_int(raw.get("version")) and raw["version"] > 1):
        return None
    items = raw.get("items") if isinstance(raw, dict) and raw.get("version") == DECISIONS_VERSION else None
    if not isinstance(items, list) or len(items) != len(d["actions"]):
        raise RecordError(
            f'{where}: decisions must be {{"version": {DECISIONS_VERSION}, "items": [one per action, '
            f"{len(d['actions'])} in all]}}, got {str(raw)[:200]}"
        )
    for t, item in enumerate(items):
        if item is None:
            continue
        rows = item.get("actions") if isinstance(item, dict) else None
        good = (
            isinstance(item, dict)
            and item.get("kind") in DECISION_KINDS
            and (item.get("value") is None or validate.is_number(item["value"]))
            and isinstance(rows, list)
            and all(
                isinstance(r, list) and len(r) == 2 and validate.is_int(r[0])
                and (r[1] is None or validate.is_number(r[1]))
                for r in rows
            )
        )  # fmt: skip
        if not good:
            raise RecordError(
                f"{where}: decisions item {t} must be null or {{'kind': one of {list(DECISION_KINDS)}, 'value': a "
                f"finite number or null, 'actions': [[action, finite number or null], ...]}}, got {str(item)[:200]}"
            )
    return items


def _outcome(d: dict, where: str) -> dict | None:
    """`outcome`: None (unfinished) or an object whose recorded fields have their types."""
    outcome = _field(d, "outcome", dict, where, optional=True)
    if outcome is None:
        return None
    kinds = {"scores": list, "winners": list, "length": int, "truncated": bool, "digest": str, "illegal": dict}
    for name, kind in kinds.items():
        if name in outcome:
            _check_type(outcome[name], kind, f"outcome.{name}", where)
    for name in ("scores", "winners"):
        if name in outcome and not all(validate.is_int(x) for x in outcome[name]):
            raise RecordError(f"{where}: outcome.{name} must be a list of integers, got {outcome[name]!r}")
    illegal = outcome.get("illegal")
    if illegal is not None:
        seats, actions = illegal.get("seats"), illegal.get("actions")
        players = d["config"]["num_players"]
        if (
            not isinstance(seats, list)
            or not seats
            or not all(validate.is_int(k) and 0 <= k < players for k in seats)
            or not isinstance(actions, list)
        ):
            raise RecordError(
                f'{where}: outcome.illegal must be {{"seats": [seat numbers 0..{players - 1}], "actions": [...]}}, '
                f"got {illegal!r}"
            )
    return outcome


# --- outcome --------------------------------------------------------------------------------------


def digest(state, i: int = 0) -> str:
    """A short hash of game `i`'s complete `describe()`: equal digests, equal positions."""
    text = json.dumps(get_spec(state.GAME).rules.describe(state, i), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def outcome_of(state, i: int = 0, illegal: dict | None = None) -> dict:
    """Scores, winners (seats), decisions, truncation and digest of finished game `i`.

    A truncated game (cut off by a cap, see `fruit_envs.core.spec.outcome_rewards`) has no winners;
    `leading` names who led when it was cut off (scores as they stood)."""
    rules = get_spec(state.GAME).rules
    sub = state.take(i)
    if illegal is None:
        winners = [int(k) for k in np.flatnonzero(game_winners(rules, sub)[0])]
    else:  # the offenders lose, everyone else wins
        winners = [k for k in range(state.config.num_players) if k not in illegal["seats"]]
    out = {
        "scores": [int(x) for x in np.asarray(rules.final_scores(sub))[0]],
        "winners": winners,
        "length": int(state.step_count[i]),
        "truncated": bool(state.truncated[i]),
        "digest": digest(state, i),
    }
    if illegal is None and out["truncated"]:
        out["leading"] = [int(k) for k in np.flatnonzero(rules.winners(sub)[0])]
    if illegal is not None:
        out["illegal"] = illegal
    return out


def _meta(source: str, extra: dict | None = None) -> dict:
    import fruit_envs

    meta = {"source": source, "fruit_envs": fruit_envs.__version__, "time": time.strftime("%Y-%m-%d %H:%M:%S")}
    meta.update(extra or {})
    return meta


def agent_label(agent: Any) -> str:
    """A readable label of an agent or policy: `greedy`, `ppo:runs/x/model.zip`, or its class name."""
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None) or type(agent).__name__
    path = getattr(agent, "path", None)
    return f"{name}:{path}" if path else str(name)


# --- files and sinks ------------------------------------------------------------------------------


def write_records(path: str | Path, records: Iterable[GameRecord]) -> Path:
    """Append records to a JSON-lines file (created with its folder when missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        for record in records:
            f.write(record.to_json() + "\n")
    return path


def read_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file (blank lines skipped); errors name the line."""
    path = Path(path)
    if not path.is_file():
        raise RecordError(f"no record file at {str(path)!r}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: not a text file of JSON lines ({error.reason} at byte {error.start})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"{path}:{number}: not JSON ({error.msg})") from None
        except (ValueError, RecursionError) as error:  # an integer of thousands of digits, nesting too deep
            raise RecordError(f"{path}:{number}: not a readable JSON record ({error})") from None
        records.append(GameRecord.from_dict(d, f"{path}:{number}"))
    return records


Sink = Callable[[GameRecord], None]


class FileSink:
    """Appends each finished game to a JSON-lines file. It holds the path, not an open file, so an env
    recording to it pickles and deep-copies: the copy appends to the same file."""

    def __init__(self, path: str | Path):
        self.path = validate.writable_file(path, "record file")

    def __call__(self, record: GameRecord) -> None:
        write_records(self.path, [record])

    def __repr__(self) -> str:
        return f"FileSink({str(self.path)!r})"


def make_sink(target: Any) -> Sink | None:
    """Where finished games go: a path (JSON lines, appended; checked writable now, not at the end of
    a game), a list (records appended), a callable taking a `GameRecord`, or None (not recorded)."""
    if target is None or target is False:
        return None
    if isinstance(target, (str, Path)):
        return FileSink(target)
    if isinstance(target, list):
        return target.append
    if callable(target):
        return target
    raise ValueError(f"record must be a file path, a list, a callable or None, got {target!r}")


# --- replay ---------------------------------------------------------------------------------------


def check_version(record: GameRecord, where: str = "record") -> GameSpec:
    """The record's game spec, after refusing another rules version or an unknown game."""
    try:
        spec = get_spec(record.game)
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    if record.rules_version != spec.version:
        raise RecordError(
            f"{where}: this record was made with {spec.name} rules v{record.rules_version} "
            f"({spec.id}_v{record.rules_version}), but this fruit_envs has v{spec.version} ({spec.pettingzoo_name}); "
            f"a record replays only with the rules version that made it"
            + (f" (it came from fruit_envs {record.meta['fruit_envs']})" if "fruit_envs" in record.meta else "")
        )
    return spec


def start_state(record: GameRecord, where: str = "record"):
    """The batch-of-1 state the recorded game started from."""
    spec = check_version(record, where)
    try:
        config = spec.config_from_dict(record.config)
    except (ValueError, TypeError) as error:
        raise RecordError(f"{where}: bad config {record.config}: {error}") from None
    if record.start is not None:
        try:
            state = spec.rules.from_description(record.start)
        except ValueError as error:
            raise RecordError(f"{where}: start: {error}") from None
        if state.config != config:
            raise RecordError(f"{where}: the start position's config differs from the record's config")
        return state
    if record.key is None:
        raise RecordError(f'{where}: a record needs a "key" or a "start" position')
    return spec.rules.init(config, np.array([record.key], dtype=np.uint64))


@dataclass
class Replay:
    """A replayed game: the states before and after every decision, who decided, and the outcome."""

    record: GameRecord
    states: list  # batch-of-1 states: the start, then after each action
    seats: list[int]  # seat that took each action
    rewards: np.ndarray  # (P,) total reward of each seat
    outcome: dict | None  # the replay's own outcome (None if the game is not over)

    @property
    def final(self):
        return self.states[-1]


def replay(record: GameRecord, where: str = "record", check: bool = True) -> Replay:
    """Replay a record exactly; with `check`, a difference from the recorded outcome (or an illegal
    action) raises `ReplayMismatch` naming the first difference."""
    spec = check_version(record, where)
    rules = spec.rules
    state = start_state(record, where)
    states, seats = [state], []
    rewards = np.zeros(state.config.num_players, dtype=np.float64)
    for t, action in enumerate(record.actions):
        if state.done[0]:
            raise ReplayMismatch(f"{where}: the game ended after {t} actions, but the record has {len(record.actions)}")
        seat = int(state.to_move[0])
        mask = rules.legal_mask(state)[0]
        if not (0 <= action < spec.num_actions and mask[action]):
            raise ReplayMismatch(
                f"{where}: action {t + 1} ({action}) by player_{seat} is not legal here; "
                f"legal: {np.flatnonzero(mask).tolist()}"
            )
        state, r = rules.step(state, np.array([action]))
        rewards += r[0]
        states.append(state)
        seats.append(seat)
    illegal = (record.outcome or {}).get("illegal")
    if record.decisions is not None:
        _check_decisions(record, states, where)
    if illegal is not None:
        _check_illegal(spec, state, illegal, where)
    finished = bool(state.done[0]) or illegal is not None
    outcome = outcome_of(state, 0, illegal) if finished else None
    if check and record.outcome is None and outcome is not None:
        raise ReplayMismatch(f"{where}: the record says the game is not over, but the replayed game ended")
    if check and record.outcome is not None:
        if outcome is None:
            raise ReplayMismatch(f"{where}: the record has an outcome but the replayed game is not over")
        for name in ("length", "truncated", "scores", "winners", "digest"):
            if name == "winners" and outcome["truncated"] and record.outcome.get(name) == outcome.get("leading"):
                continue  # records made before the truncation contract named the leaders of a truncated game
            if name in record.outcome and record.outcome[name] != outcome[name]:
                raise ReplayMismatch(
                    f"{where}: the replay differs from the record in {name}: recorded {record.outcome[name]}, "
                    f"replayed {outcome[name]} (were the rules changed without a version bump?)"
                )
    return Replay(record, states, seats, rewards, outcome)


def _check_illegal(spec: GameSpec, state, illegal: dict, where: str) -> None:
    """An `outcome.illegal` must be what the replay shows: a live game where each blamed seat could act (the
    seat to move; in a simultaneous game any live seat, as the parallel env takes every seat's action) and its
    action is not legal for it, so a record cannot blame a seat that did nothing wrong."""
    seats, actions = illegal["seats"], illegal["actions"]
    if bool(state.done[0]):
        raise ReplayMismatch(f"{where}: outcome.illegal says an illegal action ended the game, but it was already over")
    if len(actions) != len(seats) or len(set(seats)) != len(seats):
        raise ReplayMismatch(f"{where}: outcome.illegal must name one action per blamed seat, each seat once")
    mover = int(state.to_move[0])
    for seat, action in zip(seats, actions, strict=True):
        if not spec.simultaneous and seat != mover:
            raise ReplayMismatch(
                f"{where}: outcome.illegal blames player_{seat}, but player_{mover} was to move (in "
                f"{spec.name} only the seat to move acts)"
            )
        legal = np.flatnonzero(spec.rules.legal_mask(state, seat)[0])
        if validate.is_int(action) and (int(action) in legal or (not len(legal) and action == spec.wait_action)):
            raise ReplayMismatch(
                f"{where}: outcome.illegal blames player_{seat} for action {action}, which is legal for it there"
            )


def _check_decisions(record: GameRecord, states: list, where: str) -> None:
    """Each `decisions` item speaks only of actions legal at its step (an item naming another is refused)."""
    rules = get_spec(record.game).rules
    for t, item in enumerate(record.decisions or []):
        if item is None:
            continue
        legal = rules.legal_mask(states[t])[0]
        bad = [a for a, _ in item["actions"] if not 0 <= a < len(legal) or not legal[a]]
        if bad:
            raise RecordError(
                f"{where}: decisions item {t} names action {bad[0]}, not a legal action at that step "
                f"(legal: {np.flatnonzero(legal).tolist()})"
            )


# --- building records -----------------------------------------------------------------------------


def record_from_states(
    spec: GameSpec,
    config,
    actions: list[int],
    final_state,
    i: int = 0,
    key: int | None = None,
    start: dict | None = None,
    players: list[str] | None = None,
    source: str = "",
    meta: dict | None = None,
    illegal: dict | None = None,
    decisions: list | None = None,
) -> GameRecord:
    """A record of one game from its start (`key` or `start`), actions and the final batch state (with
    `decisions`, one item per action: why its agent chose it, see the module)."""
    finished = bool(final_state.done[i]) or illegal is not None
    return GameRecord(
        game=spec.id,
        rules_version=spec.version,
        config=config.to_dict(),
        actions=[int(a) for a in actions],
        key=None if key is None else int(key),
        start=start,
        players=players,
        outcome=outcome_of(final_state, i, illegal) if finished else None,
        meta=_meta(source, meta),
        decisions=decisions,
    )


class BatchRecorder:
    """Keeps the actions of every game of a batch whose games start and end at different times.

    `begin(games, keys)` when games start; `log(actions, acted)` after every batched step (acted:
    `(N,)` bool, which games took their action); `finish(games, state)` returns their records.
    Only used when recording is asked for, so the batched hot path pays nothing otherwise.
    """

    def __init__(self, spec: GameSpec, config, num_games: int, sink: Sink, source: str):
        self.spec, self.config, self.sink, self.source = spec, config, sink, source
        self.rows: list[tuple[np.ndarray, np.ndarray]] = []
        self.offset = 0  # global index of rows[0]
        self.start = np.zeros(num_games, dtype=np.int64)
        self.keys = np.zeros(num_games, dtype=np.uint64)
        self.players: list[list[str] | None] = [None] * num_games
        self.skip = np.zeros(num_games, dtype=bool)  # games whose start was not seen: not recorded

    def begin(self, games: np.ndarray, keys: np.ndarray, players: list[list[str]] | None = None) -> None:
        games = np.asarray(games, dtype=np.int64)
        self.start[games] = self.offset + len(self.rows)
        self.keys[games] = keys
        self.skip[games] = False
        for j, g in enumerate(games):
            self.players[g] = None if players is None else players[j]
        self._trim()

    def log(self, actions: np.ndarray, acted: np.ndarray) -> None:
        self.rows.append((np.asarray(actions, dtype=np.int64).copy(), np.asarray(acted, dtype=bool).copy()))

    def finish(self, games: np.ndarray, state, illegal: dict[int, dict] | None = None, meta: dict | None = None):
        """Records of `games` (indices into the batch; `state` holds their final positions at the same
        indices); each is also sent to the sink."""
        records = []
        for g in np.asarray(games, dtype=np.int64):
            if self.skip[g]:
                continue
            first = int(self.start[g]) - self.offset
            actions = [int(a[g]) for a, acted in self.rows[first:] if acted[g]]
            record = record_from_states(
                self.spec,
                self.config,
                actions,
                state,
                int(g),
                key=int(self.keys[g]),
                players=self.players[g],
                source=self.source,
                meta=meta,
                illegal=(illegal or {}).get(int(g)),
            )
            self.sink(record)
            records.append(record)
        return records

    def _trim(self) -> None:
        oldest = int(self.start.min()) - self.offset
        if oldest > 64:
            del self.rows[:oldest]
            self.offset += oldest
