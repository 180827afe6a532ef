"""Picture of a Juicy Fruits table: the business board (each row's price and the tokens waiting), the
license marker, the ice cream and milkshake stacks, the juice factory with every factory disc (with
`score_board="juicy"`), the score attack's pile and rival, and every island with its ships, collectors
and business tokens beside its owner's fruit, points and markers.

Everything on this table is public after setup (`SPEC.hidden_information` is False), so a seat's view
is the full view with the seat marked; `view` still builds it from public state only (never the
random key). `draw` paints the view only. The score attack (`juicy_fruits_solo`) uses this module.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core import picture as P
from fruit_envs.core.spec import game_winners, get_spec
from fruit_envs.games.colours import colour
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.games.juicy_fruits import text as T

PHASE_HINTS = {
    "move_token": "step 1: choose a token to move (its cell)",
    "move_to": "step 1: choose where it goes (a straight move over empty spaces)",
    "harvest_split": "step 1: how many of the advanced collector's first fruit to take (split K)",
    "produce": "step 1: produce ice cream or milkshake markers, or pass",
    "supply_or_claim": "step 2: supply a ship (its cell), claim a business token, or pass",
    "rotate": "step 2: turn the large venue (rotate 0/90/180/270)",
    "place": "step 2: the cell where the claimed token goes",
    "claim_fruit": "step 2: how to split the new advanced collector's fruit (split K)",
    "factory": "step 3: move a factory disc along an arrow (pay its fruit), or pass",
}
SEAT_COLOURS = ((200, 60, 60), (50, 110, 200), (50, 150, 80), (220, 150, 30))  # factory discs, names


def view(state: R.State, i: int = 0, seat: int | None = None) -> dict:
    """What `seat` may know of game `i` (None: everything; here the same, as nothing is hidden)."""
    cfg = state.config
    p = cfg.num_players
    seats = P.seat_names(p)
    done = bool(state.done[i])
    factory = R.has_factory(cfg)
    per_row = R.tokens_per_row(cfg)
    board = []
    for r in range(C.N_ROWS):
        cost, points = C.ROWS[r]
        tokens = [T._token(t) for t in state.board[i, r]]
        board.append({"row": r + 1, "cost": dict(cost), "points": points, "tokens": tokens[:per_row]})
    phase = R.PHASE_NAMES[int(state.phase[i])]
    out = {
        "game": state.GAME,
        "name": get_spec(state.GAME).name,
        "players": p,
        "view": None if seat is None else seats[seat],
        "solo": R.is_solo(cfg),
        "factory": factory,
        "round": int(state.round[i]) + (0 if done else 1),
        "round_limit": int(cfg.rounds) if R.is_solo(cfg) else None,
        "phase": phase,
        "hint": None if done else PHASE_HINTS.get(phase),
        "to_move": None if done else seats[int(state.to_move[i])],
        "done": done,
        "truncated": bool(state.truncated[i]),
        "license": {"steps_left": int(state.license_left[i]), "steps": int(R.license_steps(cfg))},
        "business_board": board,
        "stacks": {C.STACK_NAMES[s]: int(state.stacks[i, s]) for s in range(C.N_STACKS)},
        "seats": {},
    }
    if not done:
        cell, token = int(state.pending_cell[i]), int(state.pending_token[i])
        pending = {
            "cell": None if cell < 0 else G.CELL_NAMES[cell],
            "token": T._token(token),
            "amount": int(state.pending_amount[i]),
        }
        if int(state.pending_rotation[i]) >= 0:
            pending["rotation"] = 90 * int(state.pending_rotation[i])
        if factory and int(state.pending_arrow[i]) >= 0:
            pending["arrow"] = C.ARROW_NAMES[int(state.pending_arrow[i])]
        out["pending"] = {k: x for k, x in pending.items() if x not in (None, 0)}
    for k, name in enumerate(seats):
        island = T.island_picture(state.island[i, k])
        ships = {
            C.BUOY_LETTERS[pos]: C.SHIP_NAMES[int(state.ships[i, k, pos])] if state.ship_present[i, k, pos] else None
            for pos in range(C.N_SHIPS_PER_ISLAND)
        }
        seat_view = {
            "score": int(state.points[i, k].sum()),
            "points": {src: int(state.points[i, k, j]) for j, src in enumerate(R.sources(cfg))},
            "fruit": T._fruit_dict(state.fruit[i, k]),
            "island": [row.split() for row in island],
            "ships": ships,
            "markers": T._nonzero(state.markers[i, k], C.STACK_NAMES),
            "claims_per_row": [int(x) for x in state.claims[i, k]],
        }
        if factory:
            seat_view["factory_discs"] = [C.NODE_NAMES[int(node)] for node in state.discs[i, k]]
            seat_view["bottles"] = int(R.bottles(state.discs[i, k][None])[0])
        out["seats"][name] = seat_view
    if factory:
        reached = {C.NODE_NAMES[int(n)] for n in state.discs[i].reshape(-1)}
        out["finals_blocked"] = [name for name in C.FACTORY_FINALS if name in reached]
    if R.is_solo(cfg):
        out["pile"] = [C.TOKEN_CODES[t] for t in np.flatnonzero(state.pile[i])]
        out["rival_row"] = None if done else int(R.rival_row(state.round[i])) + 1
    if done:
        won = game_winners(R, state.take(i))[0]  # none when cut off
        out["winners"] = [seats[k] for k in range(p) if won[k]]
    return out


def knowledge(v: dict) -> dict:
    """The view with each player's two factory discs as an unordered pair: the discs are alike, and the
    one that has moved this turn is told by the pending arrow."""
    seats = {
        name: {**s, "factory_discs": sorted(s["factory_discs"])} if "factory_discs" in s else s
        for name, s in v["seats"].items()
    }
    return {**v, "seats": seats}


# --- layout (sizes depend on the config only) ------------------------------------------------------

WIDTH = 1060
HEADER = 44
TOP_H = 222  # business board and the status panel
FACTORY_H = 200
CELL = 46
PANEL_H = 292


def size(config) -> tuple[int, int]:
    """(height, width) of the picture."""
    rows = -(-config.num_players // 2)
    factory = FACTORY_H + 10 if R.has_factory(config) else 0
    return HEADER + 10 + TOP_H + 10 + factory + rows * (PANEL_H + 10) + 24, WIDTH


def _status(v: dict) -> str:
    limit = f"/{v['round_limit']}" if v["round_limit"] else ""
    if v["done"]:
        if v["truncated"]:
            return f"cut off after round {v['round']}{limit} (truncated: no winner)"
        return f"game over after round {v['round']}{limit}"
    return f"round {v['round']}{limit} - {v['to_move']} to move ({v['phase']})"


def draw(state: R.State, i: int = 0, seat: int | None = None, labels=None) -> np.ndarray:
    """`(H, W, 3) uint8` picture of game `i` from `seat`'s view (None: the full view); `labels`: the agents
    in the seats, drawn beside their names."""
    return paint(P.with_labels(view(state, i, seat), labels), state.config)


def paint(v: dict, config) -> np.ndarray:
    height, width = size(config)
    c = P.Canvas(width, height)
    title = v["name"] + (" - juice factory" if v["factory"] else "")
    c.header(title, _status(v), "full view" if v["view"] is None else f"view of {v['view']}")
    top = HEADER + 10
    _business_board(c, (10, top, 640, top + TOP_H), v)
    _status_panel(c, (650, top, WIDTH - 10, top + TOP_H), v)
    y = top + TOP_H + 10
    if v["factory"]:
        _factory(c, (10, y, WIDTH - 10, y + FACTORY_H), v)
        y += FACTORY_H + 10
    seats = list(v["seats"].items())
    panel_w = (WIDTH - 30) // 2 if len(seats) > 1 else WIDTH - 20
    for k, (name, s) in enumerate(seats):
        x = 10 + (k % 2) * (panel_w + 10)
        yy = y + (k // 2) * (PANEL_H + 10)
        _player(c, (x, yy, x + panel_w, yy + PANEL_H), k, name, s, v)
    if v["done"] and v.get("winners") and not v["solo"]:
        best = v["seats"][v["winners"][0]]["score"]
        line = f"winner: {v['winners'][0]} with {best} points"
        c.text((16, height - 13), line, size=14, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    elif v["done"] and v["truncated"]:
        line = "cut off before the end (truncated): no winner, stalls not scored"
        c.text((16, height - 13), line, size=14, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    elif v["done"]:
        line = f"final score {next(iter(v['seats'].values()))['score']}"
        c.text((16, height - 13), line, size=14, colour=P.HIGHLIGHT, anchor="lm", bold=True)
    else:
        c.text((16, height - 13), v["hint"] or "", size=12, colour=P.MUTED, anchor="lm")
    return c.array()


def _fruit_chips(c: P.Canvas, x: float, y: float, counts: dict, size: int = 11) -> float:
    """Fruit counts as small coloured discs with the count; returns the x after them."""
    for fruit, n in counts.items():
        if not n:
            continue
        letter = C.FRUIT_LETTERS[C.FRUITS.index(fruit)]
        r = 9
        c.draw.ellipse((x, y - r, x + 2 * r, y + r), fill=colour(fruit), outline=P.INK)
        c.text((x + r, y), letter, size=size, colour=_on(fruit), anchor="mm", bold=True)
        c.text((x + 2 * r + 3, y), str(n), size=12, anchor="lm")
        x += 2 * r + 16
    return x


def _on(fruit: str):
    """Ink for a letter on a fruit's colour: dark on the light fruits, white on the others."""
    return P.INK if fruit in ("banana", "lime") else (255, 255, 255)


