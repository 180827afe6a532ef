"""Picture of a Fruit Picking table: the market (slots, prices, the stack), and for every seat its farm
(the House and six farm cards with their seeds), storage, market cards owned and sets completed.

`view(state, i, seat)` decides what a seat knows, and is what its observation is checked against:
everything on the table and the order of turns; the stack's size and the composition of the face-down
cards; the cards put under the stack (market operation) in the order they will come up, each with who
knows it (public history) and its name where the seat knows it; the same for a pending two-card draw.
`draw` paints the view only.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core import picture as P
from fruit_envs.core.spec import game_winners
from fruit_envs.games.colours import colour
from fruit_envs.games.fruit_picking import components as C
from fruit_envs.games.fruit_picking import rules

FACE_DOWN = "face down"


def view(state: rules.State, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` knows of game `i` (None: everything), as JSON-able data with card names."""
    cfg = state.config
    p = cfg.num_players
    seats = P.seat_names(p)
    d = rules.describe(state, i)
    price = rules.prices(state)[i]
    size = int(state.stack_size[i])

    def known(bits) -> bool:
        return seat is None or bool(int(bits) >> seat & 1)

    def card(code, bits) -> dict:
        name = C.card_name(int(code)) if known(bits) else FACE_DOWN
        return {"card": name, "known_by": rules.knower_names(bits, p)}

    codes, bits = state.stack[i, :size], state.stack_knowers[i, :size]
    stack = {"size": size, "under": [card(c, b) for c, b in zip(codes, bits, strict=True) if b]}
    held = state.drawn[i] >= 0
    drawn = [card(c, b) for c, b in zip(state.drawn[i][held], state.drawn_knowers[i][held], strict=True)]
    if seat is None:
        stack["order"] = d["hidden"]["stack"]
    else:
        face_down = [int(c) for c, b in zip(codes, bits, strict=True) if not known(b)]
        face_down += [
            int(c) for c, b in zip(state.drawn[i][held], state.drawn_knowers[i][held], strict=True) if not known(b)
        ]
        stack["unseen"] = {C.card_name(c): face_down.count(c) for c in range(C.N_CODES) if c in face_down}
    sets = C.completed_sets(rules.kind_counts(state.take(i))[0])
    fruits = rules.market_fruits(state.take(i))[0]
    out = {
        "game": rules.SPEC.id,
        "players": p,
        "view": None if seat is None else seats[seat],
        "round": d["rounds"] + (0 if d["done"] else 1),
        "max_rounds": cfg.max_rounds,
        "phase": d["phase"],
        "to_move": None if d["done"] else d["to_move"],
        "done": d["done"],
        "truncated": d["truncated"],
        "last_round": d["last_round"],
        "farm_order": d["farm_order"],
        "target": d["target"],
        "market": [{"card": name, "price": int(price[k])} for k, name in enumerate(d["market"])],
        "stack": stack,
        "drawn": drawn,
        "seats": {
            name: {
                "seeds": d["farms"][name]["seeds"],
                "storage": d["farms"][name]["storage"],
                "cards": d["bought"][name],
                "fruits": int(fruits[k]),
                "sets": [C.SETS[j] for j in np.flatnonzero(sets[k])],
            }
            for k, name in enumerate(seats)
        },
    }
    if d["done"]:
        won = game_winners(rules, state.take(i))[0]  # none when truncated
        out["winners"] = [seats[k] for k in np.flatnonzero(won)]
    return out


def knowledge(v: dict) -> dict:
    """The view without what can no longer matter: which market cards a player owns carry an umbrella
    (an owned card never returns to play; the face-down cards' composition, which it shaped, is kept)."""
    seats = {name: {**s, "cards": sorted(c.split(" ")[0] for c in s["cards"])} for name, s in v["seats"].items()}
    return {**v, "seats": seats}


# --- layout (sizes depend on the number of players only) -------------------------------------------

WIDTH = 980
HEADER = 44
FARM_W, FARM_H = 70, 86
CARD_W, CARD_H = 70, 92
ROW_H = 120
LEFT = 170


def size(num_players: int) -> tuple[int, int]:
    """(height, width) of the picture."""
    return HEADER + 10 + 150 + num_players * (ROW_H + 8) + 34, WIDTH


def _status(v: dict) -> str:
    if v["done"]:
        return f"game over after {v['round']} rounds" + (" (round limit)" if v["truncated"] else "")
    phase = {"plant": "plant seeds", "target": "water or buy", "draw": "draw one or two", "keep": "keep a card"}
    line = f"round {v['round']} - {phase.get(v['phase'], v['phase'])} - {v['to_move']} to move"
    return line + (" - last round" if v["last_round"] else "")


def _short(name: str) -> str:
    return name.replace(" (umbrella)", "+u")


