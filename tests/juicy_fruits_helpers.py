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
