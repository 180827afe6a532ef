"""Replay recorded games exactly: move by move with readable action names, or as a GIF / PNG strip.

    python -m fruit_envs.replay games.jsonl                     # every game, move by move
    python -m fruit_envs.replay games.jsonl --summary           # one line per game, each replayed and checked
    python -m fruit_envs.replay games.jsonl --index 3 --board   # game 3 with the table after every move
    python -m fruit_envs.replay games.jsonl --index 3 --gif game3.gif --seat 0
    python -m fruit_envs.replay games.jsonl --index 3 --png game3.png --frames 12

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
from fruit_envs._cli import prog
from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord
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


def print_moves(replay: frecord.Replay, out: TextIO, board: bool = False, seat: int | None = None) -> None:
    record = replay.record
    rules = get_spec(record.game).rules
    config = replay.final.config
    if board:
        print(fpicture.text(replay.states[0], 0, seat), file=out)
    phases = getattr(rules, "PHASE_NAMES", None)
    for t, (action, who) in enumerate(zip(record.actions, replay.seats, strict=True)):
        phase = getattr(replay.states[t], "phase", None)
        # the phase says what a bare name means (a Juicy Fruits cell: the token moved, where to, a ship...)
        name = rules.action_to_string(config, action)
        when = phases[int(phase[0])] if phases is not None and phase is not None else ""
        when = f"  ({when})" if when and when not in name else ""
        print(f"{t + 1:5d}  {record.label(who)}: {name}{when}", file=out)
        if board:
            print(fpicture.text(replay.states[t + 1], 0, seat), file=out)


def frames(replay: frecord.Replay, seat: int | None, every: int = 1, limit: int | None = None) -> list:
    """Pictures of the start, every `every`-th decision and the end (at most `limit`, evenly spaced)."""
    picks = list(range(0, len(replay.states), max(1, every)))
    if picks[-1] != len(replay.states) - 1:
        picks.append(len(replay.states) - 1)
    if limit is not None and len(picks) > limit:
        spaced = [picks[round(k * (len(picks) - 1) / (limit - 1))] for k in range(limit)] if limit > 1 else picks[-1:]
        picks = sorted(set(spaced))
    return [(t, fpicture.picture(replay.states[t], 0, seat)) for t in picks]


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.replay"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path, help="JSON-lines file of game records")
    parser.add_argument("--index", type=int, default=None, help="only the game at this index (0 = first line)")
    parser.add_argument("--summary", action="store_true", help="one line per game instead of every move")
    parser.add_argument("--board", action="store_true", help="print the table after every move")
    parser.add_argument("--seat", type=int, default=None, help="show the table as this seat sees it (default: all)")
    parser.add_argument("--gif", type=Path, default=None, help="write an animated GIF of the game")
    parser.add_argument("--png", type=Path, default=None, help="write a PNG strip of pictures of the game")
    parser.add_argument("--every", type=int, default=1, help="GIF: one frame every this many decisions")
    parser.add_argument("--fps", type=float, default=2.0, help="GIF: frames per second")
    parser.add_argument("--frames", type=int, default=8, help="PNG strip: number of pictures")
    parser.add_argument("--columns", type=int, default=4, help="PNG strip: pictures per row")
    parser.add_argument("--scale", type=float, default=None, help="picture scale (GIF 1.0, strip 0.5 by default)")
    args = parser.parse_args(argv)

    try:
        records = frecord.read_records(args.file)
    except frecord.RecordError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not records:
        print(f"error: {args.file} holds no game records", file=sys.stderr)
        return 2
    if args.index is not None and not 0 <= args.index < len(records):
        print(f"error: --index {args.index}: {args.file} holds games 0..{len(records) - 1}", file=sys.stderr)
        return 2
    chosen = range(len(records)) if args.index is None else [args.index]
    if (args.gif or args.png) and len(chosen) != 1:
        print(f"error: {args.file} holds {len(records)} games; choose one with --index for a GIF/PNG", file=sys.stderr)
        return 2
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
        if args.gif or args.png:
            try:
                fpicture.require_pillow()
            except ImportError as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
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
