"""Picture of a Quickity Pickity table: the middle of the table (every tile slot face down, face up
or gone), the round's marketplace card, what is known of the pile and (two players) of the fruit in
play, and for every seat its phase, the fruit in its hand, this tick's choice, its sets with their
money, and the cards it has won.

`view(state, i, seat)` decides what a seat may see: never what lies under a face-down tile, which
fruit lie in the box, the choice another seat made this tick (only that it has chosen: seats choose
in turn), the cards tied winners took face down or the order of the pile. `knowledge(view)` keeps what
can matter for play (the observation is checked against it). `draw` paints the view only.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from fruit_envs.core import picture as P
from fruit_envs.games.colours import colour
from fruit_envs.games.quickity_pickity import components as C
from fruit_envs.games.quickity_pickity import rules

FACE_DOWN = "face down"
CHOSEN = "chosen (hidden)"


def view(state: rules.State, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` may know of game `i` (None: everything), as JSON-able data with tile names."""
    cfg = state.config
    p = cfg.num_players
    seats = P.seat_names(p)
    loc = state.location[i].astype(np.int64)
    layout = state.layout[i].astype(np.int64)
    done = bool(state.done[i])
    card = int(state.card[i])
    values, (bonus_colour, bonus_shape), bonus = C.CARDS[card]
    slots = []
    for t in range(len(loc)):
        if loc[t] == rules.FACE_DOWN:
            slots.append(_down(layout[t], seat))
        elif loc[t] == rules.FACE_UP:
            slots.append(C.tile_name(layout[t]))
        else:
            slots.append(None)  # taken: in a hand or a set
    money = rules.money(state.take(i))[0]
    to_move = None if done else seats[min(int(state.to_move[i]), p - 1)]
    flags, face_down_cards = rules.pile_knowledge(state.take(i))
    pos = int(state.deck_pos[i])
    shown_since = [int(c) for c in np.flatnonzero(flags[0])]
    out = {
        "game": rules.SPEC.id,
        "players": p,
        "view": None if seat is None else seats[seat],
        "round": int(state.round_index[i]) + 1,
        "tick": int(state.step_count[i]) // p + 1,
        "to_move": to_move,
        "done": done,
        "family": bool(cfg.family),
        "rounds_to_win": int(cfg.rounds_to_win),
        "card": {
            "number": card,
            "pays": [int(v) for v in values],  # sets of 1, 2, ..., 6, 7+ tiles
            "bonus": f"{bonus_colour} {bonus_shape}",
            "bonus_points": int(bonus),
        },
        "starter": seats[int(state.starter[i])],
        "tiles_in_play": _tiles_in_play(cfg),
        "cards_shown": [int(c) for c in state.deck[i, :pos][state.shown[i, :pos]]],  # each round's card, in order
        "pile": {
            "shown_since_shuffle": shown_since,  # no longer in the pile's current shuffle
            "taken_face_down_since_shuffle": int(face_down_cards[0]),
            "left_in_shuffle": C.N_CARDS - len(shown_since) - int(face_down_cards[0]),
        },
        "monkeys_up": int(((loc == rules.FACE_UP) & (layout == C.MONKEY)).sum()),
        "face_down": int((loc == rules.FACE_DOWN).sum()),
        "slots": slots,
        "seats": {},
    }
    if rules.box_hidden(cfg):
        out["seen_in_play"] = rules.seen_in_play(state, i)  # in earlier rounds; this round's are on the table
        if seat is None:
            box = C.COPIES - state.in_play[i, : C.N_FRUIT_TYPES].astype(np.int64)
            out["box"] = [C.tile_name(k) for k in np.repeat(np.arange(C.N_FRUIT_TYPES), box)]
    for k, name in enumerate(seats):
        committed = int(state.committed[i, k])
        if committed == rules.NO_ACTION:
            choice = None
        elif seat is None or seat == k:
            choice = rules.action_to_string(cfg, committed)
        else:
            choice = CHOSEN
        held = int(state.held[i, k])
        sets = []
        first = int(rules.zone_start(state.num_sets[i])[k])
        for s in range(int(state.num_sets[i, k])):
            tiles = [C.tile_name(layout[t]) for t in np.flatnonzero(loc == rules.SET_BASE + k * rules.S + s)]
            size, bits = int(state.set_size[i, first + s]), int(state.set_bits[i, first + s])
            legal = bool(rules.set_is_legal(bits, cfg.family))
            sets.append(
                {
                    "tiles": tiles,
                    "legal": legal,
                    "value": int(rules.set_values(card, size, bits, cfg.family)),
                    "bonus_fruit": int(state.set_bonus[i, first + s]),
                }
            )
        out["seats"][name] = {
            "phase": rules.PHASE_NAMES[int(state.seat_phase[i, k])],
            "holding": C.tile_name(layout[held]) if held >= 0 else None,
            "choice": choice,
            "sets": sets,
            "money": int(money[k]),
            "cards_won": int(state.cards_won[i, k]),
        }
    if done:
        best = max(s["cards_won"] for s in out["seats"].values())
        out["winners"] = [name for name, s in out["seats"].items() if s["cards_won"] == best]
    return out


