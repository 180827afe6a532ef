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

from fruit_envs.core import rng, validate
from fruit_envs.core.spec import Config, get_spec
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


PLAYER_FIELDS = (
    "island",
    "ships",
    "fruit",
    "fruit_gained",
    "claims_per_row",
    "markers",
    "milkshakes_paid_with",
    "points",
    "score",
)
FACTORY_FIELDS = ("factory_discs", "factory_arrows_paid", "factory_circles_scored")
MOST = 10_000  # a bound on any count or score a description may give (int16 fields)


def from_description(d: dict, spec=None, state_cls=None):
    """The batch-of-1 state `describe` pictured. Unnamed details take defaults: what `init` deals from
    `rng_key` (islands, ships, board), zero fruit and markers, factory discs in the start tank, and the
    records derived from the rest (claims: tokens owned count as claimed from row 1; fruit_gained:
    reserve + fruit spent; points: traced from the record; stacks: full minus markers taken; license:
    steps taken so far; the score attack's pile: the game's tokens not on the board or an island).
    A malformed or inconsistent description raises `DescriptionError` naming the field.

    `spec` and `state_cls` name the registered game the description is of (default Juicy Fruits; the
    score attack passes its own)."""
    spec = R.SPEC if spec is None else spec
    read = validate.Reader(spec)
    cfg, header = validate.read_header(read, d)
    top = (
        *validate.HEADER,
        "rounds_completed",
        "phase",
        "to_move",
        "license_steps_left",
        "pending",
        "business_board",
        "stacks",
        "players",
        "hidden",
        *(("business_pile",) if R.is_solo(cfg) else ()),
    )
    read.mapping(d, "", top)
    if d.get("hidden", {}) != {}:
        read.fail("hidden", "Juicy Fruits hides nothing after setup: 'hidden' is {} or left out")
    factory = R.has_factory(cfg)
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    s = R.init(cfg, np.array([header["rng_key"]], dtype=np.uint64))
    s.keys[0] = np.uint64(header["rng_key"])
    players = read.seats_mapping(d.get("players", {}), "players", p)

    phase_name = d.get("phase")
    if phase_name is not None:
        read.string(phase_name, "phase", R.PHASE_NAMES)
    s.to_move[0] = read.seat(d.get("to_move", "player_0"), "to_move", p)
    pending_keys = ("cell", "token", "amount", "rotation", *(("arrow", "disc") if factory else ()))
    pending = read.mapping(d.get("pending", {}), "pending", pending_keys)
    placing_token = pending.get("token")
    placing = phase_name in ("rotate", "place")

    def counts(value, path: str, names, high) -> np.ndarray:
        """`{name: count}` (names among `names`) as an int64 array; `high` a bound per name or for all."""
        read.mapping(value, path, names)
        out = np.zeros(len(names), dtype=np.int64)
        highs = np.broadcast_to(np.asarray(high), (len(names),))
        for name, count in value.items():
            j = names.index(name)
            out[j] = read.integer(count, f"{path}.{name}", 0, int(highs[j]))
        return out

    for k, seat in enumerate(seats):
        where = f"players.{seat}"
        pd = read.mapping(players.get(seat, {}), where)
        for key in FACTORY_FIELDS:
            if key in pd and not factory:
                read.fail(f"{where}.{key}", "needs the juice factory (config score_board='juicy')")
        read.mapping(pd, where, (*PLAYER_FIELDS, *(FACTORY_FIELDS if factory else ())))
        if "island" in pd:
            rows = pd["island"]
            if not isinstance(rows, str):
                for r, row in enumerate(read.items(rows, f"{where}.island")):
                    read.string(row, f"{where}.island[{r}]")
            try:
                s.island[0, k] = parse_island(rows, f"{seat}'s island")
            except ValueError as error:
                read.fail(f"{where}.island", str(error))
        if "ships" in pd:
            for letter, name in read.mapping(pd["ships"], f"{where}.ships", tuple(C.BUOY_LETTERS)).items():
                try:
                    s.ships[0, k, C.BUOY_LETTERS.index(letter)] = _ship_id(read.string(name, f"{where}.ships.{letter}"))
                except ValueError as error:
                    read.fail(f"{where}.ships.{letter}", str(error))
        s.ship_present[0, k] = s.island[0, k, G.BEACH_CELLS] == R.SHIP
        s.fruit[0, k] = counts(pd.get("fruit", {}), f"{where}.fruit", C.FRUITS, MOST)
        s.markers[0, k] = counts(pd.get("markers", {}), f"{where}.markers", C.STACK_NAMES, C.STACK_SIZE)
        if "milkshakes_paid_with" in pd:
            paid = counts(pd["milkshakes_paid_with"], f"{where}.milkshakes_paid_with", C.FRUITS, C.STACK_SIZE[-1])
            s.milkshake_paid[0, k] = paid
        else:
            s.milkshake_paid[0, k, 0] = s.markers[0, k, C.MILKSHAKE]
        if "factory_discs" in pd:
            discs = read.items(pd["factory_discs"], f"{where}.factory_discs", length=C.FACTORY_DISCS)
            for j, node in enumerate(discs):
                s.discs[0, k, j] = C.NODE_NAMES.index(read.string(node, f"{where}.factory_discs[{j}]", C.NODE_NAMES))
        if "factory_arrows_paid" in pd:
            s.arrows_paid[0, k] = counts(pd["factory_arrows_paid"], f"{where}.factory_arrows_paid", C.ARROW_NAMES, 100)
        if "factory_circles_scored" in pd:
            scored = counts(pd["factory_circles_scored"], f"{where}.factory_circles_scored", C.NODE_NAMES, 100)
            s.circles_scored[0, k] = scored
        if "claims_per_row" in pd:
            claims = read.items(pd["claims_per_row"], f"{where}.claims_per_row", length=C.N_ROWS)
            s.claims[0, k] = [
                read.integer(c, f"{where}.claims_per_row[{r}]", 0, C.N_TOKENS) for r, c in enumerate(claims)
            ]
        else:
            owned = int(R.owned_tokens(s.island[0, k]).sum()) + int(placing and k == s.to_move[0])
            s.claims[0, k] = [owned, 0, 0, 0, 0]

    def token(code, path: str) -> int:
        return C.TOKEN_CODES.index(read.string(code, path, C.TOKEN_CODES))

    if "business_board" in d:
        board = read.items(d["business_board"], "business_board", length=C.N_ROWS)
        s.board[0] = R.NO
        for r, row in enumerate(board):
            for slot, code in enumerate(read.items(row, f"business_board[{r}]", max_length=C.ROW_SLOTS)):
                s.board[0, r, slot] = R.NO if code is None else token(code, f"business_board[{r}][{slot}]")
    if "stacks" in d:
        s.stacks[0] = C.STACK_SIZE
        given = counts(d["stacks"], "stacks", C.STACK_NAMES, C.STACK_SIZE)
        for name in d["stacks"]:
            s.stacks[0, C.STACK_NAMES.index(name)] = given[C.STACK_NAMES.index(name)]
    else:
        s.stacks[0] = np.maximum(C.STACK_SIZE - s.markers[0].sum(axis=0), 0)

    s.round[0] = read.integer(d.get("rounds_completed", 0), "rounds_completed", 0, R.round_cap(cfg))
    s.step_count[0] = header["step_count"]
    s.done[0] = header["done"] if "done" in d else phase_name == "over"
    s.truncated[0] = header["truncated"]
    if "license_steps_left" in d:
        s.license_left[0] = read.integer(d["license_steps_left"], "license_steps_left", 0, R.license_steps(cfg))
    else:
        finals = int((R.node_occupancy(s.discs[0].astype(np.int64)).sum(axis=0)[C.NODE_IS_FINAL] > 0).sum())
        moved = int(s.claims[0].sum()) + int((s.stacks[0] == 0).sum()) + finals
        s.license_left[0] = max(R.license_steps(cfg) - moved, 0)
    if "business_pile" in d:
        s.pile[0] = False
        for j, code in enumerate(read.items(d["business_pile"], "business_pile", max_length=C.N_TOKENS)):
            t = token(code, f"business_pile[{j}]")
            if s.pile[0, t]:
                read.fail(f"business_pile[{j}]", f"{code!r} is listed twice (each token is once in the game)")
            s.pile[0, t] = True
    elif R.is_solo(cfg):
        if "business_board" in d:
            s.pile[0, R.game_tokens(cfg)] = True
            s.pile[0, s.board[0][s.board[0] >= 0]] = False
        s.pile[0] &= ~R.owned_tokens(s.island[0]).any(axis=0)
        if placing_token is not None:
            s.pile[0, token(placing_token, "pending.token")] = False

    cell = pending.get("cell")
    s.pending_cell[0] = R.NO if cell is None else G.CELL_NAMES.index(read.string(cell, "pending.cell", G.CELL_NAMES))
    s.pending_token[0] = R.NO if placing_token is None else token(placing_token, "pending.token")
    s.pending_amount[0] = read.integer(pending.get("amount", 0), "pending.amount", 0, R.MAX_SPLIT)
    rotation = pending.get("rotation")
    s.pending_rotation[0] = (
        R.NO if rotation is None else read.integer(rotation, "pending.rotation", 0, G.MAX_ROTATIONS - 1)
    )
    arrow, disc = pending.get("arrow"), pending.get("disc")
    s.pending_arrow[0] = (
        R.NO if arrow is None else C.ARROW_NAMES.index(read.string(arrow, "pending.arrow", C.ARROW_NAMES))
    )
    s.pending_disc[0] = R.NO if disc is None else read.integer(disc, "pending.disc", 0, C.FACTORY_DISCS - 1)
    if phase_name is None:
        if any(pending.get(key) not in (None, 0) for key in pending_keys):
            read.fail("pending", "a half-made decision needs the 'phase' it belongs to")
        if s.done[0]:
            s.phase[0] = R.OVER
        else:
            R._begin_turn(s, np.array([0]))
    else:
        s.phase[0] = R.PHASE_NAMES.index(phase_name)

    if state_cls is not None and type(s) is not state_cls:
        s = state_cls(config=cfg, **s.arrays())
    for k, seat in enumerate(seats):
        pd = players.get(seat, {})
        if "fruit_gained" in pd:
            s.fruit_gained[0, k] = counts(pd["fruit_gained"], f"players.{seat}.fruit_gained", C.FRUITS, MOST)
    spent = R.fruit_spent(s)[0]
    traced_before = R.traced_points(s)[0]
    for k, seat in enumerate(seats):
        pd = players.get(seat, {})
        if "fruit_gained" not in pd:
            s.fruit_gained[0, k] = np.minimum(s.fruit[0, k] + spent[k], MOST)
        if "points" in pd:
            given = counts(pd["points"], f"players.{seat}.points", R.sources(cfg), MOST)
            for src in pd["points"]:
                j = R.sources(cfg).index(src)
                s.points[0, k, R.SOURCES.index(src)] = given[j]
        else:
            s.points[0, k] = traced_before[k]
        if "score" in pd and read.integer(pd["score"], f"players.{seat}.score") != int(s.points[0, k].sum()):
            read.fail(
                f"players.{seat}.score", f"is {pd['score']}, but the points by source add up to {s.points[0, k].sum()}"
            )
    return validate.finish(read, s)


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


