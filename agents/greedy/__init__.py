"""One greedy heuristic per game, each using only what its seat observes.

The heuristic of game `<id>` lives in `agents/greedy/<id>.py` and exposes `make(config)`. Each reads the
observation by name: the blocks of `rules.observation_layout(config)` and the rules' named columns within
a block's rows, turned into column indices once per agent (`own_part`, `columns`).
"""

from __future__ import annotations

import importlib

import numpy as np

from fruit_envs.core.spec import Config, GameSpec


def own_part(block: slice, num_players: int) -> slice:
    """The observer's own columns of an observation block over seats, which lists the observer first: its
    first `1 / num_players`."""
    width, rest = divmod(block.stop - block.start, num_players)
    if rest:
        raise ValueError(f"a block over {num_players} seats has a multiple of {num_players} columns, got {block}")
    return slice(block.start, block.start + width)


def columns(block: slice, part: slice | int, width: int | None = None) -> slice | int | np.ndarray:
    """Observation columns of `part` (a range, or one column) counted from the start of `block`; with `width`,
    of every row of a block made of rows that wide: `(R, k)` indices for a range, `(R,)` for one column."""
    if width is None:
        if isinstance(part, slice):
            return slice(block.start + part.start, block.start + part.stop)
        return block.start + part
    starts = block.start + width * np.arange((block.stop - block.start) // width)
    if isinstance(part, slice):
        return starts[:, None] + np.arange(part.start, part.stop)[None, :]
    return starts + part


def make_greedy(spec: GameSpec, config: Config):
    """The greedy agent of a game's config, from `agents/greedy/<id>.py`."""
    try:
        module = importlib.import_module(f"fruit_envs.agents.greedy.{spec.id}")
    except ModuleNotFoundError as error:
        if error.name != f"fruit_envs.agents.greedy.{spec.id}":
            raise
        raise ValueError(f"no greedy agent for {spec.id!r} (agents/greedy/{spec.id}.py is missing)") from None
    return module.make(config)
