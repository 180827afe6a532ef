"""Quickity Pickity's search hooks: its own progress score, and the canonical order of the face-down pile.

The rules' running score (`rules.potential`: 10 per card won plus this round's money, what reward
shaping uses) counts a set at its money now; search's progress counts it as the greedy agent values it,
blended with what it may be worth a few fruit later. Search's decisions and its measured strength rest
on this measure, so it stays its own.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from fruit_envs.agents.greedy.quickity_pickity import QuickityPickityGreedy
from fruit_envs.agents.hooks import SearchHooks, sort_within
from fruit_envs.games.quickity_pickity import components as C


@cache
def _greedy(config) -> QuickityPickityGreedy:
    """The greedy agent of a config, for its set worth."""
    return QuickityPickityGreedy(config)


def progress(state) -> np.ndarray:
    """Cards won, plus this round's sets as the greedy agent values them (a set's money now blended with
    what it may be worth a few fruit later, leaning on now as monkeys appear) and the bonus fruit."""
    card = state.card.astype(np.int64)
    stage = np.minimum(state.up_count[:, C.MONKEY], 2).astype(np.int64)
    size = state.set_size.astype(np.int64)
    worth = _greedy(state.config).set_worth(card, stage, size, state.set_bits.astype(np.int64))
    worth = worth + C.CARD_BONUS[card][:, None] * state.set_bonus  # (n, F): one row per set, zone by zone
    ends = np.cumsum(state.num_sets.astype(np.int64), axis=1)
    running = np.zeros((len(worth), worth.shape[1] + 1))
    np.cumsum(worth, axis=1, out=running[:, 1:])
    zones = np.take_along_axis(running, ends, axis=1) - np.take_along_axis(running, ends - state.num_sets, axis=1)
    return state.cards_won + zones / 15.0


def canonical(state, seats: np.ndarray):
    """The pile's cards nobody has seen, put in card order within each shuffle of 16 (`redeal_hidden`
    permutes them where they lie)."""
    s = state.copy()
    for start in range(0, s.deck.shape[1], C.N_CARDS):
        block = slice(start, start + C.N_CARDS)
        s.deck[:, block] = sort_within(s.deck[:, block], ~s.shown[:, block])
    return s


SEARCH = SearchHooks(
    # many candidate takes and noisy flips: greedy's best 6 only, and its own choice unless clearly beaten
    options="rollouts=64,depth=16,width=6,gate=1",
    guided="policy=ppo-baseline,prior=ppo-baseline,rollouts=128",  # twice the rollouts, still half the time
    progress=progress,
    scale=1.0,
    canonical=canonical,
)
