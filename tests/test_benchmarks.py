"""The benchmark commands run on a tiny budget and write well-formed results."""

from __future__ import annotations

import importlib.util
import json

import pytest

from benchmarks import throughput

PEERS_INSTALLED = all(importlib.util.find_spec(m) for m in ("pyspiel", "rlcard", "pygame"))


def test_throughput_writes_json_markdown_and_plot(tmp_path):
    results = throughput.main(["--games", "cherry_picking", "fruit_picking", "--players", "2", "--sizes", "1", "1024",
                               "--seconds", "0.05", "--processes", "2", "--out", str(tmp_path)])  # fmt: skip
    data = json.loads((tmp_path / "throughput.json").read_text())
    apis = {(r["game"], r["api"], r["batch"]) for r in data["results"]}
    for game in ("cherry_picking", "fruit_picking"):
        assert {(game, "aec", 1), (game, "gym", 1), (game, "batched", 1), (game, "batched", 1024)} <= apis
        assert (game, "sharded", 1024) in apis
    for r in data["results"]:
        assert r["steps"] > 0 and r["steps_per_second"] > 0 and r["seconds"] > 0
        if r["api"] == "batched":
            assert r["state_bytes"] > 0 and r["games"] >= 0
    sharded = [m for m in results if m.api == "sharded"]
    assert all(m.processes == 2 for m in sharded)
    table = (tmp_path / "throughput.md").read_text()
    assert "| game | players | AEC | Gymnasium | N=1 | N=1024 | N=1024 x 2 processes |" in table
    assert (tmp_path / "throughput.png").read_bytes()[:4] == b"\x89PNG"
    assert data["date"] and "cores" in data["machine"]


@pytest.mark.skipif(not PEERS_INSTALLED, reason="peers extra not installed")
def test_throughput_measures_every_peer_in_the_same_run(tmp_path):
    throughput.main(["--games", "cherry_picking", "--players", "2", "--sizes", "64", "--seconds", "0.05",
                     "--processes", "1", "--out", str(tmp_path)])  # fmt: skip
    data = json.loads((tmp_path / "throughput.json").read_text())
    peers = {r["game"] for r in data["results"] if r["api"] == "peer"}
    assert peers == {"pettingzoo:connect_four_v3", "pettingzoo:texas_holdem_v4", "openspiel:mancala",
                     "openspiel:goofspiel"}  # fmt: skip
    assert data["notes"] == []


def test_a_missing_peer_is_skipped_with_a_note_never_faked(tmp_path, monkeypatch):
    def missing(seconds):
        raise ImportError("No module named 'pyspiel'")

    monkeypatch.setattr(throughput, "PEERS", [("openspiel:mancala", missing)])
    throughput.main(["--games", "cherry_picking", "--players", "2", "--sizes", "1", "--seconds", "0.02",
                     "--processes", "1", "--out", str(tmp_path)])  # fmt: skip
    data = json.loads((tmp_path / "throughput.json").read_text())
    assert not [r for r in data["results"] if r["api"] == "peer"]
    assert data["notes"] == [
        "openspiel:mancala skipped: No module named 'pyspiel' (install with pip install -e '.[peers]')"
    ]
    assert "openspiel:mancala skipped" in (tmp_path / "throughput.md").read_text()


def test_unknown_game_fails_before_measuring(tmp_path):
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        throughput.main(["--games", "chess", "--out", str(tmp_path)])
    assert not list(tmp_path.iterdir())


def test_readme_table_is_replaced_between_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- throughput:start -->\nold\n<!-- throughput:end -->\nrest\n")
    throughput.update_readme("| new |\n", readme)
    assert readme.read_text() == "intro\n<!-- throughput:start -->\n| new |\n<!-- throughput:end -->\nrest\n"
