"""The recorded corpus (`fruit_envs.corpus`): thousands of random and greedy positions per game, player
count and option, with digests of every observation, mask, reward and next state. The rules must
reproduce it exactly, batched and one game at a time; it was recorded before issue 33's compiled
kernels so that the rewrite provably changes nothing a user can see."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from fruit_envs import corpus
from fruit_envs.core.spec import get_spec, registered_games

CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_rules_reproduce_the_corpus_batched_and_alone(game):
    data = np.load(CORPUS / f"{game}.npz")
    positions = sum(int((data[k] >= 0).sum()) for k in data.files if k.endswith("/actions"))
    assert positions >= 2000, f"{game}: the corpus holds only {positions} positions"
    assert corpus.check(CORPUS, game, batch_one=1) == []


def test_a_changed_rule_is_caught_and_located(monkeypatch):
    """A one-point change in Cherry Picking's scoring shows up as a reward/state difference."""
    rules = get_spec("cherry_picking").rules
    real = rules.score_piles
    monkeypatch.setattr(rules, "score_piles", lambda piles, mode="repeat": real(piles, mode) + 1)
    problems = corpus.check(CORPUS, "cherry_picking", batch_one=0)
    assert problems and all("differs after decision" in p for p in problems)


def test_digest_sees_every_byte():
    rows = np.zeros((3, 40), dtype=np.float32)
    rows[1, 17] = 1.0
    rows[2, 39] = -0.0  # a sign bit alone
    d = corpus.digest(rows)
    assert len(set(d.tolist())) == 3


@pytest.fixture
def interpreted_kernels():
    """Every game's kernels on their interpreted twin (`core.lazy`) for the test, then back as they were."""
    from fruit_envs.core import lazy

    for spec in registered_games():
        spec.rules.init  # noqa: B018  (the rules module is imported, so its kernels' loader exists)
    loaders = list(lazy._loaders.values())
    saved = [(loader.final, loader.current) for loader in loaders]
    for loader in loaders:
        loader.final = lazy.interpreted(importlib.import_module(f"{loader.package}.kernels"))
    yield
    for loader, (final, current) in zip(loaders, saved, strict=True):
        loader.final, loader.current = final, current


@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_the_interpreted_tier_reproduces_the_corpus(game, interpreted_kernels):
    """The interpreted twin of the kernels (what a new installation plays while its kernels compile) is
    the same game: every case of the corpus, its first game of each policy (the slow test: all of them)."""
    assert corpus.check(CORPUS, game, batch_one=0, batched=1) == []


@pytest.mark.slow
@pytest.mark.parametrize("game", [spec.id for spec in registered_games()])
def test_the_interpreted_tier_reproduces_the_whole_corpus(game, interpreted_kernels):
    assert corpus.check(CORPUS, game, batch_one=1) == []