def _token_box(c: P.Canvas, box, code: str | None, unused: bool = False) -> None:
    x0, y0, x1, y1 = box
    if unused:
        c.box(box, fill=P.light(P.LINE, 0.3), outline=P.LINE, radius=4)
        return
    if code is None:
        c.box(box, fill=P.light(P.LINE, 0.8), outline=P.LINE, radius=4)
        c.text(((x0 + x1) / 2, (y0 + y1) / 2), "empty", size=10, colour=P.MUTED, anchor="mm")
        return
    tone = _token_colour(C.TOKEN_CODES.index(code))
    c.box(box, fill=P.light(tone, 0.55), outline=tone, radius=4)
    c.text(((x0 + x1) / 2, (y0 + y1) / 2), c.fit(code, x1 - x0 - 4, 12), size=12, anchor="mm")


def _token_colour(t: int):
    kind = int(C.TOKEN_KIND[t])
    if kind == C.ICE_CREAM_CART:
        return colour(C.COLOURS[int(C.TOKEN_COLOUR[t])])
    if kind == C.ADVANCED_COLLECTOR:
        return colour(C.FRUITS[int(C.TOKEN_FRUITS[t][0])])
    return {C.SMALL_VENUE: (150, 90, 170), C.PLACEHOLDER: (150, 110, 70), C.STALL: (40, 150, 150)}[kind]


