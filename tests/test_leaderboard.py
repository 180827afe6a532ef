"""The leaderboard in the repository (issue 59): every card in leaderboard/protocol_v1/ verifies, shipped
entries replay a sample of their games, the references' cards give protocol v1's published numbers, and the
table (Markdown, JSON, the site's page) ranks entries with one deterministic joint rating."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import leaderboard as lb
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.verify import verify_card

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "leaderboard" / "protocol_v1"
CARDS = sorted(FOLDER.glob("*/card.json"))
REFERENCES = ("random", "greedy", "ppo-baseline", "search")


def test_the_leaderboard_holds_the_references_and_a_trained_policy_that_does_not_ship():
    names = {path.parent.name for path in CARDS}
    assert set(REFERENCES) <= names
    trained = [(p.parent, rc.load_card(p)) for p in CARDS if p.parent.name not in REFERENCES]
    assert any(c["policy"]["kind"] == "model" and list(folder.glob("*.zip")) for folder, c in trained)


@pytest.mark.parametrize("path", CARDS, ids=[p.parent.name for p in CARDS])
def test_every_card_verifies_against_the_protocol_and_the_installed_rules(path):
    card = rc.load_card(path)
    assert card["status"] == "complete" and (card["conforms"] or path.parent.name not in REFERENCES)
    assert verify_card(path)["problems"] == []


@pytest.mark.parametrize("path", CARDS, ids=[p.parent.name for p in CARDS])
def test_entries_whose_policy_can_be_rebuilt_replay_a_sample_of_their_games(path):
    """Shipped agents by name, models by the hash of a file beside the card; search's cells cost the most, so
    one game each (the whole cell is played again)."""
    card = rc.load_card(path)
    result = verify_card(path, sample=1 if card["policy"]["privileged"] else 2, seed=3)
    assert result["problems"] == [] and result["replayed"] and all(r["same"] for r in result["replayed"])


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


def test_the_table_ranks_entries_deterministically_with_privileged_ones_apart(capsys):
    listed = lb.leaderboard_entries(FOLDER)
    data = lb.leaderboard_table(listed)
    assert lb.leaderboard_table(lb.leaderboard_entries(FOLDER)) == data  # the same cards, the same table
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
    assert text.index("### Policies that see only their seat") < text.index("### Privileged: reads the true state")
    assert text.index("### Privileged") > text.index("reference:ppo-baseline") and "### Partial entries" in text
    assert bm.main(["leaderboard", str(FOLDER), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(data))


def test_a_tampered_or_malformed_card_in_the_folder_shows(tmp_path, capsys):
    folder = tmp_path / "board"
    shutil.copytree(FOLDER / "greedy", folder / "greedy")
    shutil.copytree(FOLDER / "random", folder / "random")
    card = json.loads((folder / "greedy" / "card.json").read_text())
    card["cells"][0]["numbers"]["wins"] -= 1
    (folder / "greedy" / "card.json").write_text(rc.card_text(card))
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
        return {"name": name, "card": {"cells": cells}}

    strong, weak = card("strong", 0.8), card("weak", 0.4)
    one, other = lb.joint_ratings([strong, weak]), lb.joint_ratings([weak, strong])
    assert one == other and one["entry:strong"]["rating"] > one["entry:weak"]["rating"]
    assert one["ref:random"]["rating"] == 0.0 and np.isfinite(one["ref:greedy"]["rating"])


def test_the_site_has_the_leaderboard_page():
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("docs_pages_hook", ROOT / "docs" / "hooks" / "pages.py")
    pages = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, pages)
    spec.loader.exec_module(pages)  # the docs' own hook, as mkdocs loads it
    page = pages.leaderboard_page()
    assert page.startswith("# Leaderboard: protocol v1") and "reference:search" in page and " | yes |" in page


@pytest.mark.parametrize("name", ("random", "greedy", "ppo-baseline"))
def test_the_references_cards_carry_their_exploitability_bounds_at_two_players(name):
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
    data = lb.leaderboard_table(lb.leaderboard_entries(FOLDER))
    (row,) = [r for r in data["entries"] if r["entry"] == name]
    assert set(row["exploitability"]["groups"]) == {f"{g}:2" for g in games}
    text = lb.leaderboard_markdown(data)
    assert "### Exploitability bounds" in text and f"| {name} | lbr (particles " in text
