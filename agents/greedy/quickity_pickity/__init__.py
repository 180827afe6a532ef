"""Quickity Pickity greedy: take and place the fruit that adds most to my sets' worth on this card.

Reads only the seat's observation. A legal set of size k is worth a blend of the card's value for k
and its best value a few fruit later (less the fruit still missing), leaning on the value now as
monkeys appear and the round may stop; a broken set is worth -10 whatever is added, so it becomes
the bin for unwanted fruit; a bonus fruit adds its bonus anywhere. Taking: the face-up type whose best
placement gains most, if that beats flipping another tile; placing: the best set for the held fruit.
"""

from __future__ import annotations

import math

import numpy as np

from fruit_envs.agents.greedy import KernelGreedy, columns, own_part
from fruit_envs.games.quickity_pickity import components as C
from fruit_envs.games.quickity_pickity import rules as R

MAX_SIZE = 70  # above any set size (64 fruit in play)


def worth_table(missing_cost: float, optimism: tuple[float, ...]) -> np.ndarray:
    """`(16, len(optimism), MAX_SIZE)` worth of a legal set of each size on each card."""
    values = C.CARD_VALUES.astype(np.float64)  # (16, 8): sizes 0..7+
    sizes = np.arange(MAX_SIZE)
    now = values[:, np.minimum(sizes, C.LARGEST_SIZE)]  # (16, MAX_SIZE)
    later = np.full_like(now, -np.inf)
    for extra in range(3):
        later = np.maximum(later, values[:, np.minimum(sizes + extra, C.LARGEST_SIZE)] - missing_cost * extra)
    table = np.stack([(1 - w) * now + w * later for w in optimism], axis=1)
    table[:, :, 0] = 0.0
    return table


def _indices(part: slice) -> np.ndarray:
    """The observation columns of `part` as int64 indices, for the kernels."""
    return np.arange(part.start, part.stop, dtype=np.int64)


class QuickityPickityGreedy(KernelGreedy):
    MISSING_COST = 0.5  # worth lost per fruit a set still lacks to reach a better value
    OPTIMISM = (0.8, 0.5, 0.2)  # weight of the later value with 0, 1, 2 monkeys face up
    FLIP_WORTH = -0.5  # a take must gain more than this, or the player flips another tile (tuned in self-play)

    def __init__(self, config):
        layout, p = R.observation_layout(config), config.num_players
        super().__init__(config, layout, R.NUM_ACTIONS)
        # a row per set: its owner (p columns, one-hot, the observer first), then its features (`SET_COLUMNS`)
        sets, width, bits = layout["sets"], p + R.SET_FEATURES, R.SET_COLUMNS["bits"]
        self.set_mine = columns(sets, 0, width)  # (rows,): the observer owns the set
        self.set_size = columns(sets, p + R.SET_COLUMNS["size"].start, width)  # (rows,)
        self.set_bits = columns(sets, slice(p + bits.start, p + bits.stop), width)  # (rows, 10) one column a bit
        self.card = _indices(columns(layout["card"], R.CARD_COLUMNS["card"]))  # the round card, one-hot
        self.monkeys = _indices(layout["monkeys"])  # monkeys face up, one-hot
        held = own_part(layout["held"], p)  # own hand
        self.held_expression, self.held_colour, self.held_shape = (
            _indices(columns(held, R.HELD_COLUMNS[name])) for name in ("expression", "colour", "shape")
        )
        self.legal_table = C.SET_LEGAL_FAMILY if config.family else C.SET_LEGAL
        self.worth = worth_table(self.MISSING_COST, self.OPTIMISM)
        self.kernel_args = (
            self.set_mine, self.set_size, self.set_bits, self.card, self.monkeys, self.held_expression,
            self.held_colour, self.held_shape, self.legal_table, self.worth, self.FLIP_WORTH,
        )  # fmt: skip

    def set_worth(self, card: np.ndarray, stage: np.ndarray, size: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """`(B, ...)` the heuristic's worth of sets of `size` and attribute `bits` (both `(B, ...)`) on round card
        `card` `(B,)` with `stage` `(B,)` monkeys face up (0-2): -10 when broken, 0 when absent. The search
        agent's progress score values this round's sets with it."""
        card, stage = np.ascontiguousarray(card, dtype=np.int64), np.ascontiguousarray(stage, dtype=np.int64)
        size, bits = np.broadcast_arrays(size, bits)
        out = np.zeros(size.shape)
        rows = (len(card), math.prod(size.shape[1:]))  # one row of sets per card
        size, bits = (np.ascontiguousarray(a, dtype=np.int64).reshape(rows) for a in (size, bits))
        self._kernels().set_worth(card, stage, size, bits, self.legal_table, self.worth, out.reshape(rows))
        return out

    def rollout_constants(self, config):
        _, fixed, tables = R.advance_constants(config)
        return *fixed[:4], *tables  # step's legality table, score paying, rounds to win, box; observe's tables


def make(config) -> QuickityPickityGreedy:
    return QuickityPickityGreedy(config)
