"""What a benchmark run would take on more cores, from the measured cost of each of its cells.

    python -m fruit_envs.benchmarks.scale_out results/benchmark/<run>/report.json --cores 8 64 512

A run's cells are independent units of work (`fruit_envs.core.units`), each played whole by one worker, so
on `k` workers the run takes at least its longest cell and at least the sum of the cells over `k`. This
schedules the report's cells (their `seconds`, as measured) longest first onto `k` workers, the way a pool
that hands the next unit to the first free worker would, and prints the wall time that gives, beside those
two bounds: more cores than cells, or one cell much longer than the rest, buy nothing.
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
from pathlib import Path


def makespan(costs: list[float], workers: int) -> float:
    """Wall seconds of `costs` on `workers`, each unit to the first free worker, the longest first."""
    free = [0.0] * min(workers, max(len(costs), 1))
    for cost in sorted(costs, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + cost)
    return max(free)


def table(report: dict, cores: list[int]) -> str:
    cells = [
        (f"{c['game']} {c['players']}p vs {c['reference'] or 'alone'}", float(c["seconds"])) for c in report["cells"]
    ]
    costs = [s for _, s in cells]
    name, longest = max(cells, key=lambda cell: cell[1])
    total = sum(costs)
    lines = [
        f"{len(cells)} cells, {total / 60:.1f} min of cell time in all; the longest, {name}, takes {longest:.0f} s.",
        "",
        "| cores | expected wall | bound: longest cell | bound: total / cores |",
        "|---:|---:|---:|---:|",
    ]
    for k in cores:
        lines.append(f"| {k} | {_shown(makespan(costs, k))} | {_shown(longest)} | {_shown(total / k)} |")
    return "\n".join(lines) + "\n"


def _shown(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds:.0f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="a benchmark run's report.json")
    parser.add_argument("--cores", type=int, nargs="+", default=[1, 2, 8, 64, 512], help="worker counts")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.report.read_text())
        if not report.get("cells") or any(k < 1 for k in args.cores):
            raise ValueError("the report has no cells, or a core count is below 1")
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {args.report}: {error}", file=sys.stderr)
        return 2
    print(table(report, args.cores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
