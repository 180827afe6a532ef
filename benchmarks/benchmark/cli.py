"""The command line, `fruit-envs-benchmark` (also `python -m fruit_envs.benchmarks.benchmark`); its help is
the package's docstring."""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
from pathlib import Path

from fruit_envs._cli import non_negative_int, positive_int, prog, writable_dir
from fruit_envs.agents import AGENT_HELP
from fruit_envs.benchmarks.benchmark.calibration import calibrate
from fruit_envs.benchmarks.benchmark.cards import PUBLISHED, reference_cards
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError, PolicyError, Stopped
from fruit_envs.benchmarks.benchmark.reports import _json_default, summary_table
from fruit_envs.benchmarks.benchmark.run import default_out, evaluate, latest_run
from fruit_envs.core import units


def _games_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[int | None, list | None]:
    """(games per cell, games filter) from `--games GAME ...` or `--games N`, `--games-per-cell` and
    `--games-filter`; a mix or a repeat is a usage error naming the forms allowed."""
    per_cell, only = args.games_per_cell, args.games_filter
    if args.games is not None:
        numbers = [value for value in args.games if value.isdecimal()]
        if numbers and len(args.games) > 1:
            parser.error(
                f"--games takes game names (GAME or GAME:PLAYERS) or one number of games per cell, not both: "
                f"{' '.join(args.games)}"
            )
        if numbers:
            if per_cell is not None:
                parser.error("give the games per cell once: --games N or --games-per-cell N")
            try:
                per_cell = positive_int(numbers[0])
            except argparse.ArgumentTypeError as error:
                parser.error(f"--games: {error}")
        else:
            if only is not None:
                parser.error("give the games once: --games GAME ... or --games-filter GAME ...")
            only = args.games
    return per_cell, only


CARD_ERRORS = (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError, MemoryError, OSError)


