"""Every Python snippet on the site's pages runs as written, and each game page's replay is up to date.

The README's sections moved to docs/ (issue 36): their snippets are tested here, page by page, as
tests/test_readme.py tests the README's. docs/benchmark.md is the benchmark protocol's own page
(tests/test_benchmark_protocol.py); its snippet names a policy of the reader's.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import game_ids

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if p.name != "benchmark.md")
SNIPPETS = [
    (page.relative_to(DOCS).as_posix(), index, code)
    for page in PAGES
    for index, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))
]

# Libraries a snippet may use that the test environment may lack: the snippet skips, naming why.
OPTIONAL = {
    "torchrl": "the clients extra",
    "tianshou": "the clients extra",
    "supersuit": "the clients extra",
    "agilerl": "AgileRL in its own environment: ./dev test-agilerl runs this snippet (tests/test_agilerl.py)",
}


def run(code: str, name: str) -> None:
    exec(compile(code, name, "exec"), {"__name__": "__docs__"})


def test_every_tutorial_page_has_snippets():
    tutorials = [page for page in PAGES if page.parent.name == "tutorials"]
    assert len(tutorials) >= 12
    for page in tutorials:
        assert "```python" in page.read_text() or "```bash" in page.read_text(), f"{page.name} shows no code"


@pytest.mark.parametrize(("page", "index", "code"), SNIPPETS, ids=[f"{p}:{i}" for p, i, _ in SNIPPETS])
def test_docs_snippet_runs(page, index, code, tmp_path, monkeypatch):
    for name in re.findall(r"^(?:from|import) (\w+)", code, flags=re.M):
        if name in OPTIONAL:
            pytest.importorskip(name, reason=f"{page} snippet {index} needs {name}: install {OPTIONAL[name]}")
    monkeypatch.chdir(tmp_path)
    run(code, f"docs/{page} snippet {index}")


def test_vector_wrappers_snippet_prints_the_games_own_returns(capsys):
    """Issue 29: with `RecordEpisodeStatistics` outside `NormalizeReward`, the snippet printed rescaled sums
    (-31.26 for a lost game) as "returns of the games that ended"; they are the outcomes again."""
    (code,) = [code for _, _, code in SNIPPETS if "RecordEpisodeStatistics" in code]
    run(code, "the vector-wrappers snippet")
    printed = capsys.readouterr().out
    returns = re.search(r"returns of the games that ended: \[([^\]]*)\]", printed).group(1).split()
    outcomes = re.search(r"their outcomes: \[([^\]]*)\]", printed).group(1).split()
    assert returns and [float(r) for r in returns] == [float(o) for o in outcomes]
    assert {float(r) for r in returns} <= {-1.0, 0.0, 1.0}


def test_supersuit_page_shows_the_reset_infos_workaround():
    """Issue 54: with worker processes (`num_cpus` >= 2) SuperSuit 3.11's `reset()` returns its workers'
    compressed infos, so a mask read from `info` breaks; the SuperSuit page says so and its snippet
    decompresses them, after which every row's info holds that row's mask."""
    ss = pytest.importorskip("supersuit", reason=f"needs supersuit: install {OPTIONAL['supersuit']}")
    from fruit_envs import cherry_picking_v0

    envs = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(cherry_picking_v0.parallel_env(num_players=2)), 4, num_cpus=2
    )
    try:
        _, infos = envs.reset(seed=0)
        with pytest.raises(TypeError):  # the bug, as SuperSuit ships it: when fixed, the page can say so
            infos[0]["action_mask"]
    finally:
        envs.close()
    (code,) = [code for page, _, code in SNIPPETS if page == "tutorials/supersuit.md" and "decompress_info" in code]
    assert "num_cpus=2" in code, "the snippet runs the worker processes that have the bug"
    namespace = {"__name__": "__docs__"}
    exec(compile(code, "the SuperSuit reset-infos snippet", "exec"), namespace)
    masks, observed = namespace["masks"], namespace["obs"]["action_mask"]
    assert masks.shape == observed.shape == (8, 60) and masks.any(axis=1).all()
    np.testing.assert_array_equal(masks, observed)  # each row's info mask is that row's, in order


def pages_hook():
    spec = importlib.util.spec_from_file_location("docs_pages_hook", DOCS / "hooks" / "pages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", game_ids())
def test_replay_on_the_game_page_is_the_game_the_rules_play_now(game, tmp_path):
    """The committed replay is what greedy self-play from the fixed seed gives today; when a rule change
    alters it, `python docs/hooks/pages.py replays GAME` redraws the record and its GIF."""
    from fruit_envs import get_spec
    from fruit_envs.core.record import read_records, replay

    hook = pages_hook()
    (committed,) = read_records(DOCS / "replays" / f"{game}.jsonl")
    hook.record_replay(get_spec(game), tmp_path / "now.jsonl")
    (now,) = read_records(tmp_path / "now.jsonl")
    redraw = f"the replay of {game} is out of date: run python docs/hooks/pages.py replays {game}"
    assert (committed.rules_version, committed.config, committed.actions) == (
        now.rules_version,
        now.config,
        now.actions,
    ), redraw
    assert replay(committed).outcome is not None
    gif = DOCS / "replays" / f"{game}.gif"
    assert gif.is_file() and gif.stat().st_size < 1_000_000, "replay GIFs stay under 1 MB"


@pytest.mark.parametrize("game", game_ids())
def test_game_page_is_the_module_docstring(game):
    """Every paragraph of `help(module)` is on the game's generated page."""
    from fruit_envs import get_spec

    spec = get_spec(game)
    page = pages_hook().game_page(spec)
    doc = sys.modules.get(f"fruit_envs.{spec.pettingzoo_name}") or importlib.import_module(
        f"fruit_envs.{spec.pettingzoo_name}"
    )
    scores = page.split("## What search and the baselines score")[1].split("\n## ")[0]
    assert f"| {spec.name}" in scores, (
        f"{game}: no score rows (the tables on search.md, tutorials/baselines.md, README)"
    )
    for paragraph in doc.__doc__.split("\n\n"):
        words = re.sub(r"\*\*[^*]+\*\*[.:]?", "", paragraph).split()
        if len(words) >= 8:
            assert " ".join(words[-8:]) in " ".join(page.split()), f"{game}: page lacks {paragraph[:60]!r}"


@pytest.mark.parametrize("game", game_ids())
def test_rules_in_brief_link_each_rulebook_section_they_follow(game):
    """Issue 36: the rules in brief name the rulebook sections they follow, each a link into the published
    rulebook (a text fragment that scrolls to the heading); the score attack, our own mode, names none."""
    from urllib.parse import unquote

    from fruit_envs import get_spec

    hook = pages_hook()
    page = hook.game_page(get_spec(game))
    if game not in hook.RULEBOOK_SOURCES:
        assert game == "juicy_fruits_solo" and "this mode is ours" in page and "## Rules in brief" not in page
        return
    brief = page.split("## Rules in brief")[1].split("\n## ")[0]
    sections = hook.RULEBOOK_SECTIONS[game]
    _, url = hook.RULEBOOK_SOURCES[game]
    links = re.findall(r"\[\u201c([^\u201d]+)\u201d\]\(([^)]+)\)", brief)
    assert [name for name, _ in links] == sections
    for name, target in links:
        assert target.startswith(url + "#:~:text=") and unquote(target.split("#:~:text=")[1]) == name
