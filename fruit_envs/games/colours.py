"""Colours of the fruits and other things on the games' cards, shared by every game's picture.

Not a game (the registry looks at subpackages only); pictures look a colour up by name.
"""

from __future__ import annotations

from fruit_envs.core.picture import Colour, name_colour

COLOURS: dict[str, Colour] = {
    "pineapple": (196, 142, 24),
    "pear": (128, 170, 52),
    "banana": (222, 190, 30),
    "cherry": (188, 28, 52),
    "orange": (238, 132, 28),
    "grape": (118, 62, 150),
    "grapes": (118, 62, 150),
    "strawberry": (220, 56, 82),
    "plum": (104, 48, 108),
    "apple": (200, 46, 40),
    "lemon": (230, 210, 60),
    "kiwi": (108, 136, 48),
    "coconut": (130, 96, 70),
    "mango": (236, 160, 40),
    "watermelon": (60, 150, 80),
    "rain": (70, 130, 200),
    "house": (150, 108, 78),
    "ladder": (128, 96, 64),
    "wildcard": (96, 96, 110),
    "basket": (170, 116, 56),
    "seed": (110, 82, 50),
    "umbrella": (60, 110, 190),
}


def colour(name: str) -> Colour:
    """Colour of a named thing; the first word decides ("cherry 5" -> cherry), unknown names get a stable colour."""
    key = name.strip().lower()
    if key in COLOURS:
        return COLOURS[key]
    first = key.split(" ")[0] if key else key
    return COLOURS.get(first, name_colour(key))
