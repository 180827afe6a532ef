"""Agents built from data (`fruit_envs.agents.shipped`): the shipped ones, bounded, and nothing else."""

from __future__ import annotations

import pytest

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.agents.shipped import SEARCH_BUDGET, NotShipped, OutOfBounds, check_shipped, is_shipped, make_shipped
from fruit_envs.core.spec import get_spec


@pytest.mark.parametrize(
    "label",
    ["random", "greedy", "ppo-baseline", "ppo-baseline-sample", "ppo-baseline@1", " search ", "search:guided",
     "search:rollouts=64,depth=8", "search:policy=ppo-baseline@1,prior=ppo-baseline", "search:depth=end,rollouts=8"],
)  # fmt: skip
def test_the_shipped_agents_are_accepted(label):
    assert check_shipped(label, "cherry_picking") == label.strip()


@pytest.mark.parametrize(
    "label, message",
    [
        ("ppo:/tmp/model.zip", "is not a shipped agent"),
        ("ppo-sample:model.json", "is not a shipped agent"),
        ("model.zip", "is not a shipped agent"),
        ("os:system", "is not a shipped agent"),
        ("path/to/evil.py:make", "is not a shipped agent"),
        ("rllib:/tmp/run", "is not a shipped agent"),
        ("ppo-baseline@0", "is not a shipped agent"),
        ("search:policy=ppo:/tmp/model.zip", "names a file"),
        ("search:prior=ppo:/tmp/model.zip", "names a file"),
        ("search:value=ppo:x.zip", "names a file"),
        ("search:rollouts=1000000000", "over this server's or file's limit"),
        ("search:rollouts=4096,depth=end", "over this server's or file's limit"),
        ("search:color=blue", "search option"),
        ("x" * 1000, "characters"),
        (None, "must be named by text"),
        (["random"], "must be named by text"),
    ],
)
def test_anything_else_is_refused_by_name(label, message):
    with pytest.raises(NotShipped, match=message):
        check_shipped(label, "cherry_picking")
    assert not is_shipped(label, "cherry_picking")


def test_a_refusal_never_says_whether_a_path_exists(tmp_path):
    """The check reads nothing: a path that exists and one that does not get the same words."""
    there = tmp_path / "model.zip"
    there.write_bytes(b"PK")
    messages = []
    for path in (there, tmp_path / "missing.zip"):
        with pytest.raises(NotShipped) as refused:
            check_shipped(f"search:policy=ppo:{path}", "cherry_picking")
        messages.append(str(refused.value).replace(str(path), "PATH"))
    assert messages[0] == messages[1]


def test_the_budget_counts_rollouts_times_depth():
    spec = get_spec("cherry_picking")
    longest = spec.rules.max_game_length(spec.make_config())
    assert check_shipped(f"search:rollouts={SEARCH_BUDGET // 16},depth=16", spec)
    with pytest.raises(NotShipped, match=f"{SEARCH_BUDGET // 16 + 1} rollouts x 16 decisions"):
        check_shipped(f"search:rollouts={SEARCH_BUDGET // 16 + 1},depth=16", spec)
    assert check_shipped("search:rollouts=4,depth=end", spec, budget=4 * longest)
    with pytest.raises(NotShipped):
        check_shipped("search:rollouts=5,depth=end", spec, budget=4 * longest)


def test_make_shipped_builds_the_agent():
    spec = get_spec("fruit_picking")
    agent = make_shipped("greedy", spec, spec.make_config(2))
    assert hasattr(agent, "act")
    with pytest.raises(NotShipped):
        make_shipped("fruit_envs.agents.random:RandomAgent", spec, spec.make_config(2))


def test_a_search_out_of_bounds_is_refused_as_such_whatever_its_networks():
    """Malformed or over the budget is `OutOfBounds` even where a network names a file (which the user may name
    themselves): no launch key or trust changes a budget."""
    with pytest.raises(OutOfBounds, match="over this server's or file's limit"):
        check_shipped("search:policy=ppo:/tmp/model.zip,rollouts=1000000", "cherry_picking")
    with pytest.raises(OutOfBounds, match="search option"):
        check_shipped("search:colour=blue,policy=ppo:/tmp/model.zip", "cherry_picking")
    with pytest.raises(NotShipped) as refused:
        check_shipped("search:policy=ppo:/tmp/model.zip", "cherry_picking")
    assert not isinstance(refused.value, OutOfBounds)
