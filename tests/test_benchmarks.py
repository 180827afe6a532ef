"""The benchmark commands run on a tiny budget and write well-formed results."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest

from fruit_envs.benchmarks import throughput
from fruit_envs.core import record as frecord

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

PEERS_INSTALLED = all(importlib.util.find_spec(m) for m in ("pyspiel", "rlcard", "pygame"))


def test_throughput_writes_json_markdown_and_plot(tmp_path):
    results = throughput.benchmark(
        [
            "--games",
            "cherry_picking",
            "fruit_picking",
            "--players",
            "2",
            "--sizes",
            "1",
            "1024",
            "--seconds",
            "0.05",
            "--processes",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    data = json.loads((tmp_path / "throughput.json").read_text())
    apis = {(r["game"], r["api"], r["batch"]) for r in data["results"]}
    for game in ("cherry_picking", "fruit_picking"):
        assert {(game, "aec", 1), (game, "gym", 1), (game, "batched", 1), (game, "batched", 1024)} <= apis
        assert (game, "sharded", 1024) in apis and (game, "threaded", 1024) in apis
    for r in data["results"]:
        assert r["steps"] > 0 and r["steps_per_second"] > 0 and r["seconds"] > 0
        if r["api"] == "batched":
            assert r["state_bytes"] > 0 and r["games"] >= 0
    sharded = [m for m in results if m.api in ("sharded", "threaded")]
    assert all(m.processes == 2 for m in sharded)
    table = (tmp_path / "throughput.md").read_text()
    columns = "| N=1 | N=1024 | N=1024 on 2 threads | N=1024 x 2 processes |"
    assert "| game | players | AEC | AEC / connect_four | Gymnasium | Gymnasium / connect_four " + columns in table
    assert (tmp_path / "throughput.png").read_bytes()[:4] == b"\x89PNG"
    assert data["date"] and "cores" in data["machine"]


@pytest.mark.skipif(not PEERS_INSTALLED, reason="peers extra not installed")
def test_throughput_measures_every_peer_in_the_same_run(tmp_path):
    throughput.main(
        [
            "--games",
            "cherry_picking",
            "--players",
            "2",
            "--sizes",
            "64",
            "--seconds",
            "0.05",
            "--processes",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    data = json.loads((tmp_path / "throughput.json").read_text())
    peers = {r["game"] for r in data["results"] if r["api"] == "peer"}
    assert peers == {
        "pettingzoo:connect_four_v3",
        "pettingzoo:texas_holdem_v4",
        "openspiel:mancala",
        "openspiel:goofspiel",
    }
    assert data["notes"] == []
    # issue 33: our single-game rates as a ratio to connect_four measured in the same run
    table = (tmp_path / "throughput.md").read_text()
    assert "| game | players | AEC | AEC / connect_four | Gymnasium | Gymnasium / connect_four |" in table
    anchor = next(r["steps_per_second"] for r in data["results"] if r["game"] == "pettingzoo:connect_four_v3")
    aec = next(r["steps_per_second"] for r in data["results"] if r["api"] == "aec")
    assert f"| {aec:,.0f} | {aec / anchor:.2f}x |" in table


def test_a_missing_peer_is_skipped_with_a_note_never_faked(tmp_path, monkeypatch):
    def missing(seconds):
        raise ImportError("No module named 'pyspiel'")

    monkeypatch.setattr(throughput, "PEERS", [("openspiel:mancala", missing)])
    throughput.main(
        [
            "--games",
            "cherry_picking",
            "--players",
            "2",
            "--sizes",
            "1",
            "--seconds",
            "0.02",
            "--processes",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    data = json.loads((tmp_path / "throughput.json").read_text())
    assert not [r for r in data["results"] if r["api"] == "peer"]
    assert data["notes"] == [
        "openspiel:mancala skipped: No module named 'pyspiel' (install with pip install -e '.[peers]')"
    ]
    assert "openspiel:mancala skipped" in (tmp_path / "throughput.md").read_text()


def test_unknown_game_fails_before_measuring(tmp_path, capsys):
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        throughput.benchmark(["--games", "chess", "--out", str(tmp_path)])
    assert throughput.main(["--games", "chess", "--out", str(tmp_path)]) == 2
    assert "error: unknown game 'chess'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_readme_summary_and_performance_table_are_replaced_between_markers(tmp_path):
    results, notes, meta = throughput.load(RESULTS / "throughput.json")
    readme, page = tmp_path / "README.md", tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    for path in (readme, page):
        path.write_text("intro\n<!-- throughput:start -->\nold\n<!-- throughput:end -->\nrest\n")
    throughput.update_readme(results, notes, meta, readme)
    summary, table = throughput.summary(results, notes, meta), throughput.markdown(results, notes, meta)
    assert readme.read_text() == f"intro\n<!-- throughput:start -->\n{summary}<!-- throughput:end -->\nrest\n"
    assert page.read_text() == f"intro\n<!-- throughput:start -->\n{table}<!-- throughput:end -->\nrest\n"


def throughput_block(path) -> str:
    return re.search(r"<!-- throughput:start -->\n(.*?)<!-- throughput:end -->", path.read_text(), flags=re.S).group(1)


def test_throughput_tables_are_the_committed_results():
    """Issue 54: the README's 19-column table moved to the performance page; the landing page keeps a row per
    game. Both are drawn from benchmarks/results/throughput.json, as `--update-readme` drew them."""
    results, notes, meta = throughput.load(RESULTS / "throughput.json")
    table = throughput.markdown(results, notes, meta)
    assert table == (RESULTS / "throughput.md").read_text()
    assert throughput_block(ROOT / "docs" / "performance.md") == table
    summary = throughput_block(ROOT / "README.md")
    assert summary == throughput.summary(results, notes, meta)
    header = next(line for line in summary.splitlines() if line.startswith("| game |"))
    assert header.count("|") - 1 <= 6, f"the landing page's summary stays short: {header}"
    games = {m.game for m in results if m.api != "peer"}
    assert {line.split("|")[1].strip() for line in summary.splitlines() if line.startswith("| ")} - {"game"} == games


# --- tournaments ---------------------------------------------------------------------------------

from fruit_envs.benchmarks import tournament  # noqa: E402


def test_seatings_cover_every_ordering():
    assert tournament.seatings(3, 2).tolist() == [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    four_two = tournament.seatings(2, 4)
    assert len(four_two) == 14 and all({0, 1} <= set(row) for row in four_two.tolist())


def test_field_seatings_put_each_agent_alone_in_every_seat():
    assert tournament.field_seatings(3, 3, field=2).tolist() == [
        [0, 2, 2],
        [2, 0, 2],
        [2, 2, 0],
        [1, 2, 2],
        [2, 1, 2],
        [2, 2, 1],
    ]


def test_a_tournament_against_a_field(tmp_path):
    """Issue 31's measure: the baseline alone in one seat, greedy in every other, seats rotated."""
    out = tmp_path / "f"
    data = tournament.run("fruit_picking", ["random", "greedy"], 3, 8, 0, out, progress=False, field="greedy")
    assert data["field"] == "greedy" and data["total_games"] == 3 * 8
    random_vs_field = next(p for p in data["pairwise"] if p["agent"] == "random")
    assert random_vs_field["games"] == 24 and data["agents"]["random"]["games"] == 24
    assert "alone in one seat (every seat in turn) against greedy" in (out / "summary.md").read_text()
    with pytest.raises(ValueError, match=r"--field search must be one of the agents' labels"):
        tournament.run("fruit_picking", ["random", "greedy"], 3, 8, 0, None, progress=False, field="search")


