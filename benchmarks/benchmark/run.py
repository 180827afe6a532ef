"""The run: `evaluate` checks everything, builds every agent, plays the suite's cells and rates them."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import fruit_envs
from fruit_envs.agents import make_agent
from fruit_envs.benchmarks.benchmark import result_card
from fruit_envs.benchmarks.benchmark.best_response import run_best_response
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError, PolicyError, Stopped
from fruit_envs.benchmarks.benchmark.exploitability import (
    LBR_GAMES_PER_SEAT,
    parse_exploitability,
    run_exploitability,
)
from fruit_envs.benchmarks.benchmark.play import cell_cost, cell_unit, remember
from fruit_envs.benchmarks.benchmark.policies import is_privileged, resolve_policy
from fruit_envs.benchmarks.benchmark.protocol import (
    Protocol,
    _parse_only,
    cell_keys,
    check_environments,
    load_protocol,
    per_seat,
    protocol_path,
    run_deviations,
)
from fruit_envs.benchmarks.benchmark.ratings import aggregate, rate_groups
from fruit_envs.benchmarks.benchmark.reports import RATING_SCALE, TRUNCATION_WARNING, report_warnings, write_report
from fruit_envs.benchmarks.benchmark.seat_best_response import check_starts, parse_starts, run_seat_best_response
from fruit_envs.core import record as frecord
from fruit_envs.core import units, validate
from fruit_envs.core.spec import get_spec

# what every worker imports to play cells: started while this process checks the run's agents
WORKER_IMPORTS = ("fruit_envs.benchmarks.benchmark.play", "fruit_envs.agents.ppo", "sb3_contrib")


def _slug(label: str) -> str:
    stem = label.rstrip("/").replace("\\", "/").split("/")[-1]
    stem = stem[:-4] if stem.endswith(".zip") else stem
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_")[:60] or "policy"


def default_out(policy_label: str, suite: str) -> Path:
    return Path("results", "benchmark", f"{_slug(policy_label)}_{suite}_{time.strftime('%Y%m%d-%H%M%S')}")


def latest_run(policy_label: str, suite: str, root: Path = Path("results", "benchmark")) -> Path | None:
    """The newest folder `default_out` made for this policy and suite that holds unfinished cells (`--resume`)."""
    runs = sorted(root.glob(f"{_slug(policy_label)}_{suite}_*/units/job.json"), key=lambda p: p.stat().st_mtime)
    return runs[-1].parent.parent if runs else None


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
    workers: int | None = 1,
    ray_address: str | None = None,
    exploitability: str | None = None,
    exploitability_games: int | None = None,
    exploitability_starts: Any = None,
    exploitability_players: Any = None,
) -> dict:
    """Benchmark `policy` under the protocol's `suite`; returns the report (and writes report.md, report.json
    and report.png to `out` when given).

    `games` (per cell, rounded down to a multiple of the player count), `seed`, `only` (games or
    `(game, players)`) and `references` (a subset of the protocol's) shrink or change the run: the report
    then says it does not conform to the protocol. `skip_missing` leaves out cells whose reference is not
    shipped (a PPO baseline not yet trained) instead of refusing the run. `best_response=STEPS` trains a
    fresh MaskablePPO against the frozen policy in every two-player game of the suite and reports its win
    share (`best_response_options` override the protocol's training settings). `exploitability="lbr[:N]"`
    plays a particle local best response in every seat of every group with opponents and reports each seat's
    gain over the policy's own value there (`exploitability`; `exploitability_games` per seat, default
    `LBR_GAMES_PER_SEAT`); `"br[:STEPS]"` trains a MaskablePPO for STEPS decisions (default: the protocol's
    `card_steps`) in every seat of every such group against the policy in the others, from each warm start of
    `exploitability_starts` (`scratch`, `baseline`, `candidate`; default: each that applies), chooses the best
    start on one set of deals and reports its gain on fresh ones (`exploitability_games` per seat, default the
    protocol's `games_per_seat`); it may run beside `best_response`, which it leaves as it is.
    `exploitability_players` (player counts) limits either to those groups of the run.
    Everything is checked before the first game; a policy fault raises `PolicyError` after saving the
    failing game (failure.jsonl) and the finished cells (the report files) to `out`.

    Each cell is a unit of work (`fruit_envs.core.units`) with its own seeds: `workers` local processes
    (None: every usable core; 1, the default: this process) or a Ray cluster (`ray_address`: `local`, `auto`,
    `ray://host:port`) play them, with the same numbers. With `out`, every finished cell is saved there at
    once (`out/units/`): the same run on the same folder goes on where a stopped one stopped."""
    started, wall, cpu = time.strftime("%Y-%m-%d %H:%M:%S"), time.perf_counter(), time.process_time()
    proto = load_protocol(protocol)
    environments = check_environments(proto)
    if not isinstance(suite, str) or suite not in proto.suites:
        raise BenchmarkError(f"unknown suite {suite!r}; protocol v{proto.version} has {list(proto.suites)}")
    suite_cfg = proto.suites[suite]
    if games is None:
        games = int(suite_cfg["games_per_cell"])
    elif not validate.is_int(games) or games < 1:
        raise BenchmarkError(f"games (per cell) must be a positive integer, got {games!r}")
    if seed is None:
        seed = proto.seed
    else:
        if not validate.is_int(seed) or seed < 0:
            raise BenchmarkError(f"seed must be a non-negative integer, got {seed!r}")
    if references is None:
        ref_names = list(proto.references)
    else:
        unknown = [r for r in references if r not in proto.references]
        if unknown or not references:
            raise BenchmarkError(
                f"unknown references {unknown or references}; protocol v{proto.version} has {list(proto.references)}"
            )
        ref_names = [r for r in proto.references if r in references]
    chosen = _parse_only(only, proto, proto.suite_groups(suite), suite)
    if best_response is not None and (not validate.is_int(best_response) or best_response < 1):
        raise BenchmarkError(f"best_response must be a positive number of training steps, got {best_response!r}")
    bound = parse_exploitability(exploitability)
    if exploitability_games is not None and (not validate.is_int(exploitability_games) or exploitability_games < 2):
        raise BenchmarkError(f"exploitability_games must be an integer of at least 2, got {exploitability_games!r}")
    starts = parse_starts(exploitability_starts)
    if exploitability_starts is not None and (bound is None or bound["method"] != "br"):
        raise BenchmarkError("exploitability_starts (--br-starts) are the warm starts of --exploitability br[:STEPS]")
    bound_players = _parse_players(exploitability_players, bound)
    if bound is not None and bound["method"] == "br" and bound["budget"] is None:
        bound["budget"] = int(proto.best_response.get("card_steps", 1_000_000))
    source = resolve_policy(policy, proto)
    out = None if out is None else validate.writable_dir(out, "results folder")
    try:
        runner = units.backend(workers, ray_address)
    except ValueError as error:
        raise BenchmarkError(str(error)) from None
    units.warm(runner, WORKER_IMPORTS)  # local workers start while the agents are checked below

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
    published = proto.path.resolve() == protocol_path(proto.version).resolve()
    deviations = run_deviations(proto, suite, games, seed, ref_names, chosen, skipped, published)
    bound_plan = [row for row in plan if bound_players is None or row[1].num_players in bound_players]
    if bound is not None and bound["method"] == "br":
        check_starts(bound_plan, starts)
    privileged = any(is_privileged(agent) for _, _, agent, _ in plan)
    traveller = source.traveller(proto, workers=runner.workers > 1 or runner.ray_address is not None)
    for spec, config, agent, refs in plan:  # this process plays its cells with the agents checked above
        remember(traveller.run, spec.id, config.num_players, "policy", agent)
        for _, agent_name, ref in refs:
            remember(traveller.run, spec.id, config.num_players, agent_name, ref)

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
        "machine": {**machine(), "backend": runner.label},
    }
    cells = [
        units.Unit(
            f"{spec.id}-{config.num_players}p-{name or 'alone'}",
            cell_unit,
            (
                traveller,
                spec.id,
                config.num_players,
                name,
                agent_name,
                per_seat(games, config.num_players),
                seed,
                (source.label, name or ""),
            ),  # fmt: skip
            per_seat(games, config.num_players) * config.num_players,
            cell_cost(
                per_seat(games, config.num_players) * config.num_players,
                config.num_players,
                is_privileged(agent) + (config.num_players - 1) * is_privileged(ref),
            ),
        )
        for spec, config, agent, refs in plan
        for name, agent_name, ref in (refs if config.num_players > 1 else [(None, None, None)])
    ]
    done: dict[str, tuple[dict, dict]] = {}
    raws: dict[tuple[str, int], list] = {}
    job = {
        "job": "benchmark",
        "protocol_sha256": proto.sha256,
        "policy": source.label,
        "policy_kind": source.kind,
        "policy_sha256": source.fingerprint(),
        "fruit_envs": fruit_envs.__version__,
        "suite": suite,
        "games_per_cell": games,
        "seed": seed,
    }
    try:
        units.run_units(cells, runner, out, job, progress, "benchmark", on_result=lambda u, r: done.update({u.key: r}))
    except units.UnitError as error:
        raise BenchmarkError(str(error)) from None
    except KeyboardInterrupt:
        raise Stopped(len(done), len(cells), out) from None
    except PolicyError as error:
        _collect(report, raws, cells, done)
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
            _write_card(report, raws, source, runner, out, cpu)
            write_report(report, out)
        error.report = report
        raise
    _collect(report, raws, cells, done)
    report["machine"]["cells_resumed"] = len(runner.used.get(units.RESUMED, []))
    report["machine"]["nodes"] = {node: len(keys) for node, keys in runner.used.items() if node != units.RESUMED}
    _finish(report, raws, proto, wall)
    options = {**proto.best_response, **(best_response_options or {})}  # both trained responses' settings
    if best_response is not None:
        report["best_response"] = run_best_response(
            plan, source.label, best_response, options, seed, progress, traveller, runner
        )
        report["wall_seconds"] = round(time.perf_counter() - wall, 2)
    if bound is not None and bound["method"] == "br":
        report["exploitability"] = run_seat_best_response(
            bound_plan, source.label, bound["budget"], options, seed, progress, traveller, runner, exploitability_games,
            starts,
        )  # fmt: skip
        report["wall_seconds"] = round(time.perf_counter() - wall, 2)
    elif bound is not None:
        per_seat_games = exploitability_games or LBR_GAMES_PER_SEAT
        report["exploitability"] = run_exploitability(
            bound_plan, source.label, bound, seed, progress, traveller, runner, per_seat_games
        )
        report["wall_seconds"] = round(time.perf_counter() - wall, 2)
    report["status"] = "complete"
    if out is not None:
        _write_card(report, raws, source, runner, out, cpu)
        write_report(report, out)
        units.forget(out)  # the report and the card hold every cell now
    return report


def _parse_players(players: Any, bound: dict | None) -> set[int] | None:
    """`exploitability_players` as a set of player counts (None: every count of the run), checked by name."""
    if players is None:
        return None
    if bound is None:
        raise BenchmarkError("exploitability_players (--exploitability-players) limits --exploitability; give it too")
    if isinstance(players, str):
        players = [p.strip() for p in players.split(",") if p.strip()]
    elif validate.is_int(players):
        players = [players]
    try:
        counts = {int(p) for p in players}
    except (TypeError, ValueError):
        counts = set()
    if not counts or min(counts) < 2 or any(isinstance(p, bool) for p in players):
        raise BenchmarkError(
            f"exploitability_players must be player counts of at least 2 (e.g. 2 or 2,3), got {players!r}"
        )
    return counts


def _write_card(report: dict, raws: dict, source, runner, out: Path, cpu: float) -> None:
    """The run's result card, out/card.json (`result_card`), named in the report as `card`."""
    games, seed = report["games_per_cell"], report["seed"]

    def keys_of(game: str, p: int) -> np.ndarray:
        return cell_keys(seed, game, p, per_seat(games, p))

    cells = [raw for group in raws.values() for _, raw in group]
    compute = {
        "wall_seconds": report["wall_seconds"],
        "cell_cpu_seconds": round(sum(float(raw.get("cpu_seconds", 0.0)) for raw in cells), 2),
        "main_cpu_seconds": round(time.process_time() - cpu, 2),
        "workers": runner.workers,
        "backend": runner.label,
        "cores": report["machine"]["cores"],
        "platform": report["machine"]["platform"],
        "cells_resumed": report["machine"].get("cells_resumed", 0),
    }
    try:
        card = result_card.make_card(report, raws, keys_of, source, compute)
        games = result_card.card_actions(card, raws)
    except BenchmarkError as error:  # a cell resumed from a folder written before cards: the report stands alone
        report["card"], report["card_error"] = None, str(error)
        return
    report["card"] = str(result_card.write_card(card, out, games))


def _provenance() -> dict:
    from fruit_envs._checkout import provenance

    return provenance()


def _collect(report: dict, raws: dict, cells: list, done: dict) -> None:
    """The finished cells' numbers into the report and their raw arrays into `raws`, in the run's order."""
    for unit in cells:
        if unit.key not in done:
            continue
        numbers, raw = done[unit.key]
        _, game, p, name, agent_name, *_ = unit.args
        cell = {"game": game, "players": p, "reference": name, "reference_agent": agent_name}
        report["cells"].append({**cell, **numbers})
        raws.setdefault((game, p), []).append((name, raw))


def _finish(report: dict, raws: dict, proto: Protocol, wall: float) -> None:
    """Ratings of every group that has cells, the aggregate, the wall time."""
    groups = rate_groups(raws, proto)
    report["aggregate"] = aggregate(groups)
    for group in groups:
        group.pop("replicates", None)
    report["groups"] = groups
    report["rating_scale"] = RATING_SCALE
    report["truncation_warning_threshold"] = TRUNCATION_WARNING
    report["warnings"] = report_warnings(report)
    report["wall_seconds"] = round(time.perf_counter() - wall, 2)
