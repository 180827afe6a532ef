"""Seeded games of greedy against random: one game shown move by move, then a result table.

python -m fruit_envs.training.demo --games 400
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

import fruit_envs
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import evaluate
from fruit_envs.core import rng as frng
from fruit_envs.core.rules_api import phase_names


@dataclass
class DemoArgs:
    game: str = "cherry_picking"  # registered game id
    games: int = 400  # games per player count (seats rotated evenly)
    players: tuple[int, ...] = (2, 3, 4)  # player counts for the result table
    seed: int = 0  # seed of the first game; game i uses seed + i


def show_game(game: str, num_players: int, seed: int) -> str:
    """Text of one game, greedy in seat 0 against random: start, every decision, every set, the end."""
    spec = fruit_envs.get_spec(game)
    rules, config = spec.rules, spec.make_config(num_players)
    agents = [make_agent("greedy", spec, config)] + [make_agent("random", spec, config)] * (num_players - 1)
    names = ["greedy"] + ["random"] * (num_players - 1)
    gen = np.random.default_rng(seed)
    state = rules.init(config, frng.keys_from_seed(seed, 1))
    lines = [rules.render(state, 0), ""]
    line: list[str] = []
    phase_of = phase_names(spec)
    while not state.done[0]:
        seat = int(state.to_move[0])
        action = int(agents[seat].act(rules.observe(state, seat), rules.legal_mask(state), gen)[0])
        line.append(f"player_{seat} ({names[seat]}): {rules.action_to_string(config, action)}")
        before = rules.describe(state, 0)
        state, _ = rules.step(state, np.array([action]))
        after = rules.describe(state, 0)
        trick_over = after.get("phase") == "commit" and after.get("to_move") == "player_0"
        if phase_of is None or trick_over or after["done"]:
            lines.append("  " + "; ".join(line))
            line = []
        if after.get("set") != before.get("set"):
            lines.append(f"-- set {before['set']} scored: {after['set_scores'][before['set'] - 1]}")
    lines += ["", rules.render(state, 0)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = DemoArgs()
    parser.add_argument("--game", default=defaults.game, help="registered game id")
    parser.add_argument("--games", type=int, default=defaults.games, help="games per player count")
    parser.add_argument("--players", type=int, nargs="+", default=list(defaults.players), help="player counts")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="base seed")
    args = parser.parse_args(argv)
    spec = fruit_envs.get_spec(args.game)
    print(f"{spec.name}: one seeded game, greedy (player_0) against random\n")
    print(show_game(spec.id, args.players[0], args.seed))
    print(f"\n{spec.name}: greedy against random, {args.games} seeded games per player count, seats rotated\n")
    header = "| players | games | greedy wins | draws | greedy losses | greedy win rate (95% CI) |"
    print(header)
    print("|---|---|---|---|---|---|")
    table = {}
    for p in args.players:
        config = spec.make_config(p)
        r = evaluate(
            spec,
            config,
            make_agent("greedy", spec, config),
            make_agent("random", spec, config),
            args.games,
            seed=args.seed,
        )
        table[p] = r
        print(
            f"| {p} | {r['games']} | {r['wins']} | {r['draws']} | {r['losses']} | "
            f"{r['win_rate']:.3f} ({r['win_rate_low']:.3f}-{r['win_rate_high']:.3f}) |"
        )
    return table


if __name__ == "__main__":
    main()
