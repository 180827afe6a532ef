"""Calibration: the references' anchor ratings from games among themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs._cli import progress_bar
from fruit_envs.agents import make_agent
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.play import pair_outcomes, play_cell
from fruit_envs.benchmarks.benchmark.protocol import Protocol, _parse_only, check_environments, load_protocol, per_seat
from fruit_envs.benchmarks.benchmark.ratings import fit_joint
from fruit_envs.core.spec import get_spec


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