def _seats_short(seats: list[str]) -> str:
    """`["player_0", "player_2"]` as `p0 p2`."""
    return " ".join(k.replace("player_", "p") for k in seats)


def _known_cards(cards: list[dict]) -> str:
    """Cards with their knowers, e.g. `grapes (p0), face down (p0 p1)`."""
    return ", ".join(f"{c['card']} ({_seats_short(c['known_by'])})" for c in cards)


def _under_line(v: dict) -> str:
    stack = v["stack"]
    above = stack["size"] - len(stack["under"])
    return f"put under the stack ({above} cards above them, next first): " + _known_cards(stack["under"])


def draw(state: rules.State, i: int = 0, seat: int | None = None, labels=None) -> np.ndarray:
    """`(H, W, 3) uint8` picture of game `i` from `seat`'s view (None: the full view); `labels`: the agents
    in the seats, drawn beside their names."""
    return paint(P.with_labels(view(state, i, seat), labels))


def _market_card(c: P.Canvas, box, name: str, highlight: bool = False, dim: bool = False) -> None:
    if name == "empty":
        c.box(box, fill=P.light(P.LINE, 0.6), outline=P.LINE, radius=5)
    elif name == FACE_DOWN:
        c.card(box, "", face_down=True, highlight=highlight)
    else:
        kind = name.split(" ")[0]
        fruits = int(C.MARKET_COUNT[C.KINDS.index(kind)])
        c.card(box, kind, str(fruits), colour(kind), highlight=highlight, dim=dim)
        if "umbrella" in name:
            x0, _, x1, y1 = box
            c.chip((x0 + 4, y1 - 22), "umbrella", colour("umbrella"), size=10)


