"""Each game's rules, one subpackage per game; importing this registers every game found here.

A game is a subpackage with a `rules` module that defines `SPEC` (a `GameSpec`); nothing else needs
editing to add one.
"""

from __future__ import annotations

import importlib
import pkgutil

from fruit_envs.core.spec import register_game


def _discover() -> list[str]:
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        try:
            rules = importlib.import_module(f"{__name__}.{info.name}.rules")
        except ModuleNotFoundError as error:
            if error.name == f"{__name__}.{info.name}.rules":
                continue  # a package without rules is not a game
            raise
        register_game(rules.SPEC)
        found.append(info.name)
    return found


GAMES = _discover()