def verify_main(argv: list[str]) -> int:
    """`fruit-envs-benchmark verify CARD [CARD ...] [--sample K] [--sample-seed S] [--policy P]`: exit 0 when
    every card verifies, 1 when one differs (the differences are printed), 2 when a card cannot be checked (one
    line naming why)."""
    from fruit_envs.benchmarks.benchmark.verify import verify_card, verify_summary

    parser = argparse.ArgumentParser(
        prog=f"{prog('fruit_envs.benchmarks.benchmark')} verify",
        description=sys.modules["fruit_envs.benchmarks.benchmark.verify"].__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("cards", nargs="+", metavar="CARD", help="a card.json, or the report folder holding it")
    parser.add_argument(
        "--sample", type=non_negative_int, default=0, metavar="K",
        help="draw K games and play each drawn game's cell again with the policy, every game of it compared "
        "(default: 0)",
    )  # fmt: skip
    parser.add_argument(
        "--policy", default=None, help="the policy to play again with where the card's own words may not build it "
        "(a model .zip or model.json, package.module:make): your choice, so it may run code; its file must have the "
        "card's hash",
    )  # fmt: skip
    parser.add_argument(
        "--sample-seed", "--seed", type=non_negative_int, default=None, metavar="S", dest="sample_seed",
        help="seed of the games drawn (default: a fresh one, printed, so a run can be repeated; --seed is the "
        "older spelling)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    from fruit_envs.core.threads import limit_threads

    limit_threads()
    failed = False
    for card in args.cards:
        try:
            result = verify_card(card, args.sample, args.policy, args.sample_seed)
        except BenchmarkError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        except CARD_ERRORS as error:  # data no check foresaw: still one line, never a traceback
            print(f"error: {card} cannot be checked: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
            return 2
        print(verify_summary(result))
        failed |= bool(result["problems"])
    return 1 if failed else 0


def games_main(argv: list[str]) -> int:
    """`fruit-envs-benchmark games CARD [--policy P]`: play every cell of a card again with its policy and, where
    every game comes out with the card's digest, write their actions beside it (games.npz): what `verify`
    replays through the rules. For cards made before cards kept their games; exit 2 (nothing written) where a
    cell's games cannot be reproduced."""
    from fruit_envs.benchmarks.benchmark.card_policy import write_card_games

    parser = argparse.ArgumentParser(
        prog=f"{prog('fruit_envs.benchmarks.benchmark')} games", description=games_main.__doc__
    )
    parser.add_argument("card", metavar="CARD", help="a card.json, or the folder holding it")
    parser.add_argument("--policy", default=None, help="the policy, where the card's own words may not build it")
    args = parser.parse_args(argv)
    from fruit_envs.core.threads import limit_threads

    limit_threads()
    try:
        path, games = write_card_games(args.card, args.policy)
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except CARD_ERRORS as error:
        print(f"error: {args.card} cannot be played again: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
        return 2
    print(f"wrote {path}: {games} games, every one the card's")
    return 0


def _stopped(stop: BaseException, args) -> str:
    """What a stopped run says: the cells kept and where, and the command that goes on from there."""
    if not isinstance(stop, Stopped):  # stopped outside the cells (a best response, the report): cells are kept
        where = f" in {args.out}" if args.out is not None else " under ./results/benchmark/"
        return f"stopped (Ctrl-C): the finished cells are kept{where}; run the same command with --resume to go on"
    if stop.out is None:
        return f"{stop}; run the same command with --resume to go on"
    words = list(args.argv) + ([] if "--resume" in args.argv else ["--resume"])
    if args.out is None:
        words += ["--out", str(stop.out)]
    again = shlex.join(["fruit-envs-benchmark", *words])
    return f"{stop}; `{again}` goes on with the others (the same numbers as one run)"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["verify"]:
        return verify_main(argv[1:])
    if argv[:1] == ["games"]:
        return games_main(argv[1:])
    if argv[:1] == ["leaderboard"]:
        from fruit_envs.benchmarks.benchmark.leaderboard import leaderboard_main

        return leaderboard_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.benchmark"),
        description=sys.modules[__package__].__doc__,  # the package's docstring: the usage and the protocol
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "policy",
        nargs="?",
        help=f"{AGENT_HELP}; or reference:NAME (a reference agent of the protocol, e.g. reference:search at its "
        "fixed budget)",
    )
    parser.add_argument("--suite", default="standard", help="quick, standard or full (default: standard)")
    parser.add_argument(
        "--games",
        nargs="+",
        default=None,
        metavar="GAME",
        help="only these games (GAME or GAME:PLAYERS); one number instead is the games per cell (--games-per-cell)",
    )
    parser.add_argument(
        "--games-per-cell",
        type=positive_int,
        default=None,
        metavar="N",
        help="games per cell, rounded down to a multiple of the player count (default: the suite's)",
    )
    parser.add_argument(
        "--out",
        type=writable_dir,
        default=None,
        help="report folder (default: ./results/benchmark/<policy>_<suite>_<time>/)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=None, help="seed of the deals (default: the protocol's)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--best-response",
        type=non_negative_int,
        default=None,
        metavar="STEPS",
        help="train a fresh PPO for STEPS decisions against the policy in every two-player game; report its win "
        "share (0: none)",
    )
    parser.add_argument(
        "--exploitability",
        default=None,
        metavar="METHOD",
        help="lbr or lbr:PARTICLES: a local best response in every seat at every player count, each seat's gain "
        "over the policy's own value (a lower bound on exploitability, no training); br or br:STEPS: a MaskablePPO "
        "trained for STEPS decisions (default: the protocol's card_steps) in every seat at every player count, "
        "the same bound from a trained response",
    )
    parser.add_argument(
        "--br-starts",
        default=None,
        metavar="START,...",
        help="the warm starts --exploitability br tries in each seat, the best chosen on other deals than those "
        "reported: scratch, baseline (the shipped PPO baseline), candidate (the policy, when it is a PPO model) "
        "(default: each that applies)",
    )
    parser.add_argument(
        "--exploitability-players",
        default=None,
        metavar="N,...",
        help="only these player counts for --exploitability (e.g. 2; default: every count of the run)",
    )
    parser.add_argument("--games-filter", nargs="+", default=None, metavar="GAME", help="the same as --games GAME ...")
    parser.add_argument(
        "--references", nargs="+", default=None, help="only these references (the run then does not conform)"
    )
    parser.add_argument(
        "--skip-missing", action="store_true", help="leave out cells whose PPO baseline is not shipped yet"
    )
    parser.add_argument("--protocol", default="1", help="protocol version or YAML file (default: 1)")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="instead of a policy: rate the references against each other; print the protocol file's anchors block",
    )
    parser.add_argument(
        "--reference-cards",
        nargs="*",
        default=None,
        metavar="NAME",
        help="instead of a policy: the published report cards of the references (all four, or the NAMEs given) "
        "into --out (default: the checkout's benchmarks/results/benchmark/), with the protocol's best response "
        "against greedy and ppo-baseline (--best-response STEPS to change it, 0 for none); then the index cards.md",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="local worker processes playing the cells (default: every usable core; 1: this process)",
    )
    parser.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="play the cells on a Ray cluster: auto (the one `ray start` runs here), ray://HOST:PORT, or local "
        "(start one on this machine)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with the newest stopped run of this policy and suite under ./results/benchmark/ (or --out's): "
        "only its unfinished cells are played",
    )
    args = parser.parse_args(argv)
    args.argv = argv
    args.games_per_cell, args.games_filter = _games_arguments(parser, args)
    from fruit_envs.core.threads import limit_threads

    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)
    protocol: int | str = int(args.protocol) if args.protocol.isdecimal() else args.protocol
    try:
        if args.calibrate:
            if args.policy is not None:
                raise BenchmarkError("--calibrate rates the protocol's references; give no POLICY with it")
            result = calibrate(
                args.suite, args.games_per_cell, args.games_filter, args.seed, not args.no_progress, protocol,
                workers=args.workers, ray_address=args.ray, folder=args.out,
            )  # fmt: skip
            if args.out is not None:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / "calibration.json").write_text(json.dumps(result, indent=2, default=_json_default))
                units.forget(args.out)  # its pairings are in calibration.json now
            print(result["yaml"])
            return 0
        if args.reference_cards is not None:
            if args.policy is not None:
                raise BenchmarkError("--reference-cards benchmarks the protocol's references; give no POLICY with it")
            reference_cards(
                args.out or PUBLISHED,
                args.suite,
                args.reference_cards or None,
                args.best_response,
                not args.no_progress,
                protocol,
                workers=args.workers,
                ray_address=args.ray,
                exploitability=args.exploitability,
                exploitability_players=args.exploitability_players,
            )
            print((Path(args.out or PUBLISHED) / "cards.md").read_text())
            return 0
        if args.policy is None:
            raise BenchmarkError("give the POLICY to benchmark (an agent name, a model .zip or package.module:make)")
        source_label = args.policy
        out = args.out
        if out is None and args.resume:
            out = latest_run(source_label, args.suite)
            if out is None:
                raise BenchmarkError(
                    f"--resume: no stopped run of {source_label} ({args.suite}) under results/benchmark/; "
                    "give its folder with --out"
                )
            print(f"resuming {out}", file=sys.stderr)
        out = out or default_out(source_label, args.suite)
        report = evaluate(
            args.policy,
            suite=args.suite,
            games=args.games_per_cell,
            out=out,
            seed=args.seed,
            progress=not args.no_progress,
            best_response=args.best_response or None,
            only=args.games_filter,
            references=args.references,
            skip_missing=args.skip_missing,
            protocol=protocol,
            workers=args.workers,
            ray_address=args.ray,
            exploitability=args.exploitability,
            exploitability_starts=args.br_starts,
            exploitability_players=args.exploitability_players,
        )
    except (Stopped, KeyboardInterrupt) as stop:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopping: a further Ctrl-C is not news
        print(_stopped(stop, args), file=sys.stderr)
        return 130
    except BenchmarkError as error:
        if isinstance(error, PolicyError) and error.traceback:
            print(f"the policy raised:\n{error.traceback}", file=sys.stderr, end="")
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(summary_table(report))
    print(f"report in {report['out']}")
    return 0
