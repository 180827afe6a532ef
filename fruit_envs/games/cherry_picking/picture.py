"""Picture of a Cherry Picking table: the six plants and the card below each, this trick's cards,
and for every seat its score, hand, committed card and harvest pile.

`view(state, i, seat)` decides what a seat may see (its own hand and committed card; other hands and
cards committed before the reveal face down; the card set aside never); `draw` paints the view only.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core import picture as P
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules
from fruit_envs.games.colours import colour

FACE_DOWN = "face down"


def view(state: rules.State, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` may know of game `i` (None: everything), as JSON-able data with card names."""
    d = rules.describe(state, i)
    p = state.config.num_players
    seats = P.seat_names(p)
    revealed = d["phase"] == "choose"
    out = {
        "game": rules.SPEC.id,
        "players": p,
        "view": None if seat is None else seats[seat],
        "set": min(d["set"], C.SETS_PER_GAME),
        "phase": d["phase"],
        "to_move": None if d["done"] else d["to_move"],
        "done": d["done"],
        "plants": d["plants"],
        "trick": {},
        "seats": {},
    }
    for k, name in enumerate(seats):
        hand = d["hidden"]["hands"][name]
        committed = d["revealed"].get(name) if revealed else d["hidden"]["committed"].get(name)
        visible = seat is None or seat == k
        if committed is not None and not revealed and not visible:
            committed = FACE_DOWN
        out["trick"][name] = committed
        pile = d["piles"][name]
        out["seats"][name] = {
            "score": d["scores"][name],
            "set_scores": [row[k] for row in d["set_scores"][: min(d["set"] - 1, C.SETS_PER_GAME)]],
            "pile": pile,
            "pile_points": int(rules.score_piles(_counts(pile), state.config.same_sort_bonus)),
            "hand_size": len(hand),
            "hand": hand if visible else None,
        }
    if seat is None:
        out["aside"] = d["hidden"]["aside"]
    if d["done"]:
        best = max(d["scores"].values())
        out["winners"] = [name for name, score in d["scores"].items() if score == best]
    return out


def knowledge(v: dict) -> dict:
    """The view without what cannot matter for play: past sets' scores (their total is kept), and while
    cards are chosen, who has already chosen (seats choose at the same moment; the order in which the
    AEC env collects the choices is not part of the game)."""
    out = {**v, "seats": {name: {k: x for k, x in s.items() if k != "set_scores"} for name, s in v["seats"].items()}}
    if v["phase"] == "commit" and v["view"] is not None:
        out["to_move"] = None
        out["trick"] = {name: card if name == v["view"] else None for name, card in v["trick"].items()}
    return out


def _counts(names: list[str]) -> np.ndarray:
    counts = np.zeros(C.N_CARD_TYPES, dtype=np.int64)
    for name in names:
        counts[C.card_from_name(name)] += 1
    return counts


# --- layout (sizes depend on the number of players only) -------------------------------------------

WIDTH = 980
HEADER = 44
PLANT_W, PLANT_H = 66, 90
SMALL_W, SMALL_H = 40, 56
ROW_H = 148
LEFT = 190  # width of the name column of a seat's row


def size(num_players: int) -> tuple[int, int]:
    """(height, width) of the picture."""
    return HEADER + 10 + 150 + num_players * (ROW_H + 8) + 34, WIDTH


def _status(v: dict) -> str:
    if v["done"]:
        return "game over"
    what = "choosing cards" if v["phase"] == "commit" else "harvest choice"
    return f"set {v['set']}/3 - {what} - {v['to_move']} to move"


def draw(state: rules.State, i: int = 0, seat: int | None = None, labels=None) -> np.ndarray:
    """`(H, W, 3) uint8` picture of game `i` from `seat`'s view (None: the full view); `labels`: the agents
    in the seats, drawn beside their names."""
    return paint(P.with_labels(view(state, i, seat), labels))