def redeal_hidden(state, player, keys: np.ndarray):
    """Resample from `player`'s information state (int or `(n,)` seats): here only the random keys change.

    Nothing is hidden after setup: the ships on every beach and the business tokens are face up, and
    the score attack's face-down pile is a known set (the state keeps no order for it; each refill
    draws from the game's key). So every game's key is replaced (drawn from `keys`, one per game) and
    nothing else: future draws are then not the true ones, and the result depends only on what
    `player` knows and on `keys`, as for the games with hidden cards.
    """
    s = state.copy()
    s.keys = rng.split(np.asarray(keys, dtype=np.uint64).reshape(s.batch_size))[0]
    return s


# --- in words: what a decision did, the rules in brief (fruit_envs.core.narration) ------------------


def rules_help(config: Config) -> str:
    """The rules in brief, with the scoring, from the documentation page (the juice factory and the score
    attack when the game uses them)."""
    from fruit_envs.core import narration

    titles = ["Play"]
    if R.has_factory(config):
        titles.append("Juice factory")
    if R.is_solo(config):
        titles.append("Score attack")
    return narration.docstring_sections(f"fruit_envs.{get_spec('juicy_fruits').pettingzoo_name}", titles)


def _token_words(code: str) -> str:
    return f"{C.TOKEN_NAMES[C.TOKEN_CODES.index(code)]} ({code})"


