"""Each game's rules, one subpackage per game; importing this registers them all."""

from fruit_envs.core.spec import register_game
from fruit_envs.games.cherry_picking import rules as cherry_picking

register_game(cherry_picking.SPEC)

__all__ = ["cherry_picking"]
