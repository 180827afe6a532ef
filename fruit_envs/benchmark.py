"""Benchmark any policy in one call under the versioned protocol (docs/benchmark.md).

    from fruit_envs.benchmark import evaluate
    report = evaluate("greedy", suite="quick", out="results/benchmark/greedy")
    report = evaluate(my_factory, suite="standard")          # make(game_spec, config) -> agent
    print(report["aggregate"]["normalised"])                  # random = 0, the reference search = 100

The command line is `fruit-envs-benchmark POLICY --suite quick|standard|full` (also
`python -m fruit_envs.benchmarks.benchmark`); the machinery lives in `fruit_envs.benchmarks.benchmark`.
Importing this module imports neither torch nor matplotlib: they load when a PPO policy is built or a
picture is drawn.
"""

from __future__ import annotations

from fruit_envs.benchmarks.benchmark import (
    BenchmarkError,
    PolicyError,
    Protocol,
    calibrate,
    evaluate,
    load_protocol,
    summary_table,
)

__all__ = ["BenchmarkError", "PolicyError", "Protocol", "calibrate", "evaluate", "load_protocol", "summary_table"]
