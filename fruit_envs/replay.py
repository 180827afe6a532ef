"""Replay recorded games exactly: move by move with readable action names, or as a GIF / PNG strip.

    python -m fruit_envs.replay games.jsonl                     # every game, move by move
    python -m fruit_envs.replay games.jsonl --summary           # one line per game, each replayed and checked
    python -m fruit_envs.replay games.jsonl --index 3 --board   # game 3 with the table after every move
    python -m fruit_envs.replay games.jsonl --index 3 --gif game3.gif --seat 0
    python -m fruit_envs.replay games.jsonl --index 3 --png game3.png --frames 12
    python -m fruit_envs.replay games.jsonl --agent greedy --summary      # the games greedy played
    python -m fruit_envs.replay games.jsonl --agent greedy --agent-seat 1 --index 2 --gif g.gif
    python -m fruit_envs.replay games.jsonl --seating 'greedy,*' --summary  # greedy in seat 0, anyone in seat 1

Every decision is followed by what it did (`fruit_envs.core.narration`): a reveal resolved, cards
harvested, tiles turned up, fruit and points scored. `--seat K` tells and shows the game as seat K saw
it: its view of the table, the others' hidden choices as "has chosen" until the reveal, and nothing it
could not know; without it the referee sees and says everything. Pictures carry the agents' labels on
their seats and, below, the decision that led to them with what it did.

`--agent NAME` keeps the games where the agent labelled NAME (as the record's `players` list it:
`greedy`, `ppo:runs/x/model.zip`, `human`) plays, `--agent-seat K` only those where it sits in seat K;
`--seating A,B,...` keeps the games seated exactly so, seat 0 first, `*` for anyone. With a filter,
`--index K` is the K-th matching game (0 = the first), and a GIF or PNG draws the first match unless
`--index` picks another; what is printed keeps each game's index in the file (`#17`). A filter that no
game matches is an error naming the agents and seatings the file holds.

Records come from `record=PATH` on any environment, `record_to=` in `fruit_envs.agents.arena`,
`python -m fruit_envs.benchmarks.tournament --record FILE`, training's `--record-eval`, and
`python -m fruit_envs.play`. Every replay checks each action's legality and the recorded outcome
(scores, winners, length and a digest of the final position); a record made with another rules
version is refused. Exit status: 0 reproduced, 1 a replay differed from its record, 2 unreadable
file or other rules version.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs._cli import non_negative_int, positive_float, positive_int, prog, writable_file
from fruit_envs.core import narration
from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord
from fruit_envs.core.rules_api import phase_name
from fruit_envs.core.spec import get_spec


def header(record: frecord.GameRecord, index: int) -> str:
    spec = get_spec(record.game)
    options = {k: v for k, v in record.config.items() if k != "num_players"}
    shown = ", ".join(f"{k}={v}" for k, v in options.items())
    players = ", ".join(record.label(k) for k in range(int(record.config["num_players"])))
    source = record.meta.get("source", "")
    when = record.meta.get("time", "")
    start = f"key {record.key}" if record.key is not None else "a set-up position"
    return (
        f"#{index} {spec.name} ({spec.pettingzoo_name}), {record.config['num_players']} players"
        + (f" [{shown}]" if shown else "")
        + f"\n   players: {players}\n   from {start}; {len(record.actions)} decisions"
        + (f"; recorded by {source}" if source else "")
        + (f" at {when}" if when else "")
    )


def outcome_line(record: frecord.GameRecord, outcome: dict | None) -> str:
    if outcome is None:
        return "not finished"
    if outcome.get("truncated") and not outcome.get("illegal"):
        leading = ", ".join(record.label(k) for k in outcome.get("leading", [])) or "nobody"
        return f"scores {outcome['scores']}, truncated (cut off by a cap): no winner; leading: {leading}"
    winners = ", ".join(record.label(k) for k in outcome["winners"]) or "nobody"
    line = f"scores {outcome['scores']}, winner{'s' if len(outcome['winners']) > 1 else ''}: {winners}"
    if outcome.get("illegal"):
        bad = outcome["illegal"]
        line += f" (ended by illegal action {bad['actions']} of {[f'player_{k}' for k in bad['seats']]})"
    if outcome.get("truncated"):
        line += " (truncated)"
    return line


def move_line(replay: frecord.Replay, t: int, seat: int | None = None) -> str:
    """Decision `t` (0 = the first) as `seat` saw it (None: the referee): who decided what, or only that
    another seat made a choice still hidden from `seat` (a card committed face down, a tick's choice)."""
    record = replay.record
    spec = get_spec(record.game)
    rules = spec.rules
    before, who = replay.states[t], replay.seats[t]
    if seat is not None and who != seat and narration.hidden_decision(before, 0, seat):
        return f"{record.label(who)} has chosen (hidden until the reveal)"
    name = rules.action_to_string(before.config, record.actions[t])
    # the phase says what a bare name means (a Juicy Fruits cell: the token moved, where to, a ship...)
    when = phase_name(spec, before) or ""
    when = f"  ({when})" if when and when not in name else ""
    return f"{record.label(who)}: {name}{when}"


def told(replay: frecord.Replay, t: int, seat: int | None = None) -> list[str]:
    """What decision `t` did, as `seat` may know it (None: everything): reveals resolved, cards
    harvested, tiles turned up, fruit and points scored (`fruit_envs.core.narration`)."""
    record = replay.record
    names = narration.seat_names(int(record.config["num_players"]), labels=record.players)
    return narration.narrate(replay.states[t], replay.states[t + 1], record.actions[t], 0, seat, names)


def caption(replay: frecord.Replay, t: int, seat: int | None = None) -> list[str]:
    """The caption of the picture after `t` decisions: the last decision and what it did, as `seat` saw
    it; at the start, who sits where."""
    if t == 0:
        record = replay.record
        return ["start: " + ", ".join(record.label(k) for k in range(int(record.config["num_players"])))]
    return [f"{t}. {move_line(replay, t - 1, seat)}", *told(replay, t - 1, seat)]


def print_moves(replay: frecord.Replay, out: TextIO, board: bool = False, seat: int | None = None) -> None:
    """Every decision by name (hidden ones as `seat` saw them), each followed by what it did."""
    labels = replay.record.players
    if board:
        print(fpicture.text(replay.states[0], 0, seat, labels=labels), file=out)
    for t in range(len(replay.record.actions)):
        print(f"{t + 1:5d}  {move_line(replay, t, seat)}", file=out)
        for line in told(replay, t, seat):
            print(f"         {line}", file=out)
        if board:
            print(fpicture.text(replay.states[t + 1], 0, seat, labels=labels), file=out)


def frames(replay: frecord.Replay, seat: int | None, every: int = 1, limit: int | None = None) -> list:
    """Pictures of the start, every `every`-th decision and the end (at most `limit`, evenly spaced), the
    agents' labels on their seats and each captioned with the decision that led to it (`caption`)."""
    picks = list(range(0, len(replay.states), max(1, every)))
    if picks[-1] != len(replay.states) - 1:
        picks.append(len(replay.states) - 1)
    if limit is not None and len(picks) > limit:
        spaced = [picks[round(k * (len(picks) - 1) / (limit - 1))] for k in range(limit)] if limit > 1 else picks[-1:]
        picks = sorted(set(spaced))
    labels = replay.record.players
    return [
        (t, fpicture.captioned(fpicture.picture(replay.states[t], 0, seat, labels=labels), caption(replay, t, seat)))
        for t in picks
    ]


def select(
    records: list[frecord.GameRecord],
    agent: str | None = None,
    agent_seat: int | None = None,
    seating: list[str] | None = None,
) -> list[int]:
    """Indices of the games where `agent` plays (in seat `agent_seat` when given) and whose seats hold
    exactly `seating` (agent labels, seat 0 first; `*` for anyone). A filter that no game matches is a
    ValueError naming the labels and seatings the records hold."""
    chosen = []
    for index, record in enumerate(records):
        players = record.players or []
        if agent is not None and agent not in (players if agent_seat is None else players[agent_seat : agent_seat + 1]):
            continue
        if seating is not None and (
            len(seating) != len(players)
            or any(want not in ("*", have) for want, have in zip(seating, players, strict=True))
        ):
            continue
        chosen.append(index)
    if not chosen and (agent is not None or seating is not None):
        asked = " and ".join(
            part
            for part in (
                f"--agent {agent!r}" + (f" in seat {agent_seat}" if agent_seat is not None else "") if agent else "",
                f"--seating {','.join(seating)!r}" if seating is not None else "",
            )
            if part
        )
        labels = sorted({p for record in records for p in record.players or []})
        seatings = sorted({",".join(record.players) for record in records if record.players})
        raise ValueError(
            f"no game matches {asked}; the records' agents are {labels or 'not recorded'}"
            + (f", their seatings {seatings[:8]}{' ...' if len(seatings) > 8 else ''}" if seatings else "")
        )
    return chosen


def choose_games(records: list[frecord.GameRecord], args: argparse.Namespace) -> tuple[list[int], str]:
    """The indices of the games to replay (`--index`, `--agent`, `--agent-seat`, `--seating`), or a problem."""
    if args.agent_seat is not None and args.agent is None:
        return [], "--agent-seat needs --agent (the agent to find in that seat)"
    seating = None
    if args.seating is not None:
        from fruit_envs.agents import split_agent_list  # labels may hold commas: search:rollouts=32,depth=8

        seating = split_agent_list(args.seating)
    try:
        matches = select(records, args.agent, args.agent_seat, seating)
    except ValueError as error:
        return [], str(error)
    if args.index is None:
        return matches or list(range(len(records))), ""
    if args.agent is None and args.seating is None:
        if not 0 <= args.index < len(records):
            return [], f"--index {args.index}: {args.file} holds games 0..{len(records) - 1}"
        return [args.index], ""
    if not 0 <= args.index < len(matches):
        return [], f"--index {args.index}: {len(matches)} game{'s' * (len(matches) != 1)} match (0..{len(matches) - 1})"
    return [matches[args.index]], ""


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.replay"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path, help="JSON-lines file of game records")
    parser.add_argument(
        "--index",
        type=non_negative_int,
        default=None,
        help="only the game at this index (0 = first line); with --agent or --seating, the index-th match",
    )
    parser.add_argument(
        "--agent", default=None, help="only the games this agent plays in (a label of the record's players: greedy)"
    )
    parser.add_argument(
        "--agent-seat", type=non_negative_int, default=None, help="with --agent: only where it sits in this seat"
    )
    parser.add_argument(
        "--seating",
        default=None,
        help="only the games seated exactly so: labels by seat, seat 0 first, * for anyone (greedy,*,random)",
    )
    parser.add_argument("--summary", action="store_true", help="one line per game instead of every move")
    parser.add_argument("--board", action="store_true", help="print the table after every move")
    parser.add_argument(
        "--seat",
        type=non_negative_int,
        default=None,
        help="tell and show the game as this seat saw it (default: the referee, who sees everything)",
    )
    parser.add_argument("--gif", type=writable_file, default=None, help="write an animated GIF of the game")
    parser.add_argument("--png", type=writable_file, default=None, help="write a PNG strip of pictures of the game")
    parser.add_argument("--every", type=positive_int, default=1, help="GIF: one frame every this many decisions")
    parser.add_argument("--fps", type=positive_float, default=2.0, help="GIF: frames per second")
    parser.add_argument("--frames", type=positive_int, default=8, help="PNG strip: number of pictures")
    parser.add_argument("--columns", type=positive_int, default=4, help="PNG strip: pictures per row")
    parser.add_argument(
        "--scale", type=positive_float, default=None, help="picture scale (GIF 1.0, strip 0.5 by default)"
    )
    args = parser.parse_args(argv)
    if args.gif or args.png:
        try:
            fpicture.require_pillow()
        except ImportError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2

    try:
        records = frecord.read_records(args.file)
    except frecord.RecordError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not records:
        print(f"error: {args.file} holds no game records", file=sys.stderr)
        return 2
    chosen, problem = choose_games(records, args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if (args.gif or args.png) and len(chosen) != 1:
        if args.agent is None and args.seating is None:
            problem = f"{args.file} holds {len(records)} games; choose one with --index for a GIF/PNG"
            print(f"error: {problem}", file=sys.stderr)
            return 2
        print(f"{len(chosen)} games match; drawing the first, #{chosen[0]} (--index K draws the K-th match)", file=out)
        chosen = chosen[:1]
    status = 0
    for index in chosen:
        record = records[index]
        where = f"{args.file} game #{index}"
        try:
            frecord.check_version(record, where)
            seat = args.seat
            if seat is not None and not 0 <= seat < int(record.config["num_players"]):
                print(
                    f"error: --seat {seat}: this game has seats 0..{record.config['num_players'] - 1}", file=sys.stderr
                )
                return 2
            replay = frecord.replay(record, where, check=True)
        except frecord.ReplayMismatch as error:
            print(f"#{index} DIFFERS: {error}", file=out)
            status = 1
            continue
        except frecord.RecordError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        verdict = "reproduced" if record.outcome is not None else "replayed (the record has no outcome to check)"
        if args.summary:
            print(
                f"#{index} {record.game} {record.config['num_players']}p, {len(record.actions)} decisions: "
                f"{outcome_line(record, replay.outcome)} - {verdict}",
                file=out,
            )
        else:
            print(header(record, index), file=out)
            print_moves(replay, out, board=args.board, seat=seat)
            print(f"   outcome: {outcome_line(record, replay.outcome)} - {verdict}\n", file=out)
        if args.gif:
            shots = frames(replay, seat, every=args.every)
            path = fpicture.save_gif([f for _, f in shots], args.gif, fps=args.fps, scale=args.scale or 1.0)
            print(f"wrote {path} ({len(shots)} frames)", file=out)
        if args.png:
            shots = frames(replay, seat, limit=max(1, args.frames))
            captions = [f"after {t} decision{'s' if t != 1 else ''}" if t else "start" for t, _ in shots]
            image = fpicture.strip([f for _, f in shots], args.columns, captions, scale=args.scale or 0.5)
            path = fpicture.save_png(image, args.png)
            print(f"wrote {path} ({len(shots)} pictures)", file=out)
    return status


if __name__ == "__main__":
    sys.exit(main())
