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
    # Quickity Pickity's fruit colours and its monkeys
    "red": (200, 50, 50),
    "yellow": (214, 176, 20),
    "green": (70, 150, 60),
    "purple": (120, 70, 160),
    "monkey": (120, 84, 52),
    # Juicy Fruits' other fruits and its ice cream carts
    "lime": (120, 180, 40),
    "pomegranate": (180, 40, 70),
    "mangosteen": (110, 40, 90),
    "blue": (60, 120, 200),
    "pink": (226, 110, 160),
    "ship": (70, 120, 170),
}


def colour(name: str) -> Colour:
    """Colour of a named thing; the first word decides ("cherry 5" -> cherry), unknown names get a stable colour."""
    key = name.strip().lower()
    if key in COLOURS:
        return COLOURS[key]
    first = key.split(" ")[0] if key else key
    return COLOURS.get(first, name_colour(key))