def _business_board(c: P.Canvas, box, v: dict) -> None:
    x0, y0, x1, y1 = box
    c.panel(box, "business board: pay a row's price to claim one of its tokens (points on the claim)")
    for r, row in enumerate(v["business_board"]):
        y = y0 + 40 + r * 36
        c.text((x0 + 12, y), f"row {row['row']}", size=13, anchor="lm", bold=True)
        x = _fruit_chips(c, x0 + 62, y, {f: row["cost"].get(f, 0) for f in C.FRUITS})
        c.text((max(x, x0 + 200), y), f"-> {row['points']} pt", size=12, anchor="lm")
        for k in range(C.ROW_SLOTS):
            bx = x0 + 262 + k * 92
            unused = k >= len(row["tokens"])
            _token_box(c, (bx, y - 14, bx + 86, y + 14), None if unused else row["tokens"][k], unused)


def _status_panel(c: P.Canvas, box, v: dict) -> None:
    x0, y0, x1, y1 = box
    c.panel(box, "license track, stacks" + (", score attack" if v["solo"] else ""))
    lic = v["license"]
    c.text((x0 + 12, y0 + 34), f"license marker: {lic['steps_left']} steps from X", size=13, anchor="lm")
    steps = lic["steps"]
    w = min(30, (x1 - x0 - 40) // (steps + 1))
    at = steps - lic["steps_left"]
    for k in range(steps + 1):
        bx = x0 + 12 + k * w
        last = k == steps
        fill = P.light(P.HIGHLIGHT, 0.2) if k == at else P.light((200, 60, 60), 0.6) if last else P.PANEL
        c.box((bx, y0 + 48, bx + w - 3, y0 + 70), fill=fill, outline=P.LINE, radius=3)
        if last:
            c.text((bx + (w - 3) / 2, y0 + 59), "X", size=11, anchor="mm", bold=True)
    c.text((x0 + 12, y0 + 90), "markers left on the stacks:", size=12, colour=P.MUTED, anchor="lm")
    for s, (name, left) in enumerate(v["stacks"].items()):
        col, row = s % 3, s // 3
        bx, by = x0 + 12 + col * 128, y0 + 104 + row * 30
        tone = colour(name.split(" ")[0]) if name != "milkshake" else (230, 200, 170)
        c.box((bx, by, bx + 120, by + 24), fill=P.light(tone, 0.5), outline=tone, radius=4)
        c.text((bx + 6, by + 12), name, size=11, anchor="lm")
        c.text((bx + 114, by + 12), f"x{left}", size=12, anchor="rm", bold=True)
    y = y0 + 176
    if v["solo"]:
        rival = "" if v["rival_row"] is None else f"; the rival empties a slot of row {v['rival_row']} at round end"
        c.text((x0 + 12, y), f"face-down pile: {len(v['pile'])} tokens{rival}", size=11, anchor="lm")
        y += 18
    pending = v.get("pending")
    if pending:
        what = ", ".join(f"{k} {x}" for k, x in pending.items())
        c.text((x0 + 12, y), c.fit(f"this turn: {what}", x1 - x0 - 24, 11), size=11, colour=P.MUTED, anchor="lm")


def _node_positions(box) -> dict[str, tuple[float, float]]:
    x0, y0, x1, y1 = box
    columns: dict[int, list[str]] = {}
    for n, name in enumerate(C.NODE_NAMES):
        columns.setdefault(int(C.NODE_DEPTH[n]), []).append(name)
    step = (x1 - x0 - 120) / max(1, len(columns) - 1)
    out = {}
    for depth, names in columns.items():
        for j, name in enumerate(names):
            out[name] = (x0 + 60 + depth * step, (y0 + y1) / 2 + (j - (len(names) - 1) / 2) * 48)
    return out


def _factory(c: P.Canvas, box, v: dict) -> None:
    x0, y0, x1, y1 = box
    c.panel(box, "juice factory: pay an arrow's fruit to move a disc; circles score points, bottles feed the lemonade")
    where = _node_positions((x0, y0 + 24, x1, y1 - 4))
    for src, dst, cost in C.FACTORY_ARROWS:
        (ax, ay), (bx, by) = where[src], where[dst]
        c.draw.line((ax, ay, bx, by), fill=P.LINE, width=2)
        mx, my = ax + (bx - ax) * 0.55, ay + (by - ay) * 0.55
        letters = "".join(C.FRUIT_LETTERS[C.FRUITS.index(f)] * n for f, n in cost.items())
        c.box((mx - 12, my - 8, mx + 12, my + 8), fill=P.PANEL, outline=P.LINE, radius=4)
        c.text((mx, my), letters, size=11, anchor="mm", bold=True)
    discs: dict[str, list[int]] = {}
    for k, s in enumerate(v["seats"].values()):
        for node in s.get("factory_discs", []):
            discs.setdefault(node, []).append(k)
    for n, name in enumerate(C.NODE_NAMES):
        x, y = where[name]
        tank = bool(C.NODE_IS_TANK[n])
        w = 30 if tank else 20
        blocked = name in v.get("finals_blocked", [])
        fill = P.light((60, 130, 200), 0.6) if tank else P.light((230, 180, 60), 0.5)
        if blocked:
            fill = P.light(P.INK, 0.5)
        if tank:
            c.box((x - w, y - 18, x + w, y + 18), fill=fill, outline=P.INK, radius=8)
        else:
            c.draw.ellipse((x - w, y - 18, x + w, y + 18), fill=fill, outline=P.INK)
        label = f"{name} {int(C.NODE_POINTS[n])}pt" if C.NODE_POINTS[n] else name
        c.text((x, y - 8), label, size=10, anchor="mm", bold=True)
        c.text((x, y + 8), f"bottle {int(C.NODE_BOTTLE[n])}" if C.NODE_BOTTLE[n] else "start", size=9, anchor="mm")
        for j, k in enumerate(discs.get(name, [])):
            dx = x - w + 6 + j * 9
            c.draw.ellipse((dx - 6, y + 16, dx + 6, y + 28), fill=SEAT_COLOURS[k], outline=P.INK)


def _cell(c: P.Canvas, box, symbol: str, ship: str | None, buoy: str | None) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if symbol == "#":
        c.box(box, fill=(120, 120, 125), outline=P.LINE, radius=3)
    elif symbol == "~":
        tone = colour("ship")
        c.box(box, fill=P.light(tone, 0.45), outline=tone, radius=3)
        order, _, points = (ship or "").partition("/")
        c.text((cx, cy - 6), order, size=12 if len(order) < 5 else 10, anchor="mm")
        c.text((cx, cy + 10), f"{points} pt", size=10, anchor="mm")
    elif symbol == ".":
        c.box(box, fill=(238, 224, 178), outline=P.LINE, radius=3)
    elif symbol in C.FRUIT_LETTERS:
        c.box(box, fill=(238, 224, 178), outline=P.LINE, radius=3)
        tone = colour(C.FRUITS[C.FRUIT_LETTERS.index(symbol)])
        r = (x1 - x0) * 0.36
        c.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tone, outline=P.INK, width=2)
        c.text((cx, cy), symbol, size=15, colour=_on(C.FRUITS[C.FRUIT_LETTERS.index(symbol)]), anchor="mm", bold=True)
    else:
        t = C.TOKEN_CODES.index(symbol)
        tone = _token_colour(t)
        c.box(box, fill=P.light(tone, 0.4), outline=tone, radius=3)
        if C.TOKEN_KIND[t] == C.ADVANCED_COLLECTOR:
            f1, f2 = (C.FRUITS[int(f)] for f in C.TOKEN_FRUITS[t])
            r = (x1 - x0) * 0.32
            c.draw.pieslice((cx - r, cy - r - 4, cx + r, cy + r - 4), 90, 270, fill=colour(f1), outline=P.INK)
            c.draw.pieslice((cx - r, cy - r - 4, cx + r, cy + r - 4), 270, 90, fill=colour(f2), outline=P.INK)
            c.text((cx, y1 - 8), symbol, size=10, anchor="mm")
        else:
            small = 11 if c.text_width(symbol, 11) <= x1 - x0 - 4 else 9
            c.text((cx, cy), c.fit(symbol, x1 - x0 - 2, small), size=small, anchor="mm")
    if buoy:
        c.text((x0 + 3, y0 + 1), buoy, size=9, colour=P.MUTED)


