"""Every Python snippet in the README runs as written (the site's pages: tests/test_docs_pages.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import game_ids

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_opens_with_the_two_commands():
    first_block = re.search(r"```bash\n(.*?)```", README.read_text(), flags=re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line.strip()]
    assert commands == ["./dev main", "./dev test"]
    ci = [line.strip() for line in (README.parent / ".ci" / "run").read_text().splitlines()]
    assert ci[ci.index("set -euo pipefail") + 2 :] == ["./dev test", "exec ./dev test-agilerl"]


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 2  # the short tour: one AEC and one Gymnasium snippet; the rest moved to docs/


# Libraries a snippet may use that the test environment may lack: the snippet skips, naming why.
OPTIONAL = {
    "torchrl": "the clients extra",
    "tianshou": "the clients extra",
    "supersuit": "the clients extra",
    "agilerl": "AgileRL in its own environment: ./dev test-agilerl runs this snippet (docs/tutorials/agilerl.md)",
}


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index, tmp_path, monkeypatch):
    for name in re.findall(r"^(?:from|import) (\w+)", SNIPPETS[index], flags=re.M):
        if name in OPTIONAL:
            pytest.importorskip(name, reason=f"README snippet {index} needs {name}: install {OPTIONAL[name]}")
    monkeypatch.chdir(tmp_path)
    exec(compile(SNIPPETS[index], f"README snippet {index}", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("game", game_ids())
def test_readme_shows_a_picture_of_every_game(game):
    """A committed, small picture per game (python -m fruit_envs.pictures redraws them)."""
    picture = README.parent / "docs" / "pictures" / f"{game}.png"
    assert picture.is_file(), f"no {picture.relative_to(README.parent)}: run python -m fruit_envs.pictures"
    assert picture.stat().st_size < 200_000, "README pictures stay small"
    assert f"](docs/pictures/{game}.png)" in README.read_text(), f"the README does not show {game}.png"


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub and the site give a Markdown page's headings (and its explicit `{ #id }` ones)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    anchors = set(re.findall(r"\{ #([\w-]+) \}", text))
    for heading in re.findall(r"^#+ (.*)$", text, flags=re.M):
        words = re.sub(r"[^\w\- ]", "", re.sub(r"\{.*?\}", "", heading).strip().lower())
        anchors.add(words.replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("name", ["README.md", "CHANGELOG.md"])
def test_every_local_link_resolves(name):
    """Each link of the README and the changelog to a file of this repository names one that exists, and a
    `#section` of a Markdown page names one of its headings (the site checks its own pages' links)."""
    page = README.parent / name
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    links = [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", target)]
    assert links or name == "CHANGELOG.md"
    for target in links:
        path, _, anchor = target.partition("#")
        linked = README.parent / path if path else page
        assert linked.exists(), f"{name} links to {target}, which does not exist"
        if anchor and linked.suffix == ".md":
            assert anchor in heading_anchors(linked), f"{name} links to {target}: {path or name} has no such section"
