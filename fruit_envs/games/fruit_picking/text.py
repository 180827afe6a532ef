"""Fruit Picking in words: what a decision did (`narrate`) and the rules in brief (`rules_help`), for
`python -m fruit_envs.play`, `python -m fruit_envs.replay` and replay captions (`fruit_envs.core.narration`).

The narration is read off the seat's views before and after the decision (`picture.view`), so a seat is
told only what it may know: a card drawn from the stack is named when it comes up face up (or to its
drawer), a card put under the stack only to those who know it.
"""

from __future__ import annotations

from collections import Counter

from fruit_envs.core import narration
from fruit_envs.core import picture as P
from fruit_envs.core.spec import Config
from fruit_envs.games.fruit_picking import components as C
from fruit_envs.games.fruit_picking import rules as R
from fruit_envs.games.fruit_picking.picture import FACE_DOWN

EMPTY = C.card_name(C.NO_CARD)  # an empty market slot


def rules_help(config: Config) -> str:
    """The rules in brief and how the winner is found, from the game's documentation page."""
    return narration.docstring_sections(f"fruit_envs.{R.SPEC.pettingzoo_name}", ("Play", "Winner"))


def _seeds(n: int) -> str:
    return f"{n} seed{'s' if n != 1 else ''}"


def _new(after: list[str], before: list[str]) -> list[str]:
    """What `after` holds more of than `before` (multisets of names)."""
    return list((Counter(after) - Counter(before)).elements())


def narrate(before: R.State, after: R.State, i: int, action: int, seat: int | None, names: list[str]) -> list[str]:
    """Where the seeds went, what was watered or bought for how much, the cards that came up, umbrellas,
    and the trigger of the last round."""
    v0, v1 = P.view(before, i, seat), P.view(after, i, seat)
    if v0["done"]:
        return []
    mover = int(before.to_move[i])
    me = f"player_{mover}"
    who = names[mover]
    order = v0["farm_order"]
    s0, s1 = v0["seats"][me], v1["seats"][me]
    lines = []
    if R.PLANT_BASE <= action < R.REFILL:
        position = action - R.PLANT_BASE + 1
        sown = f"{who} planted the {_seeds(s0['seeds'][position])} of the {order[position]} card"
        if v1["phase"] == "target" and v1["target"] is not None:
            lines.append(f"{sown}; the last landed on the {order[v1['target']]} card (the target)")
        elif v1["to_move"] == me and v1["phase"] == "plant":
            lines.append(f"{sown}; the last landed on the House: plant again")
        else:
            lines.append(sown)
    elif action == R.WATER:
        target = v0["target"]
        added = s1["seeds"][target] - s0["seeds"][target]
        watered = f"{who} watered the {order[target]} card with {_seeds(added)} from storage"
        lines.append(watered if added else f"{who} watered the {order[target]} card, but the storage was empty")
    elif R.BUY_BASE <= action < R.DRAW_ONE:
        slot = action - R.BUY_BASE
        bought = v0["market"][slot]
        target = v0["target"]
        lines.append(
            f"{who} bought {bought['card']} for {_seeds(bought['price'])} from the House; the "
            f"{_seeds(s0['seeds'][target])} on the {order[target]} card went back to storage"
        )
    elif action == R.REFILL:
        returned = s0["seeds"][0] - s1["seeds"][0]
        lines.append(
            f"{who} had no seeds on the farm cards: {_seeds(returned)} went from the House back to storage, "
            "then 1 seed onto each of the first three cards"
        )
    elif action == R.DRAW_TWO:
        drawn = [card["card"] for card in v1["drawn"]]
        known = [card for card in drawn if card != FACE_DOWN]
        if len(known) == len(drawn):
            lines.append(f"{who} paid 1 seed and drew two cards: {narration.listing(known)}")
        else:
            lines.append(f"{who} paid 1 seed and drew two cards" + (f", showing {known[0]}" if known else ""))
    before_market = [slot["card"] for slot in v0["market"]]
    if R.BUY_BASE <= action < R.DRAW_ONE:
        before_market.remove(v0["market"][action - R.BUY_BASE]["card"])
    came_up = _new([slot["card"] for slot in v1["market"] if slot["card"] != EMPTY], before_market)
    if R.KEEP_BASE <= action < R.NUM_ACTIONS:
        under = v0["drawn"][1 - (action - R.KEEP_BASE)]["card"]
        under = "the other card" if under == FACE_DOWN else under
        lines.append(f"{who} put {narration.listing(came_up)} into the market and {under} under the stack")
    else:
        lines += [f"{card} came up from the stack into the market" for card in came_up]
    lines += _umbrellas(v0, v1, me, order)
    if v1["last_round"] and not v0["last_round"]:
        completed = _new(s1["sets"], s0["sets"])
        if completed:
            lines.append(f"{who} completed a set ({', '.join(completed)}): this round is the last")
        else:
            lines.append("the stack is empty: this round is the last")
    return lines


def _umbrellas(v0: dict, v1: dict, me: str, order: list[str]) -> list[str]:
    """Seeds that other players' farms gained: only an umbrella card adds seeds to everyone's farm."""
    cards = []
    for name, s in v1["seats"].items():
        for position, (old, new) in enumerate(zip(v0["seats"][name]["seeds"], s["seeds"], strict=True)):
            if name != me and new > old and order[position] not in cards:
                cards.append(order[position])
    return [f"umbrella: every player added seeds from storage to the {card} card of the farm" for card in cards]
