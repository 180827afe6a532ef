"""Benchmark any policy under a fixed, versioned protocol: win shares, anchored ratings and a report card.

    python -m fruit_envs.benchmarks.benchmark greedy --suite quick
    python -m fruit_envs.benchmarks.benchmark ppo-baseline --suite standard
    python -m fruit_envs.benchmarks.benchmark runs/<run>/model.zip --suite quick --games cherry_picking
    python -m fruit_envs.benchmarks.benchmark mypackage.mymodule:make --suite quick --best-response 200000
    python -m fruit_envs.benchmarks.benchmark --calibrate --suite quick     # the references' anchor ratings

POLICY is an agent name (`greedy`, `random`, `ppo-baseline`, `ppo:PATH`, `search:OPTIONS`, ...), a saved
MaskablePPO model (`.zip`, played as `ppo:PATH`), `package.module:make`, a factory called
`make(game_spec, config)` once per game and player count (or an object with a batched `act`), or
`reference:NAME`, a reference agent of the protocol (`reference:search`: search at the protocol's budget).

The protocol is data: `protocol_v1.yaml` beside this file pins the environment versions, the official
player counts, the reference agents (random, greedy, the shipped PPO baseline, search at a fixed
budget), the seeds, the suites and the references' anchor ratings. For every game and player count of
the suite, and every reference, the policy takes each seat in turn with the reference in every other
seat (one cell, all its games in one batch, the same deals for every seat and reference). Per cell: win
share over finished games with its 95% Wilson interval, mean score margin, mean rank (more than two
players) and truncated share. Per game and player count: an Elo-scale rating fitted against the
references' fixed ratings (the protocol rating, random = 0; not the tournaments' Elo, whose field mean is
1500) with a bootstrap interval, and a normalised score (random = 0, the reference search = 100); over the
suite: the mean normalised score with its interval and each group's part in it. The one-player score
attack is rated by mean score, normalised the same way. What the numbers cannot measure is flagged: cells
with many truncated games, ratings set by the prior, intervals the games cannot give. A policy that reads
the true state (`needs_state`, as search does) is marked privileged in every report. The report folder
(`--out`, by default `results/benchmark/<policy>_<suite>_<time>/`) holds report.md, report.json and
report.png. docs/benchmark.md explains the protocol, the scales and the files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import re
import sys
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import fruit_envs
from fruit_envs._cli import non_negative_int, positive_int, prog, progress_bar, writable_dir
from fruit_envs.agents import AGENT_HELP, AGENT_NAMES, make_agent, resolve_agent, state_kwargs
from fruit_envs.agents.arena import play_games, wilson_interval
from fruit_envs.agents.resolve import factory_builder
from fruit_envs.core import record as frecord
from fruit_envs.core import validate
from fruit_envs.core.errors import InvalidActionError
from fruit_envs.core.spec import Config, GameSpec, get_spec, registered_games

HERE = Path(__file__).resolve().parent
ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
# The benchmark's rating scale, named wherever a rating is printed: not the tournaments' Elo (field mean 1500)
RATING_SCALE = "protocol rating, Elo scale, random = 0"
TRUNCATION_WARNING = 0.10  # a cell with a larger share of truncated games is flagged (docs/benchmark.md)
PRIOR_WEIGHT_WARNING = 0.10  # a rating whose virtual ties are this share of its results or more is prior-set


class BenchmarkError(ValueError):
    """A benchmark refused before play (unknown suite, game or policy; another environment version; a
    missing reference) or stopped by the policy; the message names what was wrong and what is allowed."""


class PolicyError(BenchmarkError):
    """The policy raised or returned a malformed or illegal action. `record` is the replayable position
    (a `GameRecord` of the game up to that decision), `report` what finished before it, `traceback` the
    policy's own traceback when it raised (also saved as failure_traceback.txt beside failure.jsonl)."""

    def __init__(
        self,
        message: str,
        record: frecord.GameRecord | None = None,
        report: dict | None = None,
        traceback: str | None = None,
    ):
        super().__init__(message)
        self.record, self.report, self.traceback = record, report, traceback


# ---------------------------------------------------------------------------------------------
# The protocol, read from its YAML file and checked field by field


@dataclass
class Protocol:
    """Protocol vN as read from `protocol_vN.yaml` (see the file's comments and docs/benchmark.md)."""

    version: int
    path: Path
    sha256: str
    environments: dict[str, int]  # game id -> pinned rules version
    player_counts: dict[str, list[int]]  # game id -> official player counts
    references: dict[str, dict[str, str]]  # reference name -> game id -> agent name
    scale_reference: str  # normalised score: random = 0, this reference = 100
    seed: int
    suites: dict[str, dict]
    rating: dict
    anchors: dict[str, dict[int, dict[str, float | None]]]
    calibration: dict
    best_response: dict

    def games(self) -> list[str]:
        return list(self.environments)

    def suite_groups(self, suite: str) -> list[tuple[str, int]]:
        """`(game, players)` of every cell group the suite plays, in protocol order."""
        spec = self.suites[suite]
        counts = spec["player_counts"]
        groups = []
        for game in self.games():
            official = self.player_counts[game]
            if counts == "official":
                chosen = official
            else:
                chosen = [p for p in official if p in counts] or ([1] if official == [1] else [])
            groups += [(game, p) for p in chosen]
        return groups

    def anchor(self, game: str, players: int) -> dict[str, float | None]:
        return dict(self.anchors.get(game, {}).get(players, {}))


def protocol_path(version: int) -> Path:
    return HERE / f"protocol_v{version}.yaml"


def load_protocol(protocol: int | str | Path | Protocol = 1) -> Protocol:
    """The protocol of a version number (a file beside this module) or of a YAML file; a malformed file is
    a `BenchmarkError` naming the field."""
    if isinstance(protocol, Protocol):
        return protocol
    if validate.is_int(protocol):
        path = protocol_path(int(protocol))
        if not path.is_file():
            known = sorted(p.stem for p in HERE.glob("protocol_v*.yaml"))
            raise BenchmarkError(f"no benchmark protocol v{protocol}; known protocols: {known}")
    else:
        path = Path(protocol)
        if not path.is_file():
            raise BenchmarkError(f"no protocol file at {str(path)!r}")
    try:
        import yaml
    except ImportError as error:
        raise BenchmarkError(f"reading the protocol needs PyYAML ({error}): pip install 'fruit_envs[train]'") from None
    text = path.read_text()
    try:
        d = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BenchmarkError(f"{path}: not readable YAML ({error})") from None
    return _parse_protocol(d, path, hashlib.sha256(text.encode()).hexdigest())