def _tiles_in_play(cfg) -> str:
    if rules.box_hidden(cfg):
        return f"a random {C.TWO_PLAYER_FRUIT} of the {C.N_FRUIT} fruit, hidden, and the {C.N_MONKEYS} monkeys"
    if rules.fruit_count(cfg) < C.N_FRUIT:
        return f"one of each of the {C.N_FRUIT_TYPES} fruit types and the {C.N_MONKEYS} monkeys"
    return f"all {C.N_FRUIT} fruit and the {C.N_MONKEYS} monkeys"


def knowledge(v: dict) -> dict:
    """What a seat knows that can matter for play, from its view (the observation must tell apart any two
    positions whose knowledge differs). Dropped, since no rule reads them: where each tile lies (face-down
    slots are exchangeable and a take names a type), the round and tick numbers, which round showed which
    card, and who has chosen this tick (seats choose at the same moment; the order in which the AEC env
    collects their choices is not part of the game). Each set becomes its size, attributes present,
    bonus fruit and value: sets cannot be rearranged and a set's future depends only on those (a fruit
    joins legally when the attributes stay one expression and one colour or shape; the card pays by
    size; the bonus by bonus fruit). The fruit that left the middle are kept per type (`taken`), so
    what may still lie face down stays known."""
    out = {k: x for k, x in v.items() if k not in ("slots", "tick", "round", "to_move", "cards_shown")}
    up = Counter(x for x in v["slots"] if x is not None and not x.startswith(FACE_DOWN) and x != "monkey")
    out["face_up"] = dict(sorted(up.items()))
    taken: Counter = Counter()
    seats = {}
    for name, s in v["seats"].items():
        if s["holding"] is not None:
            taken[s["holding"]] += 1
        sets = []
        for st in s["sets"]:
            taken.update(st["tiles"])
            parts = [t.split(" ") for t in st["tiles"]]
            attributes = [sorted({part[j] for part in parts}) for j in range(3)]  # expressions, colours, shapes
            sets.append({**{k: x for k, x in st.items() if k != "tiles"}, "size": len(parts), "attributes": attributes})
        mine = v["view"] is None or v["view"] == name
        seats[name] = {**s, "sets": sets, "choice": s["choice"] if mine else None}
    out["taken"] = dict(sorted(taken.items()))
    out["seats"] = seats
    return out


def _down(kind: int, seat: int | None) -> str:
    """A face-down slot: what lies there for the full view, nothing for a seat."""
    return FACE_DOWN if seat is not None else f"{FACE_DOWN}: {C.tile_name(kind)}"


# --- layout (sizes depend on the config only) ------------------------------------------------------

WIDTH = 1000
HEADER = 44
PER_ROW = 12  # tile slots per row of the middle
TILE = 54  # a slot of the middle
GAP = 6
MINI = 22  # a tile in a set or a hand
SET_COLUMNS = 4
ROW_H = 150
LEFT = 210  # width of the name column of a seat's row
SET_CELLS = 8  # set cells in a seat's row; more sets than that are summed up in the last cell
KNOWN_H = 74  # the strip of what is known of the pile and of the fruit in play


