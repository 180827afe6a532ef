"""The score attack in words: Juicy Fruits' own text module (`narrate`, `rules_help`), found here because
text modules are looked up by the rules module's package, like pictures."""

from fruit_envs.games.juicy_fruits.text import narrate, rules_help  # noqa: F401

__all__ = ["narrate", "rules_help"]
