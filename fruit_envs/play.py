"""Play a game in the terminal against agents.

    python -m fruit_envs.play --game cherry_picking --opponents greedy
    python -m fruit_envs.play --game cherry_picking --opponents greedy,ppo:runs/<run>/model.zip --seat 2
    python -m fruit_envs.play --game fruit_picking --opponents random,greedy --option market_operation=True
    python -m fruit_envs.play --game quickity_pickity --opponents search:rollouts=32,depth=8
    python -m fruit_envs.play --game juicy_fruits_solo   # a one-player game: you play alone

You see the table as your seat sees it (other hands, face-down cards and the order of the stack stay
hidden) and the legal actions by name; answer with an action's number or its name (any unambiguous
part of it). After every decision you are told what it did that its name does not say: which cards a
reveal sent where and who harvested what, the tiles turned up, the fruit and points scored, a round or
set scored (`fruit_envs.core.narration`; only what your seat may know). Commands: `u` undo your last
decision (and what the others did after it), `b` show the table again, `rules` (or `?`) the rules in
brief and how scoring works, `h` help, `q` quit. Bad input asks again; the game is never lost to a typo.

Simultaneous decisions are taken in turn, as in the AEC environment: an agent's hidden choice is
announced only as "has chosen" and never shown to you before the reveal. Undo takes back your last
decision; in a simultaneous phase you may by then have seen the reveal, so undo is for learning, not
for contests. At the end (or when you quit) the game is appended to a record file that
`python -m fruit_envs.replay FILE` replays.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

import numpy as np

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs._cli import non_negative_int, positive_int, prog
from fruit_envs.agents import AGENT_HELP
from fruit_envs.agents.arena import AgentFault
from fruit_envs.agents.base import explain
from fruit_envs.core import narration, validate
from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core.rules_api import action_names, phase_name
from fruit_envs.core.spec import get_spec
from fruit_envs.core.threads import limit_threads

HELP = """\
  a number from the list, or (part of) an action's name, plays that action
  u, undo    take back your last decision (and the others' moves after it)
  b, board   show the table again
  rules, ?   the rules in brief and how scoring works
  h, help    this help
  q, quit    stop here (the unfinished game is saved)"""


class Quit(Exception):
    """The person quit (`chosen`: by a command, which exits 0), or standard input ended (exits 1)."""

    @property
    def chosen(self) -> bool:
        return self.args[:1] == ("quit",)


def parse_option(text: str) -> tuple[str, object]:
    """`name=value` with value read as bool, int or float where it looks like one."""
    if "=" not in text:
        raise ValueError(f"--option expects name=value, got {text!r}")
    name, value = text.split("=", 1)
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return name.strip(), lowered == "true"
    for kind in (int, float):
        try:
            return name.strip(), kind(value)
        except ValueError:
            pass
    return name.strip(), value


def _is_number(text: str) -> bool:
    """ASCII digits only: '²'.isdigit() is True, but int('²') fails."""
    return text.isascii() and text.isdecimal()


def choose_action(text: str, legal: list[int], names: list[str], rules, config) -> tuple[int | None, str]:
    """The legal action meant by `text` (a number from the list or a name), or None and why not."""
    t = " ".join(text.strip().lower().split())
    if not t:
        return None, "type a number or a name (h for help)"
    if _is_number(t):
        n = int(t)
        if 1 <= n <= len(legal):
            return legal[n - 1], ""
        return None, f"there is no choice {n}; choose 1..{len(legal)}"
    lowered = [name.lower() for name in names]
    if t in lowered:
        return legal[lowered.index(t)], ""
    parsed = None
    try:
        parsed = rules.string_to_action(config, t)
    except ValueError:
        pass
    if parsed is not None and parsed in legal:
        return parsed, ""
    hits = [a for a, name in zip(legal, lowered, strict=True) if t in name]
    if len(hits) == 1:
        return hits[0], ""
    if len(hits) > 1:
        shown = ", ".join(f"'{names[legal.index(a)]}'" for a in hits[:6])
        return None, f"'{text.strip()}' could be {shown}{', ...' if len(hits) > 6 else ''}; be more precise"
    if parsed is not None:
        return None, f"'{rules.action_to_string(config, parsed)}' is not legal now"
    return None, f"'{text.strip()}' is not one of the actions listed (h for help)"


class Session:
    """One game between a person (at `seat`) and agents, read from `stdin`, written to `out`."""

    def __init__(self, spec, config, key: int, seat: int, agents: dict, labels: list[str], rng, stdin, out, picture):
        self.spec, self.rules, self.config = spec, spec.rules, config
        self.key, self.seat, self.agents, self.labels = key, seat, agents, labels
        self.rng, self.stdin, self.out, self.picture = rng, stdin, out, picture
        self.state = self.rules.init(config, np.array([key], dtype=np.uint64))
        self.actions: list[int] = []
        self.decisions: list[dict | None] = []  # per action, why its agent chose it (None: the person's)
        self.history: list[tuple] = []  # (state, len(actions), action, hidden) before each of the person's decisions
        self.undos = 0
        self.hidden: list[tuple[int, int]] = []  # (seat, action) chosen in the simultaneous round in progress
        self.told: list[str] = []  # what the last decision did, as this seat may know it

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        print(prompt, end="", file=self.out, flush=True)
        line = self.stdin.readline()
        if not line:
            self.say()
            raise Quit("end of input")
        return line

    def name(self, seat: int) -> str:
        return "you" if seat == self.seat else f"player_{seat} ({self.labels[seat]})"

    def tell(self) -> None:
        """What the last decision did, as this seat may know it (see `apply`)."""
        for line in self.told:
            self.say(f"  {line}")

    def show(self) -> None:
        self.say()
        others = [None if k == self.seat else label for k, label in enumerate(self.labels)]
        self.say(fpicture.text(self.state, 0, self.seat, labels=others))
        if self.picture is not None:
            try:
                fpicture.save_png(fpicture.picture(self.state, 0, self.seat, labels=others), self.picture)
            except OSError as error:  # the path was writable when the game began: the game goes on
                print(f"warning: --picture {self.picture} cannot be written ({error}); no more", file=sys.stderr)
                self.picture = None

    def is_hidden(self) -> bool:
        """Whether the decision now due is part of a simultaneous round (hidden until it ends)."""
        return bool(self.hidden) or int(self.rules.acting(self.state)[0].sum()) > 1

    def apply(self, action: int, decision: dict | None = None) -> str:
        """Apply the decision of the seat to move; returns the round's choices when a simultaneous
        round ends with it ("revealed - ..."), else "". What the decision did, as the person's seat may
        know it, is kept in `told` (`tell` prints it)."""
        before = self.state
        mover = int(before.to_move[0])
        acting = self.rules.acting(before)[0]
        if self.is_hidden():
            self.hidden.append((mover, int(action)))
        self.state, _ = self.rules.step(before, np.array([action]))
        self.actions.append(int(action))
        self.decisions.append(decision)
        names = [self.name(k) for k in range(self.config.num_players)]
        self.told = narration.narrate(before, self.state, action, 0, self.seat, names)
        if not (self.hidden and self._round_over(before, acting, mover)):
            return ""
        shown = "; ".join(
            f"{self.name(k)}: {self.rules.action_to_string(self.config, a)}" for k, a in sorted(self.hidden)
        )
        self.hidden = []
        return f"revealed - {shown}"

    def _round_over(self, before, acting: np.ndarray, mover: int) -> bool:
        """A simultaneous round ended: the game ended, the phase changed, or seats that had already
        decided (or the mover) must decide again."""
        if self.state.done[0]:
            return True
        if phase_name(self.spec, self.state) != phase_name(self.spec, before):
            return True
        still = acting.copy()
        still[mover] = False
        return bool((self.rules.acting(self.state)[0] & ~still).any())

    def play(self) -> None:
        """Play until the game ends; raises `Quit` if the person quits or input ends."""
        shown = False
        while not self.state.done[0]:
            mover = int(self.state.to_move[0])
            if mover != self.seat:
                self.agent_moves(mover)
                shown = False
                continue
            if not shown:
                self.show()
                shown = True
            shown = self.person_moves()

    def agent_moves(self, mover: int) -> None:
        hidden = self.is_hidden()
        obs = self.rules.observe(self.state, mover)
        mask = self.rules.legal_mask(self.state, mover)
        agent = self.agents[mover]
        extra = {"state": self.state.copy(), "seats": np.array([mover])} if getattr(agent, "needs_state", False) else {}
        where = (
            f"agent {self.labels[mover]!r} in seat {mover} of this {self.spec.name} game at step {len(self.actions)}"
        )
        legal = np.flatnonzero(mask[0]).tolist()
        try:
            chosen = np.asarray(agent.act(obs, mask, self.rng, **extra))
            action = int(chosen.reshape(-1)[0])
        except Exception as error:  # a user's agent: any failure is reported as its own, never as ours
            raise AgentFault(f"{where} raised {type(error).__name__}: {error} (legal actions: {legal})") from None
        if not 0 <= action < mask.shape[1] or not mask[0, action]:
            raise AgentFault(f"{where} chose action {action}, which is not legal there (legal actions: {legal})")
        revealed = self.apply(action, explain(agent, self.state, mover, acted=True))
        if hidden:
            self.say(f"{self.name(mover)} has chosen" + ("" if revealed else " (hidden until the reveal)"))
        else:
            self.say(f"{self.name(mover)}: {self.rules.action_to_string(self.config, action)}")
        if revealed:
            self.say(revealed)
        self.tell()

    def person_moves(self) -> bool:
        """Ask for one decision (or a command); returns whether the table on screen is still current."""
        mask = self.rules.legal_mask(self.state, self.seat)[0]
        legal = [int(a) for a in np.flatnonzero(mask)]
        every_name = action_names(self.spec, self.config)
        names = [every_name[a] for a in legal]
        if len(legal) == 1:
            self.say(f"you: {names[0]} (your only move)")
            revealed = self.apply(legal[0])
            if revealed:
                self.say(revealed)
            self.tell()
            return False
        self.say("your move:")
        for k, name in enumerate(names, start=1):
            self.say(f"  {k:>2}. {name}")
        while True:
            text = self.ask("> ")
            command = text.strip().lower()
            if command in ("q", "quit", "exit"):
                raise Quit("quit")
            if command in ("h", "help"):
                self.say(HELP)
                continue
            if command in ("rules", "?"):
                self.say(f"{self.spec.name} - the rules in brief:")
                self.say(narration.wrap(narration.rules_help(self.spec, self.config)))
                continue
            if command in ("b", "board"):
                return False
            if command in ("u", "undo"):
                if not self.history:
                    self.say("nothing to undo: you have not decided anything yet")
                    continue
                self.state, length, action, self.hidden = self.history.pop()
                undone = len(self.actions) - length
                del self.actions[length:]
                del self.decisions[length:]
                self.undos += 1
                self.say(
                    f"undone: your '{self.rules.action_to_string(self.config, action)}'"
                    + (f" and {undone - 1} later move{'s' if undone > 2 else ''}" if undone > 1 else "")
                )
                return False
            action, problem = choose_action(text, legal, names, self.rules, self.config)
            if action is None:
                self.say(problem)
                continue
            self.history.append((self.state, len(self.actions), action, list(self.hidden)))
            revealed = self.apply(action)
            self.say(f"you: {self.rules.action_to_string(self.config, action)}")
            if revealed:
                self.say(revealed)
            self.tell()
            return False

    def finish(self) -> str:
        """The end of the game: the whole table, the scores, and who won."""
        outcome = frecord.outcome_of(self.state, 0)
        self.say()
        self.say("game over")
        self.say(self.rules.render(self.state, 0))
        winners = outcome["winners"]
        if self.config.num_players == 1:
            verdict = f"final score {outcome['scores'][0]}"  # nobody to beat
        elif outcome["truncated"]:
            verdict = "the game was cut off by the engine's cap (truncated): nobody wins"
        elif self.seat in winners:
            verdict = "you win!" if len(winners) == 1 else "you share the win"
        else:
            verdict = "you lose; " + ", ".join(self.name(k) for k in winners) + " won"
        self.say(f"scores: {', '.join(f'{self.name(k)} {s}' for k, s in enumerate(outcome['scores']))} - {verdict}")
        return verdict

    def record(self, source_meta: dict) -> frecord.GameRecord:
        return frecord.record_from_states(
            self.spec,
            self.config,
            self.actions,
            self.state,
            key=self.key,
            players=self.labels,
            source="play",
            meta={"human_seat": self.seat, "undos": self.undos, **source_meta},
            decisions=self.decisions if any(d is not None for d in self.decisions) else None,
        )


def ask_seat(num_players: int, stdin: TextIO, out: TextIO, rng) -> int:
    while True:
        print(f"your seat: 0..{num_players - 1} (Enter = 0, r = random)? ", end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            raise Quit("end of input")
        text = line.strip().lower()
        if text == "":
            return 0
        if text in ("r", "random"):
            return int(rng.integers(num_players))
        if _is_number(text) and int(text) < num_players:
            return int(text)
        print(f"'{line.strip()}' is not a seat; type a number 0..{num_players - 1}", file=out, flush=True)


def main(argv: list[str] | None = None, stdin: TextIO | None = None, out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.play"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", required=True, help="registered game id, e.g. cherry_picking")
    parser.add_argument(
        "--opponents",
        default=None,
        help=f"comma-separated agents: {AGENT_HELP} (default: greedy; none in a one-player game)",
    )
    parser.add_argument("--num-players", type=positive_int, default=None, help="players (default: you + the opponents)")
    parser.add_argument("--seat", default=None, help="your seat number, or 'random' (default: asked)")
    parser.add_argument(
        "--seed", type=non_negative_int, default=None, help="seed of the deal and of the agents (default: fresh)"
    )
    parser.add_argument("--option", action="append", default=[], help="game option name=value (repeatable)")
    parser.add_argument("--name", default="human", help="your label in the record")
    parser.add_argument("--record", type=Path, default=Path("play_records.jsonl"), help="record file (appended)")
    parser.add_argument("--no-record", action="store_true", help="do not save the game")
    parser.add_argument("--picture", type=Path, default=None, help="also keep a PNG of your view up to date here")
    args = parser.parse_args(argv)
    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)

    from fruit_envs.agents import make_agent, split_agent_list

    try:
        spec = get_spec(args.game)
        alone = spec.player_counts == (1,)  # a one-player game: nobody to play against
        opponents = [] if alone else split_agent_list(args.opponents or "greedy")
        if not opponents and not alone:
            raise ValueError("--opponents needs at least one agent")
        num_players = args.num_players if args.num_players is not None else len(opponents) + 1
        if len(opponents) == 1 and num_players > 2:
            opponents = opponents * (num_players - 1)
        if len(opponents) != num_players - 1:
            raise ValueError(
                f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}: {opponents}"
            )
        config = spec.make_config(num_players, **dict(parse_option(o) for o in args.option))
        agents = [make_agent(name, spec, config) for name in opponents]
        if args.picture is not None:
            fpicture.require_pillow()
            validate.writable_file(args.picture, "--picture")
        if not args.no_record:  # checked now: a game is never lost to a bad path at its end
            validate.writable_file(args.record, "--record")
    except (ValueError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    rng = np.random.default_rng(seed)
    key = int(frng.keys_from_seed(seed, 1)[0])
    against = f"you against {', '.join(opponents)}" if opponents else "you alone"
    print(f"{spec.name} - {num_players} player{'s' * (num_players > 1)} - {against} (seed {seed})", file=out)
    if alone and args.opponents is not None:
        print("a one-player game: you play alone (--opponents ignored)", file=out)
    try:
        if args.seat is None and num_players == 1:
            seat = 0
        elif args.seat is None:
            seat = ask_seat(num_players, stdin, out, rng)
        elif args.seat == "random":
            seat = int(rng.integers(num_players))
        elif _is_number(args.seat) and int(args.seat) < num_players:
            seat = int(args.seat)
        else:
            print(f"error: --seat must be 0..{num_players - 1} or 'random', got {args.seat!r}", file=sys.stderr)
            return 2
    except Quit as stop:
        print("no game played", file=out)
        return 0 if stop.chosen else 1
    others = iter(zip(opponents, agents, strict=True))
    labels, by_seat = [], {}
    for k in range(num_players):
        if k == seat:
            labels.append(args.name)
        else:
            label, agent = next(others)
            labels.append(label)
            by_seat[k] = agent
    print(f"you are player_{seat}; type h for help, rules for the rules", file=out)
    session = Session(spec, config, key, seat, by_seat, labels, rng, stdin, out, args.picture)
    finished, status = True, 0
    try:
        session.play()
    except Quit as stop:
        finished, status = False, 0 if stop.chosen else 1
        session.say("game stopped before the end")
    except AgentFault as fault:
        finished, status = False, 1
        print(f"error: {fault}", file=sys.stderr)
        session.say("game stopped before the end: an agent failed")
    if finished:
        session.finish()
    if not args.no_record:
        record = session.record({"seed": seed})
        try:
            path = frecord.write_records(args.record, [record])
        except OSError as error:  # writable when the game began; the game is kept all the same
            path = Path(tempfile.gettempdir()) / f"fruit_envs_play_{seed}_{int(time.time())}.jsonl"
            print(f"error: --record {args.record} cannot be written now ({error}); saving to {path}", file=sys.stderr)
            path = frecord.write_records(path, [record])
            status = 1
        count = sum(1 for line in path.read_text().splitlines() if line.strip())
        session.say(
            f"game saved to {path} - replay: python -m fruit_envs.replay {path} --index {count - 1}"
            + (" (unfinished)" if not finished else "")
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
