"""The web app's games and replays, kept in memory: what each seat is sent is its own view and nothing more.

A `WebGame` is one game in play: a batch-of-1 state, an agent or a person in each seat, one unguessable
token per seat (a seat's link), and per seat the lines it has been told (what it saw of each decision, as
`fruit_envs.replay` captions it, a choice hidden until a reveal told again as it was once revealed).
`snapshot(seat)` is everything that seat's page receives: its `view`, its legal actions by name when it is
to move, what it was told; `picture(seat)` draws the same view. A `Replays` registry holds the game records
the user named and the games finished here, replayed once, for the replay viewer, with the pictures it drew
last kept for the steps it shows again or asked for ahead.
"""

from __future__ import annotations

import json
import secrets
import struct
import sys
import threading
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.agents.base import explain
from fruit_envs.agents.shipped import SEARCH_BUDGET, NotShipped, OutOfBounds, check_shipped
from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core.rules_api import action_names
from fruit_envs.core.spec import get_spec, registered_games
from fruit_envs.core.validate import quoted

HUMAN = "human"
PLAYED_HERE = "played here"  # the source the replay viewer names for a game finished in the app
TOLD_KEPT = 40  # lines of what happened a seat's page shows
PICTURES_KEPT = 64 * 2**20  # bytes of replay pictures kept for the viewer (a few hundred steps)
LONGEST_GAME = 20_000  # decisions a game started from a request may last (the longest default game: 10,725)


class WebError(ValueError):
    """A request the app refuses: `status` is its HTTP status (400 malformed, 404 unknown, 409 not now)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Seating:
    """Which agents a request may seat: always the shipped ones (`agents.shipped`) within `budget` (None: no
    bound, for the command line); with `own`, the user's own too (a model file, a module: loaded, imported, and
    searches over them held to the same budget). `refusal` says how to get what was refused."""

    own: bool
    budget: int | None = SEARCH_BUDGET
    refusal: str = ""


COMMAND_LINE = Seating(own=True, budget=None)  # the user's own command line: trusted as they are


def seat_agent(k: int, label: str, spec: Any, config: Any, seating: Seating) -> Any:
    """The agent seat `k`'s label names, built as `seating` allows; a `WebError` naming what was wrong and what
    is allowed otherwise. A label `check_shipped` refuses is built only with `seating.own`; nothing else reads a
    file or imports a module, so a refusal never says whether a path exists."""
    from fruit_envs.agents import make_agent

    budget = sys.maxsize if seating.budget is None else seating.budget
    try:
        shipped = check_shipped(label, spec, budget)
    except OutOfBounds as refusal:  # a search malformed or over the budget: no key changes that
        raise WebError(f"seat {k}: {refusal}") from None
    except NotShipped as refusal:
        if not seating.own:
            raise WebError(f"seat {k}: {refusal}; {seating.refusal}") from None
        return _own_agent(k, label, spec, config)
    try:
        return make_agent(shipped, spec, config)
    except (ValueError, OSError) as error:
        raise WebError(f"seat {k}: {error}") from None


def _own_agent(k: int, label: str, spec: Any, config: Any) -> Any:
    """The user's own agent (a model file, their module), for a page holding the launch key: a module of Python's
    standard library is not an agent and is never imported as one; any failure is a `WebError`."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.resolve import BUILTIN_PREFIXES

    target = label.rpartition(":")[0]
    if target and not label.startswith(BUILTIN_PREFIXES) and not target.endswith(".py"):
        top = target.split(".")[0]
        if top in sys.stdlib_module_names or top in sys.builtin_module_names:
            raise WebError(
                f"seat {k}: {label!r} names {top!r}, a module of Python's standard library, not an agent; name "
                "your own: path/to/file.py:make or package.module:make (a factory make(game_spec, config))"
            )
    try:
        return make_agent(label, spec, config)
    except Exception as error:  # the user's own code or file: whatever it raises is their answer
        raise WebError(f"seat {k}: {label!r} could not be built: {type(error).__name__}: {error}") from None


def catalogue() -> list[dict]:
    """Every registered game the start page offers: its player counts and options (with their choices)."""
    games = []
    for spec in registered_games():
        options = []
        for name, f in spec.config_cls.options().items():
            choices = f.metadata.get("choices")
            options.append(
                {"name": name, "default": _plain(f.default), "choices": None if choices is None else list(choices)}
            )
        games.append(
            {
                "id": spec.id,
                "name": spec.name,
                "players": list(spec.player_counts),
                "default_players": spec.default_num_players,
                "options": options,
            }
        )
    return games


