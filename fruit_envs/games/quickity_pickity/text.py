"""Quickity Pickity in words: what a tick did (`narrate`) and the rules in brief (`rules_help`), for
`python -m fruit_envs.play`, `python -m fruit_envs.replay` and replay captions (`fruit_envs.core.narration`).

A tick's choices stay hidden until the last seat has chosen; then the tick resolves in public: who
turned up which tile, who took which fruit, who placed it where, and when the third monkey ends the
round, everyone's earnings and who took the marketplace card. Tiles are named once face up; a seat is
told that its own take failed, nobody else's (only the referee hears every failed take).
"""

from __future__ import annotations

from fruit_envs.core import narration
from fruit_envs.core import picture as P
from fruit_envs.core.spec import Config
from fruit_envs.games.quickity_pickity import components as C
from fruit_envs.games.quickity_pickity import rules as R
from fruit_envs.games.quickity_pickity.picture import FACE_DOWN


def rules_help(config: Config) -> str:
    """The rules in brief, with the scoring, from the game's documentation page."""
    titles = ("Play", "Two players") if config.num_players == 2 else ("Play",)
    return narration.docstring_sections(f"fruit_envs.{R.SPEC.pettingzoo_name}", titles)


SIZES = ("1", "2", "3", "4", "5", "6", "7+")  # the set sizes a marketplace card pays


def _tile(name: str, monkeys: int) -> str:
    return f"a monkey (monkey {monkeys})" if name == "monkey" else name


def _set(s: dict, number: int) -> str:
    worth = "broken: -10" if not s["legal"] else f"worth {s['value']}"
    return f"set {number} ({len(s['tiles'])} fruit, {worth})"


def narrate(before: R.State, after: R.State, i: int, action: int, seat: int | None, names: list[str]) -> list[str]:
    """The tick's flips, takes and places once its last choice is made, and the end of a round."""
    v0, v1 = P.view(before, i, seat), P.view(after, i, seat)
    if v0["done"] or (v1["tick"] == v0["tick"] and v1["round"] == v0["round"] and not v1["done"]):
        return []  # a choice of a tick still open: hidden
    p = before.config.num_players
    seats = P.seat_names(p)
    choices = before.committed[i].astype(int).copy()
    choices[int(before.to_move[i])] = action  # the tick's choices are revealed together
    round_over = v1["round"] != v0["round"] or v1["done"]
    lines = []
    flippers = [k for k in range(p) if choices[k] == R.FLIP_ACTION]
    if round_over:
        lines.append(
            f"{narration.listing([names[k] for k in flippers])} flipped: the third monkey turned up and everyone stops"
            + ("; a fruit still in hand is not placed" if any(v0["seats"][s]["holding"] for s in seats) else "")
        )
        return lines + _round_end(v0, v1, names)
    turned = [j for j, (old, new) in enumerate(zip(v0["slots"], v1["slots"], strict=True)) if old == FACE_DOWN != new]
    monkeys = v0["monkeys_up"]
    for r, k in enumerate(flippers):
        if turned:
            tile = v1["slots"][turned[min(r, len(turned) - 1)]]
            monkeys += tile == "monkey" and r < len(turned)
            lines.append(f"{names[k]} turned up {_tile(tile, monkeys)}")
    for k, name in enumerate(seats):
        s0, s1 = v0["seats"][name], v1["seats"][name]
        if s1["holding"] and s1["holding"] != s0["holding"]:
            lines.append(f"{names[k]} took {s1['holding']}")
        elif R.TAKE_BASE <= choices[k] < R.PLACE_BASE and (seat is None or seat == k):
            wanted = C.tile_name(int(choices[k]) - R.TAKE_BASE)
            lines.append(f"{names[k]} reached for {wanted} too late: another player took the last one face up")
        if s0["holding"] and not s1["holding"]:
            opened = len(s1["sets"]) > len(s0["sets"])
            number = len(s0["sets"]) if opened else next(n for n, x in enumerate(s0["sets"]) if x != s1["sets"][n])
            into = "new " if opened else ""
            lines.append(f"{names[k]} placed {s0['holding']} into {into}{_set(s1['sets'][number], number)}")
    return lines


def _round_end(v0: dict, v1: dict, names: list[str]) -> list[str]:
    seats = list(v0["seats"])
    earnings = ", ".join(f"{names[k]} {v0['seats'][name]['money']}" for k, name in enumerate(seats))
    lines = [f"earnings: {earnings}"]
    winners = [k for k, name in enumerate(seats) if v1["seats"][name]["cards_won"] > v0["seats"][name]["cards_won"]]
    if winners:
        taken = "took a marketplace card" if len(winners) > 1 else "took the marketplace card"
        lines.append(f"{narration.listing([names[k] for k in winners])} won the round and {taken}")
    if not v1["done"]:
        card = v1["card"]
        pays = ", ".join(f"{size}: {value}" for size, value in zip(SIZES, card["pays"], strict=True))
        starter = names[seats.index(v1["starter"])]
        lines.append(
            f"round {v1['round']}: marketplace card {card['number']} pays {pays} "
            f"(+{card['bonus_points']} per {card['bonus']}); first player: {starter}"
        )
    return lines