def paint(v: dict) -> np.ndarray:
    height, width = size(v["players"])
    c = P.Canvas(width, height)
    c.header("Fruit Picking", _status(v), "full view" if v["view"] is None else f"view of {v['view']}")
    top = HEADER + 10

    # market: the stack, then the slots (slot 0 next to the stack), with prices
    slots = len(v["market"])
    c.panel((10, top, 10 + 130 + slots * (CARD_W + 14) + 14, top + 140), "market (price = fruits + slot)")
    stack = v["stack"]
    c.text((20 + CARD_W / 2, top + 30), f"stack: {stack['size']}", size=13, anchor="mm")
    if stack["size"]:
        c.card((20, top + 42, 20 + CARD_W, top + 42 + CARD_H), "", face_down=True)
    else:
        c.box((20, top + 42, 20 + CARD_W, top + 42 + CARD_H), fill=P.light(P.LINE, 0.6), outline=P.LINE)
    for k, slot in enumerate(v["market"]):
        x = 150 + k * (CARD_W + 14)
        c.text(
            (x + CARD_W / 2, top + 30),
            f"slot {k}: {slot['price']}" if slot["card"] != "empty" else f"slot {k}",
            size=13,
            anchor="mm",
        )
        buyable = (
            v["phase"] == "target"
            and v["target"] is not None
            and slot["card"].split(" ")[0] == (v["farm_order"][v["target"]])
        )
        _market_card(c, (x, top + 42, x + CARD_W, top + 42 + CARD_H), slot["card"], highlight=buyable)

    # the stack's contents: order (full view) or composition of what the seat has not seen; then the
    # cards put under the stack with who knows them, and a pending two-card draw
    x0 = 10 + 130 + slots * (CARD_W + 14) + 24
    c.panel((x0, top, WIDTH - 10, top + 140), "stack, top first" if "order" in stack else "unseen cards")
    x, y = x0 + 10, top + 24

    def chip(label: str, fill) -> None:
        nonlocal x, y
        w = c.text_width(label, 11) + 12
        if x + w > WIDTH - 20:
            x, y = x0 + 10, y + 21
        c.chip((x, y), label, fill, size=11)
        x += w + 4

    under = stack["under"]
    if "order" in stack:
        first_under = len(stack["order"]) - len(under)
        for k, name in enumerate(stack["order"]):
            knowers = f" {_seats_short(under[k - first_under]['known_by'])}" if k >= first_under else ""
            chip(_short(name) + knowers, colour(name.split(" ")[0]))
    else:
        for name, n in stack["unseen"].items():
            chip(f"{_short(name)} x{n}", colour(name.split(" ")[0]))
        if under:
            x, y = x0 + 10, y + 23
            label = f"under the stack, next first ({stack['size'] - len(under)} above):"
            c.text((x, y + 3), label, size=11, colour=P.MUTED)
            x += c.text_width(label, 11) + 6
            for card in under:
                face = card["card"] != FACE_DOWN
                name = _short(card["card"]) if face else "?"
                chip(f"{name} {_seats_short(card['known_by'])}", colour(card["card"].split(" ")[0]) if face else P.LINE)
    if v["drawn"]:
        c.text(
            (x0 + 10, top + 120),
            f"{v['to_move']} drew: " + _known_cards(v["drawn"]),
            size=12,
            colour=P.HIGHLIGHT,
        )

    y = top + 150
    for name, s in v["seats"].items():
        _seat_row(c, y, name, s, v)
        y += ROW_H + 8

    if v["done"]:
        line = f"winner{'s' if len(v['winners']) > 1 else ''}: {', '.join(v['winners'])}"
        if not v["winners"]:
            line = "cut off by the engine's cap (truncated): no winner"
        c.text((16, height - 18), line, size=15, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    else:
        c.text(
            (16, height - 18),
            "plant the seeds of a card one by one clockwise; the last seed's card is the target: "
            "water it, or buy its fruit; +u: umbrella card; p0 p1: who knows a card put under the stack",
            size=12,
            colour=P.MUTED,
            anchor="lm",
        )
    return c.array()


def _seat_row(c: P.Canvas, y: int, name: str, s: dict, v: dict) -> None:
    me = v["view"] == name
    moving = v["to_move"] == name
    c.box((10, y, WIDTH - 10, y + ROW_H), fill=P.light(P.HIGHLIGHT, 0.88) if me else P.PANEL)
    if moving:
        c.marker((16, y + 16))
    c.seat_name((32, y + 16), P.seat_title(v, name), LEFT - 6, winner=name in (v.get("winners") or []))
    c.text((20, y + 44), f"{s['fruits']} fruits", size=20, anchor="lm")
    c.text((20, y + 70), "on market cards", size=12, colour=P.MUTED, anchor="lm")
    c.text((20, y + 92), f"storage: {s['storage']} seeds", size=12, colour=P.MUTED, anchor="lm")

    # the farm: House at 0, then six cards clockwise, seeds on each
    for k, card in enumerate(v["farm_order"]):
        x = LEFT + k * (FARM_W + 6)
        count = int(C.FARM_COUNT[C.FARM_TYPES.index(card)])
        target = moving and v["target"] == k
        value = "" if card == "house" else str(count)
        c.card((x, y + 12, x + FARM_W, y + 12 + FARM_H), f"{k} {card}", value, colour(card), highlight=target)
        seeds = s["seeds"][k]
        if seeds:
            c.counter((x + FARM_W - 14, y + 12 + FARM_H - 14), seeds, colour("seed"))

    # market cards owned and sets completed
    x0 = LEFT + 7 * (FARM_W + 6) + 10
    c.text((x0, y + 14), f"market cards ({len(s['cards'])})", size=11, colour=P.MUTED, anchor="lm")
    x, line = x0, 0
    for card in s["cards"]:
        label = card.replace(" (umbrella)", "+u")
        w = c.text_width(label, 11) + 12
        if x + w > WIDTH - 20:
            x, line = x0, line + 1
        c.chip((x, y + 26 + 22 * line), label, colour(card.split(" ")[0]), size=11)
        x += w + 4
    if s["sets"]:
        c.text((x0, y + ROW_H - 14), "set: " + ", ".join(s["sets"]), size=12, colour=P.HIGHLIGHT, anchor="lm")


def text(v: dict) -> str:
    """A view as text (what `python -m fruit_envs.play` shows)."""
    who = "full view" if v["view"] is None else f"view of {v['view']}"
    stack = v["stack"]
    lines = [
        f"Fruit Picking - {v['players']} players - {_status(v)} - {who}",
        "farm: " + " > ".join(f"{k}:{card}" for k, card in enumerate(v["farm_order"])),
        "market (stack side first): "
        + " | ".join(
            f"{slot['card']} ({slot['price']})" if slot["card"] != "empty" else "empty" for slot in v["market"]
        )
        + f"   stack: {stack['size']} cards",
    ]
    if "order" in stack:
        lines.append("stack, top first: " + ", ".join(stack["order"]))
    else:
        lines.append("unseen cards: " + (", ".join(f"{name} x{n}" for name, n in stack["unseen"].items()) or "none"))
    if stack["under"]:
        lines.append(_under_line(v))
    if v["target"] is not None:
        lines.append(f"target: position {v['target']} ({v['farm_order'][v['target']]})")
    if v["drawn"]:
        lines.append(f"{v['to_move']} drew: " + _known_cards(v["drawn"]))
    for name, s in v["seats"].items():
        sets = f"  set: {', '.join(s['sets'])}" if s["sets"] else ""
        mark = "  <- you" if v["view"] == name else ""
        title = P.seat_title(v, name, you="")
        lines.append(
            f"{title}: seeds {s['seeds']} storage {s['storage']:>2}  cards [{', '.join(s['cards'])}]"
            f"  fruits {s['fruits']}{sets}{mark}"
        )
    if v["done"]:
        lines.append(f"winner: {', '.join(v['winners'])}" if v["winners"] else "truncated: no winner")
    return "\n".join(lines)
