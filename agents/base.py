"""The agent interface shared by every baseline."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from fruit_envs.core.rules_api import action_names


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action per row: `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int64`.

    An agent with `needs_state = True` (search) is also given the true state of those games and the
    deciding seats, `act(..., state=, seats=)`, to re-sample only what its seats cannot know; callers
    build these arguments with `state_kwargs`.
    """

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


def argmax_legal(scores: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Best-scoring legal action per row, ties broken uniformly at random."""
    noisy = np.where(mask, scores + rng.random(scores.shape) * 1e-6, -np.inf)
    return np.argmax(noisy, axis=1).astype(np.int64)


def explain(agent, state, seat: int, seed: int = 0, acted: bool = False) -> dict | None:
    """Why `agent` decides as it does in game 0 of `state` at `seat`, as a game record's `decisions` item
    (`fruit_envs.core.record`), best first: a PPO policy's probability of each legal action and its value
    estimate, search's rollout value of each action it tried (`acted`: of the `act` it just made, else of a new
    search seeded by `seed`), greedy's heuristic scores; None for an agent that says nothing (random), or
    whose `scores` / `values` fail: the reasons are an extra, never a reason for a game to stop."""
    try:
        return _explain(agent, state, seat, seed, acted)
    except Exception:  # a user's agent with a `scores` attribute of its own meaning
        return None


def _explain(agent, state, seat: int, seed: int, acted: bool) -> dict | None:
    from fruit_envs.core.spec import get_spec

    rules = get_spec(state.GAME).rules
    obs, mask = rules.observe(state, seat), rules.legal_mask(state, seat)
    legal = np.flatnonzero(mask[0])
    value = None
    if hasattr(agent, "values") and hasattr(agent, "scores"):  # a PPO policy: softmax over the legal logits
        logits = np.asarray(agent.scores(obs, mask))[0, legal]
        weights = np.exp(logits - logits.max())
        numbers, kind, value = weights / weights.sum(), "probability", float(agent.values(obs)[0])
    elif getattr(agent, "needs_state", False) and hasattr(agent, "last_values"):
        if not acted:
            agent.act(obs, mask, np.random.default_rng(seed), state=state.copy(), seats=np.array([seat]))
        numbers, kind = agent.last_values[0, legal], "rollout value"
    elif hasattr(agent, "scores"):
        numbers, kind = np.asarray(agent.scores(obs, mask))[0, legal], "heuristic score"
    else:
        return None
    rows = [[int(a), round(float(x), 4) if np.isfinite(x) else None] for a, x in zip(legal, numbers, strict=True)]
    rows.sort(key=lambda row: -np.inf if row[1] is None else -row[1])
    return {"kind": kind, "value": value, "actions": rows}


def state_kwargs(agent, state, seats, games=None) -> dict:
    """Extra `act` arguments of an agent that sets `needs_state` (search): the batch of games it decides
    (`state`, or its games at index `games`) and the seat to move in each; `{}` for any other agent."""
    if not getattr(agent, "needs_state", False):
        return {}
    return {"state": state if games is None else state.take(games), "seats": np.asarray(seats, dtype=np.int64)}


def action_kinds(spec, config) -> list[str]:
    """Each action's kind: the first word of its name in the rules (`take`, `place`, `play`, ...)."""
    return [name.split()[0] for name in action_names(spec, config)]


class Handed:
    """`agent`, except where its own choice is an action of one of `kinds`: there `expert` decides (the
    expert is asked only on those rows). A player between the two, to measure which kind of decision wins
    games (`benchmarks.decisions`) or to imitate the expert only where it plays better (`training.bc`)."""

    def __init__(self, agent, expert, spec, config, kinds):
        known = action_kinds(spec, config)
        unknown = sorted(set(kinds) - set(known))
        if not kinds or unknown:
            raise ValueError(
                f"{spec.name}: the expert's decisions must name kinds of action, from {sorted(set(known))}; "
                f"got {list(kinds)}"
            )
        self.agent, self.expert = agent, expert
        self.kinds = tuple(kinds)
        self.handed = np.isin(known, self.kinds)  # (A,) bool: the expert decides where the agent chose these
        self.needs_state = getattr(agent, "needs_state", False) or getattr(expert, "needs_state", False)
        self.name = f"{getattr(agent, 'name', 'agent')}+{getattr(expert, 'name', 'expert')}@{','.join(self.kinds)}"
        if hasattr(expert, "last_values"):  # an expert that keeps action values (search): so does this agent
            # `(B, A)` the expert's values on the rows it decided in the last call, NaN elsewhere
            self.last_values: np.ndarray | None = None

    def act(self, obs, mask, rng, state=None, seats=None):
        chosen = np.array(self.agent.act(obs, mask, rng, **state_kwargs(self.agent, state, seats)), dtype=np.int64)
        rows = np.flatnonzero(self.handed[chosen])
        if len(rows):
            extra = state_kwargs(self.expert, state, None if seats is None else np.asarray(seats)[rows], games=rows)
            chosen[rows] = self.expert.act(None if obs is None else obs[rows], mask[rows], rng, **extra)
        if hasattr(self, "last_values"):
            self.last_values = np.full(np.shape(mask), np.nan)
            if len(rows) and self.expert.last_values is not None:  # fresh: the expert has just decided them
                self.last_values[rows] = self.expert.last_values
        return chosen


def action_probabilities(agent, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`(B, A)` the probability that `agent` plays each action in each row: its own `probabilities(obs, mask)`
    if it has one; uniform over the legal actions for random play; a sampling PPO policy's softmax over its
    legal logits; otherwise uniform over the legal actions of best score (`scores`: greedy, a deterministic PPO
    policy), as `argmax_legal` breaks exact ties. Scores within its 1e-6 tie-break noise of the best but not
    equal to it are taken as lower (the noise flips them with a small probability this ignores).
    A `ValueError` for an agent that says neither (search: its choice depends on sampled positions)."""
    mask = np.asarray(mask, dtype=bool)
    if hasattr(agent, "probabilities"):
        return np.asarray(agent.probabilities(obs, mask), dtype=np.float64)
    if getattr(agent, "name", None) == "random" and not hasattr(agent, "scores"):
        return mask / np.maximum(mask.sum(axis=1, keepdims=True), 1)
    if not hasattr(agent, "scores") or getattr(agent, "needs_state", False):
        raise ValueError(
            f"{agent!r} gives no action probabilities: give it a `probabilities(obs, mask)` method returning "
            "(B, A) probabilities, or `scores(obs, mask)` if it plays the best legal score"
        )
    scores = np.where(mask, np.asarray(agent.scores(obs, mask), dtype=np.float64), -np.inf)
    if getattr(agent, "deterministic", True) is False:  # a sampling policy: softmax over its legal logits
        weights = np.where(mask, np.exp(scores - scores.max(axis=1, keepdims=True)), 0.0)
    else:
        weights = (mask & (scores == scores.max(axis=1, keepdims=True))).astype(np.float64)
    return weights / weights.sum(axis=1, keepdims=True)