def _plain(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, type(None))) else str(value)


@dataclass
class WebGame:
    """One game in play in the browser. Create it with `WebGame.start`."""

    spec: Any
    config: Any
    key: int
    seed: int
    labels: list[str]  # who sits where: "human" or the agent's text
    agents: list[Any]  # None for a person's seat
    tokens: list[str]  # each seat's secret: its page's link
    start_position: dict | None = None  # the record's hand-set start, for a game branched from one
    meta: dict = field(default_factory=dict)  # kept in its record (where it was branched from)
    replay_id: str | None = None  # its replay in the viewer, once it is over
    decisions: list = field(default_factory=list)  # per action, why its agent chose it (None: a person's)
    id: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    actions: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)  # who took each action
    states: list[Any] = field(default_factory=list)  # the start, then after each action
    heard: dict = field(default_factory=dict)  # seat (None: the referee) -> what it was told: `Told`s, latest last
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def start(
        cls, game: Any, players: Any, seats: Any, seed: Any = 0, options: Any = None, seating: Seating = COMMAND_LINE
    ) -> WebGame:
        """A new game of `game` with `players` seats, `seats[k]` "human" or an agent name (built as `seating`
        allows: `seat_agent`); bad input is a `WebError` naming what was wrong and what is allowed."""
        if not isinstance(game, str):
            raise WebError(f"game must be a game id, one of {[s.id for s in registered_games()]}")
        try:
            spec = get_spec(game)
        except (KeyError, ValueError) as error:
            raise WebError(str(error).strip("'\"")) from None
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise WebError(f"seed must be a non-negative integer, got {quoted(seed)}")
        if options is not None and not isinstance(options, dict):
            raise WebError("options must be an object of option name to value")
        try:
            config = spec.make_config(players, **(options or {}))
        except (TypeError, ValueError, OverflowError) as error:
            raise WebError(f"{spec.name}: {error}") from None
        longest = spec.rules.max_game_length(config)
        if seating.budget is not None and longest > LONGEST_GAME:
            raise WebError(
                f"{spec.name} with these options may last {longest} decisions; a game started here may last at "
                f"most {LONGEST_GAME}"
            )
        p = config.num_players
        if not isinstance(seats, list) or len(seats) != p or not all(isinstance(s, str) and s.strip() for s in seats):
            raise WebError(f"seats must list {p} entries, each 'human' or an agent name (greedy, search, ...)")
        labels = [s.strip() for s in seats]
        agents = [
            None if label == HUMAN else seat_agent(k, label, spec, config, seating) for k, label in enumerate(labels)
        ]
        key = int(frng.keys_from_seed(seed, 1)[0])
        state = spec.rules.init(config, np.array([key], dtype=np.uint64))
        tokens = [secrets.token_urlsafe(16) for _ in range(p)]
        return cls(spec, config, key, seed, labels, agents, tokens, states=[state])

    @classmethod
    def branch(cls, entry: ReplayEntry, step: Any, seat: Any, budget: int = SEARCH_BUDGET) -> tuple[WebGame, list[str]]:
        """The replayed game at `step` with a person in `seat` and the recorded agents elsewhere, to play on
        ("play from here"); a recorded label that is not a shipped agent within `budget` is played by greedy,
        said in the notes (a record may come from anywhere: it never names a file or module to load)."""
        from fruit_envs.agents import make_agent

        record = entry.replay.record
        p = int(record.config["num_players"])
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < p:
            raise WebError(f"seat must be a seat number in 0..{p - 1}, got {quoted(seat)}")
        state = entry._state(step)
        if bool(state.done[0]):
            raise WebError("the game is over at that step: pick an earlier one")
        spec, config = get_spec(record.game), state.config
        labels, agents, notes = [], [], []
        for k in range(p):
            label = entry.label(k)
            if k == seat:
                labels.append(HUMAN)
                agents.append(None)
                continue
            try:
                agents.append(make_agent(check_shipped(label, spec, budget), spec, config))
            except (ValueError, OSError):  # NotShipped included
                notes.append(f"seat {k} ({label or 'unnamed'}) is not a shipped agent: greedy plays it")
                label = "greedy"
                agents.append(make_agent(label, spec, config))
            labels.append(label)
        key = 0 if record.key is None else int(record.key)
        game = cls(spec, config, key, key % 2**63, labels, agents, [secrets.token_urlsafe(16) for _ in range(p)],
                   states=[entry.replay.states[0]], start_position=record.start)  # fmt: skip
        game.meta = {"branched_from": {"source": entry.source, "game": entry.index, "step": step}}
        for t, action in enumerate(record.actions[:step]):
            game._apply(int(action), record.decisions[t] if record.decisions else None)
        return game, notes

    # --- what a seat is sent -----------------------------------------------------------------------

    @property
    def state(self):
        return self.states[-1]

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def seat_of(self, token: str) -> int:
        for k, mine in enumerate(self.tokens):
            if secrets.compare_digest(mine, str(token)):
                return k
        raise WebError("no such seat in this game", 404)

    def snapshot(self, seat: int) -> dict:
        """Everything seat `seat`'s page receives: its own view and nothing it may not know."""
        state = self.state
        mine = self._to_move() == seat and self.agents[seat] is None
        names = action_names(self.spec, self.config)
        legal = [int(a) for a in np.flatnonzero(self.spec.rules.legal_mask(state, seat)[0])] if mine else []
        shown = {
            "game": self.spec.id,
            "name": self.spec.name,
            "seat": seat,
            "players": self.config.num_players,
            "labels": self.labels,
            "step": len(self.actions),
            "to_move": None if self.done else self._to_move(),  # public: every seat's picture marks it
            "view": json.loads(fpicture.dumps(fpicture.view(state, 0, seat))),
            "text": fpicture.text(state, 0, seat, labels=self._others(seat)),
            "your_turn": mine,
            "legal": [{"action": a, "name": names[a]} for a in legal],
            "waiting_for_agent": not self.done and self.agents[self._to_move()] is not None,
            "told": self.told(seat)[-TOLD_KEPT:],
            "done": self.done,
            "outcome": frecord.outcome_of(state, 0) if self.done else None,
        }
        return shown

    def picture(self, seat: int, state=None) -> bytes:
        """A PNG of seat `seat`'s view of `state` (default: now), drawn by the game's picture module as
        `python -m fruit_envs.play --picture` draws it."""
        state = self.state if state is None else state
        return _png(fpicture.picture(state, 0, seat, labels=self._others(seat)))

    def told(self, seat: int | None) -> list[str]:
        """What `seat` saw of the latest decisions (None: everything), oldest first; a choice hidden from it
        when taken is told as it was once the reveal showed it."""
        return [line for told in self.heard.get(seat, []) for line in told.lines]

    def _others(self, seat: int) -> list[str | None]:
        return [None if k == seat else label for k, label in enumerate(self.labels)]

    def _to_move(self) -> int:
        return int(self.state.to_move[0])

    # --- moves -------------------------------------------------------------------------------------

    def move(self, seat: int, action: Any) -> None:
        """Seat `seat`'s decision; a malformed, untimely or illegal one is a `WebError` and changes nothing."""
        if self.done:
            raise WebError("the game is over", 409)
        if self.agents[seat] is not None:
            raise WebError(f"seat {seat} is played by {self.labels[seat]}", 409)
        if self._to_move() != seat:
            raise WebError("it is not your turn", 409)
        if not isinstance(action, int) or isinstance(action, bool):
            raise WebError(f"action must be an integer action id, got {quoted(action)}")
        mask = self.spec.rules.legal_mask(self.state, seat)[0]
        if not 0 <= action < len(mask) or not mask[action]:
            names = action_names(self.spec, self.config)
            legal = ", ".join(f"{a} ({names[a]})" for a in np.flatnonzero(mask))
            raise WebError(f"action {action} is not legal now; legal: {legal}")
        self._apply(action)

    def advance(self) -> bool:
        """Let the agent to move decide (one decision); whether one did."""
        if self.done:
            return False
        mover = self._to_move()
        agent = self.agents[mover]
        if agent is None:
            return False
        rules, state = self.spec.rules, self.state
        obs, mask = rules.observe(state, mover), rules.legal_mask(state, mover)
        extra = {"state": state.copy(), "seats": np.array([mover])} if getattr(agent, "needs_state", False) else {}
        rng = np.random.default_rng([self.seed, len(self.actions)])  # each decision its own seeded stream
        action = int(np.asarray(agent.act(obs, mask, rng, **extra))[0])
        if not mask[0, action]:
            raise RuntimeError(f"agent {self.labels[mover]} chose an illegal action {action}")
        self._apply(action, explain(agent, state, mover, acted=True))
        return True

    def _apply(self, action: int, decision: dict | None = None) -> None:
        from fruit_envs.core.narration import hidden_decision
        from fruit_envs.replay import caption, move_line

        before = self.state
        # the round's last choice makes every choice of the round public (a reveal, a tick resolved)
        reveals = int(self.spec.rules.acting(before)[0].sum()) <= 1
        self.decisions.append(decision)
        state, _ = self.spec.rules.step(before, np.array([action]))
        self.seats.append(self._to_move())
        self.actions.append(int(action))
        self.states.append(state)
        replay, t = self.replay(), len(self.actions) - 1
        for seat in [None, *range(self.config.num_players)]:  # each seat told what it saw of this decision
            told = self.heard.setdefault(seat, [])
            if reveals:
                for earlier in (e for e in told if e.hidden):
                    earlier.lines[0] = f"{earlier.t + 1}. {move_line(replay, earlier.t)} — revealed"
                    earlier.hidden = False
            hidden = seat is not None and hidden_decision(before, 0, seat)
            told.append(Told(t, caption(replay, t + 1, seat), hidden))
            while sum(len(e.lines) for e in told) > TOLD_KEPT:
                told.pop(0)

    # --- records -----------------------------------------------------------------------------------

    def record(self) -> frecord.GameRecord:
        """The game as `python -m fruit_envs.play --record` writes it."""
        humans = [k for k, a in enumerate(self.agents) if a is None]
        return frecord.record_from_states(
            self.spec, self.config, self.actions, self.state,
            key=None if self.start_position is not None else self.key, start=self.start_position,
            players=self.labels, source="web", meta={"human_seats": humans, "seed": self.seed, **self.meta},
            decisions=self.decisions if any(d is not None for d in self.decisions) else None,
        )  # fmt: skip

    def replay(self) -> frecord.Replay:
        rewards = np.zeros(self.config.num_players)
        outcome = frecord.outcome_of(self.state, 0) if self.done else None
        return frecord.Replay(self.record(), self.states, self.seats, rewards, outcome)