def test_a_shared_win_counts_as_a_win_in_the_totals_and_a_draw_between_the_pair(tmp_path):
    """Two greedy players of Quickity Pickity tie now and then (both take a card, the rulebook's last
    tiebreak); the totals say how many of an agent's wins were shared, so that a reader can take them out."""
    out = tmp_path / "t"
    data = tournament.run("quickity_pickity", ["a=greedy", "b=greedy"], 2, 40, 0, out, progress=False)
    pair = next(p for p in data["pairwise"] if p["agent"] == "a")
    total = data["agents"]["a"]
    assert pair["draws"] > 0, "the seeds were chosen to hold shared wins"
    assert total["shared_wins"] == pair["draws"] and total["wins"] - total["shared_wins"] == pair["wins"]
    assert f"| a | 80 | 0 | {total['wins']} ({pair['draws']}) |" in (out / "summary.md").read_text()


def test_tournament_ratings_name_their_scale(tmp_path):
    """Issue 54: a tournament's Elo has its field's mean at 1500 (random near 1000), the benchmark's protocol
    rating has random at 0; every printed tournament rating says which scale it is on."""
    two = tournament.run("cherry_picking", ["random", "greedy"], 2, 4, 0, tmp_path / "two", progress=False)
    assert two["rating_scale"] == "Elo, field mean 1500"
    assert sum(two["ratings"].values()) / 2 == pytest.approx(1500), "the scale is what it says"
    assert json.loads((tmp_path / "two" / "results.json").read_text())["rating_scale"] == two["rating_scale"]
    summary = (tmp_path / "two" / "summary.md").read_text()
    assert "| rating (Elo, field mean 1500) |" in summary and "not the benchmark's protocol rating" in summary
    three = tournament.run("cherry_picking", ["random", "greedy"], 3, 2, 0, None, progress=False)
    assert "| rating (OpenSkill ordinal, mu - 3 sigma, start 0) |" in tournament.markdown(three)
    assert "field mean 1500" in (ROOT / "docs" / "tournaments.md").read_text()