def _player(c: P.Canvas, box, k: int, name: str, s: dict, v: dict) -> None:
    x0, y0, x1, y1 = box
    me = v["view"] == name
    c.box(box, fill=P.light(P.HIGHLIGHT, 0.88) if me else P.PANEL)
    if v["to_move"] == name:
        c.marker((x0 + 6, y0 + 16))
    winner = name in v.get("winners", []) and not v["solo"]
    c.seat_name((x0 + 22, y0 + 16), P.seat_title(v, name), x0 + 240, winner, size=15, colour=SEAT_COLOURS[k])
    # the island: columns a-e, rows 1-5
    ix, iy = x0 + 26, y0 + 44
    for q in range(G.SIZE):
        c.text((ix + q * CELL + CELL / 2, iy - 8), "abcde"[q], size=10, colour=P.MUTED, anchor="mm")
    beach = {(r, q): pos for pos, (r, q) in enumerate(C.BEACH_CLOCKWISE)}
    for r in range(G.SIZE):
        c.text((ix - 10, iy + r * CELL + CELL / 2), str(r + 1), size=10, colour=P.MUTED, anchor="mm")
        for q in range(G.SIZE):
            pos = beach.get((r, q))
            letter = None if pos is None else C.BUOY_LETTERS[pos]
            ship = None if letter is None else s["ships"][letter]
            cell_box = (ix + q * CELL, iy + r * CELL, ix + (q + 1) * CELL - 2, iy + (r + 1) * CELL - 2)
            _cell(c, cell_box, s["island"][r][q], ship, letter)
    waiting = sum(1 for ship in s["ships"].values() if ship is not None)
    c.text((ix, iy + G.SIZE * CELL + 10), f"{waiting} of 12 ships waiting", size=11, colour=P.MUTED, anchor="lm")

    # score, fruit, markers
    tx = ix + G.SIZE * CELL + 18
    c.text((tx, y0 + 44), f"score {s['score']}", size=20, anchor="lm", bold=True)
    sources = ", ".join(f"{src} {n}" for src, n in s["points"].items() if n) or "no points yet"
    y = y0 + 68
    for line in _wrap(c, sources, x1 - tx - 10, 11):
        c.text((tx, y), line, size=11, colour=P.MUTED, anchor="lm")
        y += 15
    y = max(y, y0 + 100) + 6
    c.text((tx, y), "fruit", size=11, colour=P.MUTED, anchor="lm")
    fruit = s["fruit"]
    for j, f in enumerate(C.FRUITS):
        fx, fy = tx + (j % 3) * 62, y + 22 + (j // 3) * 26
        c.draw.ellipse((fx, fy - 10, fx + 20, fy + 10), fill=colour(f), outline=P.INK)
        c.text((fx + 10, fy), C.FRUIT_LETTERS[j], size=11, colour=_on(f), anchor="mm", bold=True)
        c.text((fx + 25, fy), str(fruit[f]), size=14, anchor="lm")
    y += 80
    markers = ", ".join(f"{name} x{n}" for name, n in s["markers"].items()) or "none"
    for line in _wrap(c, f"markers: {markers}", x1 - tx - 10, 11):
        c.text((tx, y), line, size=11, anchor="lm")
        y += 15
    claims = " ".join(str(n) for n in s["claims_per_row"])
    c.text((tx, y + 4), f"claims per row: {claims}", size=11, anchor="lm")
    if "factory_discs" in s:
        discs = " + ".join(s["factory_discs"])
        c.text((tx, y + 22), f"factory discs: {discs} (bottles {s['bottles']})", size=11, anchor="lm")


def _wrap(c: P.Canvas, s: str, width: int, size: int) -> list[str]:
    lines, line = [], ""
    for word in s.split(" "):
        trial = f"{line} {word}".strip()
        if line and c.text_width(trial, size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def text(v: dict) -> str:
    """A view as text: status, business board, stacks, factory, and each island (what `python -m
    fruit_envs.play` shows)."""
    who = "full view" if v["view"] is None else f"view of {v['view']}"
    players = f"{v['players']} player{'s' if v['players'] > 1 else ''}"
    lic = v["license"]
    lines = [f"{v['name']} - {players} - {_status(v)} - {who}"]
    if v["hint"]:
        lines.append(v["hint"])
    lines.append(
        f"license marker {lic['steps_left']}/{lic['steps']} steps from X; stacks "
        + ", ".join(f"{name} x{n}" for name, n in v["stacks"].items())
    )
    for row in v["business_board"]:
        cost = " + ".join(f"{n} {f}" for f, n in row["cost"].items())
        tokens = " | ".join(t or "-" for t in row["tokens"])
        lines.append(f"  row {row['row']} ({cost} -> {row['points']} pt): {tokens}")
    if v["factory"]:
        discs = "; ".join(f"{name} {'+'.join(s['factory_discs'])}" for name, s in v["seats"].items())
        blocked = ", ".join(v["finals_blocked"]) or "none"
        lines.append(f"juice factory discs: {discs} (finals blocked: {blocked})")
    if v["solo"]:
        rival = "" if v["rival_row"] is None else f"; the rival empties a slot of row {v['rival_row']} at round end"
        lines.append(f"face-down pile: {', '.join(v['pile']) or 'empty'}{rival}")
    if v.get("pending"):
        lines.append("this turn: " + ", ".join(f"{k} {x}" for k, x in v["pending"].items()))
    for name, s in v["seats"].items():
        mark = "  <- you" if v["view"] == name else ""
        fruit = " ".join(f"{C.FRUIT_LETTERS[j]}{s['fruit'][f]}" for j, f in enumerate(C.FRUITS))
        points = ", ".join(f"{src} {n}" for src, n in s["points"].items() if n) or "-"
        lines.append(f"{P.seat_title(v, name, you='')}: score {s['score']} ({points})  fruit {fruit}{mark}")
        width = max(len(sym) for row in s["island"] for sym in row)
        lines.append("      " + " ".join("abcde"[q].ljust(width) for q in range(G.SIZE)).rstrip())
        for r, row in enumerate(s["island"]):
            lines.append(f"    {r + 1} " + " ".join(sym.ljust(width) for sym in row).rstrip())
        waiting = [f"{letter} {ship}" for letter, ship in s["ships"].items() if ship is not None]
        lines.append("    ships (~): " + (", ".join(waiting) or "none"))
        if s["markers"]:
            lines.append("    markers: " + ", ".join(f"{m} x{n}" for m, n in s["markers"].items()))
    if v["done"]:
        if v["solo"]:
            lines.append(f"final score: {next(iter(v['seats'].values()))['score']}")
        elif v["truncated"]:
            lines.append("cut off before the end (truncated): no winner, stalls not scored")
        else:
            lines.append(f"winner: {', '.join(v['winners'])}")
    return "\n".join(lines)
