"""`python -m fruit_envs.benchmarks.benchmark`: the command line, as `fruit-envs-benchmark`."""

from __future__ import annotations

import sys

from fruit_envs.benchmarks.benchmark.cli import main

if __name__ == "__main__":
    sys.exit(main())