def _need(d: Any, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise BenchmarkError(f"{where}: no {key!r}")
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise BenchmarkError(f"{where}: {key} must be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _parse_protocol(d: Any, path: Path, sha: str) -> Protocol:
    where = str(path)
    version = _need(d, "protocol", int, where)
    environments = _need(d, "environments", dict, where)
    counts = _need(d, "player_counts", dict, where)
    if set(counts) != set(environments):
        raise BenchmarkError(f"{where}: player_counts must name the same games as environments")
    references: dict[str, dict[str, str]] = {}
    for name, agent in _need(d, "references", dict, where).items():
        per_game = agent if isinstance(agent, dict) else dict.fromkeys(environments, agent)
        if set(per_game) != set(environments) or not all(isinstance(a, str) for a in per_game.values()):
            raise BenchmarkError(f"{where}: reference {name!r} must be an agent name or one per game of {environments}")
        # the protocol's PPO reference is the baseline it was calibrated with, even after a better one ships
        references[str(name)] = {g: pin_baseline(a, version) for g, a in per_game.items()}
    scale = _need(d, "scale_reference", str, where)
    if "random" not in references or scale not in references:
        raise BenchmarkError(f"{where}: the references must include random (rating 0) and {scale!r}")
    suites = _need(d, "suites", dict, where)
    for name, suite in suites.items():
        players = _need(suite, "player_counts", (str, list), f"{where}: suite {name}")
        if players != "official" and not all(validate.is_int(p) for p in players):
            raise BenchmarkError(f"{where}: suite {name}: player_counts is 'official' or a list of counts")
        if _need(suite, "games_per_cell", int, f"{where}: suite {name}") < 1:
            raise BenchmarkError(f"{where}: suite {name}: games_per_cell must be at least 1")
    anchors: dict[str, dict[int, dict[str, float | None]]] = {}
    for game, by_count in (_need(d, "anchors", dict, where) or {}).items():
        anchors[game] = {}
        for players, values in (by_count or {}).items():
            values = values or {}
            unknown = set(values) - set(references)
            if unknown:
                raise BenchmarkError(f"{where}: anchors of {game} {players}p name unknown references {sorted(unknown)}")
            anchors[game][int(players)] = {r: None if values.get(r) is None else float(values[r]) for r in references}
    return Protocol(
        version=version,
        path=path,
        sha256=sha,
        environments={str(g): int(v) for g, v in environments.items()},
        player_counts={str(g): [int(p) for p in c] for g, c in counts.items()},
        references=references,
        scale_reference=scale,
        seed=_need(d, "seed", int, where),
        suites=suites,
        rating=_need(d, "rating", dict, where),
        anchors=anchors,
        calibration=_need(d, "calibration", dict, where),
        best_response=_need(d, "best_response", dict, where),
    )


def check_environments(protocol: Protocol) -> dict[str, int]:
    """The installed rules version of every game the protocol pins; another version is refused: the
    numbers would not be comparable with anybody else's."""
    installed = {spec.id: spec.version for spec in registered_games()}
    wrong = []
    for game, version in protocol.environments.items():
        if game not in installed:
            wrong.append(f"{game}_v{version} is not installed (games here: {sorted(installed)})")
        elif installed[game] != version:
            wrong.append(
                f"it pins {game}_v{version}, this fruit_envs {fruit_envs.__version__} has {game}_v{installed[game]}"
            )
    if wrong:
        raise BenchmarkError(
            f"protocol v{protocol.version} cannot run with the installed environments: {'; '.join(wrong)}. "
            f"Install the fruit_envs release the protocol was made for, or use a protocol that pins these versions"
        )
    return {game: installed[game] for game in protocol.environments}


def deal_keys(seed: int, game: str, players: int, n: int) -> np.ndarray:
    """The protocol's deals of a game and player count, `(n,) uint64`: the same for every seat and reference,
    and the first n of a longer list are the n of a shorter one (quick's deals begin full's)."""
    return np.random.SeedSequence([seed, zlib.crc32(game.encode()), players]).generate_state(n, dtype=np.uint64)


def per_seat(games_per_cell: int, players: int) -> int:
    """Games the policy plays in each seat of a cell: the cell's games rounded down to a multiple of the
    player count (at least one in each seat)."""
    return max(1, games_per_cell // players)


def cell_seed(seed: int, game: str, players: int, reference: str) -> int:
    """The seed of the agents' random choices in one cell."""
    entropy = [seed, zlib.crc32(game.encode()), players, zlib.crc32(reference.encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0])


# ---------------------------------------------------------------------------------------------
# The policy: every kind of POLICY turned into one agent per game and player count


@dataclass
class PolicySource:
    """What was given as POLICY, and how to build its agent for a game and player count."""

    label: str
    kind: str  # name, model, object, factory
    build: Any  # (spec, config) -> agent


def pin_baseline(agent: str, version: int) -> str:
    """`ppo-baseline` in protocol `version` means `ppo-baseline@version`: the baseline the protocol's anchors
    were calibrated with (`agents/baselines/protocol_v<N>/` keeps it when a newer one replaces it)."""
    return f"ppo-baseline@{version}" if agent == "ppo-baseline" and version >= 1 else agent


def resolve_policy(policy: Any, protocol: Protocol | None = None) -> PolicySource:
    """A `PolicySource` from anything `fruit_envs.agents.resolve_agent` takes (an agent name, a model path,
    `module:make`, `file.py:make`), `reference:NAME` (a reference agent of the protocol, e.g. search at its
    fixed budget), an agent or a factory; anything else is a `BenchmarkError` listing what is allowed."""
    if isinstance(policy, Path):
        policy = str(policy)
    if isinstance(policy, str):
        text = policy.strip()
        if text.startswith("reference:") and protocol is not None:
            name = text.partition(":")[2]
            if name not in protocol.references:
                raise BenchmarkError(
                    f"policy {text!r}: protocol v{protocol.version} has references {list(protocol.references)}"
                )
            agents = protocol.references[name]
            return PolicySource(text, "reference", lambda spec, config: make_agent(agents[spec.id], spec, config))
        try:
            source = resolve_agent(text)
        except ValueError as error:
            problem = str(error).removeprefix(f"agent {text!r}: ")
            raise BenchmarkError(f"policy {text!r}: {problem}") from None
        return PolicySource(source.label, source.kind, source.build)
    if hasattr(policy, "act"):
        return PolicySource(frecord.agent_label(policy), "object", lambda spec, config: policy)
    if callable(policy):
        name = getattr(policy, "__qualname__", None) or type(policy).__name__
        module = getattr(policy, "__module__", None)
        label = f"{module}:{name}" if module else name
        return PolicySource(label, "factory", factory_builder(policy, label))
    raise BenchmarkError(
        f"policy must be an agent name ({', '.join(AGENT_NAMES)}), a model .zip, 'package.module:make' or "
        f"'path/to/file.py:make', an object with act(obs, mask, rng) or a factory make(game_spec, config) -> agent; "
        f"got {policy!r}"
    )


def is_privileged(agent: Any) -> bool:
    """A policy that reads the true state of the game (`needs_state`, as search does) sees more than its seat."""
    return bool(getattr(agent, "needs_state", False))


class _Fault(Exception):
    """Raised inside a cell by `_Checked`: the policy's failure at one decision of one game, or, when it
    raised or answered malformed for the whole batch (`batch`: the cell's games in it), of that batch;
    `game`, `seat` and `step` then name the batch's first game, the one saved as the replayable example."""

    def __init__(self, problem: str, game: int, seat: int, step: int, attempted: Any = None, batch: Any = None) -> None:
        super().__init__(problem)
        self.problem, self.game, self.seat, self.step, self.attempted = problem, game, seat, step, attempted
        self.batch = None if batch is None else [int(g) for g in batch]


class _Logged:
    """Plays an agent of a cell and writes its actions into the cell's history `(G, T)`, so a game that
    fails can be saved from its start. Gets the games' states and indices from the arena (`needs_state`,
    `needs_games`) and passes the state on only to an agent that asks for it."""

    needs_state = True
    needs_games = True

    def __init__(self, agent: Any, history: np.ndarray):
        self.agent, self.history = agent, history
        self.name = frecord.agent_label(agent)

    def choose(self, obs, mask, rng, state, seats, games) -> Any:
        extra = state_kwargs(self.agent, state, seats)
        if getattr(self.agent, "needs_games", False):
            extra["games"] = games
        return self.agent.act(obs, mask, rng, **extra)

    def act(self, obs, mask, rng, state, seats, games) -> np.ndarray:
        actions = np.asarray(self.choose(obs, mask, rng, state, seats, games), dtype=np.int64)
        self.history[games, state.step_count] = actions
        return actions


class _Checked(_Logged):
    """The policy under test: anything it raises and any action that is malformed (another shape, not an
    integer, out of range) or illegal stops the cell as a `_Fault` naming the game, seat and step (an
    exception or a malformed answer belongs to the whole batch: the fault names the batch)."""

    def act(self, obs, mask, rng, state, seats, games) -> np.ndarray:
        n, num_actions = mask.shape
        first = (int(games[0]), int(seats[0]), int(state.step_count[0]))
        try:
            raw = self.choose(obs, mask, rng, state, seats, games)
        except Exception as error:
            raise _Fault(f"raised {type(error).__name__}: {error}", *first, batch=games) from error
        try:
            actions = validate.as_actions(raw, n, num_actions, "its actions")
        except InvalidActionError as error:
            raise _Fault(
                f"returned a malformed batch of actions ({error}; one integer action per row of the mask)",
                *first,
                attempted=_shown(raw),
                batch=games,
            ) from None
        illegal = ~mask[np.arange(n), actions]
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            legal = np.flatnonzero(mask[i]).tolist()
            raise _Fault(
                f"chose action {int(actions[i])}, which is not legal here (legal: {legal})",
                int(games[i]),
                int(seats[i]),
                int(state.step_count[i]),
                attempted=int(actions[i]),
            )
        self.history[games, state.step_count] = actions
        return actions


def _shown(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# One cell: the policy in each seat in turn, the reference in every other seat, one batch


@dataclass
class Cell:
    game: str
    players: int
    reference: str | None  # None: a one-player game, the policy alone
    reference_agent: str | None
    result: dict = field(default_factory=dict)


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
    keys = np.tile(deal_keys(seed, spec.id, p, games_per_seat), p)
    history = np.full((num_games, spec.max_game_length(config) + 1), -1, dtype=np.int64)
    checked = _Checked(policy, history)
    agents = [checked] if reference is None else [checked, _Logged(reference, history)]
    rng_seed = cell_seed(seed, spec.id, p, reference_name or "alone")
    start = time.perf_counter()
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
    seconds = time.perf_counter() - start
    return cell_numbers(result.scores, result.winners, result.truncated, policy_seat, seconds), {
        "scores": result.scores,
        "winners": result.winners,
        "truncated": result.truncated,
        "policy_seat": policy_seat,
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


# ---------------------------------------------------------------------------------------------
# Ratings: Elo-scale Bradley-Terry against references whose ratings are held fixed


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


# ---------------------------------------------------------------------------------------------
# The run


def _parse_only(only: Any, protocol: Protocol, groups: list[tuple[str, int]], suite: str) -> list[tuple[str, int]]:
    """The suite's groups restricted to `only` (game ids or `(game, players)` / `"game:players"`); unknown
    games and counts outside the suite are refused."""
    if only is None:
        return groups
    if isinstance(only, (str, tuple)):
        only = [only]
    chosen = set()
    for item in only:
        if isinstance(item, str) and ":" in item:
            game, _, count = item.partition(":")
            if not (count.isascii() and count.isdecimal()):
                raise BenchmarkError(f"game {item!r}: write GAME or GAME:PLAYERS, e.g. cherry_picking:3")
            item = (game, int(count))
        game, players = (item, None) if isinstance(item, str) else item
        try:
            game_id = get_spec(game).id
        except ValueError:
            game_id = None
        if game_id not in protocol.environments:
            raise BenchmarkError(f"unknown game {game!r}; protocol v{protocol.version} has {protocol.games()}")
        matches = [(g, p) for g, p in groups if g == game_id and (players is None or p == players)]
        if not matches:
            counts = [p for g, p in groups if g == game_id]
            raise BenchmarkError(f"suite {suite!r} plays {game_id} with {counts} players, not {players}")
        chosen.update(matches)
    return [g for g in groups if g in chosen]


def _slug(label: str) -> str:
    stem = label.rstrip("/").replace("\\", "/").split("/")[-1]
    stem = stem[:-4] if stem.endswith(".zip") else stem
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_")[:60] or "policy"


def default_out(policy_label: str, suite: str) -> Path:
    return Path("results", "benchmark", f"{_slug(policy_label)}_{suite}_{time.strftime('%Y%m%d-%H%M%S')}")


def machine() -> dict:
    from fruit_envs.core.threads import usable_cores

    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("torch", "stable_baselines3", "sb3_contrib"):
        module = sys.modules.get(name)
        if module is not None:
            versions[name] = getattr(module, "__version__", "?")
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cores": usable_cores(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "versions": versions,
    }


def evaluate(
    policy: Any,
    suite: str = "standard",
    games: int | None = None,
    out: str | Path | None = None,
    seed: int | None = None,
    progress: bool = True,
    best_response: int | None = None,
    only: Any = None,
    references: list[str] | None = None,
    skip_missing: bool = False,
    protocol: int | str | Path | Protocol = 1,
    best_response_options: dict | None = None,
) -> dict:
    """Benchmark `policy` under the protocol's `suite`; returns the report (and writes report.md, report.json
    and report.png to `out` when given).

    `games` (per cell, rounded down to a multiple of the player count), `seed`, `only` (games or
    `(game, players)`) and `references` (a subset of the protocol's) shrink or change the run: the report
    then says it does not conform to the protocol. `skip_missing` leaves out cells whose reference is not
    shipped (a PPO baseline not yet trained) instead of refusing the run. `best_response=STEPS` trains a
    fresh MaskablePPO against the frozen policy in every two-player game of the suite and reports its win
    share (`best_response_options` override the protocol's training settings).
    Everything is checked before the first game; a policy fault raises `PolicyError` after saving the
    failing game (failure.jsonl) and the finished cells (the report files) to `out`."""
    started, wall = time.strftime("%Y-%m-%d %H:%M:%S"), time.perf_counter()
    proto = load_protocol(protocol)
    environments = check_environments(proto)
    if not isinstance(suite, str) or suite not in proto.suites:
        raise BenchmarkError(f"unknown suite {suite!r}; protocol v{proto.version} has {list(proto.suites)}")
    suite_cfg = proto.suites[suite]
    deviations = []
    if games is None:
        games = int(suite_cfg["games_per_cell"])
    elif not validate.is_int(games) or games < 1:
        raise BenchmarkError(f"games (per cell) must be a positive integer, got {games!r}")
    elif games != suite_cfg["games_per_cell"]:
        deviations.append(f"{games} games per cell instead of {suite_cfg['games_per_cell']}")
    if seed is None:
        seed = proto.seed
    else:
        if not validate.is_int(seed) or seed < 0:
            raise BenchmarkError(f"seed must be a non-negative integer, got {seed!r}")
        if seed != proto.seed:
            deviations.append(f"seed {seed} instead of {proto.seed}")
    if references is None:
        ref_names = list(proto.references)
    else:
        unknown = [r for r in references if r not in proto.references]
        if unknown or not references:
            raise BenchmarkError(
                f"unknown references {unknown or references}; protocol v{proto.version} has {list(proto.references)}"
            )
        ref_names = [r for r in proto.references if r in references]
        if ref_names != list(proto.references):
            deviations.append(f"references {ref_names} only")
    groups = proto.suite_groups(suite)
    chosen = _parse_only(only, proto, groups, suite)
    if chosen != groups:
        deviations.append(f"only {', '.join(f'{g} {p}p' for g, p in chosen)}")
    if proto.path.resolve() != protocol_path(proto.version).resolve():
        deviations.append(f"protocol file {proto.path}, not the published protocol v{proto.version}")
    if best_response is not None and (not validate.is_int(best_response) or best_response < 1):
        raise BenchmarkError(f"best_response must be a positive number of training steps, got {best_response!r}")
    source = resolve_policy(policy, proto)
    out = None if out is None else validate.writable_dir(out, "results folder")

    # Every agent of every cell is built before the first game: a bad policy or a missing reference is
    # refused at once, not an hour in.
    plan, problems, missing, skipped = [], [], [], []
    for game, p in chosen:
        spec = get_spec(game)
        config = spec.make_config(p)
        try:
            agent = source.build(spec, config)
        except BenchmarkError:
            raise
        except Exception as error:
            problems.append(f"{game} with {p} players: {error}")
            continue
        refs = []
        for name in ref_names if p > 1 else []:
            agent_name = proto.references[name][game]
            try:
                refs.append((name, agent_name, make_agent(agent_name, spec, config)))
            except ValueError as error:
                if name == "ppo-baseline" and "no PPO baseline is shipped" in str(error):
                    (skipped if skip_missing else missing).append(f"{game} {p}p ({spec.id}_{p}p.zip)")
                else:
                    raise BenchmarkError(f"reference {name} ({agent_name}) for {game} {p}p: {error}") from None
        plan.append((spec, config, agent, refs))
    if problems:
        reasons = {text.split(": ", 1)[1] for text in problems}
        if len(problems) == len(chosen) and len(reasons) == 1:  # the same refusal everywhere: a bad policy
            raise BenchmarkError(f"policy {source.label!r}: {reasons.pop()}")
        raise BenchmarkError(
            f"policy {source.label!r} cannot play every game of suite {suite!r}: "
            + "; ".join(problems)
            + ". Restrict the run to the games it plays (only= / --games GAME[:PLAYERS])"
        )
    if missing:
        raise BenchmarkError(
            f"protocol v{proto.version} plays the shipped PPO baseline, missing for: {', '.join(missing)}; "
            f"train and ship them (python -m fruit_envs.training.baselines retrain --games GAME --players N) "
            f"or leave those cells out with skip_missing / --skip-missing (the report then does not conform)"
        )
    if skipped:
        deviations.append(f"cells without a shipped PPO baseline left out: {', '.join(skipped)}")
    privileged = any(is_privileged(agent) for _, _, agent, _ in plan)

    report: dict[str, Any] = {
        "protocol": proto.version,
        "protocol_file": proto.path.name,
        "protocol_sha256": proto.sha256,
        "conforms": not deviations,
        "deviations": deviations,
        "package": {"fruit_envs": fruit_envs.__version__, **_provenance()},
        "environments": {g: f"{g}_v{v}" for g, v in environments.items()},
        "policy": {"label": source.label, "kind": source.kind, "privileged": privileged},
        "suite": suite,
        "games_per_cell": games,
        "seed": seed,
        "references": {r: proto.references[r] for r in ref_names},
        "scale_reference": proto.scale_reference,
        "rating": {k: proto.rating[k] for k in proto.rating},
        "cells": [],
        "groups": [],
        "aggregate": None,
        "best_response": None,
        "status": "running",
        "error": None,
        "started": started,
        "machine": machine(),
    }
    total = sum(
        per_seat(games, config.num_players) * config.num_players * max(1, len(refs)) for _, config, _, refs in plan
    )
    raws: dict[tuple[str, int], list] = {}
    try:
        with progress_bar(total, unit="game", desc="benchmark", disable=not progress) as bar:
            for spec, config, agent, refs in plan:
                p = config.num_players
                for name, agent_name, ref in refs if p > 1 else [(None, None, None)]:
                    if hasattr(bar, "set_postfix"):
                        bar.set_postfix(cell=f"{spec.id} {p}p vs {name or 'alone'}")
                    numbers, raw = play_cell(
                        spec, config, agent, ref, per_seat(games, p), seed, name, (source.label, name or "")
                    )
                    report["cells"].append(
                        {"game": spec.id, "players": p, "reference": name, "reference_agent": agent_name, **numbers}
                    )
                    raws.setdefault((spec.id, p), []).append((name, raw))
                    bar.update(numbers["games"])
    except PolicyError as error:
        report["status"], report["error"] = "stopped", str(error)
        _finish(report, raws, proto, wall)
        if out is not None:
            path = frecord.write_records(out / "failure.jsonl", [error.record])
            report["failure_record"] = str(path)
            kept = ""
            if error.traceback is not None:
                trace = out / "failure_traceback.txt"
                trace.write_text(error.traceback)
                report["failure_traceback"] = str(trace)
                kept = f"; the policy's traceback is in {trace}"
            error.args = (
                f"{error}; the game up to that decision is saved in {path} "
                f"(python -m fruit_envs.replay {path}){kept}; the finished cells are in {out / 'report.md'}",
            )
            report["error"] = str(error)
            write_report(report, out)
        error.report = report
        raise
    _finish(report, raws, proto, wall)
    if best_response is not None:
        report["best_response"] = run_best_response(
            plan, source.label, best_response, {**proto.best_response, **(best_response_options or {})}, seed, progress
        )
        report["wall_seconds"] = round(time.perf_counter() - wall, 2)
    report["status"] = "complete"
    if out is not None:
        write_report(report, out)
    return report


def _provenance() -> dict:
    from fruit_envs._checkout import provenance

    return provenance()


def _finish(report: dict, raws: dict, proto: Protocol, wall: float) -> None:
    """Ratings of every group that has cells, the aggregate, the wall time."""
    groups = []
    for (game, p), cells in raws.items():
        anchors = proto.anchor(game, p)
        if p == 1:
            rating = solo_rating(cells[0][1], anchors, proto.rating, proto.scale_reference, game)
        else:
            rating = group_rating(cells, anchors, proto.rating, proto.scale_reference, game)
        groups.append({"game": game, "players": p, "anchors": anchors, **rating})
    report["aggregate"] = aggregate(groups)
    for group in groups:
        group.pop("replicates", None)
    report["groups"] = groups
    report["rating_scale"] = RATING_SCALE
    report["truncation_warning_threshold"] = TRUNCATION_WARNING
    report["warnings"] = report_warnings(report)
    report["wall_seconds"] = round(time.perf_counter() - wall, 2)


def report_warnings(report: dict) -> list[str]:
    """What the numbers cannot measure, one line each: cells whose truncated share is over TRUNCATION_WARNING
    (each cell gets `truncation_warning`), ratings set by the prior, intervals the games cannot give."""
    lines = []
    for c in report["cells"]:
        c["truncation_warning"] = c["truncated_share"] > TRUNCATION_WARNING
        if c["truncation_warning"]:
            against = f" against {c['reference']}" if c["reference"] else ""
            lines.append(
                f"{c['game']} {c['players']}p{against}: {c['truncated']} of {c['games']} games truncated "
                f"({c['truncated_share']:.0%}, over the {TRUNCATION_WARNING:.0%} threshold): the numbers describe only "
                f"the finished games, and a policy that stalls where it would lose looks better than it is"
            )
    for g in report["groups"]:
        if g.get("prior_dominated"):
            lines.append(f"{g['game']} {g['players']}p: rating {g['rating']:.0f} ({RATING_SCALE}) is {g['prior_note']}")
        if g.get("interval", "").startswith("none"):
            lines.append(f"{g['game']} {g['players']}p: no interval ({g['interval']})")
    return lines


# ---------------------------------------------------------------------------------------------
# Exploitability proxy: a fresh PPO trained against the frozen policy


def run_best_response(plan: list, label: str, steps: int, options: dict, seed: int, progress: bool) -> list[dict]:
    """For every two-player game of the run: train a fresh MaskablePPO for `steps` decisions against the
    frozen policy in the other seat, then play it against the policy (seats rotated, argmax) and report its
    win share over finished games: the higher, the more exploitable the policy."""
    from sb3_contrib import MaskablePPO

    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    results = []
    for spec, config, agent, _ in plan:
        if config.num_players != 2:
            continue
        start = time.perf_counter()
        env = FruitSB3VecEnv(spec.id, num_envs=int(options["num_envs"]), num_players=2, opponent=agent)
        env.seed(seed)
        model = MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=float(options["learning_rate"]),
            n_steps=int(options["n_steps"]),
            batch_size=int(options["batch_size"]),
            n_epochs=int(options["n_epochs"]),
            gamma=float(options["gamma"]),
            ent_coef=float(options["ent_coef"]),
            seed=seed,
            policy_kwargs={"net_arch": [int(n) for n in options["net_arch"]]},
            device="cpu",
            verbose=0,
        )
        model.learn(total_timesteps=steps, progress_bar=False)
        learner = PPOAgent(model, spec, config, deterministic=True)
        per_seat = int(options["games_per_seat"])
        seating = np.zeros((2 * per_seat, 2), dtype=np.int64)
        br_seat = np.repeat(np.arange(2), per_seat)
        seating[np.arange(2 * per_seat), 1 - br_seat] = 1
        keys = np.tile(deal_keys(seed + 1, spec.id, 2, per_seat), 2)
        result = play_games(spec, config, [learner, agent], seating, seed=seed + 1, keys=keys)
        numbers = cell_numbers(result.scores, result.winners, result.truncated, br_seat, time.perf_counter() - start)
        results.append(
            {
                "game": spec.id,
                "players": 2,
                "steps": int(model.num_timesteps),
                "settings": {k: options[k] for k in sorted(options)},
                **{k: numbers[k] for k in ("games", "finished", "truncated", "wins", "draws", "losses")},
                "win_share": numbers["win_share"],
                "win_low": numbers["win_low"],
                "win_high": numbers["win_high"],
                "seconds": numbers["seconds"],
            }
        )
        if progress:
            print(f"best response to {label} in {spec.id}: {_share(results[-1])}", file=sys.stderr)
    return results


# ---------------------------------------------------------------------------------------------
# Calibration: the references' anchor ratings from games among themselves


def calibrate(
    suite: str = "standard",
    games: int | None = None,
    only: Any = None,
    seed: int | None = None,
    progress: bool = True,
    protocol: int | str | Path | Protocol = 1,
) -> dict:
    """The references' ratings per game and player count from games among them: every reference plays as
    the 'policy' against every other in the other seats (with two players each pair once), Elo-scale
    Bradley-Terry over all their pairwise results with random held at 0. One-player games: each reference's
    mean score alone. A reference that is not shipped (a PPO baseline) gets null. Returns the anchors and
    the YAML to paste into the protocol file."""
    proto = load_protocol(protocol)
    check_environments(proto)
    if suite not in proto.suites:
        raise BenchmarkError(f"unknown suite {suite!r}; protocol v{proto.version} has {list(proto.suites)}")
    games = int(proto.calibration["games_per_cell"]) if games is None else games
    seed = int(proto.calibration["seed"]) if seed is None else seed
    groups = _parse_only(only, proto, proto.suite_groups(suite), suite)
    plan = []
    for game, p in groups:
        spec = get_spec(game)
        config = spec.make_config(p)
        agents = {}
        for name, by_game in proto.references.items():
            try:
                agents[name] = make_agent(by_game[game], spec, config)
            except ValueError as error:
                if name != "ppo-baseline":
                    raise BenchmarkError(f"reference {name} for {game} {p}p: {error}") from None
        pairs = (
            [(a, b) for a in agents for b in agents if a != b and (p > 2 or a < b)]
            if p > 1
            else [(a, None) for a in agents]
        )
        plan.append((spec, config, agents, pairs))
    total = sum(per_seat(games, c.num_players) * c.num_players * len(pairs) for _, c, _, pairs in plan)
    anchors: dict[str, dict[int, dict]] = {}
    details = []
    with progress_bar(total, unit="game", desc="calibration", disable=not progress) as bar:
        for spec, config, agents, pairs in plan:
            p = config.num_players
            results, values = [], {}
            for a, b in pairs:
                numbers, raw = play_cell(
                    spec, config, agents[a], None if b is None else agents[b], per_seat(games, p), seed, b, (a, b or "")
                )
                bar.update(numbers["games"])
                details.append({"game": spec.id, "players": p, "agent": a, "reference": b, **numbers})
                if b is None:
                    values[a] = round(numbers["mean_score"], 2)
                    continue
                finished = ~raw["truncated"]
                outcomes = pair_outcomes(raw["scores"], raw["winners"], raw["policy_seat"])[finished]
                results.append((a, b, float(np.nansum(outcomes)), float((~np.isnan(outcomes)).sum())))
            if p > 1:
                fitted = fit_joint(results, {"random": 0.0}, float(proto.rating.get("prior_ties", 1.0)))
                values = {name: round(fitted[name]) for name in agents}
            anchors.setdefault(spec.id, {})[p] = {name: values.get(name) for name in proto.references}
    return {"anchors": anchors, "games_per_cell": games, "seed": seed, "cells": details, "yaml": anchors_yaml(anchors)}


def anchors_yaml(anchors: dict) -> str:
    """The `anchors:` block of a protocol file."""
    lines = ["anchors:"]
    for game, by_count in anchors.items():
        lines.append(f"  {game}:")
        for p, values in sorted(by_count.items()):
            shown = ", ".join(f"{name}: {'null' if v is None else v}" for name, v in values.items())
            lines.append(f"    {p}: {{{shown}}}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Published reference cards: the protocol's references benchmarked as policies

CARDS = ("random", "greedy", "ppo-baseline", "search")
BEST_RESPONSE_CARDS = ("greedy", "ppo-baseline")  # the policies whose exploitability is published
PUBLISHED = HERE / "results" / "benchmark"  # the checkout's published cards, one folder per reference


def reference_cards(
    out: str | Path = PUBLISHED,
    suite: str = "standard",
    names: list[str] | None = None,
    best_response: int | None = None,
    progress: bool = True,
    protocol: int | str | Path | Protocol = 1,
) -> dict[str, dict]:
    """The report cards of the protocol's references, each played as the policy (`reference:NAME`) under
    `suite` into out/NAME/, with a best response of `best_response` steps (the protocol's `card_steps` when
    None, 0 for none) against greedy and the PPO baselines; then the index out/cards.md (`cards_index`)."""
    proto = load_protocol(protocol)
    names = list(CARDS) if names is None else list(names)
    unknown = [n for n in names if n not in CARDS]
    if unknown or not names:
        raise BenchmarkError(f"unknown reference cards {unknown or names}; the cards are {list(CARDS)}")
    steps = int(proto.best_response.get("card_steps", 0)) if best_response is None else best_response
    if Path(out).resolve() == PUBLISHED.resolve():
        from fruit_envs._checkout import checkout_root

        if checkout_root() is None:
            raise BenchmarkError(
                "the published cards live in a checkout of the repository, and this fruit_envs is an installed "
                "package; give a folder for the cards (out= / --out DIR)"
            )
    out = validate.writable_dir(out, "cards folder")
    reports = {}
    for name in names:
        reports[name] = evaluate(
            f"reference:{name}",
            suite=suite,
            out=out / name,
            progress=progress,
            best_response=steps if steps and name in BEST_RESPONSE_CARDS else None,
            protocol=proto,
        )
    cards_index(out)
    return reports


def load_cards(out: str | Path = PUBLISHED) -> dict[str, dict]:
    """The reports of the reference cards in `out` (out/NAME/report.json), in the order of CARDS."""
    out = Path(out)
    return {n: json.loads((out / n / "report.json").read_text()) for n in CARDS if (out / n / "report.json").is_file()}


def cards_markdown(reports: dict[str, dict]) -> str:
    """The cards side by side: each reference's rating per game and player count (RATING_SCALE, 95%
    bootstrap interval), its aggregate normalised score, and the best responses' win shares against it."""
    names = list(reports)
    first = next(iter(reports.values()))
    lines = [
        f"Protocol v{first['protocol']} (`{first['protocol_file']}`, sha256 {first['protocol_sha256'][:12]}), suite "
        f"`{first['suite']}`, {first['games_per_cell']} games per cell, fruit_envs {first['package']['fruit_envs']}"
        + (f" at {first['package']['git']['commit'][:7]}" if first["package"].get("git") else "")
        + ". Each reference plays as the policy (`reference:NAME`) against all four; its own cell is a mirror match.",
        "",
        "| game | players | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    groups = {(g["game"], g["players"]): {} for r in reports.values() for g in r["groups"]}
    for name, report in reports.items():
        for g in report["groups"]:
            groups[(g["game"], g["players"])][name] = g
    for (game, p), by_name in groups.items():
        shown = []
        for name in names:
            g = by_name.get(name)
            if g is None:
                shown.append("-")
            elif p == 1:
                cell = next(c for c in reports[name]["cells"] if c["game"] == game and c["players"] == 1)
                shown.append(f"mean score {_interval(cell['mean_score'], cell['score_low'], cell['score_high'], 2)}")
            else:
                shown.append(_interval(g["rating"], g["rating_low"], g["rating_high"]))
        lines.append(f"| {game} | {p} | " + " | ".join(shown) + " |")
    lines.append(
        "| **aggregate normalised score** | | "
        + " | ".join(
            _interval(a.get("normalised"), a.get("low"), a.get("high"), 1)
            for a in (reports[n]["aggregate"] or {} for n in names)
        )
        + " |"
    )
    lines += [
        "",
        f"Ratings: {RATING_SCALE} (two players and more; not the tournaments' Elo, whose field mean is 1500); "
        "the score attack: mean score (95% CI).",
    ]
    responses = {n: r["best_response"] for n, r in reports.items() if r.get("best_response")}
    if responses:
        steps = {b["steps"] for rows in responses.values() for b in rows}
        lines += [
            "",
            "Best response (exploitability proxy): a fresh MaskablePPO trained for "
            f"{', '.join(map(str, sorted(steps)))} decisions against the frozen policy, then played against it "
            "with seats rotated; its win share over finished games (95% Wilson). Near 0.5 or below: the policy "
            "is hard to exploit at this budget.",
            "",
            "| game | " + " | ".join(f"best response to {n}" for n in responses) + " |",
            "|---|" + "---|" * len(responses),
        ]
        games = list(dict.fromkeys(b["game"] for rows in responses.values() for b in rows))
        for game in games:
            row = [next((_share(b) for b in responses[n] if b["game"] == game), "-") for n in responses]
            lines.append(f"| {game} | " + " | ".join(row) + " |")

    def load(r: dict) -> str:
        average = r["machine"].get("load_average")
        return f"{average[0]:.1f}" if average else "?"

    wall = ", ".join(
        f"{n} {r['wall_seconds'] / 60:.1f} min ({r['machine']['cores']} cores, load average {load(r)} at the start)"
        for n, r in reports.items()
    )
    lines += ["", f"Wall time of each card, best response included: {wall}."]
    return "\n".join(lines) + "\n"


def cards_index(out: str | Path = PUBLISHED) -> Path:
    """Write out/cards.md from the cards in `out`; for the checkout's published cards also refresh the
    `<!-- cards -->` blocks of docs/benchmark.md and README.md."""
    from fruit_envs._checkout import checkout_root, has_block, replace_block

    out = Path(out)
    reports = load_cards(out)
    if not reports:
        raise BenchmarkError(f"no reference cards in {out} (expected {', '.join(f'{n}/report.json' for n in CARDS)})")
    table = cards_markdown(reports)
    (out / "cards.md").write_text("# Reference cards\n\n" + table)
    root = checkout_root()
    if root is not None and out.resolve() == PUBLISHED.resolve():
        for page, body in ((root / "docs" / "benchmark.md", table), (root / "README.md", cards_summary(reports))):
            if has_block(page, "cards"):
                replace_block(page, "cards", body)
    return out / "cards.md"


def cards_summary(reports: dict[str, dict]) -> str:
    """The README's short form of the cards: each reference's aggregate normalised score."""
    first = next(iter(reports.values()))
    lines = ["| reference | aggregate normalised score (95% CI) |", "|---|---|"]
    for name, report in reports.items():
        a = report["aggregate"] or {}
        lines.append(f"| {name} | {_interval(a.get('normalised'), a.get('low'), a.get('high'), 1)} |")
    lines += [
        "",
        f"Protocol v{first['protocol']}, suite `{first['suite']}` (random = 0, search = 100; every game and player "
        "count in [docs/benchmark.md](docs/benchmark.md#published-reference-cards)).",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The report card


def _share(row: dict) -> str:
    if row.get("win_share") is None:
        return "-"
    return f"{row['win_share']:.3f} ({row['win_low']:.2f}-{row['win_high']:.2f})"


def _num(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(value: Any, low: Any, high: Any, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f} ({low:.{digits}f} to {high:.{digits}f})"


def protocol_line(report: dict) -> str:
    envs = ", ".join(report["environments"].values())
    conform = "conforms" if report["conforms"] else "DOES NOT CONFORM (" + "; ".join(report["deviations"]) + ")"
    git = report["package"].get("git", {}).get("commit", "")
    return (
        f"Protocol v{report['protocol']} ({report['protocol_file']}, sha256 {report['protocol_sha256'][:12]}), "
        f"suite {report['suite']}, {report['games_per_cell']} games per cell, seed {report['seed']}; "
        f"fruit_envs {report['package']['fruit_envs']}{f' (git {git[:10]})' if git else ''}; {envs}; run {conform}"
    )


def _anchors(group: dict) -> str:
    """The references' anchors of a group: ratings, or mean scores for the one-player game."""
    digits = 2 if group["players"] == 1 else 0
    shown = [f"{n} {_num(v, digits)}" for n, v in (group.get("anchors") or {}).items()]
    return ", ".join(shown) or "-"


def _part(group: dict) -> str:
    """A group's part in the aggregate: its weight, contribution and how far it moves the aggregate."""
    if group.get("aggregate_contribution") is None:
        return "not in it"
    moves = "" if group["aggregate_shift"] is None else f"; moves it by {group['aggregate_shift']:+.1f}"
    return f"{group['aggregate_weight']:.2f} x {group['normalised']:.1f} = {group['aggregate_contribution']:.1f}{moves}"


def _flag(cell: dict) -> str:
    return " (high: see warnings)" if cell.get("truncation_warning") else ""


def _notes(group: dict) -> list[str]:
    """What qualifies a group's numbers: a rating set by the prior, an interval not from the bootstrap, sweeps."""
    notes = [] if not group.get("prior_dominated") else [str(group["prior_note"])]
    if group.get("interval") and group["interval"] != "bootstrap over games":
        notes.append(f"interval: {group['interval']}")
    if group.get("interval") == "bootstrap over games":  # a cell whose games all ended alike adds no spread
        notes += [f"{result} against {ref}" for ref, result in (group.get("sweeps") or {}).items()]
    return notes


def markdown(report: dict) -> str:
    """report.md: the protocol line, the aggregate, one table per game and player count."""
    policy = report["policy"]
    tag = " [privileged]" if policy["privileged"] else ""
    lines = [f"# Benchmark of {policy['label']}{tag}", "", protocol_line(report), ""]
    if policy["privileged"]:
        lines += [
            "**Privileged policy**: it reads the true game state (`needs_state`), hidden parts included; its "
            "numbers are ranked apart from policies that see only their own observation.",
            "",
        ]
    if report["status"] != "complete":
        lines += [f"**Run {report['status']}**: {report['error']}", "", "The tables hold the cells that finished.", ""]
    agg = report["aggregate"] or {}
    lines += [
        f"**Aggregate** (mean normalised score over {agg.get('groups', 0)} of {agg.get('of', 0)} game and player "
        f"count groups; random = 0, {report['scale_reference']} = 100; 95% bootstrap interval): "
        f"{_interval(agg.get('normalised'), agg.get('low'), agg.get('high'), 1)}",
        "",
    ]
    if report.get("warnings"):
        lines += ["**Warnings** (what these numbers cannot measure):", ""]
        lines += [f"* {line}" for line in report["warnings"]] + [""]
    lines += [
        f"| game | players | rating ({RATING_SCALE}; 95% CI) | references' anchors (same scale; one player: mean "
        "score) | normalised (95% CI) | in the aggregate: weight x normalised = contribution; how far it moves it | "
        "rated against | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in report["groups"]:
        against = ", ".join(g["rated_against"]) or ("(mean score)" if g["players"] == 1 else "no anchored reference")
        lines.append(
            f"| {g['game']} | {g['players']} | {_interval(g['rating'], g['rating_low'], g['rating_high'])} | "
            f"{_anchors(g)} | {_interval(g['normalised'], g['normalised_low'], g['normalised_high'], 1)} | "
            f"{_part(g)} | {against} | {'; '.join(_notes(g)) or '-'} |"
        )
    for (game, p), cells in _by_group(report["cells"]).items():
        lines += ["", f"## {game}, {p} player{'s' if p > 1 else ''}", ""]
        if p == 1:
            c = cells[0]
            lines += [
                "| games | mean score (95% CI) | truncated |",
                "|---|---|---|",
                f"| {c['games']} | {_interval(c['mean_score'], c['score_low'], c['score_high'], 2)} | "
                f"{c['truncated']}{_flag(c)} |",
            ]
            continue
        lines += [
            "| reference | games | W/D/L | win share of finished games (95% Wilson) | mean score margin | "
            "mean rank | truncated share |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in cells:
            lines.append(
                f"| {c['reference']} | {c['games']} | {c['wins']}/{c['draws']}/{c['losses']} | {_share(c)} | "
                f"{_num(c['mean_margin'])} | {_num(c['mean_rank'], 2)} | {c['truncated_share']:.3f}{_flag(c)} |"
            )
    if report.get("best_response"):
        lines += [
            "",
            "## Best response (exploitability proxy)",
            "",
            "A fresh MaskablePPO trained against the frozen policy; its win share against it (95% Wilson).",
            "",
            "| game | steps | games | W/D/L | best response's win share |",
            "|---|---|---|---|---|",
        ]
        for b in report["best_response"]:
            lines.append(
                f"| {b['game']} | {b['steps']} | {b['games']} | {b['wins']}/{b['draws']}/{b['losses']} | {_share(b)} |"
            )
    lines += [
        "",
        f"Wall time {report.get('wall_seconds', 0):.0f} s on {report['machine']['platform']} "
        f"({report['machine']['cores']} cores), started {report['started']}.",
    ]
    return "\n".join(lines) + "\n"


def _by_group(cells: list[dict]) -> dict[tuple[str, int], list[dict]]:
    groups: dict[tuple[str, int], list[dict]] = {}
    for c in cells:
        groups.setdefault((c["game"], c["players"]), []).append(c)
    return groups


def summary_table(report: dict) -> str:
    """The terminal's closing table: one line per cell, then the ratings and the aggregate."""
    rows = [("game", "players", "reference", "win share (95% CI)", "margin", "rank", "truncated")]
    for c in report["cells"]:
        if c["players"] == 1:
            rows.append((c["game"], "1", "(alone)", f"mean score {c['mean_score']:.2f}", "-", "-", str(c["truncated"])))
        else:
            rows.append(
                (
                    c["game"],
                    str(c["players"]),
                    c["reference"],
                    _share(c),
                    _num(c["mean_margin"]),
                    _num(c["mean_rank"], 2),
                    f"{c['truncated_share']:.3f}",
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    text = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    text.append("")
    for g in report["groups"]:
        rating = (
            f"mean score {g['mean_score']:.2f} (reference mean scores: {_anchors(g)})"
            if g["players"] == 1 and g.get("mean_score") is not None
            else f"rating {_interval(g['rating'], g['rating_low'], g['rating_high'])} ({RATING_SCALE}; anchors: "
            f"{_anchors(g)})"
        )
        text.append(
            f"{g['game']} {g['players']}p: {rating}, "
            f"normalised {_interval(g['normalised'], g['normalised_low'], g['normalised_high'], 1)}, "
            f"in the aggregate {_part(g)}"
        )
    agg = report["aggregate"] or {}
    text.append(f"aggregate normalised score: {_interval(agg.get('normalised'), agg.get('low'), agg.get('high'), 1)}")
    text += [f"warning: {line}" for line in report.get("warnings") or []]
    if report["policy"]["privileged"]:
        text.append("PRIVILEGED policy (reads the true state): ranked apart from observation-only policies")
    for b in report.get("best_response") or []:
        text.append(f"best response in {b['game']} ({b['steps']} steps): win share {_share(b)}")
    text.append(protocol_line(report))
    return "\n".join(text)


def picture(report: dict, path: Path) -> None:
    """report.png: the picture of `report_figure`."""
    import matplotlib.pyplot as plt

    fig = report_figure(report)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def report_figure(report: dict) -> Any:
    """The report's matplotlib figure: per game and player count, the policy's win share against each reference
    (95% Wilson error bars, a dashed line at an even share); a one-player game: its mean score (95% interval)
    beside the references' mean scores, its normalised score in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = _by_group(report["cells"])
    columns = min(4, max(1, len(groups)))
    rows = max(1, math.ceil(len(groups) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.8 * rows), squeeze=False)
    for ax in axes.flat[len(groups) :]:
        ax.axis("off")
    ratings = {(g["game"], g["players"]): g for g in report["groups"]}
    for ax, ((game, p), cells) in zip(axes.flat, groups.items(), strict=False):
        rating = ratings.get((game, p), {})
        if p == 1:
            c = cells[0]
            mean = c["mean_score"]
            error = [[mean - c["score_low"]], [c["score_high"] - mean]] if math.isfinite(c["score_high"]) else None
            ax.bar([0], [mean], width=0.5, yerr=error, color="tab:blue", capsize=3)
            ax.text(0, mean, f"{mean:.2f}", ha="center", va="bottom", fontsize=8)
            anchors = {n: v for n, v in (rating.get("anchors") or {}).items() if v is not None}
            for name, value in anchors.items():
                ax.axhline(value, color="grey", linestyle="--", linewidth=0.8)
                ax.text(0.55, value, name, ha="right", va="bottom", fontsize=7, color="grey")
            top = max([mean, *anchors.values()] + ([c["score_high"]] if error else []))
            ax.set_ylim(0, 1.15 * top if top > 0 else 1)
            ax.set_xlim(-0.6, 0.6)
            ax.set_xticks([0], ["policy"], fontsize=8)
            ax.set_ylabel("mean score", fontsize=8)
            shown = "" if rating.get("normalised") is None else f", normalised {rating['normalised']:.0f}"
            ax.set_title(f"{game} (alone)\nmean score {mean:.2f}{shown}", fontsize=9)
            continue
        names = [c["reference"] for c in cells]
        share = np.array([c["win_share"] or 0.0 for c in cells])
        low = np.array([c["win_low"] for c in cells])
        high = np.array([c["win_high"] for c in cells])
        ax.bar(range(len(cells)), share, yerr=[share - low, high - share], color="tab:green", capsize=3)
        ax.axhline(1 / p, color="grey", linestyle="--", linewidth=1)
        ax.set_xticks(range(len(cells)), names, rotation=25, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        shown = "" if rating.get("rating") is None else f"\nrating {rating['rating']:.0f} (random = 0)"
        ax.set_title(f"{game}, {p} players{shown}", fontsize=9)
        ax.set_ylabel("win share", fontsize=8)
    tag = " [privileged]" if report["policy"]["privileged"] else ""
    fig.suptitle(
        f"{report['policy']['label']}{tag}: protocol v{report['protocol']}, suite {report['suite']}", fontsize=10
    )
    fig.tight_layout()
    return fig


def write_report(report: dict, out: Path) -> None:
    """report.json (every number and setting), report.md and report.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, default=_json_default))
    (out / "report.md").write_text(markdown(report))
    picture(report, out / "report.png")
    report["out"] = str(out)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


# ---------------------------------------------------------------------------------------------
# Command line


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.benchmark"),
        description=__doc__,
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
    args = parser.parse_args(argv)
    args.games_per_cell, args.games_filter = _games_arguments(parser, args)
    from fruit_envs.core.threads import limit_threads

    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)
    protocol: int | str = int(args.protocol) if args.protocol.isdecimal() else args.protocol
    try:
        if args.calibrate:
            if args.policy is not None:
                raise BenchmarkError("--calibrate rates the protocol's references; give no POLICY with it")
            result = calibrate(
                args.suite, args.games_per_cell, args.games_filter, args.seed, not args.no_progress, protocol
            )
            if args.out is not None:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / "calibration.json").write_text(json.dumps(result, indent=2, default=_json_default))
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
            )
            print((Path(args.out or PUBLISHED) / "cards.md").read_text())
            return 0
        if args.policy is None:
            raise BenchmarkError("give the POLICY to benchmark (an agent name, a model .zip or package.module:make)")
        source_label = args.policy
        out = args.out or default_out(source_label, args.suite)
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
        )
    except BenchmarkError as error:
        if isinstance(error, PolicyError) and error.traceback:
            print(f"the policy raised:\n{error.traceback}", file=sys.stderr, end="")
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(summary_table(report))
    print(f"report in {report['out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
