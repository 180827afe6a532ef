"""Calibration: the references' anchor ratings from games among themselves."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.agents import make_agent
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.play import cell_cost, pair_outcomes, play_cell
from fruit_envs.benchmarks.benchmark.protocol import Protocol, _parse_only, check_environments, load_protocol, per_seat
from fruit_envs.benchmarks.benchmark.ratings import fit_joint
from fruit_envs.core import units
from fruit_envs.core.spec import get_spec

_agents: dict = {}  # the reference agents this process built for one calibration: (run, game, players, name) -> agent


def calibrate(
    suite: str = "standard",
    games: int | None = None,
    only: Any = None,
    seed: int | None = None,
    progress: bool = True,
    protocol: int | str | Path | Protocol = 1,
    workers: int | None = 1,
    ray_address: str | None = None,
    folder: str | Path | None = None,
) -> dict:
    """The references' ratings per game and player count from games among them: every reference plays as
    the 'policy' against every other in the other seats (with two players each pair once), Elo-scale
    Bradley-Terry over all their pairwise results with random held at 0. One-player games: each reference's
    mean score alone. A reference that is not shipped (a PPO baseline) gets null. Returns the anchors and
    the YAML to paste into the protocol file. Each pairing is a unit of work (`fruit_envs.core.units`) on
    `workers` local processes or a Ray cluster, with its own seeds: the same anchors whatever runs them;
    with `folder`, finished pairings are kept there and a stopped calibration goes on from them."""
    proto = load_protocol(protocol)
    check_environments(proto)
    if suite not in proto.suites:
        raise BenchmarkError(f"unknown suite {suite!r}; protocol v{proto.version} has {list(proto.suites)}")
    games = int(proto.calibration["games_per_cell"]) if games is None else games
    seed = int(proto.calibration["seed"]) if seed is None else seed
    groups = _parse_only(only, proto, proto.suite_groups(suite), suite)
    try:
        runner = units.backend(workers, ray_address)
    except ValueError as error:
        raise BenchmarkError(str(error)) from None
    plan, jobs, run = [], [], uuid.uuid4().hex
    _agents.clear()
    for game, p in groups:
        spec = get_spec(game)
        config = spec.make_config(p)
        names = {}
        for name, by_game in proto.references.items():
            try:
                # a reference that cannot play fails before any game; built, it serves this process's units
                _agents[(run, spec.id, p, by_game[game])] = make_agent(by_game[game], spec, config)
                names[name] = by_game[game]
            except ValueError as error:
                if name != "ppo-baseline":
                    raise BenchmarkError(f"reference {name} for {game} {p}p: {error}") from None
        pairs = (
            [(a, b) for a in names for b in names if a != b and (p > 2 or a < b)]
            if p > 1
            else [(a, None) for a in names]
        )
        plan.append((spec, config, names, pairs))
        for a, b in pairs:
            agent_b = None if b is None else names[b]
            args = (run, spec.id, p, names[a], agent_b, per_seat(games, p), seed, b, (a, b or ""))
            searching = _searches(run, spec.id, p, names[a]) + (p - 1) * _searches(run, spec.id, p, agent_b)
            cost = cell_cost(per_seat(games, p) * max(p, 1), p, searching)
            key = f"{spec.id}-{p}p-{a}-{b or 'alone'}"
            jobs.append(units.Unit(key, _pairing_unit, args, per_seat(games, p) * p, cost))
    identity = {"job": "calibration", "protocol": proto.version, "suite": suite, "games": games, "seed": seed}
    results = units.run_units(jobs, runner, folder, identity, progress, "calibration")
    by_key = dict(zip((u.key for u in jobs), results, strict=True))
    anchors: dict[str, dict[int, dict]] = {}
    details = []
    for spec, config, names, pairs in plan:
        p = config.num_players
        pairwise, values = [], {}
        for a, b in pairs:
            numbers, raw = by_key[f"{spec.id}-{p}p-{a}-{b or 'alone'}"]
            details.append({"game": spec.id, "players": p, "agent": a, "reference": b, **numbers})
            if b is None:
                values[a] = round(numbers["mean_score"], 2)
                continue
            finished = ~raw["truncated"]
            outcomes = pair_outcomes(raw["scores"], raw["winners"], raw["policy_seat"])[finished]
            pairwise.append((a, b, float(np.nansum(outcomes)), float((~np.isnan(outcomes)).sum())))
        if p > 1:
            fitted = fit_joint(pairwise, {"random": 0.0}, float(proto.rating.get("prior_ties", 1.0)))
            values = {name: round(fitted[name]) for name in names}
        anchors.setdefault(spec.id, {})[p] = {name: values.get(name) for name in proto.references}
    return {"anchors": anchors, "games_per_cell": games, "seed": seed, "cells": details, "yaml": anchors_yaml(anchors)}


def _searches(run: str, game: str, players: int, name: str | None) -> bool:
    """Whether the agent named `name` searches (reads the state: a costly seat)."""
    return name is not None and bool(getattr(_agents.get((run, game, players, name)), "needs_state", False))


def _pairing_unit(
    run: str, game: str, players: int, agent_a: str, agent_b: str | None, games_per_seat: int, seed: int,
    b: str | None, labels: tuple[str, str],
) -> tuple[dict, dict]:  # fmt: skip
    """One pairing of calibration `run`, in whatever process runs it: reference `agent_a` in each seat in turn
    against `agent_b` (None: alone), the agents built once per process and run."""
    spec = get_spec(game)
    config = spec.make_config(players)
    if any(key[0] != run for key in _agents):
        _agents.clear()  # another calibration's agents
    built = []
    for name in (agent_a, agent_b):
        if name is not None and (run, game, players, name) not in _agents:
            _agents[(run, game, players, name)] = make_agent(name, spec, config)
        built.append(None if name is None else _agents[(run, game, players, name)])
    return play_cell(spec, config, built[0], built[1], games_per_seat, seed, b, labels)


def anchors_yaml(anchors: dict) -> str:
    """The `anchors:` block of a protocol file."""
    lines = ["anchors:"]
    for game, by_count in anchors.items():
        lines.append(f"  {game}:")
        for p, values in sorted(by_count.items()):
            shown = ", ".join(f"{name}: {'null' if v is None else v}" for name, v in values.items())
            lines.append(f"    {p}: {{{shown}}}")
    return "\n".join(lines) + "\n"
