"""Hand-built Juicy Fruits positions for the rule tests: islands as ASCII pictures, actions by name."""

from __future__ import annotations

import numpy as np

from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import rules as R

START = """
. ~ ~ ~ .
~ B . L ~
~ . P . ~
~ O . M ~
. ~ ~ ~ .
"""


def position(num_players: int = 2, players: dict | None = None, **top):
    """A position from a partial description: every island defaults to START, ships to distinct orders.

    `players` maps a seat ("player_0") to its fields (island picture, ships by buoy letter, fruit ...).
    """
    players = {seat: dict(fields) for seat, fields in (players or {}).items()}
    named = {_order(name) for fields in players.values() for name in fields.get("ships", {}).values()}
    pool = (ship for ship, (order, _) in enumerate(C.SHIPS) if order not in named)
    for k in range(num_players):
        fields = players.setdefault(f"player_{k}", {})
        fields.setdefault("island", START)
        ships = {letter: C.SHIP_NAMES[next(pool)] for letter in C.BUOY_LETTERS}
        ships.update(fields.get("ships", {}))
        fields["ships"] = ships
    d = {"config": {"num_players": num_players}, "players": players, "business_board": [[], [], [], [], []]}
    d.update(top)
    return R.from_description(d)


def _order(name: str) -> str:
    return name.split("/")[0]


def legal(state) -> set[str]:
    return {R.action_to_string(state.config, a) for a in np.flatnonzero(R.legal_mask(state)[0])}


def play(state, *names):
    """Apply actions by readable name, checking each is legal for the seat to move; returns (state, rewards)."""
    total = np.zeros(state.config.num_players, dtype=np.float32)
    for name in names:
        action = R.string_to_action(state.config, name)
        assert R.legal_mask(state)[0, action], f"{name!r} is not legal in phase {phase(state)}: {sorted(legal(state))}"
        state, rewards = R.step(state, np.array([action]))
        total += rewards[0]
        assert not R.invariants(state), R.invariants(state)
    return state, total


def describe(state) -> dict:
    return R.describe(state, 0)


def phase(state) -> str:
    return describe(state)["phase"]


def fruit(state, seat: int = 0) -> dict:
    return {k: v for k, v in describe(state)["players"][f"player_{seat}"]["fruit"].items() if v}


def score(state, seat: int = 0) -> int:
    return describe(state)["players"][f"player_{seat}"]["score"]


def points(state, seat: int = 0) -> dict:
    return describe(state)["players"][f"player_{seat}"]["points"]


def island(state, seat: int = 0) -> list[str]:
    """The island picture with single spaces between symbols (as tests write them)."""
    return [" ".join(row.split()) for row in describe(state)["players"][f"player_{seat}"]["island"]]


def picture(text: str) -> list[str]:
    return [" ".join(row.split()) for row in text.strip().splitlines()]


# The clogged position of issue 16: a 2 x 2 venue and packed collectors fill each island (only the four
# unreachable corners are free), no fruit, an empty business board: every turn is a forced pass.
CLOGGED = """
.  ~    ~    ~ .
~  B    L    P ~
~  croc croc O ~
~  croc croc M ~
.  ~    ~    ~ .
"""
# Markers that empty all six stacks (6 license steps; with the two venues claimed, the marker is at X).
EMPTIED_STACKS = (
    {"blue 6": 1, "blue 5": 1, "green 8": 2, "green 7": 1, "pink 4": 2, "milkshake": 2},
    {"blue 6": 1, "blue 5": 1, "green 8": 1, "green 7": 2, "pink 4": 1, "milkshake": 2},
)


def clogged(last_round: bool = False, players_fruit: dict | None = None, islands: dict | None = None, **top):
    """Both islands clogged (the spa on player_1's): nobody can do anything but pass, ever (unless
    `players_fruit` or `islands`, by seat, give someone something to do).

    `last_round=False`: the license marker 6 steps from X, 13-13 (a venue and its claim each), a game that
    can never end by its rules. `last_round=True`: every stack emptied, the marker at X, player_0 ahead
    61-56: the round ends the game by its rules."""
    players = {
        "player_0": {"island": CLOGGED},
        "player_1": {"island": CLOGGED.replace("croc", "spa ")},
    }
    if last_round:
        for k, markers in enumerate(EMPTIED_STACKS):
            players[f"player_{k}"]["markers"] = markers
    for seat, fruit in (players_fruit or {}).items():
        players[seat]["fruit"] = fruit
    for seat, pic in (islands or {}).items():
        players[seat]["island"] = pic
    return position(players=players, **top)
