"""CPU threads of the processes we start: never more busy threads than the cores a process may use.

Torch's intra-op pool spins while it waits for its slowest thread. When another process takes one of
those threads' cores, every matrix product waits for a thread that is not running: on 2 cores, beside
one other busy process, `train_ppo` with 2 torch threads ran at a sixth of its idle speed (issue 30;
the README's training section has the table). Our networks are small, so one thread per process
loses a little on an idle machine and nothing beside other work.

`limit_threads()` is called at the start of every command that may run torch (training, evaluation,
tournaments, demonstrations, play, the benchmarks) and by the test suite. The count is, in order:
the command's own `--torch-threads`, `$FRUIT_ENVS_TORCH_THREADS`, `$OMP_NUM_THREADS`, or 1; never
more than the cores this process may run on (affinity mask and cgroup quota). It is written to
`OMP_NUM_THREADS` and `MKL_NUM_THREADS` for torch imported later and for child processes (Ray
workers, pytest-xdist workers), and caps numpy's BLAS pool where threadpoolctl is installed.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

DEFAULT_TORCH_THREADS = 1
ENV_VAR = "FRUIT_ENVS_TORCH_THREADS"


def usable_cores() -> int:
    """CPUs this process may run on: its affinity mask, capped by a cgroup CPU quota (containers, CI)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows: no affinity masks
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, max(1, math.floor(quota)))
    return max(1, cores)


def cgroup_cpu_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPUs a cgroup quota allows (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`), or None without one."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        quota = int((root / "cpu" / "cpu.cfs_quota_us").read_text())
        period = int((root / "cpu" / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return None if quota <= 0 or period <= 0 else quota / period


def torch_thread_count(requested: int | None = None) -> int:
    """`requested`, else `$FRUIT_ENVS_TORCH_THREADS`, else `$OMP_NUM_THREADS`, else 1; at most `usable_cores()`."""
    if requested is None:
        for name in (ENV_VAR, "OMP_NUM_THREADS"):
            text = os.environ.get(name, "").strip()
            if text:
                try:
                    requested = int(text)
                except ValueError:
                    raise ValueError(f"${name} must be a positive integer, got {text!r}") from None
                break
        else:
            requested = DEFAULT_TORCH_THREADS
    if isinstance(requested, bool) or int(requested) != requested or requested < 1:
        raise ValueError(f"torch threads must be a positive integer, got {requested!r}")
    return min(int(requested), usable_cores())


def limit_threads(torch_threads: int | None = None) -> int:
    """Set this process's torch threads (and numpy's BLAS pool) to `torch_thread_count(torch_threads)`,
    and pass the count on to child processes; returns it. Imports torch only if it is imported already."""
    count = torch_thread_count(torch_threads)
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(count)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return count
        threadpool_limits(limits=count, user_api="blas")
    return count
