"""Play agents against each other in batch: every seat of every game driven by an agent.

The loop runs over decisions and, inside, over seats (a handful), never over games: each pass asks
each seat's agent for the actions of all games where that seat is to move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.spec import Config, GameSpec, get_spec


@dataclass
class MatchResult:
    """Outcome of `num_games` games; arrays are indexed by game then seat."""

    scores: np.ndarray  # (G, P) final score of each seat (the game's own score)
    winners: np.ndarray  # (G, P) bool, several when tied
    lengths: np.ndarray  # (G,) decisions per game
    truncated: np.ndarray  # (G,) bool
    actions: list[np.ndarray] | None = None  # per decision, (G,) actions (-1 where a game was over)

    def outcome(self, seat_of_interest: np.ndarray) -> np.ndarray:
        """+1 win, 0 draw (everyone tied), -1 loss for the given seat of each game."""
        rows = np.arange(len(self.scores))
        won = self.winners[rows, seat_of_interest]
        out = np.where(won, 1, -1)
        out[self.winners.all(axis=1)] = 0
        return out


def play_match(
    game: str | GameSpec,
    config: Config,
    seat_agents: list,
    num_games: int,
    seed: int = 0,
    record: bool = False,
    keys: np.ndarray | None = None,
) -> MatchResult:
    """Play `num_games` games with `seat_agents[k]` in seat k; returns scores and winners."""
    spec = get_spec(game)
    rules = spec.rules
    p = config.num_players
    if len(seat_agents) != p:
        raise ValueError(f"{spec.name} with {p} players needs {p} seat agents, got {len(seat_agents)}")
    gen = np.random.default_rng(seed)
    state = rules.init(config, frng.keys_from_seed(seed, num_games) if keys is None else keys)
    log = [] if record else None
    for _ in range(spec.max_game_length(config) + 1):
        if state.done.all():
            break
        actions = np.full(num_games, -1, dtype=np.int64)
        mask = rules.legal_mask(state)
        for seat, agent in enumerate(seat_agents):
            games = np.flatnonzero(~state.done & (state.to_move == seat))
            if len(games):
                obs = rules.observe(state.take(games), seat)
                actions[games] = agent.act(obs, mask[games], gen)
        live = ~state.done
        if not mask[np.flatnonzero(live), actions[live]].all():
            raise ValueError("an agent chose an illegal action")
        if log is not None:
            log.append(actions.copy())
        state, _ = rules.step(state, np.maximum(actions, 0))
    else:
        raise RuntimeError("games outlived the declared maximum length")
    return MatchResult(
        scores=np.asarray(rules.final_scores(state)),
        winners=rules.winners(state),
        lengths=state.step_count.astype(np.int64),
        truncated=state.truncated.copy(),
        actions=log,
    )


def evaluate(
    game: str | GameSpec,
    config: Config,
    agent,
    opponent,
    num_games: int,
    seed: int = 0,
) -> dict:
    """`agent` against `opponent` in every other seat, seats rotated evenly; win rate with 95% Wilson CI."""
    p = config.num_players
    per_seat = max(1, num_games // p)
    outcomes = []
    for seat in range(p):
        seats = [opponent] * p
        seats[seat] = agent
        result = play_match(game, config, seats, per_seat, seed=seed * 1000 + seat)
        outcomes.append(result.outcome(np.full(per_seat, seat)))
    outcomes = np.concatenate(outcomes)
    wins, draws = int((outcomes == 1).sum()), int((outcomes == 0).sum())
    low, high = wilson_interval(wins, len(outcomes))
    return {
        "games": len(outcomes),
        "wins": wins,
        "draws": draws,
        "losses": len(outcomes) - wins - draws,
        "win_rate": wins / len(outcomes),
        "win_rate_low": low,
        "win_rate_high": high,
    }


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if trials == 0:
        return (0.0, 1.0)
    phat = successes / trials
    denom = 1 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z * math.sqrt(phat * (1 - phat) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
