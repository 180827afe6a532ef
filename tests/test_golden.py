"""Golden playthroughs: a seeded game per game and player count must replay exactly as recorded.

After an intended rule change, regenerate with `python -m fruit_envs.testing tests/golden`, read the
diff, and bump the game's version if behaviour changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fruit_envs.core.spec import registered_games
from fruit_envs.testing import golden_player_counts, playthrough

GOLDEN = Path(__file__).parent / "golden"
CASES = [(s.id, p) for s in registered_games() for p in golden_player_counts(s)]


@pytest.mark.parametrize("game, players", CASES)
def test_golden_playthrough(game, players):
    path = GOLDEN / f"{game}_{players}p.txt"
    assert path.exists(), f"missing {path}; run python -m fruit_envs.testing tests/golden"
    expected = path.read_text().splitlines()
    actual = playthrough(game, players, seed=0).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"{path.name} line {i + 1} differs:\n  recorded: {want[:300]}\n  now:      {got[:300]}"
    assert len(actual) == len(expected)