@pytest.mark.parametrize("game, players", [("cherry_picking", 2), ("fruit_picking", 3)])
def test_tournament_writes_results(game, players, tmp_path, capsys):
    out = tmp_path / "t"
    code = tournament.main(
        [
            "--game",
            game,
            "--num-players",
            str(players),
            "--agents",
            "random",
            "greedy",
            "--games",
            "12",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    data = json.loads((out / "results.json").read_text())
    assert data["total_games"] == data["seatings"] * 12 and set(data["agents"]) == {"random", "greedy"}
    greedy_vs_random = next(p for p in data["pairwise"] if p["agent"] == "greedy" and p["opponent"] == "random")
    random_vs_greedy = next(p for p in data["pairwise"] if p["agent"] == "random" and p["opponent"] == "greedy")
    assert greedy_vs_random["wins"] == random_vs_greedy["losses"] and greedy_vs_random["games"] == data["total_games"]
    assert greedy_vs_random["win_rate_low"] <= greedy_vs_random["win_rate"] <= greedy_vs_random["win_rate_high"]
    ratings = data["ratings"]
    if players == 2:
        assert ratings["greedy"] > ratings["random"], "Bradley-Terry (Elo scale)"
    else:
        assert ratings["greedy"]["ordinal"] > ratings["random"]["ordinal"], "OpenSkill"
    rows = list(csv.DictReader((out / "pairwise.csv").open()))
    assert len(rows) == 2 and rows[0].keys() >= {"agent", "opponent", "wins", "draws", "losses", "win_rate_low"}
    assert "| agent \\ opponent |" in (out / "summary.md").read_text()
    assert (out / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    assert "results in" in capsys.readouterr().out


def test_tournament_is_reproducible(tmp_path):
    a = tournament.run("cherry_picking", ["random", "greedy"], 2, 10, 3, None, progress=False)
    b = tournament.run("cherry_picking", ["random", "greedy"], 2, 10, 3, None, progress=False)
    assert a["pairwise"] == b["pairwise"]


@pytest.mark.parametrize(
    "agents, message",
    [
        (["random", "alphazero"], "unknown agent 'alphazero'"),
        (["random", "ppo:/no/such/model.zip"], "no PPO model at"),
        (["random", "ppo-sample:/no/such/model.zip"], "no PPO model at"),
        (["random"], "at least two agents"),
        (["a=random", "a=greedy"], "distinct"),
    ],
)
def test_bad_agents_fail_before_any_game(agents, message, tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr(tournament, "play_games", lambda *a, **k: played.append(1))
    code = tournament.main(
        ["--game", "cherry_picking", "--agents", *agents, "--out", str(tmp_path / "t"), "--no-progress"]
    )
    assert code == 2 and message in capsys.readouterr().err
    assert not played and not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--games", "0"], "must be a positive integer"),
        (["--seed", "-1"], "must be an integer >= 0"),
        (["--num-players", "0"], "must be a positive integer"),
    ],
)
def test_bad_tournament_numbers_stop_before_any_game(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        tournament.main(["--game", "cherry_picking", "--agents", "random", "greedy", *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_tournament_paths_are_checked_before_any_game(tmp_path, capsys, monkeypatch):
    played = []
    monkeypatch.setattr(tournament, "play_games", lambda *a, **k: played.append(1))
    (tmp_path / "file").write_text("")
    for argv, message in (
        (["--record", str(tmp_path)], "is a folder"),
        (["--out", str(tmp_path / "file")], "is a file"),
    ):
        with pytest.raises(SystemExit):
            tournament.main(["--game", "cherry_picking", "--agents", "random", "greedy", *argv])
        assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="games per seating must be a positive integer"):
        tournament.run("cherry_picking", ["random", "greedy"], None, 0, 0, None, progress=False)
    assert not played


@pytest.mark.parametrize(
    "argv, message",
    [(["--seconds", "0"], "must be a positive number"), (["--sizes", "0"], "must be a positive integer")],
)
def test_bad_throughput_numbers_stop_before_measuring(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        throughput.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_throughput_refuses_player_counts_no_game_has(tmp_path, capsys):
    assert throughput.main(["--games", "cherry_picking", "--players", "9", "--out", str(tmp_path)]) == 2
    assert "none of the games ['cherry_picking'] is played by 9 players" in capsys.readouterr().err


def test_labelled_agents(tmp_path):
    summary = tournament.run("cherry_picking", ["rnd=random", "grd=greedy"], 2, 6, 0, None, progress=False)
    assert set(summary["agents"]) == {"rnd", "grd"}


def test_random_legal_picks_each_legal_action_uniformly():
    """The benchmarks' random player: only legal actions, each about equally often."""
    import numpy as np

    from fruit_envs.benchmarks.throughput import random_legal

    mask = np.zeros((60000, 7), dtype=bool)
    mask[:, [1, 3, 4]] = True
    mask[::2, 6] = True  # half the rows have a fourth legal action
    picks = random_legal(mask, np.random.default_rng(0))
    assert mask[np.arange(len(mask)), picks].all()
    odd = np.bincount(picks[1::2], minlength=7)[[1, 3, 4]] / len(picks[1::2])
    even = np.bincount(picks[::2], minlength=7)[[1, 3, 4, 6]] / len(picks[::2])
    np.testing.assert_allclose(odd, 1 / 3, atol=0.01)
    np.testing.assert_allclose(even, 1 / 4, atol=0.01)


def test_decisions_compares_an_agent_with_a_reference_on_the_positions_it_meets(capsys):
    """Issue 31: what greedy does that a policy does not, per phase. Greedy against itself agrees everywhere
    (ties are broken by each one's own random stream, so nearly everywhere); random against greedy rarely."""
    from fruit_envs.benchmarks import decisions

    same = decisions.compare("cherry_picking", 2, "greedy", "greedy", None, 20, seed=3)
    assert same["games"] == 20 and same["wins"] + same["draws"] + same["losses"] + same["truncated"] == 20
    assert set(same["by_phase"]) <= {"commit", "choose"} and same["agreement"] > 0.9
    assert sum(p["decisions"] for p in same["by_phase"].values()) == same["decisions"] > 0
    other = decisions.compare("cherry_picking", 2, "random", "greedy", None, 20, seed=3)
    assert other["agreement"] < same["agreement"] and other["top_disagreements"]
    assert decisions.main(["--game", "juicy_fruits_solo"]) == 2
    assert "one player has no opponents" in capsys.readouterr().err


def test_decisions_hands_chosen_kinds_of_decision_to_the_reference(capsys):
    """Issue 31, which decisions win: with `reference_decides`, the reference's choice is played wherever the
    agent's is of those kinds. Random handing every card play to greedy plays greedy's cards and wins far more
    than random alone; handing a kind it never chooses changes nothing; an unknown kind is refused."""
    from fruit_envs.benchmarks import decisions

    alone = decisions.compare("cherry_picking", 2, "random", "greedy", None, 40, seed=3)
    hybrid = decisions.compare("cherry_picking", 2, "random", "greedy", None, 40, 3, ("play", "harvest"))
    assert alone["handed_to_reference"] == 0 and hybrid["reference_decides"] == ["play", "harvest"]
    assert 0 < hybrid["handed_to_reference"] <= hybrid["decisions"]
    assert hybrid["wins"] > alone["wins"] + 5
    idle = decisions.compare("cherry_picking", 2, "random", "greedy", None, 40, 3, ("wait",))
    assert idle["handed_to_reference"] == 0 and (idle["wins"], idle["losses"]) == (alone["wins"], alone["losses"])
    assert decisions.main(["--game", "cherry_picking", "--reference-decides", "fly"]) == 2
    err = capsys.readouterr().err
    assert "no actions of kind ['fly']" in err and "harvest" in err


def test_cold_start_times_a_new_installation_and_a_cached_one(tmp_path, capsys):
    """Issue 33: the first env of a game, timed in new processes from an empty numba cache and from the cache
    the first one wrote (figures only: how long is the machine's business, not a test's)."""
    from fruit_envs.benchmarks import cold_start

    out = tmp_path / "cold.json"
    assert cold_start.main(["--game", "cherry_picking", "--repeats", "1", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["game"] == "cherry_picking" and len(row["cold_s"]) == len(row["warm_s"]) == 1
    assert all(s > 0 for s in row["cold_s"] + row["warm_s"] + row["cold_compiled_s"])
    assert row["cold_tier"] == [["interpreted"]] and row["warm_tier"] == [["compiled"]]
    assert row["cold_compiled_s"][0] > row["cold_s"][0]
    assert "| cherry_picking |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cold_start.main(["--repeats", "0"])
    assert "--repeats must be a positive integer" in capsys.readouterr().err


FAULTY_AGENTS = """
import numpy as np


class Illegal:
    def act(self, obs, mask, rng):
        return np.argmin(mask, axis=1)


class Flaky:
    def __init__(self):
        self.calls = 0

    def act(self, obs, mask, rng):
        self.calls += 1
        if self.calls == 3:
            raise KeyError("lost its table")
        return np.argmax(mask, axis=1)


def illegal(spec, config):
    return Illegal()


def flaky(spec, config):
    return Flaky()
"""


@pytest.mark.parametrize(
    "factory, workers, problem",
    [("illegal", 1, r"chose action \d+, which is not legal there"), ("flaky", 2, "raised KeyError: 'lost its table'")],
)
def test_a_faulty_agent_stops_a_tournament_by_name_with_its_game_saved(tmp_path, capsys, factory, workers, problem):
    """A tournament reports a faulty agent as the benchmark does: its label, game, seat, step and legal actions in
    one line (from a worker process too, no remote traceback), exit 1, and the game saved as a replayable record."""
    module = tmp_path / f"faulty_{factory}.py"
    module.write_text(FAULTY_AGENTS)
    out = tmp_path / "t"
    argv = ["--game", "fruit_picking", "--agents", f"bad={module}:{factory}", "greedy", "--games", "2",
            "--workers", str(workers), "--no-progress", "--out", str(out)]  # fmt: skip
    assert tournament.main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("error: agent 'bad'")
    assert re.search(rf"agent 'bad' in seat \d of game \d+ \(fruit_picking, 2 players\) at step \d+ {problem} "
                     r"\(legal actions: \[", err)  # fmt: skip
    assert f"saved in {out / 'failure.jsonl'}" in err
    (saved,) = frecord.read_records(out / "failure.jsonl")
    assert saved.outcome is None and "bad" in saved.players and frecord.replay(saved).outcome is None
    assert (out / "failure_traceback.txt").is_file() == (factory == "flaky")
