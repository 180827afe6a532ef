"""Quickity Pickity greedy: take and place the fruit that adds most to my sets' worth on this card.

Reads only the seat's observation. A legal set of size k is worth a blend of the card's value for k
and its best value a few fruit later (less the fruit still missing), leaning on the value now as
monkeys appear and the round may stop; a broken set is worth -10 whatever is added, so it becomes
the bin for unwanted fruit; a bonus fruit adds its bonus anywhere. Taking: the face-up type whose best
placement gains most, if that beats flipping another tile; placing: the best set for the held fruit.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.base import argmax_legal
from fruit_envs.agents.greedy import columns, own_part
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


class QuickityPickityGreedy:
    name = "greedy"
    MISSING_COST = 0.5  # worth lost per fruit a set still lacks to reach a better value
    OPTIMISM = (0.8, 0.5, 0.2)  # weight of the later value with 0, 1, 2 monkeys face up
    FLIP_WORTH = -0.5  # a take must gain more than this, or the player flips another tile (tuned in self-play)

    def __init__(self, config):
        self.config = config
        layout, p = R.observation_layout(config), config.num_players
        self.rows = R.fruit_count(config)  # set rows of the observation; own sets come first
        # a row per set: its owner (p columns, one-hot, the observer first), then its features (`SET_COLUMNS`)
        sets, width, bits = layout["sets"], p + R.SET_FEATURES, R.SET_COLUMNS["bits"]
        self.set_mine = columns(sets, 0, width)  # (rows,): the observer owns the set
        self.set_size = columns(sets, p + R.SET_COLUMNS["size"].start, width)  # (rows,)
        self.set_bits = columns(sets, slice(p + bits.start, p + bits.stop), width)  # (rows, 10) one column a bit
        self.card = columns(layout["card"], R.CARD_COLUMNS["card"])  # the round card, one-hot
        self.monkeys = layout["monkeys"]  # monkeys face up, one-hot
        held = own_part(layout["held"], p)  # own hand
        self.held_expression, self.held_colour, self.held_shape = (
            columns(held, R.HELD_COLUMNS[name]) for name in ("expression", "colour", "shape")
        )
        self.legal_table = C.SET_LEGAL_FAMILY if config.family else C.SET_LEGAL
        self.worth = worth_table(self.MISSING_COST, self.OPTIMISM)
        self.type_bits = C.KIND_BITS[: C.N_FRUIT_TYPES].astype(np.int64)

    def set_worth(self, card: np.ndarray, stage: np.ndarray, size: np.ndarray, bits: np.ndarray) -> np.ndarray:
        """`(B, ...)` the heuristic's worth of sets of `size` and attribute `bits` (both `(B, ...)`) on round card
        `card` `(B,)` with `stage` `(B,)` monkeys face up (0-2): -10 when broken, 0 when absent. The search
        agent's progress score values this round's sets with it."""
        legal = self.legal_table[bits]
        shape = (-1,) + (1,) * (size.ndim - 1)
        value = self.worth[card.reshape(shape), stage.reshape(shape), np.minimum(size, MAX_SIZE - 1)]
        return np.where(size == 0, 0.0, np.where(legal, value, float(C.ILLEGAL_SET)))

    def gains(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`(B, 32, F)` gain of placing each fruit type into each own set, `(B, 32)` as a new set."""
        b = len(obs)
        own = obs[:, self.set_mine] > 0.5  # the observer's sets are the first rows, in set order
        size = np.where(own, np.rint(obs[:, self.set_size]), 0).astype(np.int64)
        planes = np.rint(obs[:, self.set_bits]).astype(np.int64)
        bits = np.where(own, (planes << np.arange(C.N_BITS)).sum(axis=2), 0)
        card = obs[:, self.card].argmax(axis=1)
        monkeys = obs[:, self.monkeys]
        stage = np.where(monkeys.any(axis=1), monkeys.argmax(axis=1), 2)
        bonus = C.IS_BONUS[card][:, : C.N_FRUIT_TYPES] * C.CARD_BONUS[card][:, None]  # (B, 32)
        before = self.set_worth(card, stage, size, bits)  # (B, S)
        new_bits = bits[:, None, :] | self.type_bits[None, :, None]  # (B, 32, S)
        after = self.set_worth(card, stage, np.broadcast_to(size[:, None, :] + 1, new_bits.shape), new_bits)
        into = np.where(size[:, None, :] > 0, after - before[:, None, :], -np.inf) + bonus[:, :, None]
        alone = self.set_worth(card, stage, np.ones((b, 1), dtype=np.int64), self.type_bits[None, :])
        return into, alone + bonus

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask, dtype=bool), rng)

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` the heuristic's worth of each action (higher is better; only legal entries count):
        `act` plays the best, ties broken at random; the search agent keeps the best few as candidates."""
        b = len(obs)
        mask = np.asarray(mask, dtype=bool)
        into, alone = self.gains(obs)
        best = np.maximum(into.max(axis=2), alone)  # (B, 32): a new set is always possible
        scores = np.zeros(mask.shape, dtype=np.float64)
        scores[:, R.FLIP_ACTION] = self.FLIP_WORTH
        scores[:, R.TAKE_BASE : R.PLACE_BASE] = best
        expression, colour, shape = (
            obs[:, part].argmax(axis=1) for part in (self.held_expression, self.held_colour, self.held_shape)
        )
        kind = (16 * expression + 4 * colour + shape).astype(np.int64)
        rows = np.arange(b)
        scores[:, R.PLACE_BASE : R.PLACE_BASE + self.rows] = into[rows, kind]
        scores[:, R.NEW_SET] = alone[rows, kind]
        return scores

    def __repr__(self) -> str:
        return f"QuickityPickityGreedy(num_players={self.config.num_players})"


def make(config) -> QuickityPickityGreedy:
    return QuickityPickityGreedy(config)
