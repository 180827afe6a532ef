"""Picture of a score attack: Juicy Fruits' own picture module (one island, the display, the rival's
row and the face-down pile), found here because pictures are looked up by the rules module's package."""

from fruit_envs.games.juicy_fruits.picture import draw, paint, size, text, view  # noqa: F401

__all__ = ["draw", "paint", "size", "text", "view"]