def paint(v: dict) -> np.ndarray:
    height, width = size(v["players"])
    c = P.Canvas(width, height)
    c.header("Cherry Picking", _status(v), "full view" if v["view"] is None else f"view of {v['view']}")
    top = HEADER + 10

    # the six plants and the card lying below each
    c.panel((10, top, 10 + 6 * (PLANT_W + 10) + 14, top + 140), "plants (card below each)")
    for k, sort in enumerate(C.SORTS):
        x = 22 + k * (PLANT_W + 10)
        c.text((x + PLANT_W / 2, top + 30), sort, size=14, colour=colour(sort), anchor="mm")
        card = v["plants"][sort]
        _card(c, (x, top + 42, x + PLANT_W, top + 42 + PLANT_H), card)

    # this trick: committed (face down before the reveal) or revealed cards
    x0 = 10 + 6 * (PLANT_W + 10) + 24
    revealed = v["phase"] == "choose"
    c.panel((x0, top, WIDTH - 10, top + 140), "this trick: revealed cards" if revealed else "this trick: cards chosen")
    slot = min(PLANT_W + 10, (WIDTH - 20 - x0 - 12) // max(v["players"], 1))
    for k, (name, card) in enumerate(v["trick"].items()):
        x = x0 + 12 + k * slot
        c.text((x + (slot - 10) / 2, top + 30), c.fit(name, slot - 4, 12), size=12, anchor="mm")
        box = (x, top + 42, x + slot - 10, top + 42 + PLANT_H)
        chooser = revealed and v["to_move"] == name
        if card is None:
            c.box(box, fill=P.light(P.LINE, 0.6), outline=P.LINE, radius=5)
        else:
            _card(c, box, card, highlight=chooser)
    if "aside" in v:
        c.text(
            (WIDTH - 16, top + 136), f"set aside (unseen): {v['aside'] or '-'}", size=11, colour=P.MUTED, anchor="rb"
        )

    # one row per seat
    y = top + 150
    for name, s in v["seats"].items():
        _seat_row(c, y, name, s, v)
        y += ROW_H + 8

    # footer
    if v["done"]:
        best = v["seats"][v["winners"][0]]["score"]
        line = f"winner{'s' if len(v['winners']) > 1 else ''}: {', '.join(v['winners'])} with {best} points"
        c.text((16, height - 18), line, size=15, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    else:
        c.text(
            (16, height - 18),
            "score = card values + ladders squared + 10 per set of six sorts + same-sort "
            "bonuses; three sets make a game",
            size=12,
            colour=P.MUTED,
            anchor="lm",
        )
    return c.array()


def _card(c: P.Canvas, box, card: str | None, highlight: bool = False, dim: bool = False) -> None:
    if card is None:
        c.box(box, fill=P.light(P.LINE, 0.6), outline=P.LINE, radius=5)
    elif card == FACE_DOWN:
        c.card(box, "", face_down=True, highlight=highlight)
    else:
        kind, _, value = card.partition(" ")
        title = {"wildcard": "wild"}.get(kind, kind)
        c.card(
            box,
            title,
            value if value else {"ladder": "L", "wildcard": "*"}.get(kind, ""),
            colour(kind),
            highlight=highlight,
            dim=dim,
        )


def _seat_row(c: P.Canvas, y: int, name: str, s: dict, v: dict) -> None:
    me = v["view"] == name
    c.box((10, y, WIDTH - 10, y + ROW_H), fill=P.light(P.HIGHLIGHT, 0.88) if me else P.PANEL)
    if v["to_move"] == name:
        c.marker((16, y + 16))
    c.seat_name((32, y + 16), P.seat_title(v, name), LEFT - 6, winner=name in (v.get("winners") or []))
    c.text((20, y + 44), f"total {s['score']}", size=22, anchor="lm")
    sets = "  ".join(f"set {k + 1}: {x}" for k, x in enumerate(s["set_scores"])) or "no set scored yet"
    c.text((20, y + 68), sets, size=12, colour=P.MUTED, anchor="lm")
    c.text((20, y + 88), f"pile now worth {s['pile_points']}", size=12, colour=P.MUTED, anchor="lm")
    c.text(
        (20, y + 108),
        f"{s['hand_size']} card{'s' if s['hand_size'] != 1 else ''} in hand",
        size=12,
        colour=P.MUTED,
        anchor="lm",
    )

    # hand: the cards (own or full view) or their backs
    x0 = LEFT
    c.text((x0, y + 12), "hand", size=11, colour=P.MUTED, anchor="lm")
    step = min(SMALL_W + 4, (WIDTH - 20 - x0) // max(s["hand_size"], 1))
    cards = s["hand"] if s["hand"] is not None else [FACE_DOWN] * s["hand_size"]
    for k, card in enumerate(cards):
        x = x0 + k * step
        _card(c, (x, y + 22, x + SMALL_W, y + 22 + SMALL_H), card)

    # harvest pile, grouped: ladders, wildcards, each sort's values, baskets
    c.text((x0, y + 88), f"harvest pile ({len(s['pile'])})", size=11, colour=P.MUTED, anchor="lm")
    groups: dict[str, list[str]] = {}
    for card in s["pile"]:
        kind, _, value = card.partition(" ")
        groups.setdefault(kind, []).append(value)
    order = ["ladder", "wildcard", *C.SORTS, "basket"]
    x, line = x0, 0
    for kind in order:
        if kind not in groups:
            continue
        values = groups[kind]
        label = f"{kind} x{len(values)}" if not values[0] else f"{kind} {' '.join(sorted(values, key=int))}"
        w = c.text_width(label, 12) + 12
        if x + w > WIDTH - 20:
            x, line = x0, line + 1
        c.chip((x, y + 98 + 23 * line), label, colour(kind))
        x += w + 6


def text(v: dict) -> str:
    """A view as text, one line per plant row, trick and seat (what `python -m fruit_envs.play` shows)."""
    who = "full view" if v["view"] is None else f"view of {v['view']}"
    lines = [
        f"Cherry Picking - {v['players']} players - {_status(v)} - {who}",
        "plants: " + " | ".join(f"{sort}: {card}" for sort, card in v["plants"].items()),
        "this trick: " + " | ".join(f"{name}: {card or '-'}" for name, card in v["trick"].items()),
    ]
    for name, s in v["seats"].items():
        hand = f"[{', '.join(s['hand'])}]" if s["hand"] is not None else f"{s['hand_size']} cards (hidden)"
        sets = f" (sets {', '.join(map(str, s['set_scores']))})" if s["set_scores"] else ""
        mark = "  <- you" if v["view"] == name else ""
        pile = f"pile [{', '.join(s['pile'])}] worth {s['pile_points']}"
        lines.append(f"{P.seat_title(v, name, you='')}: total {s['score']}{sets}  hand {hand}  {pile}{mark}")
    if v["done"]:
        lines.append(f"winner: {', '.join(v['winners'])}")
    return "\n".join(lines)