@dataclass
class Told:
    """What a seat was told of decision `t` (0 = the first): its caption's lines; `hidden` while they say only
    that another seat has chosen (the reveal then tells the choice in the first line)."""

    t: int
    lines: list[str]
    hidden: bool = False


def named(item: dict, seat: int, names: tuple[str, ...], recorded: bool) -> dict:
    """A record's `decisions` item as the viewer shows it: each action by name, whose seat, whether it was
    recorded when the agent decided or recomputed now."""
    rows = [{"action": a, "name": names[a], "number": x} for a, x in item["actions"]]
    return {"seat": seat, "kind": item["kind"], "value": item["value"], "recorded": recorded, "actions": rows}


def _png(frame: np.ndarray) -> bytes:
    """`(H, W, 3) uint8` as a PNG, made for speed: rows unfiltered, deflated at level 1. The pictures are flat
    colours, which deflate as small as Pillow's filtered PNG does in a third of its time (the viewer's steps
    per second wait on it)."""
    height, width, _ = frame.shape
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # each row: filter type 0 (none), then RGB
    rows[:, 1:] = frame.reshape(height, 3 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, deflate, no filter, no interlace
    pixels = _chunk(b"IDAT", zlib.compress(rows, 1))
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + pixels + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


class _Kept:
    """Items by their `id`, each dropped `idle` seconds after it was last asked for (where `_expires` says it
    may be): what the games in play and the replays share."""

    missing = "no such item"  # the 404's message

    def __init__(self, idle: float = 3600.0):
        self.idle = idle
        self._items: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _add(self, item: Any) -> Any:
        with self._lock:
            self._sweep()
            self._make_room()
            self._items[item.id] = item
        return item

    def get(self, key: str) -> Any:
        with self._lock:
            self._sweep()
            item = self._items.get(str(key))
            if item is None:
                raise WebError(self.missing, 404)
            item.touched = time.monotonic()
            return item

    def all(self) -> list:
        with self._lock:
            self._sweep()
            return list(self._items.values())

    def __len__(self) -> int:
        return len(self.all())

    def _expires(self, item: Any) -> bool:
        return True

    def _make_room(self) -> None:
        """Called, holding the lock, before an item is added."""

    def _sweep(self) -> None:
        now = time.monotonic()
        for key in [k for k, i in self._items.items() if self._expires(i) and now - i.touched > self.idle]:
            del self._items[key]


class Games(_Kept):
    """The games in play, at most `limit` at once (a 503 saying so past it), each dropped after `idle` seconds
    without a request (abandoned)."""

    missing = "no such game (it ended long ago, or was never started)"

    def __init__(self, idle: float = 3600.0, limit: int = 100):
        super().__init__(idle)
        self.limit = limit

    def add(self, game: WebGame) -> WebGame:
        return self._add(game)

    def check_room(self) -> None:
        """A 503 `WebError` saying so when the server holds as many games as it takes."""
        with self._lock:
            self._sweep()
            self._make_room()

    def _make_room(self) -> None:
        if len(self._items) >= self.limit:
            raise WebError(
                f"this server holds as many games as it takes ({self.limit}); try again once one is over and "
                f"left alone for {self.idle / 60:g} minutes, or ask whoever runs it to raise --max-games",
                503,
            )


@dataclass
class ReplayEntry:
    """One game of a record file the user named (or played here: `played`), replayed for the viewer; the
    agents its labels name are rebuilt (for `insight`) only where shipped and within `budget`."""

    id: str
    source: str
    index: int
    replay: frecord.Replay
    played: bool = False
    budget: int = SEARCH_BUDGET
    pictures: Pictures = field(default_factory=lambda: Pictures(PICTURES_KEPT), repr=False)
    touched: float = field(default_factory=time.monotonic)
    _agents: dict = field(default_factory=dict, repr=False)  # the recorded agents, built for `insight`
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def label(self, seat: int) -> str:
        """Who sat in `seat` as the record names them ("" where it does not)."""
        players = self.replay.record.players or []
        return players[seat] if 0 <= seat < len(players) and isinstance(players[seat], str) else ""

    def summary(self) -> dict:
        record = self.replay.record
        p = int(record.config["num_players"])
        return {
            "id": self.id,
            "source": self.source,
            "index": self.index,
            "game": record.game,
            "name": get_spec(record.game).name,
            "players": p,
            "labels": [self.label(k) or "?" for k in range(p)],  # who sat where
            "steps": len(record.actions),
            "outcome": self.replay.outcome,
        }

    def frame(self, t: int, seat: int | None) -> dict:
        """Step `t` as `seat` saw it (None: the referee): caption, text and view."""
        from fruit_envs.replay import caption

        state = self._state(t)
        self._check_seat(seat)
        labels = self.replay.record.players  # who sat where, drawn beside player_k
        return {
            "step": t,
            "seat": seat,
            "caption": caption(self.replay, t, seat),
            "text": fpicture.text(state, 0, seat, labels=labels),
            "view": json.loads(fpicture.dumps(fpicture.view(state, 0, seat))),
            "decision": self.insight(t, seat),
        }

    def insight(self, t: Any, seat: int | None) -> dict | None:
        """Why decision `t` was made: as the record kept it (its `decisions`), else recomputed by the recorded
        agent rebuilt from its label (`agents.base.explain`) where that is a shipped agent within `budget`; None
        where the game is over, nothing can say, or `seat` is another seat than the mover's (it would show what
        only the mover knew)."""
        from fruit_envs.agents import make_agent

        state = self._state(t)
        if bool(state.done[0]) or t >= len(self.replay.seats):
            return None
        mover = self.replay.seats[t]
        if seat is not None and seat != mover:
            return None
        record = self.replay.record
        spec = get_spec(record.game)
        names = action_names(spec, state.config)
        if record.decisions and record.decisions[t] is not None:
            return named(record.decisions[t], mover, names, recorded=True)
        label = self.label(mover)
        with self._lock:  # one request at a time asks an agent (search keeps its last values)
            if label not in self._agents:
                try:  # a shipped agent only: the record may come from anywhere
                    self._agents[label] = make_agent(check_shipped(label, spec, self.budget), spec, state.config)
                except (ValueError, OSError):  # NotShipped included
                    self._agents[label] = None
            if self._agents[label] is None:
                return None
            item = explain(self._agents[label], state, mover, seed=t)
            return None if item is None else named(item, mover, names, recorded=False)

    def picture(self, t: int, seat: int | None) -> bytes:
        """A PNG of step `t` as `seat` saw it (None: the referee), drawn once while `pictures` keeps it."""
        state = self._state(t)
        self._check_seat(seat)
        key = (self.id, t, seat)
        png = self.pictures.get(key)
        if png is None:
            labels = self.replay.record.players  # who sat where, drawn beside player_k
            png = self.pictures.put(key, _png(fpicture.picture(state, 0, seat, labels=labels)))
        return png

    def _check_seat(self, seat: Any) -> None:
        p = int(self.replay.record.config["num_players"])
        if seat is not None and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < p):
            raise WebError(f"seat must be 'referee' or 0..{p - 1}, got {quoted(seat)}")

    def _state(self, t: Any):
        if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t < len(self.replay.states):
            raise WebError(f"step must be an integer in 0..{len(self.replay.states) - 1}, got {quoted(t)}")
        return self.replay.states[t]


