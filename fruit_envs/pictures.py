"""Write a picture of every registered game (the README's): `python -m fruit_envs.pictures [FOLDER]`.

Each is a seeded random game of three players (or the game's default count) 40% of the way through,
drawn in the full view by the game's picture module; FOLDER is relative to the current directory,
`docs/pictures` by default (the README's, when run from the root of a checkout).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs._cli import prog
from fruit_envs.core.picture import write_examples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.pictures"), description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "folder", nargs="?", type=Path, default=Path("docs/pictures"), help="where to write (default: docs/pictures)"
    )
    args = parser.parse_args(argv)
    for path in write_examples(args.folder):
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
