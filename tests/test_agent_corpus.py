"""The recorded agent decisions (`fruit_envs.agents.corpus`, `tests/agent_corpus/`): the greedy heuristics,
search at a small budget and the shipped PPO baselines choose exactly what they chose when it was recorded
(issue 56: compiled agents must decide as the numpy ones did, ties included)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fruit_envs.agents import corpus
from fruit_envs.core.spec import get_spec, registered_games
from fruit_envs.corpus import cases

CORPUS = Path(__file__).parent / "agent_corpus"


@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_agents_reproduce_the_corpus(game):
    data = np.load(CORPUS / f"{game}.npz")
    decisions = sum(int((data[k] >= 0).sum()) for k in data.files if k.endswith("/greedy"))
    assert decisions >= 2000, f"{game}: the corpus holds only {decisions} greedy decisions"
    assert any(k.endswith(f"/{corpus.SEARCH}") for k in data.files), f"{game}: no search decisions recorded"
    assert corpus.check(CORPUS, game) == []


def test_a_changed_decision_is_named():
    """The check is not vacuous: one recorded greedy action changed, or one search value digest, is reported
    with the agent, case and step."""
    spec = get_spec("cherry_picking")
    case = cases(spec)[0]
    data = np.load(CORPUS / f"{spec.id}.npz")
    record = {key.split("/", 1)[1]: data[key].copy() for key in data.files if key.startswith(case.label + "/")}
    t, g = 5, 3
    record["greedy"][t, g] = (record["greedy"][t, g] + 1) % spec.num_actions
    record["values"][0] ^= 1
    problems = corpus.check_case(case, record)
    assert any(p.startswith(f"greedy: decision ({t}, {g})") for p in problems), problems
    assert any(p.startswith("values: action values") for p in problems), problems
    assert len(problems) == 2
