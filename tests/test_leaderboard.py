"""The leaderboard in the repository: every card in leaderboard/protocol_v1/ verifies (its games replayed through
the rules), entries whose policy ships or is stored as data play sampled cells again, the references' cards give
protocol v1's published numbers, and the table (Markdown, JSON, the site's page) ranks entries with one
deterministic joint rating, keyed by folder, escaping everything an entry says and marking what is claimed. No
pickle in an entry's folder is ever loaded."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import leaderboard as lb
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.verify import verify_card

ROOT = Path(__file__).resolve().parents[1]
# Another leaderboard folder (a submission's copy of this one) may be checked by these same tests.
FOLDER = Path(os.environ.get("FRUIT_ENVS_LEADERBOARD") or ROOT / "leaderboard" / "protocol_v1")
CARDS = sorted(FOLDER.glob("*/card.json"))
REFERENCES = ("random", "greedy", "ppo-baseline", "search")
MAIN_JOB = "main-job-cherry-picking-2p"


@pytest.fixture(scope="module")
def listed():
    """The repository's entries, each verified (its games replayed through the rules), once for the module."""
    return lb.leaderboard_entries(FOLDER)


def test_the_leaderboard_holds_the_references_and_a_trained_policy_as_data():
    names = {path.parent.name for path in CARDS}
    assert set(REFERENCES) <= names
    assert not list(FOLDER.glob("*/*.zip"))  # no pickle in any entry
    assert all((path.parent / "games.npz").is_file() for path in CARDS)
    trained = [(p.parent, rc.load_card(p)) for p in CARDS if p.parent.name not in REFERENCES]
    assert any(
        c["policy"]["kind"] == "model" and rc.file_sha256(folder / "model.json") == c["policy"]["sha256"]
        for folder, c in trained
    )


def test_every_card_verifies_its_games_through_the_rules(listed):
    """Every card's numbers from its games and every game from the rules, its seats' moves checked where their
    agents draw nothing but ties; the rules' digests are those of the installed rules."""
    for item in listed:
        card = item["card"]
        assert card["status"] == "complete" and (card["conforms"] or item["folder"] not in REFERENCES)
        assert item["problems"] == [], item["folder"]
        # privileged follows from the policy's kind where the card builds it; a factory's card only claims it
        assert item["privileged_checked"] or not _rebuildable(FOLDER / item["folder"] / rc.CARD_FILE), item["folder"]
        for game, digest in card["rules_sha256"].items():
            assert rc.rules_digest(game) == digest, (item["folder"], game)


@pytest.mark.slow
@pytest.mark.parametrize("path", CARDS, ids=[p.parent.name for p in CARDS])
def test_every_card_verifies_as_the_command_does(path):
    assert verify_card(path)["problems"] == []


def _rebuildable(path: Path) -> bool:
    """Whether a card's own words and folder build its policy (a shipped agent, a reference, a model.json of its
    hash); a factory's entry is checked through the rules only (its code is not in the folder: data only)."""
    from fruit_envs.benchmarks.benchmark.card_policy import card_source
    from fruit_envs.benchmarks.benchmark.protocol import load_protocol

    return card_source(rc.load_card(path), path.parent, load_protocol(1)) is not None


REBUILDABLE = [path for path in CARDS if _rebuildable(path)]


@pytest.mark.parametrize("path", REBUILDABLE, ids=[p.parent.name for p in REBUILDABLE])
def test_entries_whose_policy_can_be_rebuilt_replay_a_sample_of_their_games(path):
    """Shipped agents and references by name, a model.json by the card's hash in its folder; each drawn game's
    cell is played again whole and every game of it compared. Search's cells cost the most, so one game."""
    card = rc.load_card(path)
    result = verify_card(path, sample=1 if card["policy"]["privileged"] else 2, seed=3)
    assert result["problems"] == [] and result["replayed"] and all(not r["differ"] for r in result["replayed"])


@pytest.mark.parametrize("name", REFERENCES)
def test_the_references_cards_give_protocol_v1s_published_numbers(name):
    """The leaderboard's reference cards were played under protocol v1 as the published report cards were:
    the same cells, the same numbers (so protocol v1's cards stay as they are)."""
    card = rc.load_card(FOLDER / name)
    published = json.loads((ROOT / "benchmarks" / "results" / "benchmark" / name / "report.json").read_text())
    assert card["policy"]["label"] == f"reference:{name}"
    assert [c["id"] for c in card["cells"]] == [
        rc.cell_id(c["game"], c["players"], c["reference"]) for c in published["cells"]
    ]
    for cell, want in zip(card["cells"], published["cells"], strict=True):
        for key, value in cell["numbers"].items():
            assert value == (None if want[key] is None else pytest.approx(want[key], rel=1e-12)), (cell["id"], key)


