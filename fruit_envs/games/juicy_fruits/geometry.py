"""Island geometry as lookup tables: neighbours, straight-line rays and every placement of every shape.

Cells are numbered row-major 0..24 (`components` draws the island). Occupancy tests use 25-bit
masks (`bits`): a placement fits when its mask is all free, one AND (the kernels test them).
"""

from __future__ import annotations

import numpy as np

from fruit_envs.games.juicy_fruits import components as C

SIZE, N_CELLS = C.SIZE, C.N_CELLS
OFF = N_CELLS  # index of the always-blocked padding cell used by `NEIGHBOURS` and `RAYS`
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # north, east, south, west
MAX_DISTANCE = SIZE - 1
IMPOSSIBLE = np.int64(1) << np.int64(40)  # a bit no island has free: marks placements off the island


def cell(row: int, col: int) -> int:
    return row * SIZE + col


def cell_name(c: int) -> str:
    """Chess-like name: columns a-e, rows 1-5 from the top ("b2" is the north-west pond)."""
    return f"{'abcde'[c % SIZE]}{c // SIZE + 1}"


CELL_NAMES = tuple(cell_name(c) for c in range(N_CELLS))


def _ray(c: int, direction: int) -> list[int]:
    r, q = divmod(c, SIZE)
    dr, dq = DIRECTIONS[direction]
    out = []
    for k in range(1, MAX_DISTANCE + 1):
        rr, qq = r + dr * k, q + dq * k
        out.append(cell(rr, qq) if 0 <= rr < SIZE and 0 <= qq < SIZE else OFF)
    return out


RAYS = np.array([[_ray(c, d) for d in range(4)] for c in range(N_CELLS)], dtype=np.int64)  # (25, 4, 4)
NEIGHBOURS = RAYS[:, :, 0]  # (25, 4), OFF beyond the edge
DISTANCE = np.array(
    [[abs(a // SIZE - b // SIZE) + abs(a % SIZE - b % SIZE) for b in range(N_CELLS)] for a in range(N_CELLS)],
    dtype=np.int8,
)  # (25, 25) Manhattan distance (a straight move's length)

BEACH_CELLS = np.array([cell(r, q) for r, q in C.BEACH_CLOCKWISE], dtype=np.int64)  # (12,)
POND_CELLS = np.array([cell(r, q) for r, q in C.PONDS], dtype=np.int64)  # (5,)
CORNER_CELLS = np.array([cell(r, q) for r, q in C.CORNERS], dtype=np.int64)  # (4,)
BEACH_OF_CELL = np.full(N_CELLS, -1, dtype=np.int64)
BEACH_OF_CELL[BEACH_CELLS] = np.arange(len(BEACH_CELLS))
CELL_BIT = np.int64(1) << np.arange(N_CELLS, dtype=np.int64)  # (25,)


def bits(free: np.ndarray) -> np.ndarray:
    """`(...)` int64 masks of `(..., 25)` booleans, bit c set when cell c is True."""
    packed = np.packbits(np.ascontiguousarray(free, dtype=bool), axis=-1, bitorder="little")  # (..., 4)
    return packed.view("<u4")[..., 0].astype(np.int64)


# ----------------------------------------------------------------------------------------------
# Shapes: distinct rotations (90 degrees clockwise each), no mirroring. A placement is named by its
# anchor, the shape's first cell in reading order, and its rotation.


def _rotations(shape) -> list[tuple[tuple[int, int], ...]]:
    out, cells = [], list(shape)
    for _ in range(4):
        r0 = min(r for r, _ in cells)
        q0 = min(q for _, q in cells)
        norm = tuple(sorted((r - r0, q - q0) for r, q in cells))
        if norm not in out:
            out.append(norm)
        cells = [(q, -r) for r, q in cells]  # rotate 90 degrees clockwise
    return out


ROTATIONS = tuple(_rotations(shape) for shape in C.SHAPES)  # per shape: distinct rotations, cells sorted
N_ROTATIONS = np.array([len(r) for r in ROTATIONS], dtype=np.int64)  # (5,): 1, 1, 2, 4, 2
MAX_ROTATIONS = 4
MAX_SHAPE_CELLS = max(len(s) for s in C.SHAPES)

# PLACEMENT_CELLS[shape, rotation, anchor] = covered cells (padded with -1); PLACEMENT_BITS the same
# as a bit mask, IMPOSSIBLE where the shape would leave the island or the rotation does not exist.
PLACEMENT_CELLS = np.full((len(C.SHAPES), MAX_ROTATIONS, N_CELLS, MAX_SHAPE_CELLS), -1, dtype=np.int64)
PLACEMENT_BITS = np.full((len(C.SHAPES), MAX_ROTATIONS, N_CELLS), IMPOSSIBLE, dtype=np.int64)
for _s, _rots in enumerate(ROTATIONS):
    for _o, _cells in enumerate(_rots):
        _ar, _aq = _cells[0]
        for _anchor in range(N_CELLS):
            _r, _q = divmod(_anchor, SIZE)
            _covered = [(_r + r - _ar, _q + q - _aq) for r, q in _cells]
            if all(0 <= r < SIZE and 0 <= q < SIZE for r, q in _covered):
                _idx = [cell(r, q) for r, q in _covered]
                PLACEMENT_CELLS[_s, _o, _anchor, : len(_idx)] = _idx
                PLACEMENT_BITS[_s, _o, _anchor] = CELL_BIT[_idx].sum()


def shapes_fit(free_bits: np.ndarray) -> np.ndarray:
    """`(m, 5)` bool: whether each shape fits somewhere (any rotation) on islands with free cells `free_bits (m,)`."""
    from fruit_envs.core.lazy import kernels_of  # the kernels, on first use

    free_bits = np.asarray(free_bits, dtype=np.int64).reshape(-1)
    out = np.zeros((len(free_bits), len(C.SHAPES)), dtype=bool)
    kernels_of(__package__)().shapes_fit_many(free_bits, out)
    return out


def shape_cells_bits(cells: list[int]) -> int:
    """Bit mask of a list of cells."""
    return int(CELL_BIT[np.asarray(cells, dtype=np.int64)].sum()) if len(cells) else 0


def is_placement(shape: int, cells: list[int]) -> bool:
    """Whether `cells` are exactly one placement of `shape` (any rotation)."""
    return shape_cells_bits(cells) in set(PLACEMENT_BITS[shape].reshape(-1).tolist())
