"""Exact best-response values on small configurations, to check the exploitability bounds against (issue 60).

The analysis setting (not a rule change): a late-game position of a seeded game, and `deals` equally likely
re-deals of everything one seat cannot see there (`rules.redeal_hidden`: the others' cards, the stacks' order,
the random keys of every later draw), so that chance has nothing left to add. The seat's best response to a
fixed policy in every other seat is then a finite computation: every history from every deal is enumerated
(the policy's action probabilities, `agents.base.action_probabilities`, at the other seats' decisions; every
legal action at the seat's), the seat's information sets are its observations after every step together with
its own actions (perfect recall), and backward induction picks each information set's best action by the
histories' probabilities. The result is the exact best-response value of that small game, beside the policy's
own value in the seat: their difference is the seat's exact exploitability there, which any best response
found by the estimators (`LocalBestResponse`, a trained response) can approach from below but never pass.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fruit_envs.agents.base import action_probabilities
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.core import rng as frng

MAX_NODES = 2_000_000  # histories enumerated at most; a bigger tree is refused, naming its size
MAX_CELLS = 50_000_000  # observation numbers of one level's histories held at once (memory)


def analysis_position(spec, config, seat: int, remaining: int, deals: int, seed: int):
    """`deals` re-deals, from `seat`'s view, of the position `remaining` decisions before the end of a seeded
    game of random play (`seed`), the analysis setting's roots: a batch state of `deals` live games."""
    rules = spec.rules
    state = rules.init(config, frng.keys_from_seed(seed, 1))
    gen = np.random.default_rng(seed)
    history = [state]
    while not state.done[0]:
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.array([gen.choice(np.flatnonzero(mask[0]))]))
        history.append(state)
    if state.truncated[0]:
        raise BenchmarkError(f"{spec.id} seed {seed}: the game was cut off, not ended by its rules; take another seed")
    position = history[max(len(history) - 1 - int(remaining), 0)]
    keys = frng.keys_from_seed(seed + 1, deals)
    return rules.redeal_hidden(position.take(np.zeros(deals, dtype=np.int64)), seat, keys)


def exact_best_response(spec, roots, seat: int, policy: Any, max_nodes: int = MAX_NODES) -> dict:
    """The exact value of `seat`'s best response when a game starts from one of `roots` (equally likely) and
    `policy` plays every other seat, beside `policy`'s own value in the seat: `value`, `policy_value`, `gain`
    (their difference, the seat's exploitability in this small game), `nodes`, `infosets` (the seat's
    information sets where it decides) and `choices` (each root information set's best action). Outcomes are the
    benchmark's: +1 a win, -1 a loss, 0 a full draw or a truncated game."""
    from fruit_envs.core.spec import game_winners, outcome_codes

    rules = spec.rules
    start = time.perf_counter()
    states = roots
    n = states.batch_size
    key = _row_ids(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), rules.observe(states, seat))
    reach = np.ones(n)  # the probability of the others' and chance's moves (the seat's own are its choice)
    levels, nodes = [], n
    while True:
        done = states.done.copy()
        outcome = np.zeros(states.batch_size)
        if done.any():
            ended = np.flatnonzero(done)
            sub = states.take(ended)
            outcome[ended] = outcome_codes(game_winners(rules, sub), np.full(len(ended), seat), sub.truncated)
        level = {"key": key, "reach": reach, "done": done, "outcome": outcome}
        levels.append(level)
        live = np.flatnonzero(~done)
        if not len(live):
            break
        sub = states.take(live)
        mask = rules.legal_mask(sub)
        mover = sub.to_move.astype(np.int64)
        probs = action_probabilities(policy, rules.observe(sub, mover), mask)
        mine = mover == seat
        branch = mask & (mine[:, None] | (probs > 0))
        row, action = np.nonzero(branch)
        nodes += len(row)
        width = int(np.prod(rules.observation_shape(roots.config)))
        if nodes > max_nodes or len(row) * width > MAX_CELLS:
            raise BenchmarkError(
                f"{spec.id}: {nodes} histories after {len(levels)} steps, {len(row)} in the last (at most {max_nodes} "
                f"and {MAX_CELLS // width} in one step); take a position closer to the end (fewer remaining "
                "decisions) or fewer deals"
            )
        states, _ = rules.step(sub.take(row), action)
        parent = live[row]
        seen = rules.observe(states, seat)
        own = np.where(mine[row], action, -1)  # the seat knows its own actions, and the others' only as it sees them
        key = _row_ids(key[parent], own, seen)
        reach = level["reach"][parent] * np.where(mine[row], 1.0, probs[row, action])
        level.update(live=live, mine=mine, parent=parent, action=action, prob=probs[row, action])
    # backward induction, deepest level first: the seat's choice per information set by the histories' weights
    best_value = levels[-1]["outcome"].copy()
    own_value = best_value.copy()
    infosets = 0
    choices: dict[int, int] = {}
    for depth in range(len(levels) - 2, -1, -1):
        level = levels[depth]
        size = len(level["done"])
        best = np.where(level["done"], level["outcome"], 0.0)
        own = best.copy()
        parent, action, prob = level["parent"], level["action"], level["prob"]
        mine = np.zeros(size, dtype=bool)
        mine[level["live"]] = level["mine"]
        np.add.at(own, parent, prob * own_value)  # the policy in every seat, the seat included
        theirs = ~mine[parent]
        np.add.at(best, parent[theirs], prob[theirs] * best_value[theirs])
        decide = np.flatnonzero(mine[parent])
        if len(decide):
            keys = level["key"][parent[decide]]
            width = int(action.max()) + 1
            q = np.full((int(keys.max()) + 1, width), -np.inf)
            seen = np.zeros_like(q, dtype=bool)
            seen[keys, action[decide]] = True
            q[seen] = 0.0
            np.add.at(q, (keys, action[decide]), level["reach"][parent[decide]] * best_value[decide])
            choice = q.argmax(axis=1)
            chosen = decide[action[decide] == choice[keys]]
            if len(np.unique(parent[chosen])) != len(np.unique(parent[decide])):
                raise BenchmarkError(f"{spec.id}: the seat's legal actions differ within one of its information sets")
            best[parent[chosen]] = best_value[chosen]
            used = np.unique(keys)
            infosets += len(used)
            if depth == 0:
                choices = {int(k): int(choice[k]) for k in used}
        best_value, own_value = best, own
    value, policy_value = round(float(best_value.mean()), 12), round(float(own_value.mean()), 12)  # no 1e-16 gains
    return {
        "value": value,
        "policy_value": policy_value,
        "gain": value - policy_value,
        "nodes": int(nodes),
        "infosets": int(infosets),
        "depth": len(levels) - 1,
        "choices": choices,
        "seconds": round(time.perf_counter() - start, 3),
    }


def _row_ids(parent_key: np.ndarray, own: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Each history's information set at this level, as a small integer: equal exactly when its parent's
    information set, the seat's own action (-1: another seat moved) and the seat's observation are equal."""
    seen = np.ascontiguousarray(seen)
    head = np.stack([parent_key, own], axis=1).astype(np.int64)
    table = np.concatenate([head.view(np.uint8), seen.view(np.uint8).reshape(len(seen), -1)], axis=1)
    rows = np.ascontiguousarray(table).view(np.dtype((np.void, table.shape[1]))).reshape(-1)
    return np.unique(rows, return_inverse=True)[1].reshape(-1)