def test_the_table_ranks_entries_deterministically_with_privileged_ones_apart(listed, capsys, monkeypatch):
    data = lb.leaderboard_table(listed)
    assert lb.leaderboard_table(list(reversed(listed))) == data  # the same cards, the same table
    assert all(row["verified"] for row in data["entries"])
    sections = [bm.SECTIONS.index(row["section"]) for row in data["entries"]]
    assert sections == sorted(sections) and set(sections) == {0, 1, 2}  # search and the partial entry apart
    plain = [row["aggregate"] for row in data["entries"] if row["section"] == "seat"]
    assert plain == sorted(plain, reverse=True)
    assert data["references"]["random"]["rating"] == 0.0
    ratings = {row["entry"]: row["joint_rating"] for row in data["entries"]}
    assert all(r["low"] <= r["rating"] <= r["high"] for r in ratings.values())
    by_policy = {row["policy"]: row["joint_rating"]["rating"] for row in data["entries"]}
    assert by_policy["reference:random"] < by_policy["reference:greedy"] < by_policy["reference:ppo-baseline"]
    text = lb.leaderboard_markdown(data)
    assert "| date (claimed) | compute (claimed) | code (claimed) |" in text
    assert text.count("**Joint rating**") == 1 and "random *reference* pinned at 0" in text  # explained once
    assert ("(privileged" in text) == (not all(item["privileged_checked"] for item in listed))  # claimed: said so
    assert text.index("### Policies that see only their seat") < text.index("### Privileged: reads the true state")
    assert text.index("### Privileged") > text.index("reference:ppo-baseline") and "### Partial entries" in text
    monkeypatch.setattr(lb, "leaderboard_entries", lambda folder: listed)  # verified once, in the fixture
    assert bm.main(["leaderboard", str(FOLDER), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(data))


def test_a_tampered_or_malformed_card_in_the_folder_shows(tmp_path, capsys):
    folder = tmp_path / "board"
    shutil.copytree(FOLDER / MAIN_JOB, folder / "main")
    shutil.copytree(FOLDER / MAIN_JOB, folder / "tampered")
    card = json.loads((folder / "tampered" / "card.json").read_text())
    card["cells"][0]["numbers"]["wins"] -= 1
    (folder / "tampered" / "card.json").write_text(rc.card_text(card))
    assert bm.main(["leaderboard", str(folder)]) == 1
    assert "**no**: 1 differences" in capsys.readouterr().out
    (folder / "broken").mkdir()
    (folder / "broken" / "card.json").write_text("{")
    assert bm.main(["leaderboard", str(folder)]) == 2
    assert "broken/card.json is not a result card" in capsys.readouterr().err
    assert bm.main(["leaderboard", str(tmp_path / "none")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_joint_fit_orders_entries_by_their_games_against_shared_references():
    """Two entries that played the same references: the one that won more is rated higher, and the fit over the
    pooled games is the same whichever order the cards come in."""

    def card(name: str, share: float) -> dict:
        n, half = 40, 20
        w = int(share * half)  # the policy sits in seat 0 for the first half of a cell's games, then in seat 1
        winners = ["10"] * w + ["01"] * (half - w) + ["01"] * w + ["10"] * (half - w)
        cell = {"players": 2, "scores": [[1, 0]] * n, "winners": winners, "truncated": []}
        cells = [{**cell, "reference": ref} for ref in ("random", "greedy")]
        return {"name": name, "folder": name, "card": {"cells": cells}}

    strong, weak = card("strong", 0.8), card("weak", 0.4)
    one, other = lb.joint_ratings([strong, weak]), lb.joint_ratings([weak, strong])
    assert one == other and one["entry:strong"]["rating"] > one["entry:weak"]["rating"]
    assert one["ref:random"]["rating"] == 0.0 and np.isfinite(one["ref:greedy"]["rating"])


def _pages():
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("docs_pages_hook", ROOT / "docs" / "hooks" / "pages.py")
    pages = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, pages)
    spec.loader.exec_module(pages)  # the docs' own hook, as mkdocs loads it
    return pages


def test_the_site_has_the_leaderboard_page(listed, monkeypatch):
    monkeypatch.setattr(lb, "leaderboard_entries", lambda folder: listed)  # verified once, in the fixture
    page = _pages().leaderboard_page()
    assert page.startswith("# Leaderboard: protocol v1") and "reference:search" in page and " | yes |" in page


@pytest.mark.parametrize("name", ("random", "greedy", "ppo-baseline"))
def test_the_references_cards_carry_their_exploitability_bounds_at_two_players(name, listed):
    """Issue 60: the references' cards hold their local best response's bounds (two players, every game), and the
    leaderboard shows them; random play is exploitable in every game, and the bound says so at 95%."""
    bound = rc.load_card(FOLDER / name)["exploitability"]
    assert bound["method"] == "lbr" and bound["budget"]["particles"] >= 1 and bound["budget"]["filter_size"] >= 1
    games = ("cherry_picking", "fruit_picking", "quickity_pickity", "juicy_fruits")
    assert sorted((g["game"], g["players"]) for g in bound["groups"]) == sorted((g, 2) for g in games)
    for group in bound["groups"]:
        assert [s["seat"] for s in group["seats"]] == [0, 1]
        assert group["sum"] == pytest.approx(sum(s["gain"] for s in group["seats"]))
        assert group["sum_low"] <= group["sum"] <= group["sum_high"]
        if name == "random":
            assert group["sum_low"] > 0, group
    data = lb.leaderboard_table(listed)
    (row,) = [r for r in data["entries"] if r["entry"] == name]
    assert set(row["exploitability"]["groups"]) == {f"{g}:2" for g in games} and "exploitability" in row["claimed"]
    text = lb.leaderboard_markdown(data)
    assert "### Exploitability bounds (claimed)" in text and f"| {name} | lbr (particles " in text


class _Marker:
    """Unpickling this writes a file."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _board(tmp_path: Path, entries: dict[str, dict]) -> Path:
    """A leaderboard folder of copies of the main job's entry, each with its own entry.json."""
    board = tmp_path / "board"
    for folder, extra in entries.items():
        shutil.copytree(FOLDER / MAIN_JOB, board / folder)
        (board / folder / "entry.json").write_text(json.dumps(extra))
    return board


def test_no_pickle_in_an_entry_folder_is_ever_loaded(tmp_path):
    """A model.zip whose unpickling writes a marker, beside a card that names it by path and hash: the leaderboard
    and every replay the suite makes of an entry leave it alone (the entry's model.json is what plays)."""
    marker = tmp_path / "unpickled"
    board = _board(tmp_path, {"planted": {"name": "planted"}})
    zipped = board / "planted" / "model.zip"
    zipped.write_bytes(pickle.dumps(_Marker(marker)))
    card = json.loads((board / "planted" / "card.json").read_text())
    card["policy"].update(label=str(zipped), sha256=rc.file_sha256(zipped))
    (board / "planted" / "card.json").write_text(rc.card_text(card))
    (board / "planted" / "model.json").unlink()
    listed = lb.leaderboard_entries(board)
    assert listed[0]["problems"] == [] and not listed[0]["privileged_checked"]
    with pytest.raises(bm.BenchmarkError, match="give it with --policy"):
        verify_card(board / "planted", sample=1, seed=3)
    assert not marker.exists()


class _Tags(HTMLParser):
    """Every element of a page with its attributes."""

    def __init__(self):
        super().__init__()
        self.seen: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, attrs))


