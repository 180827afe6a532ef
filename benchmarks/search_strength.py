"""How fast and how strong the search agent is: time per decision, and win rate against greedy.

    python -m fruit_envs.benchmarks.search_strength                                   # every 2-player game
    python -m fruit_envs.benchmarks.search_strength --games juicy_fruits --agent search:rollouts=128,depth=24
    python -m fruit_envs.benchmarks.search_strength --games cherry_picking --num-games 40 --timing-only
    python -m fruit_envs.benchmarks.search_strength --agent search:guided --opponent search   # issue 34

For each game with two players: the agent's time per decision for a batch of 64 games (CPU seconds of
this process, `time.process_time`, and wall seconds: on a shared machine the CPU time is the figure
to compare), measured on positions of 64 greedy-against-greedy games (every `--timing-every`-th decision
while at least 48 games are live, scaled to 64 games); then `--num-games` games against `--opponent`
(greedy by default; any agent name, e.g. `search` at its default budget), the
agent's seat rotating game by game (arena.evaluate: one batch, a fixed seeded list of games), with
wins, draws, losses and the 95% Wilson interval of the win rate. `--workers N` / `--ray ADDRESS` run each
game's timing and match as units of work on other processes (the same win rates; the timings then share
the machine). Writes one JSON file per game and
agent to `results/search/` under the current directory (`--out` elsewhere) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs._cli import prog
from fruit_envs.agents import AGENT_HELP, make_agent
from fruit_envs.agents.arena import evaluate
from fruit_envs.core import rng as frng
from fruit_envs.core import units
from fruit_envs.core.spec import get_spec, registered_games
from fruit_envs.core.threads import limit_threads

RESULTS = Path("results", "search")


def time_per_decision(game: str, agent_name: str, batch: int = 64, every: int = 10, seed: int = 0) -> dict:
    """CPU and wall seconds of one `act` call for `batch` games, on positions of greedy self-play."""
    spec = get_spec(game)
    config = spec.make_config(2)
    rules = spec.rules
    agent, greedy = make_agent(agent_name, spec, config), make_agent("greedy", spec, config)
    gen = np.random.default_rng(seed)
    state = rules.init(config, frng.keys_from_seed(seed, batch))
    cpu, wall, searched = [], [], []
    for t in range(spec.max_game_length(config)):
        live = np.flatnonzero(~state.done)
        if len(live) < 0.75 * batch:
            break
        mask = rules.legal_mask(state)
        obs = rules.observe(state, state.to_move)
        if t % every == every // 2:
            sub = state.take(live)
            c, w = time.process_time(), time.perf_counter()
            agent.act(obs[live], mask[live], gen, state=sub, seats=state.to_move[live])
            scale = batch / len(live)
            cpu.append((time.process_time() - c) * scale)
            wall.append((time.perf_counter() - w) * scale)
            searched.append(float((mask[live].sum(axis=1) > 1).mean()))
        state, _ = rules.step(state, greedy.act(obs, mask | state.done[:, None], gen))
    return {
        "batch": batch,
        "calls": len(cpu),
        "cpu_mean": float(np.mean(cpu)),
        "cpu_max": float(np.max(cpu)),
        "wall_mean": float(np.mean(wall)),
        "wall_max": float(np.max(wall)),
        "share_with_a_choice": float(np.mean(searched)),
    }


def strength(game: str, agent_name: str, num_games: int, seed: int = 0, opponent: str = "greedy") -> dict:
    spec = get_spec(game)
    config = spec.make_config(2)
    agent, other = make_agent(agent_name, spec, config), make_agent(opponent, spec, config)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    result = evaluate(spec, config, agent, other, num_games, seed=seed)
    result["opponent"] = opponent
    result["cpu_seconds"] = round(time.process_time() - start_cpu, 1)
    result["wall_seconds"] = round(time.perf_counter() - start_wall, 1)
    return result


def markdown(rows: list[dict]) -> str:
    lines = [
        "| game | agent | s/decision, 64 games (CPU) | wall | win rate (95% CI) | against | W/D/L | games |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        t, s = r.get("timing"), r.get("strength")
        timing = f"{t['cpu_mean']:.2f} (max {t['cpu_max']:.2f})" if t else "-"
        wall = f"{t['wall_mean']:.2f}" if t else "-"
        win = f"{s['win_rate']:.3f} ({s['win_rate_low']:.3f}-{s['win_rate_high']:.3f})" if s else "-"
        wdl = f"{s['wins']}/{s['draws']}/{s['losses']}" if s else "-"
        games = s["games"] if s else "-"
        against = f"`{s.get('opponent', 'greedy')}`" if s else "-"
        lines.append(f"| {r['game']} | `{r['agent']}` | {timing} | {wall} | {win} | {against} | {wdl} | {games} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.search_strength"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    two_player = [spec.id for spec in registered_games() if 2 in spec.player_counts]
    parser.add_argument("--games", nargs="+", default=two_player, help="game ids (default: every 2-player game)")
    parser.add_argument(
        "--agent", default="search", help=f"the agent measured: {AGENT_HELP} (default: search at its default budget)"
    )
    parser.add_argument(
        "--opponent", default="greedy", help="the agent it plays against, named the same way (default: greedy)"
    )
    parser.add_argument("--num-games", type=int, default=400, help="games per game (seats rotated)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fixed game list")
    parser.add_argument("--timing-every", type=int, default=10, help="time every k-th decision of the 64 games")
    parser.add_argument("--timing-only", action="store_true", help="measure time per decision only")
    parser.add_argument("--strength-only", action="store_true", help="measure the win rate only")
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON results folder (default: ./results/search)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="local worker processes, each game's timing and match a unit (default 1: timings with nothing beside)",
    )
    parser.add_argument("--ray", default=None, metavar="ADDRESS", help="on a Ray cluster: auto, ray://HOST:PORT, local")
    args = parser.parse_args(argv)
    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)
    try:
        for game in args.games:
            if 2 not in get_spec(game).player_counts:
                raise ValueError(f"{game} has no 2-player game; the win rate against greedy needs one")
            make_agent(args.agent, game)
            make_agent(args.opponent, game)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    jobs = []  # each game's timing and match are units of work (`fruit_envs.core.units`): any worker count alike
    for game in args.games:
        if not args.strength_only:
            timing = (game, args.agent, 64, args.timing_every, args.seed)
            jobs.append(units.Unit(f"{game}-timing", time_per_decision, timing))
        if not args.timing_only:
            match = (game, args.agent, args.num_games, args.seed, args.opponent)
            jobs.append(units.Unit(f"{game}-strength", strength, match, args.num_games))
    try:
        results = units.run_units(jobs, units.backend(args.workers, args.ray), progress=False)
    except (ValueError, units.UnitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    found = {unit.key: result for unit, result in zip(jobs, results, strict=True)}
    rows = []
    for game in args.games:
        row = {"game": game, "agent": args.agent, "date": time.strftime("%Y-%m-%d %H:%M")}
        if not args.strength_only:
            row["timing"] = found[f"{game}-timing"]
        if not args.timing_only:
            row["strength"] = found[f"{game}-strength"]
        rows.append(row)
        args.out.mkdir(parents=True, exist_ok=True)
        vs = "" if args.opponent == "greedy" else f"_vs_{args.opponent}"
        name = f"{game}_2p_{args.agent}{vs}".replace(":", "_").replace(",", "_").replace("=", "-").replace("/", "_")
        name += ".json"
        (args.out / name).write_text(json.dumps(row, indent=2))
        print(markdown([row]), flush=True)
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
