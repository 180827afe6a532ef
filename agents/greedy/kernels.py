"""What every game's compiled rollout shares (`agents/greedy/<game>/kernels.py`, `rollout`): which rollouts
are still stepped, and the playout's choice with its tie-break draws.

A rollout kernel replays search's Python loop of step, observe and act exactly (issue 56): the same
actions, drawn from the same generator in the same order. Search drops finished rollouts from its batch
once more than a quarter of them have finished, and only the rollouts still in the batch draw tie-breaks,
so the kernel keeps that same set (`kept`) and draws for those rows alone, in row order.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.kernels import inner

NOISE = 1e-6  # `agents.base.argmax_legal`'s tie-break scale


@inner
def keep_rows(done, kept) -> bool:
    """Drop the finished rows from `kept` when all of them, or more than a quarter, have finished (search's
    `_rollout`); whether any row is still kept."""
    count, finished = 0, 0
    for g in range(len(done)):
        if kept[g]:
            count += 1
            if done[g]:
                finished += 1
    if count == 0:
        return False
    if finished == count or finished / count > 0.25:
        for g in range(len(done)):
            if done[g]:
                kept[g] = False
        return finished < count
    return True


@inner
def choose(scores, mask, done, kept, rng, actions):
    """`actions[g]` for every kept row: `argmax_legal(scores, mask | done, rng)` row by row, drawing one
    uniform per action of each kept row in row order, as that call draws `rng.random((rows, A))`."""
    for g in range(len(kept)):
        if not kept[g]:
            continue
        best, pick = -np.inf, 0
        for a in range(mask.shape[1]):
            noisy = scores[g, a] + rng.random() * NOISE
            if (mask[g, a] or done[g]) and noisy > best:
                best, pick = noisy, a
        actions[g] = pick
