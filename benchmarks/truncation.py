"""How often games reach their safety cap: the share of truncated games under random and greedy play.

    python -m fruit_envs.benchmarks.truncation                          # every game, 1,000 games each
    python -m fruit_envs.benchmarks.truncation --game juicy_fruits --games 1000

A cap that is not a rule (declared as `GameSpec.truncation`) cuts a game off as truncated: no outcome
is paid (`fruit_envs.core.spec.outcome_rewards`). It is a safety net, so ordinary play should rarely
reach it. For every game, player count and agent (all seats played by that agent), the same seeded
games are played in one batch; the table gives the share truncated with a 95% Wilson interval, the
mean game length, and, for games whose rules name the causes (`rules.truncation_causes(state)`), the
share of each.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from fruit_envs._cli import prog
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import play_games, wilson_interval
from fruit_envs.core.rules_api import game_rules
from fruit_envs.core.spec import get_spec, registered_games

AGENTS = ("random", "greedy")


def measure(game: str, num_players: int, agent_name: str, num_games: int, seed: int = 0) -> dict:
    """One row: `num_games` games of `agent_name` in every seat."""
    spec = get_spec(game)
    config = spec.make_config(num_players)
    agent = make_agent(agent_name, spec, config)
    result = play_games(spec, config, [agent], np.zeros((num_games, num_players), dtype=np.int64), seed=seed)
    truncated = int(result.truncated.sum())
    low, high = wilson_interval(truncated, num_games)
    causes_of = game_rules(spec).truncation_causes
    causes = {} if causes_of is None else {k: int(v.sum()) for k, v in causes_of(result.final_state).items()}
    return {
        "game": spec.id,
        "players": num_players,
        "agent": agent_name,
        "games": num_games,
        "truncated": truncated,
        "share": truncated / num_games,
        "share_low": low,
        "share_high": high,
        "mean_length": float(result.lengths.mean()),
        "causes": causes,
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        "| game | players | agent | games | truncated | share (95% CI) | mean decisions | causes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        causes = ", ".join(f"{k} {v}" for k, v in r["causes"].items()) or "-"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['agent']} | {r['games']} | {r['truncated']} | "
            f"{r['share']:.3f} ({r['share_low']:.3f}-{r['share_high']:.3f}) | {r['mean_length']:.0f} | {causes} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.truncation"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", nargs="*", default=None, help="registered game ids (default: every game)")
    parser.add_argument("--players", type=int, nargs="*", default=None, help="player counts (default: all)")
    parser.add_argument("--agents", nargs="*", default=list(AGENTS), help="agents, each playing every seat")
    parser.add_argument("--games", type=int, default=1000, help="games per row")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fixed game list")
    args = parser.parse_args(argv)
    try:
        specs = [get_spec(g) for g in args.game] if args.game else registered_games()
        if args.games < 1:
            raise ValueError(f"--games must be a positive number of games, got {args.games}")
        rows = []
        for spec in specs:
            for players in args.players or spec.player_counts:
                if players not in spec.player_counts:
                    continue
                for agent in args.agents:
                    rows.append(measure(spec.id, players, agent, args.games, args.seed))
                    print(markdown(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
