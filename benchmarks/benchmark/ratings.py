"""Ratings: Elo-scale Bradley-Terry against references whose ratings are held fixed, their bootstrap
intervals, the one-player game's normalised mean score and the suite's aggregate."""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark.play import pair_outcomes

ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
PRIOR_WEIGHT_WARNING = 0.10  # a rating whose virtual ties are this share of its results or more is prior-set


def fit_rating(wins: np.ndarray, pairs: np.ndarray, anchors: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """Maximum-likelihood Elo rating(s) of one player from its pairwise results against fixed ratings.

    `wins (..., J)`: points scored against reference j (1 a win, 0.5 a tie), `pairs (J,)`: results against
    it, `anchors (J,)`: its fixed rating. `prior` virtual ties against each reference keep the estimate
    finite when every game is won or lost. Newton's method on the concave log-likelihood, vectorised over
    the leading axes (bootstrap replicates)."""
    wins = np.asarray(wins, dtype=np.float64) + prior / 2
    pairs = np.asarray(pairs, dtype=np.float64) + prior
    anchors = np.asarray(anchors, dtype=np.float64)
    rating = np.zeros(wins.shape[:-1])
    for _ in range(100):
        expected = 1 / (1 + np.exp((anchors - rating[..., None]) / ELO))
        gradient = (wins - pairs * expected).sum(axis=-1) / ELO
        curvature = (pairs * expected * (1 - expected)).sum(axis=-1) / ELO**2
        step = np.clip(gradient / np.maximum(curvature, 1e-12), -400, 400)
        rating = rating + step
        if np.abs(step).max(initial=0) < 1e-6:
            break
    return rating


def fit_joint(results: list[tuple[str, str, float, float]], fixed: dict[str, float], prior: float = 1.0) -> dict:
    """Elo ratings of several players from pairwise results `(a, b, points of a, results)`, those in `fixed`
    held at their value (random at 0): the references' calibration. Newton's method on every free rating."""
    names = sorted({r[0] for r in results} | {r[1] for r in results} | set(fixed))
    free = [n for n in names if n not in fixed]
    index = {n: i for i, n in enumerate(names)}
    a = np.array([index[r[0]] for r in results])
    b = np.array([index[r[1]] for r in results])
    points = np.array([r[2] for r in results], dtype=np.float64) + prior / 2
    count = np.array([r[3] for r in results], dtype=np.float64) + prior
    rating = np.array([fixed.get(n, 0.0) for n in names])
    is_free = np.array([n not in fixed for n in names])
    for _ in range(200):
        expected = 1 / (1 + np.exp((rating[b] - rating[a]) / ELO))
        residual = (points - count * expected) / ELO
        weight = count * expected * (1 - expected) / ELO**2
        gradient = np.bincount(a, residual, len(names)) - np.bincount(b, residual, len(names))
        hessian = np.zeros((len(names), len(names)))
        np.add.at(hessian, (a, a), -weight)
        np.add.at(hessian, (b, b), -weight)
        np.add.at(hessian, (a, b), weight)
        np.add.at(hessian, (b, a), weight)
        h = hessian[np.ix_(is_free, is_free)]
        if not free:
            break
        step = np.clip(np.linalg.solve(h, -gradient[is_free]), -400, 400)
        rating[is_free] += step
        if np.abs(step).max() < 1e-6:
            break
    return {n: float(rating[index[n]]) for n in names}


def bootstrap_rng(rating_cfg: dict, game: str, players: int) -> np.random.Generator:
    """The bootstrap's own stream for one game and player count: fixed (the intervals are reproducible) and
    independent between groups (the aggregate's interval resamples each group on its own)."""
    entropy = [int(rating_cfg.get("bootstrap_seed", 0)), zlib.crc32(game.encode()), players]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def confidence_draws(rng: np.random.Generator, successes: float, trials: float, size: int) -> np.ndarray:
    """`(size,)` draws of a binomial share from its Clopper-Pearson confidence distribution: an even mixture of
    Beta(k, n - k + 1) and Beta(k + 1, n - k), a point at 0 (or 1) where a parameter is 0. Its 2.5th and 97.5th
    percentiles are close to the exact interval; with no success they are 0 and the one-sided 95% bound
    1 - 0.05^(1/n), about 3/n (the rule of three)."""
    low = rng.beta(successes, trials - successes + 1, size) if successes > 0 else np.zeros(size)
    high = rng.beta(successes + 1, trials - successes, size) if successes < trials else np.ones(size)
    return np.where(rng.random(size) < 0.5, low, high)


def group_rating(
    cells: list[tuple[str, dict]], anchors: dict[str, float | None], rating_cfg: dict, scale: str, game: str
) -> dict:
    """The rating of the policy in one game and player count from its cells against the anchored references,
    with a 95% interval from a bootstrap over the games of each cell (a game's pairwise results move
    together), and its normalised score (random = 0, the scale reference = 100).

    Where every game of every cell ended alike (all lost, all won) the bootstrap has no spread; the interval
    then comes from each cell's Clopper-Pearson confidence distribution over its finished games, mapped through
    the same fit (`interval`). `prior_dominated` marks a rating the prior's virtual ties set rather than the
    games: no finite rating without them (every result one way), or ties that are PRIOR_WEIGHT_WARNING of the
    results or more (few games)."""
    calibrated = anchors.get(scale) is not None  # a scale without its 100 point is not calibrated yet: no rating
    rated = [
        (ref, raw) for ref, raw in cells if calibrated and anchors.get(ref) is not None and (~raw["truncated"]).any()
    ]
    out: dict[str, Any] = {
        "rated_against": [ref for ref, _ in rated],
        "not_rated_against": [ref for ref, _ in cells if ref not in {r for r, _ in rated}],
    }
    if not rated:
        out.update(rating=None, rating_low=None, rating_high=None, normalised=None, normalised_low=None)
        out.update(normalised_high=None, replicates=None, interval=None, sweeps={})
        out.update(rating_without_prior=None, prior_weight=None, prior_dominated=False, prior_note=None)
        return out
    replicates = int(rating_cfg.get("bootstrap", 1000))
    rng = bootstrap_rng(rating_cfg, game, cells[0][1]["scores"].shape[1])
    prior = float(rating_cfg.get("prior_ties", 1.0))
    points, pairs, boot, per_games = [], [], [], []
    for _, raw in rated:
        finished = ~raw["truncated"]
        per_game = np.nansum(pair_outcomes(raw["scores"], raw["winners"], raw["policy_seat"]), axis=1)[finished]
        p = raw["scores"].shape[1]
        points.append(per_game.sum())
        pairs.append(len(per_game) * (p - 1))
        per_games.append(per_game)
        weights = rng.multinomial(len(per_game), np.full(len(per_game), 1 / len(per_game)), size=replicates)
        boot.append(weights @ per_game)  # (B,) points of each resample of the cell's games
    fixed = np.array([anchors[ref] for ref, _ in rated])
    rating = float(fit_rating(np.array(points), np.array(pairs), fixed, prior))
    draws = fit_rating(np.stack(boot, axis=1), np.array(pairs), fixed, prior)
    out["interval"] = "bootstrap over games"
    if all(np.ptp(per_game) == 0 for per_game in per_games):  # every resample is the sample: no spread
        shares = [confidence_draws(rng, v.sum() / (p - 1), len(v), replicates) for v in per_games]
        draws = fit_rating(np.stack(shares, axis=1) * np.array(pairs), np.array(pairs), fixed, prior)
        out["interval"] = "Clopper-Pearson (every game of every cell ended alike: the bootstrap has no spread)"
    out.update(
        rating=rating, rating_low=float(np.percentile(draws, 2.5)), rating_high=float(np.percentile(draws, 97.5))
    )
    out["sweeps"] = {
        ref: "lost every game" if v.max() == 0 else "won every game"
        for (ref, _), v in zip(rated, per_games, strict=True)
        if v.max() == 0 or v.min() == p - 1
    }
    total, count = float(sum(points)), float(sum(pairs))
    finite = 0 < total < count  # the likelihood alone has a finite maximum
    weight = prior * len(rated) / (prior * len(rated) + count)
    out["rating_without_prior"] = float(fit_rating(np.array(points), np.array(pairs), fixed, 0.0)) if finite else None
    out["prior_weight"] = weight
    out["prior_dominated"] = prior > 0 and (not finite or weight >= PRIOR_WEIGHT_WARNING)
    if not out["prior_dominated"]:
        out["prior_note"] = None
    elif not finite:
        out["prior_note"] = (
            f"set by the prior: every finished game {'lost' if total == 0 else 'won'} against every reference, so "
            f"the games bound the rating only from {'above' if total == 0 else 'below'}, and the prior's "
            f"{prior:g} virtual tie{'s' if prior != 1 else ''} per reference place{'s' if prior == 1 else ''} it"
        )
    else:
        out["prior_note"] = (
            f"set mainly by the prior: its virtual ties are {weight:.0%} of the results (few games); "
            f"the games alone give {out['rating_without_prior']:.0f}"
        )
    top = anchors.get(scale)
    norm = (lambda r: 100 * np.asarray(r) / top) if top else None
    out.update(
        normalised=None if norm is None else float(norm(rating)),
        normalised_low=None if norm is None else float(np.percentile(norm(draws), 2.5)),
        normalised_high=None if norm is None else float(np.percentile(norm(draws), 97.5)),
        replicates=None if norm is None else norm(draws),
    )
    return out


def solo_rating(raw: dict, anchors: dict[str, float | None], rating_cfg: dict, scale: str, game: str) -> dict:
    """A one-player game: mean score, normalised (random's mean = 0, the scale reference's = 100), with a
    bootstrap interval over the games (none where every game scored the same: `interval` says so)."""
    scores = raw["scores"][:, 0].astype(np.float64)
    low, top = anchors.get("random"), anchors.get(scale)
    out: dict[str, Any] = {"rated_against": [], "not_rated_against": [], "rating": None}
    out.update(rating_low=None, rating_high=None, mean_score=float(scores.mean()))
    out.update(rating_without_prior=None, prior_weight=None, prior_dominated=False, prior_note=None, sweeps={})
    out["interval"] = "bootstrap over games"
    if np.ptp(scores) == 0:
        out["interval"] = f"none: every game scored {scores[0]:g}, the bootstrap has no spread"
    if low is None or top is None or top == low:
        out.update(normalised=None, normalised_low=None, normalised_high=None, replicates=None)
        return out
    rng = bootstrap_rng(rating_cfg, game, 1)
    weights = rng.multinomial(
        len(scores), np.full(len(scores), 1 / len(scores)), size=int(rating_cfg.get("bootstrap", 1000))
    )
    draws = 100 * (weights @ scores / len(scores) - low) / (top - low)
    out.update(
        normalised=float(100 * (scores.mean() - low) / (top - low)),
        normalised_low=float(np.percentile(draws, 2.5)),
        normalised_high=float(np.percentile(draws, 97.5)),
        replicates=draws,
    )
    return out


def rate_groups(raws: dict, proto: Any) -> list[dict]:
    """Each game and player count's rating from its cells' raw games (`raws[(game, players)] = [(reference, raw),
    ...]`) against the protocol's (`proto`) anchors, in the order of `raws`; a one-player game by mean score."""
    groups = []
    for (game, p), cells in raws.items():
        anchors = proto.anchor(game, p)
        if p == 1:
            rating = solo_rating(cells[0][1], anchors, proto.rating, proto.scale_reference, game)
        else:
            rating = group_rating(cells, anchors, proto.rating, proto.scale_reference, game)
        groups.append({"game": game, "players": p, "anchors": anchors, **rating})
    return groups


def aggregate(groups: list[dict]) -> dict:
    """The suite's mean normalised score over the rated groups, its interval from the same bootstrap
    replicates (groups resampled independently). Each group gets its part in it: `aggregate_weight` (1/k of
    k rated groups), `aggregate_contribution` (its normalised score times the weight; they sum to the
    aggregate) and `aggregate_shift` (the aggregate minus the mean of the other groups: how far it moves it)."""
    rated = [g for g in groups if g.get("replicates") is not None]
    for g in groups:
        g.update(aggregate_weight=0.0, aggregate_contribution=None, aggregate_shift=None)
    if not rated:
        return {"normalised": None, "low": None, "high": None, "groups": 0, "of": len(groups)}
    mean = float(np.mean([g["normalised"] for g in rated]))
    for g in rated:
        others = [h["normalised"] for h in rated if h is not g]
        g["aggregate_weight"] = 1 / len(rated)
        g["aggregate_contribution"] = g["normalised"] / len(rated)
        g["aggregate_shift"] = mean - float(np.mean(others)) if others else None
    draws = np.mean(np.stack([g["replicates"] for g in rated]), axis=0)
    return {
        "normalised": mean,
        "low": float(np.percentile(draws, 2.5)),
        "high": float(np.percentile(draws, 97.5)),
        "groups": len(rated),
        "of": len(groups),
    }
