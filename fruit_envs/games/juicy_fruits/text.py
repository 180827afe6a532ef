"""Readable views of a Juicy Fruits game: `describe` / `from_description` (JSON-able referee view) and `render`.

Islands are pictures of 5 rows of 5 whitespace-separated symbols:

    .  empty     #  unusable corner     ~  ship (its order is in "ships", by buoy letter)
    B L P O M    the banana, lime, pomegranate, orange, mangosteen collector
    tower museum observatory                     small venues
    croc spa climbing diving birds eco           large venues (on every cell they cover)
    chairs catering info lemonade                stalls
    BL+ LP+ PO+ OM+ MB+                          advanced collectors (their two fruits)
    green1 green2 blue1 blue2 pink1 pink2        ice cream carts
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.spec import get_spec
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R

SYMBOLS = (".", "#", "~", *C.FRUIT_LETTERS, *C.TOKEN_CODES)  # index = island cell code


def _symbol_code(symbol: str, where: str) -> int:
    if symbol in SYMBOLS:
        return SYMBOLS.index(symbol)
    raise ValueError(f"unknown island symbol {symbol!r} in {where}; symbols are {list(SYMBOLS)}")


def island_picture(island: np.ndarray) -> list[str]:
    """Five strings, one per row, of the symbols above (columns aligned)."""
    width = max(len(SYMBOLS[c]) for c in island)
    return [
        " ".join(SYMBOLS[c].ljust(width) for c in island[r * G.SIZE : (r + 1) * G.SIZE]).rstrip() for r in range(G.SIZE)
    ]


def parse_island(rows: list[str], where: str) -> np.ndarray:
    """`(25,)` int8 island codes from a picture."""
    if isinstance(rows, str):
        rows = rows.strip().splitlines()
    rows = [r for r in rows if r.strip()]
    symbols = [row.split() for row in rows]
    if len(symbols) != G.SIZE or any(len(r) != G.SIZE for r in symbols):
        raise ValueError(f"{where} must be {G.SIZE} rows of {G.SIZE} symbols, got {rows!r}")
    return np.array([_symbol_code(s, where) for row in symbols for s in row], dtype=np.int8)


def _fruit_dict(counts) -> dict[str, int]:
    return {name: int(counts[f]) for f, name in enumerate(C.FRUITS)}


def _token(t) -> str | None:
    return None if t < 0 else C.TOKEN_CODES[int(t)]


def _token_id(code, where: str) -> int:
    if code not in C.TOKEN_CODES:
        raise ValueError(f"unknown business token {code!r} in {where}; tokens are {list(C.TOKEN_CODES)}")
    return C.TOKEN_CODES.index(code)


def _arrow(a) -> str | None:
    return None if a < 0 else C.ARROW_NAMES[int(a)]


def _nonzero(counts, names) -> dict[str, int]:
    return {names[j]: int(c) for j, c in enumerate(counts) if c}


def describe(state, i: int = 0) -> dict:
    """Complete JSON-able picture of game `i` (nothing is hidden after setup).

    With the juice factory each player also lists its factory discs (node names), the arrows it paid
    for and the free circles it covered; the score attack lists the tokens in its face-down pile.
    """
    cfg = state.config
    p = cfg.num_players
    factory = R.has_factory(cfg)
    seats = [f"player_{k}" for k in range(p)]
    players = {}
    for k, seat in enumerate(seats):
        players[seat] = {
            "island": island_picture(state.island[i, k]),
            "ships": {C.BUOY_LETTERS[pos]: C.SHIP_NAMES[int(state.ships[i, k, pos])] for pos in range(12)},
            "fruit": _fruit_dict(state.fruit[i, k]),
            "fruit_gained": _fruit_dict(state.fruit_gained[i, k]),
            "claims_per_row": [int(x) for x in state.claims[i, k]],
            "markers": {C.STACK_NAMES[s]: int(state.markers[i, k, s]) for s in range(C.N_STACKS)},
            "milkshakes_paid_with": _fruit_dict(state.milkshake_paid[i, k]),
            "points": {src: int(state.points[i, k, j]) for j, src in enumerate(R.sources(cfg))},
            "score": int(state.points[i, k].sum()),
        }
        if factory:
            players[seat]["factory_discs"] = [C.NODE_NAMES[int(node)] for node in state.discs[i, k]]
            players[seat]["factory_arrows_paid"] = _nonzero(state.arrows_paid[i, k], C.ARROW_NAMES)
            players[seat]["factory_circles_scored"] = _nonzero(state.circles_scored[i, k], C.NODE_NAMES)
    cell = int(state.pending_cell[i])
    rotation = int(state.pending_rotation[i])
    pending = {
        "cell": None if cell < 0 else G.CELL_NAMES[cell],
        "token": _token(state.pending_token[i]),
        "amount": int(state.pending_amount[i]),
        "rotation": None if rotation < 0 else rotation,
    }
    if factory:
        disc = int(state.pending_disc[i])
        pending.update(arrow=_arrow(state.pending_arrow[i]), disc=None if disc < 0 else disc)
    out = {
        "game": type(state).GAME,
        "version": get_spec(type(state).GAME).version,  # the score attack has its own
        "config": cfg.to_dict(),
        "rng_key": str(int(state.keys[i])),
        "done": bool(state.done[i]),
        "truncated": bool(state.truncated[i]),
        "step_count": int(state.step_count[i]),
        "rounds_completed": int(state.round[i]),
        "phase": R.PHASE_NAMES[int(state.phase[i])],
        "to_move": seats[int(state.to_move[i])],
        "license_steps_left": int(state.license_left[i]),
        "pending": pending,
        "business_board": [[_token(t) for t in row] for row in state.board[i]],
        "stacks": {C.STACK_NAMES[s]: int(state.stacks[i, s]) for s in range(C.N_STACKS)},
        "players": players,
        "hidden": {},
    }
    if R.is_solo(cfg):
        out["business_pile"] = [C.TOKEN_CODES[t] for t in np.flatnonzero(state.pile[i])]
    return out


def from_description(d: dict, spec=None, state_cls=None):
    """The batch-of-1 state `describe` pictured. Unnamed details take defaults: what `init` deals from
    `rng_key` (islands, ships, board), zero fruit and markers, factory discs in the start tank, and the
    records derived from the rest (claims: tokens owned count as claimed from row 1; fruit_gained:
    reserve + fruit spent; points: traced from the record; stacks: full minus markers taken; license:
    steps taken so far; the score attack's pile: the game's tokens not on the board or an island).

    `spec` and `state_cls` name the registered game the description is of (default Juicy Fruits; the
    score attack passes its own)."""
    spec = R.SPEC if spec is None else spec
    if d.get("game", spec.id) != spec.id:
        raise ValueError(f"description is of {d.get('game')!r}, not {spec.id!r}")
    if int(d.get("version", spec.version)) != spec.version:
        raise ValueError(f"description is of version {d['version']}, rules are v{spec.version}")
    if "config" not in d:
        counts = "..".join(str(c) for c in (spec.player_counts[0], spec.player_counts[-1]))
        raise ValueError(f"a description needs a 'config' (at least {{'num_players': {counts}}})")
    cfg = spec.config_from_dict(d["config"])
    factory = R.has_factory(cfg)
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    key = np.uint64(int(d.get("rng_key", 0)))
    s = R.init(cfg, np.array([key], dtype=np.uint64))
    s.keys[0] = key
    unknown = set(d.get("players", {})) - set(seats)
    if unknown:
        raise ValueError(f"players must be among {seats}, got {sorted(unknown)}")

    phase_name = d.get("phase")
    if phase_name is not None and phase_name not in R.PHASE_NAMES:
        raise ValueError(f"phase must be one of {list(R.PHASE_NAMES)}, got {phase_name!r}")
    to_move = d.get("to_move", "player_0")
    if to_move not in seats:
        raise ValueError(f"to_move must be one of {seats}, got {to_move!r}")
    s.to_move[0] = seats.index(to_move)
    pending = d.get("pending", {})
    placing_token = pending.get("token")
    placing = phase_name in ("rotate", "place")

    for k, seat in enumerate(seats):
        pd = d.get("players", {}).get(seat, {})
        where = f"{seat}'s island"
        if "island" in pd:
            s.island[0, k] = parse_island(pd["island"], where)
        if "ships" in pd:
            for letter, name in pd["ships"].items():
                if letter not in C.BUOY_LETTERS:
                    raise ValueError(f"ships are keyed by buoy letters {list(C.BUOY_LETTERS)}, got {letter!r}")
                s.ships[0, k, C.BUOY_LETTERS.index(letter)] = _ship_id(name)
        s.ship_present[0, k] = s.island[0, k, G.BEACH_CELLS] == R.SHIP
        s.fruit[0, k] = C.fruit_dict_counts(pd.get("fruit", {}))
        markers = pd.get("markers", {})
        for name, count in markers.items():
            if name not in C.STACK_NAMES:
                raise ValueError(f"markers are {list(C.STACK_NAMES)}, got {name!r}")
            s.markers[0, k, C.STACK_NAMES.index(name)] = count
        if "milkshakes_paid_with" in pd:
            s.milkshake_paid[0, k] = C.fruit_dict_counts(pd["milkshakes_paid_with"])
        else:
            s.milkshake_paid[0, k, 0] = s.markers[0, k, C.MILKSHAKE]
        for key in ("factory_discs", "factory_arrows_paid", "factory_circles_scored"):
            if key in pd and not factory:
                raise ValueError(f"{seat}'s {key} needs the juice factory (config score_board='juicy')")
        if "factory_discs" in pd:
            discs = list(pd["factory_discs"])
            if len(discs) != C.FACTORY_DISCS:
                raise ValueError(f"factory_discs lists the {C.FACTORY_DISCS} discs' nodes, got {discs!r}")
            s.discs[0, k] = [_name_index(node, C.NODE_NAMES, "factory nodes") for node in discs]
        for key, field, names, what in (
            ("factory_arrows_paid", s.arrows_paid, C.ARROW_NAMES, "factory arrows"),
            ("factory_circles_scored", s.circles_scored, C.NODE_NAMES, "factory nodes"),
        ):
            for name, count in pd.get(key, {}).items():
                field[0, k, _name_index(name, names, what)] = count
        if "claims_per_row" in pd:
            claims = list(pd["claims_per_row"])
            if len(claims) != C.N_ROWS:
                raise ValueError(f"claims_per_row has one count per business row ({C.N_ROWS}), got {claims!r}")
            s.claims[0, k] = claims
        else:
            owned = int(R.owned_tokens(s.island[0, k]).sum()) + int(placing and k == s.to_move[0])
            s.claims[0, k] = [owned, 0, 0, 0, 0]

    if "business_board" in d:
        board = d["business_board"]
        if len(board) != C.N_ROWS or any(len(row) > C.ROW_SLOTS for row in board):
            raise ValueError(f"business_board is {C.N_ROWS} rows of up to {C.ROW_SLOTS} tokens (None for empty)")
        s.board[0] = R.NO
        for r, row in enumerate(board):
            for slot, code in enumerate(row):
                s.board[0, r, slot] = R.NO if code is None else _token_id(code, "the business board")
    if "stacks" in d:
        for name, count in d["stacks"].items():
            if name not in C.STACK_NAMES:
                raise ValueError(f"stacks are {list(C.STACK_NAMES)}, got {name!r}")
            s.stacks[0, C.STACK_NAMES.index(name)] = count
    else:
        s.stacks[0] = C.STACK_SIZE - s.markers[0].sum(axis=0)

    s.round[0] = int(d.get("rounds_completed", 0))
    s.step_count[0] = int(d.get("step_count", 0))
    s.done[0] = bool(d.get("done", phase_name == "over"))
    s.truncated[0] = bool(d.get("truncated", False))
    if "license_steps_left" in d:
        s.license_left[0] = int(d["license_steps_left"])
    else:
        finals = int((R.node_occupancy(s.discs[0].astype(np.int64)).sum(axis=0)[C.NODE_IS_FINAL] > 0).sum())
        moved = int(s.claims[0].sum()) + int((s.stacks[0] == 0).sum()) + finals
        s.license_left[0] = max(R.license_steps(cfg) - moved, 0)
    if "business_pile" in d:
        if not R.is_solo(cfg):
            raise ValueError("business_pile belongs to the score attack (juicy_fruits_solo)")
        s.pile[0] = False
        for code in d["business_pile"]:
            s.pile[0, _token_id(code, "the business pile")] = True
    elif R.is_solo(cfg):
        if "business_board" in d:
            s.pile[0, R.game_tokens(cfg)] = True
            s.pile[0, s.board[0][s.board[0] >= 0]] = False
        s.pile[0] &= ~R.owned_tokens(s.island[0]).any(axis=0)
        if placing_token is not None:
            s.pile[0, _token_id(placing_token, "pending")] = False

    cell = pending.get("cell")
    if cell is not None and cell not in G.CELL_NAMES:
        raise ValueError(f"pending cell must be one of {list(G.CELL_NAMES)}, got {cell!r}")
    s.pending_cell[0] = R.NO if cell is None else G.CELL_NAMES.index(cell)
    s.pending_token[0] = R.NO if placing_token is None else _token_id(placing_token, "pending")
    s.pending_amount[0] = int(pending.get("amount", 0))
    rotation = pending.get("rotation")
    s.pending_rotation[0] = R.NO if rotation is None else int(rotation)
    arrow, disc = pending.get("arrow"), pending.get("disc")
    if (arrow is not None or disc is not None) and not factory:
        raise ValueError("a pending factory arrow needs the juice factory (config score_board='juicy')")
    s.pending_arrow[0] = R.NO if arrow is None else _name_index(arrow, C.ARROW_NAMES, "factory arrows")
    s.pending_disc[0] = R.NO if disc is None else int(disc)
    if phase_name is None:
        R._begin_turn(s, np.array([0]))
        if s.done[0]:
            s.phase[0] = R.OVER
    else:
        s.phase[0] = R.PHASE_NAMES.index(phase_name)

    if state_cls is not None and type(s) is not state_cls:
        s = state_cls(config=cfg, **s.arrays())
    traced_before = R.traced_points(s)[0]
    for k, seat in enumerate(seats):
        pd = d.get("players", {}).get(seat, {})
        if "fruit_gained" in pd:
            s.fruit_gained[0, k] = C.fruit_dict_counts(pd["fruit_gained"])
        else:
            s.fruit_gained[0, k] = s.fruit[0, k] + R.fruit_spent(s)[0, k]
        if "points" in pd:
            for src, value in pd["points"].items():
                if src not in R.sources(cfg):
                    raise ValueError(f"point sources are {list(R.sources(cfg))}, got {src!r}")
                s.points[0, k, R.SOURCES.index(src)] = value
        else:
            s.points[0, k] = traced_before[k]
    problems = R.invariants(s)
    if problems:
        raise ValueError("description is not a consistent Juicy Fruits position: " + "; ".join(problems))
    return s


def _name_index(name, names, what: str) -> int:
    if name not in names:
        raise ValueError(f"{what} are {list(names)}, got {name!r}")
    return names.index(name)


def _ship_id(name: str) -> int:
    order = str(name).split("/")[0].strip().upper()
    for ship, (ship_order, _) in enumerate(C.SHIPS):
        if ship_order == order:
            return ship
    raise ValueError(f"no ship has the order {name!r}; ships are {list(C.SHIP_NAMES)}")


def render(state, i: int = 0) -> str:
    """Text picture of game `i`: status, business board, stacks, and every island with its ships."""
    d = describe(state, i)
    cfg = state.config
    status = "game over" if d["done"] else f"{d['to_move']} to move ({d['phase']})"
    if d["truncated"]:
        status += ", cut off (truncated: no winner)"
    if R.is_solo(cfg):
        title = f"Juicy Fruits score attack (our single-player mode) - round limit {cfg.rounds}"
    else:
        title = f"Juicy Fruits - {cfg.num_players} players"
    if R.has_factory(cfg):
        title += " - juice factory"
    lines = [
        f"{title} - round {d['rounds_completed'] + 1 - int(d['done'])} - "
        f"license marker {d['license_steps_left']} steps from X - {status}",
        "business board:",
    ]
    for r, row in enumerate(d["business_board"]):
        cost = " + ".join(f"{n} {f}" for f, n in C.ROWS[r][0].items())
        tokens = " | ".join(code or "-" for code in row)
        lines.append(f"  row {r + 1} ({cost} -> {C.ROWS[r][1]} pts): {tokens}")
    lines.append("stacks: " + ", ".join(f"{name} x{count}" for name, count in d["stacks"].items()))
    if R.is_solo(cfg):
        pile = d["business_pile"]
        rival = int(R.rival_row(state.round[i])) + 1
        lines.append(
            f"face-down pile: {len(pile)} tokens; the rival empties a slot of row {rival} at the end of this round"
        )
    if R.has_factory(cfg):
        discs = "; ".join(f"{seat} {'+'.join(pd['factory_discs'])}" for seat, pd in d["players"].items())
        lines.append(f"juice factory: {discs}")
    pend = d["pending"]
    if not d["done"] and (pend["cell"] or pend["token"] or pend.get("arrow")):
        lines.append(f"pending: {pend}")
    for seat, pd in d["players"].items():
        fruit = " ".join(f"{C.FRUIT_LETTERS[f]}{pd['fruit'][name]}" for f, name in enumerate(C.FRUITS))
        pts = ", ".join(f"{src} {v}" for src, v in pd["points"].items())
        lines.append(f"{seat}: score {pd['score']} ({pts})  fruit {fruit}")
        lines += ["    " + row for row in pd["island"]]
        k = int(seat.split("_")[1])
        waiting = [
            f"{C.BUOY_LETTERS[pos]} {C.SHIP_NAMES[int(state.ships[i, k, pos])]}"
            for pos in range(12)
            if state.ship_present[i, k, pos]
        ]
        lines.append("    ships: " + (", ".join(waiting) if waiting else "none"))
    if d["done"] and not R.is_solo(cfg):
        won = int(np.flatnonzero(R.winners(state.take(i))[0])[0])
        points = d["players"][f"player_{won}"]["score"]
        if d["truncated"]:  # no winner: say who led when it was cut off
            lines.append(f"truncated: no winner; leading: player_{won} with {points} points")
        else:
            lines.append(f"winner: player_{won} with {points} points")
    return "\n".join(lines)


def redeal_hidden(state, player: int, keys: np.ndarray):
    """Nothing is hidden after setup (undrawn ships and tokens are the known sets minus what is shown)."""
    return state.copy()
