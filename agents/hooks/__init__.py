"""What the search agent knows of each game, supplied by the game: one `SearchHooks` per game.

The hooks of game `<id>` are `SEARCH` in `agents/hooks/<id>.py`. A game without that module gets
`SearchHooks()`, which works for any game: the generic budget, the running score reward shaping uses as
progress (`rules.potential` where the game declares one, else its final scores), no canonical order of
hidden cards, the game's greedy agent for playouts and ranking. `agents/search.py`
knows nothing else of a game beyond its rules, so a new game plays search as soon as it is registered,
and plays it better once it writes its hooks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.agents.greedy import make_greedy
from fruit_envs.core import rules_api
from fruit_envs.core.spec import get_spec


def running_scores(state) -> np.ndarray:
    """`(n, P)` the running score reward shaping uses (`rules.potential` where declared, else the final
    scores): the progress of a game whose hooks name no other measure."""
    return rules_api.running_scores(get_spec(state.GAME), state)


@dataclass(frozen=True)
class SearchHooks:
    """One game's search knowledge. Every field has a default that is right for any game."""

    options: str = ""  # the default budget (`search`): options over `SearchOptions()`, as after `search:`
    guided: str = "policy=ppo-baseline,prior=ppo-baseline"  # `search:guided`: options over `options`
    progress: Callable = running_scores  # state -> (n, P) running score per seat, higher is better (leaf values)
    scale: float = 10.0  # a lead of about this much progress counts as most of a win (one player: progress / scale)
    canonical: Callable | None = None  # (state, seats (n,)) -> state with the hidden cards its `redeal_hidden`
    # permutes where they lie put in a fixed order first, so a sample depends only on what the seat knows
    greedy: Callable = make_greedy  # (spec, config) -> agent: plays `policy=greedy` rollouts, and its public
    # `scores(obs, mask)` orders the candidate actions for `width` and `gate`


@cache
def search_hooks(game: str) -> SearchHooks:
    """The search hooks of a game id: `SEARCH` of `agents/hooks/<game>.py`, or `SearchHooks()` where the game
    has no such module."""
    try:
        module = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{game}":
            raise
        return SearchHooks()
    return module.SEARCH


def sort_within(values: np.ndarray, where: np.ndarray) -> np.ndarray:
    """`values` `(n, W)` with the entries at `where` sorted ascending among those same places (in place
    order); every other entry stays. The canonical order of hidden cards."""
    ordered = np.sort(np.where(where, values, np.iinfo(values.dtype).max), axis=1)  # chosen values first
    places = np.argsort(~where, axis=1, kind="stable")  # chosen places first, in order
    g, j = np.nonzero(np.arange(values.shape[1])[None, :] < where.sum(axis=1)[:, None])
    out = values.copy()
    out[g, places[g, j]] = ordered[g, j]
    return out


__all__ = ["SearchHooks", "running_scores", "search_hooks", "sort_within"]
