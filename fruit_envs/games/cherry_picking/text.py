"""Cherry Picking in words: what a decision did (`narrate`) and the rules in brief (`rules_help`), for
`python -m fruit_envs.play`, `python -m fruit_envs.replay` and replay captions (`fruit_envs.core.narration`).

Everything narrated is public: the cards of a trick once revealed (all at once, when the last seat has
committed), the harvests (made face up), the set scores. A committed card is never named before the
reveal, and no hand is ever named.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core import narration
from fruit_envs.core.spec import Config
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules as R

NO_CARD = R.NO_CARD


def rules_help(config: Config) -> str:
    """The rules in brief and the scoring, from the game's documentation page."""
    return narration.docstring_sections(f"fruit_envs.{R.SPEC.pettingzoo_name}", ("Play", "Scoring"))


def resolution(plants: np.ndarray, played: np.ndarray, chooser: int | None = None, plant: int | None = None):
    """The revealed cards of a trick resolved in rulebook order from `plants` (6,) and `played` (P,)
    (card ids, NO_CARD where none is left to resolve), after `chooser` harvests at `plant` when given;
    stops where a player must choose a plant. Returns the events and the plants after them:

    * `("harvest", seat, taken, plant, left)`: seat took card `taken` at `plant` and left card `left`;
    * `("pile", seats, card)`: several played `card` (ladders, wildcards): each goes onto its own pile;
    * `("choose", seat, card)`: seat, who played `card`, chooses a plant next.
    """
    plants, played = np.array(plants, dtype=np.int64), np.array(played, dtype=np.int64)
    events: list[tuple] = []
    if chooser is not None:
        events.append(("harvest", chooser, int(plants[plant]), plant, int(played[chooser])))
        plants[plant], played[chooser] = played[chooser], NO_CARD
    for card in (C.LADDER, C.WILDCARD):  # a lone one chooses, several go to their players' piles
        who = [int(k) for k in np.flatnonzero(played == card)]
        if len(who) == 1:
            events.append(("choose", who[0], card))
            return events, plants
        if len(who) > 1:
            events.append(("pile", who, card))
            played[who] = NO_CARD
    fruit = [int(k) for k in np.flatnonzero((played >= 0) & (C.CARD_SORT[np.maximum(played, 0)] >= 0))]
    for k in sorted(fruit, key=lambda k: (C.CARD_SORT[played[k]], -C.CARD_VALUE[played[k]])):  # highest first
        sort = int(C.CARD_SORT[played[k]])
        events.append(("harvest", k, int(plants[sort]), sort, int(played[k])))
        plants[sort], played[k] = played[k], NO_CARD
    baskets = [int(k) for k in np.flatnonzero(played >= C.BASKET_BASE)]
    if baskets:
        best = max(baskets, key=lambda k: played[k])
        events.append(("choose", best, int(played[best])))
    return events, plants


def _card(card: int) -> str:
    name = C.CARD_NAMES[card]
    return f"a {name}" if card in (C.LADDER, C.WILDCARD) else name


def _sentence(event: tuple, names: list[str]) -> str:
    kind = event[0]
    if kind == "harvest":
        _, seat, taken, plant, left = event
        return f"{names[seat]} harvested {_card(taken)} at the {C.SORTS[plant]} plant and left {_card(left)} there"
    if kind == "pile":
        _, seats, card = event
        return (
            f"{narration.listing([names[k] for k in seats])} each played {_card(card)}: no harvest, "
            f"each {C.CARD_NAMES[card]} goes onto its player's harvest pile"
        )
    _, seat, card = event
    why = f"the only {C.CARD_NAMES[card]}" if card in (C.LADDER, C.WILDCARD) else f"{C.CARD_NAMES[card]}; highest first"
    return f"next: {names[seat]} to choose a plant ({why})"


def narrate(before: R.State, after: R.State, i: int, action: int, seat: int | None, names: list[str]) -> list[str]:
    """The harvests a reveal or a plant choice set off, and the scores of a set that ended (the same for
    every seat: nothing hidden is named). A commit that is not the trick's last says nothing."""
    if before.done[i]:
        return []
    p = before.config.num_players
    mover = int(before.to_move[i])
    played = before.played[i].astype(np.int64)
    if before.phase[i] == R.COMMIT:
        if mover != p - 1:  # face down until the last seat has committed
            return []
        played = played.copy()
        played[mover] = action
        events, _ = resolution(before.plants[i], played)
    elif before.phase[i] == R.CHOOSE:
        events, _ = resolution(before.plants[i], played, mover, action - R.CHOOSE_BASE)
    else:
        return []
    lines = [_sentence(event, names) for event in events]
    finished = int(before.set_index[i])
    if int(after.set_index[i]) > finished:
        scores = ", ".join(
            f"{names[k]} {int(after.set_scores[i, finished, k])} (total {int(after.scores[i, k])})" for k in range(p)
        )
        lines.append(f"set {finished + 1} of {C.SETS_PER_GAME} scored: {scores}")
        if not after.done[i]:
            lines.append("new hands are dealt and a new card lies below each plant")
    return lines
