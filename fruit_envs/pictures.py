"""Write a picture of every registered game (the README's): `python -m fruit_envs.pictures [FOLDER]`.

Each is a seeded random game of three players (or the game's default count) 40% of the way through,
drawn in the full view by the game's picture module; the default folder is `docs/pictures`.
"""

from __future__ import annotations

import sys

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.core.picture import write_examples


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for path in write_examples(argv[0] if argv else "docs/pictures"):
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