def _fruit_words(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {fruit}" for fruit, n in counts.items()) or "nothing"


def narrate(before, after, i: int, action: int, seat: int | None, names: list[str]) -> list[str]:
    """Fruit collected or paid, ships supplied, business tokens claimed, ice cream and milkshakes made,
    factory discs advanced, points scored, the license marker, and the score attack's rival and refills
    (nothing is hidden after setup, so every seat hears the same)."""
    from fruit_envs.core import picture as P  # imported here: the picture module imports this one

    v0, v1 = P.view(before, i, seat), P.view(after, i, seat)
    if v0["done"]:
        return []
    claimed_rows = []
    lines = []
    for k, name in enumerate(v0["seats"]):
        s0, s1 = v0["seats"][name], v1["seats"][name]
        deeds = []
        gained = {f: s1["fruit"][f] - n for f, n in s0["fruit"].items() if s1["fruit"][f] > n}
        paid = {f: n - s1["fruit"][f] for f, n in s0["fruit"].items() if s1["fruit"][f] < n}
        for buoy, ship in s0["ships"].items():
            if ship is not None and s1["ships"][buoy] is None:
                deeds.append(f"supplied ship {ship} at buoy {buoy}")
        for row, (old, new) in enumerate(zip(s0["claims_per_row"], s1["claims_per_row"], strict=True)):
            if new > old:
                claimed_rows.append(row)
                tokens = _more(v0["business_board"][row]["tokens"], v1["business_board"][row]["tokens"])
                deeds.append(f"claimed {_token_words(tokens[0]) if tokens else 'a business'} from row {row + 1}")
        for marker, n in s1["markers"].items():
            if n > s0["markers"].get(marker, 0):
                kind = "a milkshake" if marker == "milkshake" else f"a {marker} ice cream"
                deeds.append(f"made {kind}")
        moved = _more(s0.get("factory_discs", []), s1.get("factory_discs", []))
        arrived = _more(s1.get("factory_discs", []), s0.get("factory_discs", []))
        for start, end in zip(moved, arrived, strict=False):
            deeds.append(f"advanced a factory disc from {start} to {end}")
        if paid:
            deeds.append(f"paid {_fruit_words(paid)}")
        if gained:
            deeds.insert(0, f"collected {_fruit_words(gained)}")
        points = {src: n - s0["points"][src] for src, n in s1["points"].items() if n != s0["points"][src]}
        if points:
            total = sum(points.values())
            deeds.append(f"scored {total:+d} ({', '.join(f'{src} {n:+d}' for src, n in points.items())})")
        if deeds:
            lines.append(f"{names[k]} " + "; ".join(deeds))
    for row, (old, new) in enumerate(zip(v0["business_board"], v1["business_board"], strict=True)):
        gone = _more(old["tokens"], new["tokens"])
        if row in claimed_rows:
            gone = gone[1:]
        for token in gone:  # the score attack's rival, at the end of a round
            lines.append(f"the rival returned {_token_words(token)} from row {row + 1} to the box")
        for token in _more(new["tokens"], old["tokens"]):
            lines.append(f"the display refilled row {row + 1} with {_token_words(token)}")
    left0, left1 = v0["license"]["steps_left"], v1["license"]["steps_left"]
    if left1 < left0:
        lines.append(
            "the license marker reached X: this round is the last"
            if left1 == 0
            else f"the license marker moved: {left1} step{'s' if left1 != 1 else ''} to X"
        )
    return lines


def _more(these: list, than: list) -> list:
    """What `these` holds more of than `than` (multisets; None, an empty space, left out)."""
    rest = [x for x in than if x is not None]
    out = []
    for x in these:
        if x is None:
            continue
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out