class Pictures:
    """The last pictures drawn, by key, at most `limit` bytes in all (the least recently used go first): the
    viewer steps back and forth over the same frames and asks for the next ones ahead."""

    def __init__(self, limit: int):
        self.limit, self.size = limit, 0
        self._kept: OrderedDict[Any, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> bytes | None:
        with self._lock:
            png = self._kept.get(key)
            if png is not None:
                self._kept.move_to_end(key)
            return png

    def put(self, key: Any, png: bytes) -> bytes:
        with self._lock:
            if key not in self._kept:
                self._kept[key] = png
                self.size += len(png)
            while self.size > self.limit and self._kept:
                self.size -= len(self._kept.popitem(last=False)[1])
        return png

    def drop(self, owner: str) -> None:
        """Forget the pictures whose key starts with `owner` (a replay that is gone)."""
        with self._lock:
            for key in [k for k in self._kept if k[0] == owner]:
                self.size -= len(self._kept.pop(key))


class Replays(_Kept):
    """The replays the viewer may open: the games of the record files named on the command line, and the
    finished games played here (at most `limit` of these, the least recently opened going first; dropped, as
    games are, after `idle` seconds unopened). Nothing else is read from disk."""

    missing = "no such replay"

    def __init__(self, idle: float = 3600.0, limit: int = 100, budget: int = SEARCH_BUDGET):
        super().__init__(idle)
        self.limit, self.budget = limit, budget
        self.pictures = Pictures(PICTURES_KEPT)  # shared by every replay: one bound for them all
        self.finished = 0  # games finished here so far: each one's number in the list

    def add_file(self, path: str | Path) -> list[ReplayEntry]:
        """Every game of a JSONL record file (`play --record`, `tournament --record`, the benchmark's
        `failure.jsonl`, `eval_games.jsonl`), each replayed and checked against what it states (its outcome,
        ending, labels, and its `decisions`: `frecord.replay` with `check`); an unreadable file or game, or one
        that contradicts its replay, is a `RecordError` naming it."""
        path = Path(path)
        replayed = [
            frecord.replay(record, where=f"{path} game {i}", check=True)
            for i, record in enumerate(frecord.read_records(path))
        ]
        entries = [
            ReplayEntry(secrets.token_urlsafe(12), path.name, i, r, budget=self.budget, pictures=self.pictures)
            for i, r in enumerate(replayed)
        ]
        return [self._add(entry) for entry in entries]

    def add_game(self, game: WebGame) -> ReplayEntry:
        """A game finished here, listed in the viewer (numbered from 1 in the order they finished)."""
        with self._lock:
            self.finished += 1
            number = self.finished
        entry = ReplayEntry(
            secrets.token_urlsafe(12), PLAYED_HERE, number, game.replay(), played=True, budget=self.budget,
            pictures=self.pictures,
        )  # fmt: skip
        return self._add(entry)

    def _expires(self, entry: ReplayEntry) -> bool:
        return entry.played  # a file's games stay for as long as the app runs

    def _make_room(self) -> None:
        played = sorted((e for e in self._items.values() if e.played), key=lambda e: e.touched)
        for entry in played[: max(0, len(played) - self.limit + 1)]:
            del self._items[entry.id]
            self.pictures.drop(entry.id)

    def _sweep(self) -> None:
        before = set(self._items)
        super()._sweep()
        for gone in before - set(self._items):
            self.pictures.drop(gone)
