"""What the command-line scripts share: the program name their `--help` shows."""

from __future__ import annotations

import sys
from pathlib import Path


def prog(module: str) -> str:
    """`fruit-envs-...` when run as that console script, `python -m <module>` otherwise."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name.startswith("fruit-envs-") else f"python -m {module}"
