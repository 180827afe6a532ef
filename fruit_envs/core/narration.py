"""What a decision did, in words: the narration of `python -m fruit_envs.play` and `python -m fruit_envs.replay`,
and the captions of replay pictures; and each game's rules in brief.

Each game says what changed in its `fruit_envs/games/<id>/text.py`, found by game id like its picture:

    narrate(before, after, i, action, seat, names) -> list[str]
        `before` and `after`: the batch states around one decision of game `i` (`action`, taken by the
        seat to move in `before`); `seat`: whose perspective (None: the referee's, who may be told
        everything); `names[k]`: what to call seat k ("you", "player_1 (greedy)"). The lines say what
        happened that the action's name does not: a reveal resolved, cards harvested, tiles turned
        up, fruit and points gained, a round or set scored.
    rules_help(config) -> str
        the rules in brief and how scoring works, taken from the game's documentation page (its
        `fruit_envs/<id>_vN.py` docstring, see `docstring_sections`) rather than written twice.

A seat is told only what it may know: what its views (`fruit_envs.core.picture.view`) before and after
show, and what the decision made public (the cards of a reveal, the choices of a finished tick);
never another hand, a face-down card or a choice still hidden. `tests/test_play.py` checks that a
seat's narration does not change when what it cannot see is re-dealt.

Everything here is generic: nothing knows about a particular game.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from types import ModuleType

from fruit_envs.core.spec import GameSpec, companion_module, get_spec


def text_module(game: str | GameSpec) -> ModuleType | None:
    """The game's text module (`fruit_envs/games/<id>/text.py`), or None when it has none (nothing narrated)."""
    return companion_module(game, "text")


def seat_names(num_players: int, seat: int | None = None, labels: Sequence[str | None] | None = None) -> list[str]:
    """What to call each seat: `player_k`, with its agent's label when known (`player_1 (greedy)`), and
    `you` for `seat` when given."""
    names = []
    for k in range(num_players):
        label = labels[k] if labels is not None and k < len(labels) else None
        names.append("you" if k == seat else f"player_{k}" + (f" ({label})" if label else ""))
    return names


def narrate(
    before, after, action: int, i: int = 0, seat: int | None = None, names: Sequence[str] | None = None
) -> list[str]:
    """What decision `action` of game `i` did (`before` -> `after`), as `seat` may know it (None: the
    referee): a list of sentences, empty when nothing public happened beyond the decision itself."""
    p = before.config.num_players
    if seat is not None and not 0 <= seat < p:
        raise ValueError(f"seat must be None (the referee) or an int in 0..{p - 1}, got {seat!r}")
    module = text_module(before.GAME)
    if module is None or not hasattr(module, "narrate"):
        return []
    names = list(names) if names is not None else seat_names(p)
    return module.narrate(before, after, i, int(action), seat, names)


def hidden_decision(state, i: int, seat: int) -> bool:
    """Whether the decision due in game `i` stays hidden from `seat` when it is taken: another seat's
    choice in a simultaneous round that others have still to join (the round's last choice reveals
    them all, itself included)."""
    rules = get_spec(state.GAME).rules
    return int(state.to_move[i]) != seat and int(rules.acting(state)[i].sum()) > 1


def rules_help(game: str | GameSpec, config=None) -> str:
    """The game's rules in brief and how it is scored (the text module's `rules_help`, else the
    **Play.** and **Scoring.** sections of its documentation page)."""
    spec = get_spec(game)
    module = text_module(spec)
    if module is not None and hasattr(module, "rules_help"):
        return module.rules_help(config if config is not None else spec.make_config())
    return docstring_sections(f"fruit_envs.{spec.pettingzoo_name}", ("Play", "Scoring"))


_SECTION = re.compile(r"^\*\*([^*]+?)\.?\*\*[.:]?\s*")


def docstring_sections(module: str, titles: Sequence[str]) -> str:
    """The paragraphs of a module's docstring that open with `**Title.**` (or `**Title** (...)`), in the
    order of `titles`, each as `Title: text` on one line (Markdown's backticks and bold removed)."""
    doc = importlib.import_module(module).__doc__ or ""
    paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", doc)]
    found = {}
    for paragraph in paragraphs:
        match = _SECTION.match(paragraph)
        if match and match.group(1) not in found:
            found[match.group(1)] = paragraph[match.end() :]
    missing = [t for t in titles if t not in found]
    if missing:
        raise ValueError(f"{module}'s docstring has no section {missing} (sections: {list(found)})")
    return "\n\n".join(f"{t}: {found[t].replace('`', '').replace('**', '')}" for t in titles)


def wrap(text: str, width: int = 100, indent: str = "  ") -> str:
    """`text`, its paragraphs wrapped at `width` columns and indented (for the terminal)."""
    import textwrap

    return "\n\n".join(
        textwrap.fill(paragraph, width, initial_indent=indent, subsequent_indent=indent)
        for paragraph in text.split("\n\n")
    )


def listing(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
