"""One cell: the policy in each seat in turn, the reference in every other seat, one batch; and its numbers."""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fruit_envs.agents.arena import play_games, wilson_interval
from fruit_envs.benchmarks.benchmark.errors import PolicyError
from fruit_envs.benchmarks.benchmark.policies import _Checked, _Fault, _Logged
from fruit_envs.benchmarks.benchmark.protocol import cell_keys, cell_seed
from fruit_envs.benchmarks.benchmark.result_card import actions_digest
from fruit_envs.core import record as frecord
from fruit_envs.core.spec import Config, GameSpec


@dataclass
class Cell:
    game: str
    players: int
    reference: str | None  # None: a one-player game, the policy alone
    reference_agent: str | None
    result: dict = field(default_factory=dict)


SEARCH_COST = 50  # a searching seat's decision against any other agent's, roughly: to order units (`Unit.cost`)


def cell_cost(games: int, players: int, searching_seats: int) -> float:
    """A cell's expected cost, on a scale only for ordering units costliest first: its games' seats, those of
    search weighted by `SEARCH_COST`."""
    return float(games * ((players - searching_seats) + SEARCH_COST * searching_seats))


_built: dict = {}  # the agents this process built for one run's cells: (run, game, players, agent) -> agent


def remember(run: str, game: str, players: int, role: str, agent: Any) -> None:
    """Keep an agent of run `run` built in this process (`role`: `policy`, or the reference's agent name) for
    the cells played here: the run's own agents, built and checked before play, are not built again."""
    if any(key[0] != run for key in _built):
        _built.clear()  # another run's agents
    _built[(run, game, players, role)] = agent


def cell_unit(
    policy: Any, game: str, players: int, reference: str | None, reference_agent: str | None, per_seat: int,
    seed: int, labels: tuple[str, str],
) -> tuple[dict, dict]:  # fmt: skip
    """One cell as a unit of work (`core.units`), in whatever process runs it: its agents built there (or
    kept from an earlier cell of the run), then `play_cell`. Every seed is the cell's own, so the numbers are
    those of the cell played anywhere else."""
    from fruit_envs.core.spec import get_spec

    spec = get_spec(game)
    config = spec.make_config(players)
    ref = None if reference_agent is None else built(policy, spec, config, reference_agent)
    return play_cell(spec, config, built(policy, spec, config), ref, per_seat, seed, reference, labels)


def built(policy: Any, spec: GameSpec, config: Config, role: str = "policy") -> Any:
    """The run's policy (`role="policy"`) or the agent named `role`, for a game and player count: kept from
    earlier in this process (`remember`), else built here, from the policy's traveller or by name."""
    from fruit_envs.agents import make_agent

    key = (policy.run, spec.id, config.num_players, role)
    if key not in _built:
        remember(*key, policy.agent(spec, config) if role == "policy" else make_agent(role, spec, config))
    return _built[key]