def size(config) -> tuple[int, int]:
    """(height, width) of the picture."""
    rows = -(-rules.num_slots(config) // PER_ROW)
    middle = max(rows * (TILE + GAP) + 34, 300)
    return HEADER + 10 + middle + 10 + KNOWN_H + 8 + config.num_players * (ROW_H + 8) + 30, WIDTH


def _status(v: dict) -> str:
    if v["done"]:
        return f"game over after round {v['round']}"
    return f"round {v['round']}, tick {v['tick']} - {v['to_move']} to choose (choices hidden until the tick resolves)"


def draw(state: rules.State, i: int = 0, seat: int | None = None, labels=None) -> np.ndarray:
    """`(H, W, 3) uint8` picture of game `i` from `seat`'s view (None: the full view); `labels`: the agents
    in the seats, drawn beside their names."""
    return paint(P.with_labels(view(state, i, seat), labels), state.config)


def paint(v: dict, config) -> np.ndarray:
    height, width = size(config)
    c = P.Canvas(width, height)
    c.header("Quickity Pickity", _status(v), "full view" if v["view"] is None else f"view of {v['view']}")
    top = HEADER + 10
    rows = -(-len(v["slots"]) // PER_ROW)
    middle_h = max(rows * (TILE + GAP) + 34, 300)

    # the middle of the table
    grid_w = PER_ROW * (TILE + GAP) + 18
    title = f"middle of the table: {v['face_down']} face down, monkeys up {v['monkeys_up']}/{C.MONKEYS_TO_STOP}"
    c.panel((10, top, 10 + grid_w, top + middle_h), title)
    for t, slot in enumerate(v["slots"]):
        x = 22 + (t % PER_ROW) * (TILE + GAP)
        y = top + 26 + (t // PER_ROW) * (TILE + GAP)
        _tile(c, (x, y, x + TILE, y + TILE), slot, label=True)
        c.text((x + 3, y + 2), str(t), size=9, colour=P.MUTED)

    # the marketplace card
    x0 = 10 + grid_w + 10
    _market_card(c, (x0, top, WIDTH - 10, top + middle_h), v)

    # what everyone knows of the pile and (hidden box) of the fruit in play
    y = top + middle_h + 10
    _known(c, (10, y, WIDTH - 10, y + KNOWN_H), v)

    # one row per seat
    y += KNOWN_H + 8
    for name, s in v["seats"].items():
        _seat_row(c, y, name, s, v)
        y += ROW_H + 8

    if v["done"]:
        line = f"winner{'s' if len(v['winners']) > 1 else ''}: {', '.join(v['winners'])}"
        c.text((16, height - 16), line, size=15, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    else:
        c.text(
            (16, height - 16),
            "a tick: every seat flips, takes or places once; the third monkey up ends the round; the richest "
            f"seat takes the card; {v['rounds_to_win']} cards win",
            size=12,
            colour=P.MUTED,
            anchor="lm",
        )
    return c.array()


def _known(c: P.Canvas, box, v: dict) -> None:
    """The pile (cards shown since its last shuffle, cards taken face down) and, with a hidden box, the
    fruit seen in play in earlier rounds: each type with the most copies seen in one round."""
    x0, y0, x1, y1 = box
    pile = v["pile"]
    shown = ", ".join(str(card) for card in pile["shown_since_shuffle"]) or "none"
    line = (
        f"pile: {pile['left_in_shuffle']} of 16 cards left in this shuffle; shown: {shown}; "
        f"taken face down: {pile['taken_face_down_since_shuffle']}; starting player {v['starter']}"
    )
    c.panel(box, c.fit(line, x1 - x0 - 24, 12))
    if "seen_in_play" not in v:
        c.text((x0 + 12, y0 + 44), f"tiles in play: {v['tiles_in_play']}", size=12, colour=P.MUTED, anchor="lm")
        return
    seen = v["seen_in_play"]
    c.text((x0 + 12, y0 + 34), "seen in play", size=11, colour=P.MUTED, anchor="lm")
    c.text((x0 + 12, y0 + 50), "in earlier rounds", size=11, colour=P.MUTED, anchor="lm")
    step = (x1 - x0 - 130) // C.N_FRUIT_TYPES
    for k in range(C.N_FRUIT_TYPES):
        name = C.tile_name(k)
        x = x0 + 120 + k * step
        entry = seen.get(name)
        if entry is None:
            c.box((x, y0 + 26, x + MINI, y0 + 26 + MINI), fill=P.light(P.LINE, 0.7), outline=P.LINE, radius=4)
        else:
            _tile(c, (x, y0 + 26, x + MINI, y0 + 26 + MINI), name)
        label = "-" if entry is None else "x2" if entry["most_in_one_round"] == 2 else f"x1:{entry['rounds_with_one']}"
        c.text((x + MINI / 2, y0 + 60), label, size=9, colour=P.MUTED, anchor="mm")


def _seen(entry: dict) -> str:
    if entry["most_in_one_round"] == 2:
        return "x2"
    return f"x1 in {entry['rounds_with_one']} round{'s' if entry['rounds_with_one'] > 1 else ''}"


def _market_card(c: P.Canvas, box, v: dict) -> None:
    x0, y0, x1, y1 = box
    card = v["card"]
    c.panel(box, f"marketplace card {card['number']}")
    c.text((x0 + 12, y0 + 34), "set size", size=12, colour=P.MUTED, anchor="lm")
    c.text((x1 - 12, y0 + 34), "money", size=12, colour=P.MUTED, anchor="rm")
    for k, value in enumerate(card["pays"]):
        y = y0 + 56 + k * 20
        c.text((x0 + 12, y), f"{k + 1}{'+' if k == len(card['pays']) - 1 else ''}", size=14, anchor="lm")
        tint = (40, 140, 60) if value > 0 else (190, 50, 50) if value < 0 else P.INK
        c.text((x1 - 12, y), f"{value:+d}", size=14, colour=tint, anchor="rm", bold=True)
    y = y0 + 56 + len(card["pays"]) * 20 + 6
    c.text((x0 + 12, y), "broken set: -10", size=12, colour=(190, 50, 50), anchor="lm")
    colour_name, shape = card["bonus"].split(" ")
    c.text((x0 + 12, y + 24), f"bonus fruit +{card['bonus_points']} each:", size=12, anchor="lm")
    _tile(c, (x0 + 12, y + 36, x0 + 12 + MINI + 8, y + 36 + MINI + 8), f"sweet {colour_name} {shape}")
    c.text((x0 + 50, y + 48), card["bonus"] + " (any face)", size=12, anchor="lm")
    rule = "family rule: faces may mix" if v["family"] else "a set: one face; one colour or shape"
    c.text((x0 + 12, y1 - 12), rule, size=11, colour=P.MUTED, anchor="lm")


def _tile(c: P.Canvas, box, name: str | None, label: bool = False) -> None:
    """One tile: face down, a fruit (colour, shape, sweet or sour face), a monkey, or an empty slot."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    if name is None:
        c.box(box, fill=P.light(P.LINE, 0.7), outline=P.LINE, radius=5)
        return
    if name.startswith(FACE_DOWN):
        c.box(box, fill=P.CARD_BACK, outline=P.INK, radius=5)
        under = name.partition(": ")[2]
        if under:  # the full view: what lies there, small
            c.text(((x0 + x1) / 2, y1 - 9), _short(under), size=10, colour=(220, 226, 240), anchor="mm")
            c.text(((x0 + x1) / 2, (y0 + y1) / 2 - 4), "?", size=w // 3, colour=(220, 226, 240), anchor="mm")
        else:
            c.text(((x0 + x1) / 2, (y0 + y1) / 2), "?", size=w // 2, colour=(220, 226, 240), anchor="mm")
        return
    if name == "monkey":
        tone = colour("monkey")
        c.box(box, fill=P.light(tone, 0.5), outline=P.INK, radius=5)
        r = w * 0.28
        cx, cy = (x0 + x1) / 2, y0 + w * 0.42
        c.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tone, outline=P.INK)
        c.draw.ellipse((cx - r * 0.6, cy - r * 0.3, cx + r * 0.6, cy + r * 0.8), fill=P.light(tone, 0.6))
        if label:
            c.text(((x0 + x1) / 2, y1 - 8), "MONKEY", size=10, colour=P.INK, anchor="mm", bold=True)
        return
    face, tone_name, shape = name.split(" ")
    tone = colour(tone_name)
    c.box(box, fill=P.PANEL, outline=P.INK if label else P.LINE, radius=5)
    glyph = (x0 + 3, y0 + 3, x1 - 3, y1 - (13 if label else 3))
    _fruit(c, glyph, shape, tone, face)
    if label:
        c.text(((x0 + x1) / 2, y1 - 7), f"{face} {shape}", size=9, colour=P.INK, anchor="mm")


def _fruit(c: P.Canvas, box, shape: str, tone, face: str) -> None:
    """A fruit glyph of a shape and colour with a smiling (sweet) or frowning (sour) face."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = x1 - x0, y1 - y0
    r = min(w, h) / 2
    d = c.draw
    if shape == "round":
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tone, outline=P.INK)
    elif shape == "long":
        d.ellipse((x0, cy - r * 0.55, x1, cy + r * 0.55), fill=tone, outline=P.INK)
    elif shape == "bunch":
        s = r * 0.5
        for dx, dy in ((-s, -s * 0.6), (s, -s * 0.6), (0, s * 0.9)):
            d.ellipse((cx + dx - s, cy + dy - s, cx + dx + s, cy + dy + s), fill=tone, outline=P.INK)
    else:  # drop
        d.polygon([(cx, cy - r), (cx + r * 0.72, cy + r * 0.25), (cx - r * 0.72, cy + r * 0.25)], fill=tone)
        d.ellipse((cx - r * 0.72, cy - r * 0.2, cx + r * 0.72, cy + r), fill=tone, outline=P.INK)
    # the face: eyes and a smile (sweet) or a frown (sour)
    e = max(1.0, r * 0.12)
    fy = cy + (r * 0.2 if shape == "drop" else 0)
    for ex in (cx - r * 0.28, cx + r * 0.28):
        d.ellipse((ex - e, fy - r * 0.2 - e, ex + e, fy - r * 0.2 + e), fill=P.INK)
    m = r * 0.32
    width = max(1, int(r / 8))
    if face == "sweet":
        d.arc((cx - m, fy - m * 0.6, cx + m, fy + m * 0.9), 20, 160, fill=P.INK, width=width)
    else:
        d.arc((cx - m, fy + m * 0.25, cx + m, fy + m * 1.6), 200, 340, fill=P.INK, width=width)


def _short(name: str) -> str:
    """'sweet red round' -> '+ red round' (a face-down tile's contents in the full view)."""
    if name == "monkey":
        return "monkey"
    face, tone, shape = name.split(" ")
    return f"{'+' if face == 'sweet' else '-'}{tone[:3]} {shape[:4]}"


def _seat_row(c: P.Canvas, y: int, name: str, s: dict, v: dict) -> None:
    me = v["view"] == name
    c.box((10, y, WIDTH - 10, y + ROW_H), fill=P.light(P.HIGHLIGHT, 0.88) if me else P.PANEL)
    if v["to_move"] == name:
        c.marker((16, y + 16))
    c.seat_name((32, y + 16), P.seat_title(v, name), LEFT - 8, winner=name in (v.get("winners") or []))
    c.text((20, y + 42), f"cards won {s['cards_won']}/{v['rounds_to_win']}", size=16, anchor="lm", bold=True)
    c.text((20, y + 66), f"money this round {s['money']:+d}", size=13, anchor="lm")
    c.text((20, y + 88), f"phase: {s['phase']}", size=12, colour=P.MUTED, anchor="lm")
    choice = s["choice"] or "not chosen yet"
    c.text((20, y + 108), c.fit(f"this tick: {choice}", LEFT - 24, 12), size=12, colour=P.MUTED, anchor="lm")
    c.text((20, y + 132), "holding:", size=12, colour=P.MUTED, anchor="lm")
    if s["holding"] is None:
        c.text((80, y + 132), "nothing", size=12, colour=P.MUTED, anchor="lm")
    else:
        _tile(c, (80, y + 120, 80 + MINI + 2, y + 120 + MINI + 2), s["holding"])
        c.text((110, y + 132), c.fit(s["holding"], LEFT - 100, 11), size=11, anchor="lm")

    # the sets, in a grid of SET_COLUMNS columns and two rows
    x0 = LEFT
    cell_w = (WIDTH - 20 - x0) // SET_COLUMNS
    cell_h = (ROW_H - 12) // 2
    if not s["sets"]:
        c.text((x0, y + 16), "no sets yet", size=12, colour=P.MUTED, anchor="lm")
    fit = (cell_w - 12) // (MINI + 2)
    shown_sets = s["sets"] if len(s["sets"]) <= SET_CELLS else s["sets"][: SET_CELLS - 1]
    for k, st in enumerate(shown_sets):
        x = x0 + (k % SET_COLUMNS) * cell_w
        top = y + 6 + (k // SET_COLUMNS) * cell_h
        fill = P.light((190, 50, 50), 0.85) if not st["legal"] else P.light(P.TABLE, 0.3)
        c.box((x, top, x + cell_w - 6, top + cell_h - 4), fill=fill, outline=P.LINE, radius=5)
        state = "broken" if not st["legal"] else f"{len(st['tiles'])} fruit"
        bonus = f", {st['bonus_fruit']} bonus" if st["bonus_fruit"] else ""
        c.text((x + 6, top + 10), f"set {k}: {state}{bonus}", size=11, colour=P.MUTED, anchor="lm")
        c.text((x + cell_w - 12, top + 10), f"{st['value']:+d}", size=13, anchor="rm", bold=True)
        shown = st["tiles"] if len(st["tiles"]) <= fit else st["tiles"][: fit - 1]
        for j, tile in enumerate(shown):
            tx = x + 6 + j * (MINI + 2)
            _tile(c, (tx, top + 22, tx + MINI, top + 22 + MINI), tile)
        if len(shown) < len(st["tiles"]):
            tx = x + 6 + len(shown) * (MINI + 2)
            c.text((tx + 2, top + 22 + MINI / 2), f"+{len(st['tiles']) - len(shown)}", size=11, anchor="lm")
    if len(shown_sets) < len(s["sets"]):  # "any number of sets": the rest in the last cell
        rest = s["sets"][len(shown_sets) :]
        k = len(shown_sets)
        x = x0 + (k % SET_COLUMNS) * cell_w
        top = y + 6 + (k // SET_COLUMNS) * cell_h
        c.box((x, top, x + cell_w - 6, top + cell_h - 4), fill=P.light(P.TABLE, 0.3), outline=P.LINE, radius=5)
        fruit = sum(len(st["tiles"]) for st in rest)
        c.text((x + 6, top + 12), f"+{len(rest)} more sets ({fruit} fruit)", size=11, colour=P.MUTED, anchor="lm")
        c.text((x + cell_w - 12, top + 12), f"{sum(st['value'] for st in rest):+d}", size=13, anchor="rm", bold=True)


def text(v: dict) -> str:
    """A view as text: the card, the middle, and one line per seat (what `python -m fruit_envs.play` shows)."""
    who = "full view" if v["view"] is None else f"view of {v['view']}"
    card = v["card"]
    pays = " ".join(f"{k + 1}{'+' if k == 6 else ''}:{x:+d}" for k, x in enumerate(card["pays"]))
    lines = [
        f"Quickity Pickity - {v['players']} players - {_status(v)} - {who}",
        f"card {card['number']}: set sizes pay {pays}; broken set -10; bonus {card['bonus']} +{card['bonus_points']}"
        + (" (family rule)" if v["family"] else ""),
        f"middle: {v['face_down']} face down, monkeys up {v['monkeys_up']}/{C.MONKEYS_TO_STOP}; face up:",
    ]
    up: dict[str, list[int]] = {}
    for t, slot in enumerate(v["slots"]):
        if slot is not None and not slot.startswith(FACE_DOWN):
            up.setdefault(slot, []).append(t)
    lines.append("  " + (", ".join(f"{name}{f' x{len(ts)}' if len(ts) > 1 else ''}" for name, ts in up.items()) or "-"))
    pile = v["pile"]
    lines.append(
        f"pile: {pile['left_in_shuffle']} left in this shuffle, shown {pile['shown_since_shuffle']}, "
        f"{pile['taken_face_down_since_shuffle']} taken face down; starting player {v['starter']}; "
        f"in play: {v['tiles_in_play']}"
    )
    if "seen_in_play" in v:
        seen = ", ".join(f"{name} {_seen(entry)}" for name, entry in v["seen_in_play"].items())
        lines.append(f"seen in play in earlier rounds: {seen or '-'}")
    if "box" in v:
        lines.append(f"box (hidden from the seats): {', '.join(v['box'])}")
    if v["view"] is None:
        down = [slot.partition(": ")[2] for slot in v["slots"] if slot is not None and slot.startswith(FACE_DOWN)]
        lines.append("  face down (hidden from the seats): " + (", ".join(down) or "-"))
    for name, s in v["seats"].items():
        mark = "  <- you" if v["view"] == name else ""
        title = P.seat_title(v, name, you="")
        sets = "; ".join(
            f"set {k} [{', '.join(st['tiles'])}] {st['value']:+d}{'' if st['legal'] else ' broken'}"
            for k, st in enumerate(s["sets"])
        )
        lines.append(
            f"{title}: cards {s['cards_won']}, money {s['money']:+d}, {s['phase']}, holding {s['holding'] or '-'}, "
            f"this tick {s['choice'] or '-'}{mark}"
        )
        lines.append(f"    sets: {sets or '-'}")
    if v["done"]:
        lines.append(f"winner: {', '.join(v['winners'])}")
    return "\n".join(lines)