def test_every_word_of_an_entry_is_escaped_on_the_page(tmp_path):
    """An entry's name, code and a card's policy label are data: on the site's page (Markdown with the site's
    extensions, attribute lists included) they are text, never markup."""
    import markdown

    hostile = '<script>alert(1)</script>{: onclick="alert(2)" } [x](javascript:alert(3)) | `'
    board = _board(
        tmp_path,
        {
            "a": {"name": hostile, "code": 'https://example.org/x" onmouseover="alert(4)'},
            "b": {"name": "b", "code": "javascript:alert(5)"},
        },
    )
    card = json.loads((board / "b" / "card.json").read_text())
    card["policy"]["label"] = "<img src=x onerror=alert(6)>"
    (board / "b" / "card.json").write_text(rc.card_text(card))
    page = _pages().leaderboard_page(board)
    html = markdown.markdown(page, extensions=["tables", "attr_list"])
    tags = _Tags()
    tags.feed(html)
    assert not {"script", "img"} & {tag for tag, _ in tags.seen}
    assert not [(tag, attrs) for tag, attrs in tags.seen if any(name.startswith("on") for name, _ in attrs)]
    assert not [value for _, attrs in tags.seen for name, value in attrs if name == "href" and ":" in value and not (
        value.startswith("https://") or value.startswith("http://"))]  # fmt: skip
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "javascript:alert(5)" in html  # shown as text
    rows = [line for line in page.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert all(line.count(" | ") == 5 for line in rows), rows  # no cell split by an entry's "|"


def test_two_entries_of_the_same_name_stay_two_players(tmp_path):
    board = _board(tmp_path, {"one": {"name": "same"}, "two": {"name": "same"}})
    data = lb.leaderboard_table(lb.leaderboard_entries(board))
    players = [name for name in lb.joint_ratings(lb.leaderboard_entries(board)) if name.startswith("entry:")]
    assert sorted(players) == ["entry:one", "entry:two"]
    assert [r["joint_rating"] is not None for r in data["entries"]] == [True, True]