def play_cell(
    spec: GameSpec,
    config: Config,
    policy: Any,
    reference: Any,
    games_per_seat: int,
    seed: int,
    reference_name: str | None,
    labels: tuple[str, str],
) -> tuple[dict, dict]:
    """Play one cell in one batch; returns its numbers and the raw per-game arrays the ratings use.
    A fault of the policy raises `PolicyError` with the failing game saved as a record (no report yet)."""
    p = config.num_players
    num_games = games_per_seat * p
    policy_seat = np.repeat(np.arange(p), games_per_seat)  # (G,) the policy's seat in each game
    seating = np.ones((num_games, p), dtype=np.int64)
    seating[np.arange(num_games), policy_seat] = 0
    keys = cell_keys(seed, spec.id, p, games_per_seat)
    history = np.full((num_games, spec.max_game_length(config) + 1), -1, dtype=np.int64)
    checked = _Checked(policy, history)
    agents = [checked] if reference is None else [checked, _Logged(reference, history)]
    rng_seed = cell_seed(seed, spec.id, p, reference_name or "alone")
    start, cpu = time.perf_counter(), time.process_time()
    try:
        result = play_games(spec, config, agents, seating, seed=rng_seed, keys=keys)
    except _Fault as fault:
        g = fault.game
        players = [labels[int(a)] for a in seating[g]]
        where = (
            f"{spec.id} with {p} player{'s' if p > 1 else ''}"
            + (f" against {reference_name}" if reference_name else "")
            + f", seed {seed}"
        )
        if fault.batch is not None and len(fault.batch) > 1:
            shown = ", ".join(map(str, fault.batch[:8])) + (", ..." if len(fault.batch) > 8 else "")
            where += (
                f", for a batch of {len(fault.batch)} games of the cell (games {shown}), not for one game; "
                f"the batch included game {g} (key {int(keys[g])}) at seat {fault.seat}, step {fault.step}"
            )
        else:
            where += f" (game {g} of the cell, key {int(keys[g])}), seat {fault.seat}, step {fault.step}"
        record = frecord.GameRecord(
            game=spec.id,
            rules_version=spec.version,
            config=config.to_dict(),
            actions=history[g, : fault.step].tolist(),
            key=int(keys[g]),
            players=players,
            outcome=None,
            meta=frecord._meta(
                "benchmark",
                {
                    "failure": fault.problem,
                    "seat": fault.seat,
                    "step": fault.step,
                    "attempted": fault.attempted,
                    "reference": reference_name,
                    "seed": seed,
                    "batch": fault.batch,
                },
            ),
        )
        cause = fault.__cause__
        raise PolicyError(
            f"policy {labels[0]!r} {fault.problem}, in {where}",
            record=record,
            traceback=None if cause is None else "".join(traceback.format_exception(cause)),
        ) from cause
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return cell_numbers(result.scores, result.winners, result.truncated, policy_seat, seconds), {
        "scores": result.scores,
        "winners": result.winners,
        "truncated": result.truncated,
        "policy_seat": policy_seat,
        "actions_sha256": [actions_digest(row[row >= 0]) for row in history],  # the result card's (per game)
        "actions": [row[row >= 0] for row in history],  # every game's actions: the card's games file
        "cpu_seconds": cpu,
    }


def pair_outcomes(scores: np.ndarray, winners: np.ndarray, policy_seat: np.ndarray) -> np.ndarray:
    """`(G, P)` result of the policy against each seat: 1 beat it, 0.5 tie, 0 lost; NaN for its own seat.

    A winner beats a non-winner; two winners tie (a shared win); between two non-winners the higher
    final score wins (more than two players: who came second)."""
    g = np.arange(len(scores))
    won_p, score_p = winners[g, policy_seat][:, None], scores[g, policy_seat][:, None]
    beats = (won_p & ~winners) | (~won_p & ~winners & (score_p > scores))
    beaten = (winners & ~won_p) | (~won_p & ~winners & (scores > score_p))
    out = np.where(beats, 1.0, np.where(beaten, 0.0, 0.5))
    out[g, policy_seat] = np.nan
    return out


def cell_numbers(
    scores: np.ndarray, winners: np.ndarray, truncated: np.ndarray, policy_seat: np.ndarray, seconds: float
) -> dict:
    """A cell's numbers: win share of finished games (95% Wilson), draws, mean score margin, mean rank
    (1 = first), truncated share; a one-player cell: mean score with a 95% interval."""
    num_games, p = scores.shape
    g = np.arange(num_games)
    finished = ~truncated
    own = scores[g, policy_seat].astype(np.float64)
    out: dict[str, Any] = {"games": int(num_games), "finished": int(finished.sum()), "truncated": int(truncated.sum())}
    out["truncated_share"] = out["truncated"] / num_games
    if p == 1:
        half = 1.959964 * own.std(ddof=1) / math.sqrt(num_games) if num_games > 1 else float("inf")
        out.update(
            mean_score=float(own.mean()), score_low=float(own.mean() - half), score_high=float(own.mean() + half)
        )
        out["seconds"] = round(seconds, 2)
        return out
    won = winners[g, policy_seat]
    draw = winners.all(axis=1)
    wins = int((finished & won & ~draw).sum())
    draws = int((finished & draw).sum())
    played = out["finished"]
    low, high = wilson_interval(wins, played)
    others = np.where(np.arange(p)[None, :] == policy_seat[:, None], -np.inf, scores.astype(np.float64))
    margin = own - others.max(axis=1)
    pairs = pair_outcomes(scores, winners, policy_seat)
    rank = 1 + np.nansum(pairs == 0.0, axis=1)
    out.update(
        wins=wins,
        draws=draws,
        losses=played - wins - draws,
        win_share=wins / played if played else None,
        win_low=low,
        win_high=high,
        mean_margin=float(margin[finished].mean()) if played else None,
        mean_rank=float(rank[finished].mean()) if played and p > 2 else None,
        seconds=round(seconds, 2),
    )
    return out
