"""Juicy Fruits: move collectors on your island, supply ships, claim businesses (basic game)."""

from fruit_envs.games.juicy_fruits import rules  # noqa: F401  (rules first: text.py reads it)
