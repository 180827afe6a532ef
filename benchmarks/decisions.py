"""Where a policy's decisions differ from a reference agent's, on the positions the policy meets.

    python -m fruit_envs.benchmarks.decisions --game quickity_pickity --agent ppo-baseline --reference greedy
    python -m fruit_envs.benchmarks.decisions --game cherry_picking --agent ppo:runs/.../model.zip --games 400

The agent plays one seat (rotated game by game) against `--opponent` (default: the reference) in
the other seats. At each of its decisions the reference is asked too, on the same observation (and
state, for agents that search). Reported: the agent's wins, draws and losses; how often the two agree,
per phase of the game; the commonest disagreements by kind of action (the first word of the rules'
action names); and the agent's result in the games where it disagreed most against those where it
agreed most. It answers "what does the heuristic do that the policy does not", one game at a time.

`--reference-decides KIND ...` plays a hybrid: wherever the agent's own choice is an action of one of
these kinds, the reference's choice is played instead (both are still compared). Its result against the
agent's own tells which kind of decision wins or loses the games:

    python -m fruit_envs.benchmarks.decisions --game quickity_pickity --reference-decides place
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

import numpy as np

from fruit_envs._cli import positive_int, prog
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import play_games, wilson_interval
from fruit_envs.agents.base import action_kinds, state_kwargs
from fruit_envs.core.rules_api import phase_names
from fruit_envs.core.spec import get_spec
from fruit_envs.core.threads import limit_threads


class Shadow:
    """Plays `agent`; asks `reference` the same question and keeps both answers with the mover's phase."""

    needs_state = needs_games = True

    def __init__(self, agent, reference, handed: np.ndarray | None = None):
        self.agent, self.reference = agent, reference
        self.name = getattr(agent, "name", "agent")
        self.rows: list[np.ndarray] = []  # (game, phase, agent action, reference action) per decision
        self.seed = np.random.SeedSequence(7)
        self.handed = handed  # `(A,)` bool: where the agent's choice is one of these, the reference's is played

    def act(self, obs, mask, rng, state=None, seats=None, games=None):
        chosen = np.asarray(self.agent.act(obs, mask, rng, **state_kwargs(self.agent, state, seats)))
        own_rng = np.random.default_rng(self.seed.spawn(1)[0])  # the reference never moves the game's dice
        other = np.asarray(self.reference.act(obs, mask, own_rng, **state_kwargs(self.reference, state, seats)))
        phase = np.asarray(getattr(state, "phase", np.zeros(len(obs))), dtype=np.int64)
        game = np.asarray(games, dtype=np.int64)
        self.rows.append(np.stack([game, phase, chosen, other], axis=1))
        return chosen if self.handed is None else np.where(self.handed[chosen], other, chosen)


def compare(
    game: str,
    num_players: int | None,
    agent: str,
    reference: str,
    opponent: str | None,
    games: int,
    seed: int,
    reference_decides: tuple[str, ...] = (),
):
    spec = get_spec(game)
    config = spec.make_config(num_players)
    p = config.num_players
    if p < 2:
        raise ValueError(f"{spec.name} with one player has no opponents: compare needs 2 or more players")
    kinds = action_kinds(spec, config)
    unknown = sorted(set(reference_decides) - set(kinds))
    if unknown:
        raise ValueError(f"{spec.name} has no actions of kind {unknown}; its kinds are {sorted(set(kinds))}")
    handed = np.isin(kinds, list(reference_decides)) if reference_decides else None
    games = max(p, games - games % p)
    me = Shadow(make_agent(agent, spec, config), make_agent(reference, spec, config), handed)
    seat = np.arange(games) % p
    seating = np.ones((games, p), dtype=np.int64)
    seating[np.arange(games), seat] = 0
    result = play_games(spec, config, [me, make_agent(opponent or reference, spec, config)], seating, seed=seed)
    outcome = result.outcome(seat)
    finished = ~result.truncated
    rows = np.concatenate(me.rows) if me.rows else np.zeros((0, 4), np.int64)
    names = phase_names(spec)
    by_phase = {}
    for ph in np.unique(rows[:, 1]):
        sel = rows[:, 1] == ph
        label = names[ph] if names is not None and ph < len(names) else str(int(ph))
        by_phase[label] = {
            "decisions": int(sel.sum()),
            "agreement": round(float((rows[sel, 2] == rows[sel, 3]).mean()), 4),
        }

    differ = rows[rows[:, 2] != rows[:, 3]]
    pairs = Counter((kinds[a], kinds[b]) for a, b in differ[:, 2:4])
    per_game = np.zeros(games)
    counts = np.zeros(games)
    np.add.at(per_game, rows[:, 0], rows[:, 2] != rows[:, 3])
    np.add.at(counts, rows[:, 0], 1)
    share = np.where(counts > 0, per_game / np.maximum(counts, 1), 0.0)
    order = np.argsort(share)
    third = max(1, games // 3)
    won = (outcome == 1) & finished

    def rate(sel):
        wins, n = int(won[sel].sum()), int(finished[sel].sum())
        low, high = wilson_interval(wins, n)
        return {"games": n, "win_rate": round(wins / n, 4) if n else 0.0, "low": round(low, 4), "high": round(high, 4)}

    wins, draws = int(won.sum()), int((finished & (outcome == 0)).sum())
    return {
        "game": spec.id,
        "num_players": p,
        "agent": agent,
        "reference": reference,
        "opponent": opponent or reference,
        "reference_decides": list(reference_decides),
        "handed_to_reference": int(handed[rows[:, 2]].sum()) if handed is not None else 0,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": int(finished.sum()) - wins - draws,
        "truncated": int((~finished).sum()),
        "decisions": len(rows),
        "agreement": round(float((rows[:, 2] == rows[:, 3]).mean()), 4) if len(rows) else None,
        "by_phase": by_phase,
        "top_disagreements": [
            {"agent": a, "reference": b, "share_of_decisions": round(n / max(len(rows), 1), 4)}
            for (a, b), n in pairs.most_common(8)
        ],
        "win_rate_most_agreeing_third": rate(order[:third]),
        "win_rate_least_agreeing_third": rate(order[-third:]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.decisions"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True, help="registered game id")
    parser.add_argument("--num-players", type=positive_int, default=None, help="default: the game's")
    parser.add_argument("--agent", default="ppo-baseline", help="the policy examined (any agent name)")
    parser.add_argument("--reference", default="greedy", help="the agent it is compared with")
    parser.add_argument("--opponent", default=None, help="who plays the other seats (default: the reference)")
    parser.add_argument("--games", type=positive_int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--reference-decides",
        nargs="+",
        default=(),
        metavar="KIND",
        help="play the reference's choice wherever the agent's is an action of these kinds (first word of its name)",
    )
    args = parser.parse_args(argv)
    limit_threads()
    try:
        report = compare(
            args.game,
            args.num_players,
            args.agent,
            args.reference,
            args.opponent,
            args.games,
            args.seed,
            tuple(args.reference_decides),
        )
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
