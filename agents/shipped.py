"""Agents built from data: the shipped agents only, with options from a fixed, bounded set.

A game record's seat labels, a result card's policy and every web request are data (docs/threat-model.md):
they may come from anyone. What they name is built only when `check_shipped` accepts it: `random`, `greedy`,
`ppo-baseline`, `ppo-baseline-sample`, `ppo-baseline@N`, `search` and `search:OPTIONS` whose networks are the
shipped ones (never `ppo:PATH`) and whose budget per decision (rollouts times depth, `end` counting as the
game's longest play) is at most `budget`. The check reads no file and imports nothing, so a refusal never
says whether a path exists; the agent itself is then built by `make_agent` as usual.
"""

from __future__ import annotations

import re
from typing import Any

from fruit_envs.core.spec import Config, GameSpec, get_spec
from fruit_envs.core.validate import quoted

SHIPPED = ("random", "greedy", "search", "ppo-baseline", "ppo-baseline-sample")
SHIPPED_FORMS = "random, greedy, ppo-baseline, ppo-baseline-sample, ppo-baseline@N, search, search:OPTIONS"
SEARCH_BUDGET = 8192  # rollout decisions per decision of one game: 4x the largest default budget
_VERSION = re.compile(r"ppo-baseline@[1-9][0-9]{0,2}")
_LABEL_LIMIT = 400  # characters: a longer label is not one of ours


class NotShipped(ValueError):
    """A label data asked for that is not a shipped agent within its bounds; the message says what is allowed."""


class OutOfBounds(NotShipped):
    """A search whose options are malformed or over the budget: refused whoever asks (only a search over the
    user's own network is refused as `NotShipped` alone, since the user may name that themselves)."""


def check_shipped(label: Any, spec: GameSpec | str | None = None, budget: int = SEARCH_BUDGET) -> str:
    """`label` stripped, where it names a shipped agent with options inside their bounds (for `spec`'s game:
    its search defaults and its longest play); a `NotShipped` naming what was wrong and what is allowed
    otherwise. Reads no file and imports no one's module."""
    if not isinstance(label, str) or not label.strip():
        raise NotShipped(f"an agent must be named by text, one of {SHIPPED_FORMS}; got {quoted(label)}")
    text = label.strip()
    if len(text) > _LABEL_LIMIT:
        raise NotShipped(f"agent name of {len(text)} characters: the shipped agents ({SHIPPED_FORMS}) are shorter")
    if text in SHIPPED or _VERSION.fullmatch(text):
        return text
    if not text.startswith("search:"):
        raise NotShipped(
            f"{quoted(text)} is not a shipped agent; only {SHIPPED_FORMS} are built from a record, a card or a "
            "request (no model file or module they name is loaded)"
        )
    from fruit_envs.agents.search import parse_options

    game = None if spec is None else get_spec(spec).id
    try:
        options = parse_options(text[len("search:") :], game)
    except ValueError as error:
        raise OutOfBounds(f"agent {quoted(text)}: {error}") from None
    longest = 1000 if spec is None else get_spec(spec).rules.max_game_length(get_spec(spec).make_config())
    depth = longest if options.depth is None else min(options.depth, longest)
    work = options.rollouts * max(depth, 1)
    if work > budget or options.determinizations > options.rollouts * 4 or options.width > 4096:
        raise OutOfBounds(
            f"agent {quoted(text)}: a budget of {options.rollouts} rollouts x {depth} decisions = {work} rollout "
            f"decisions per decision is over this server's or file's limit of {budget} (rollouts times depth; "
            "depth=end counts as the game's longest play)"
        )
    for key in ("policy", "prior", "value"):
        value = getattr(options, key)
        if value and value not in ("greedy", "random", "ppo-baseline") and not _VERSION.fullmatch(value):
            raise NotShipped(
                f"agent {quoted(text)}: search option {key}={value!r} names a file; from a record, a card or a "
                "request search takes only greedy, random, ppo-baseline or ppo-baseline@N"
            )
    return text


def make_shipped(label: Any, spec: GameSpec | str, config: Config, budget: int = SEARCH_BUDGET) -> Any:
    """The shipped agent `label` names for a game and config, once `check_shipped` accepts it."""
    from fruit_envs.agents.resolve import make_agent

    return make_agent(check_shipped(label, spec, budget), get_spec(spec), config)


def is_shipped(label: Any, spec: GameSpec | str | None = None, budget: int = SEARCH_BUDGET) -> bool:
    """Whether `check_shipped` accepts `label`."""
    try:
        check_shipped(label, spec, budget)
    except NotShipped:
        return False
    return True
