"""Issue 32: the benchmark protocol (benchmarks/protocol_v1.yaml) and `fruit_envs.benchmark.evaluate`.

Every test plays a tiny slice (Cherry Picking with two players, a few games per cell, the cheap
references), so the whole file runs in seconds: each kind of POLICY argument, privileged marking,
determinism, the bad-input cases (the failing game saved as a replayable record, finished cells kept),
refusals before any game is played, the protocol's pins against the installed environments, the
ratings' arithmetic and the report files.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from fruit_envs import replay as freplay
from fruit_envs.agents import make_agent
from fruit_envs.agents.ppo import baseline_files
from fruit_envs.benchmark import BenchmarkError, PolicyError, evaluate, load_protocol
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.core import record as frecord
from fruit_envs.core.spec import get_spec, registered_games

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = ROOT / "benchmarks" / "protocol_v1.yaml"
GAME = "cherry_picking"
TINY = {"suite": "quick", "games": 4, "only": [f"{GAME}:2"], "references": ["random", "greedy"], "progress": False}


def numbers(report: dict) -> dict:
    """What must be identical run to run: every number but the clocks."""
    drop = {"seconds"}
    cells = [{k: v for k, v in c.items() if k not in drop} for c in report["cells"]]
    return {"cells": cells, "groups": report["groups"], "aggregate": report["aggregate"]}


class FirstLegal:
    """An observation-only policy with a batched act: the lowest legal action."""

    name = "first-legal"

    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1).astype(np.int64)


class Faulty:
    """Plays its first legal action until `fail` is set, then misbehaves in one of the ways of point 8."""

    name = "faulty"

    def __init__(self, how: str, fail: bool = True):
        self.how, self.fail = how, fail

    def act(self, obs, mask, rng):
        actions = np.argmax(mask, axis=1).astype(np.int64)
        if not self.fail:
            return actions
        if self.how == "illegal":
            return np.argmin(mask, axis=1).astype(np.int64)  # an action the mask forbids (every row has one)
        if self.how == "shape":
            return actions[:, None]
        if self.how == "float":
            return actions.astype(np.float64)
        if self.how == "range":
            return np.full(len(mask), mask.shape[1], dtype=np.int64)
        if self.how == "raise":
            raise RuntimeError("the policy broke")
        raise AssertionError(self.how)


@pytest.fixture
def cheap_protocol(tmp_path) -> Path:
    """Protocol v1 with the search reference at a tiny budget (rollouts=2, depth=2), for fast tests."""
    text = re.sub(r"search:rollouts=\d+,depth=\d+", "search:rollouts=2,depth=2", PROTOCOL.read_text())
    path = tmp_path / "protocol_cheap.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def no_games(monkeypatch):
    """Fails the test if any game is played."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was played before the refusal")

    for module in (bm.play, bm.best_response):  # the benchmark's modules that play games
        monkeypatch.setattr(module, "play_games", refuse)


# --- the protocol file ----------------------------------------------------------------------------


def test_protocol_pins_the_installed_environments_and_official_counts():
    protocol = load_protocol(1)
    installed = {spec.id: spec for spec in registered_games()}
    assert protocol.version == 1 and protocol.path == PROTOCOL
    assert set(protocol.environments) == set(installed), "every registered game is in the protocol"
    for game, version in protocol.environments.items():
        assert installed[game].version == version, f"protocol v1 pins {game}_v{version}"
        assert protocol.player_counts[game] == list(installed[game].official_player_counts)
    assert bm.check_environments(protocol) == protocol.environments
    assert list(protocol.references) == ["random", "greedy", "ppo-baseline", "search"]
    assert set(protocol.suites) == {"quick", "standard", "full"}
    assert protocol.suite_groups("quick") == [(g, 1 if g == "juicy_fruits_solo" else 2) for g in protocol.games()]
    standard = protocol.suite_groups("standard")
    assert standard == [(g, p) for g in protocol.games() for p in installed[g].official_player_counts]
    for game, by_game in protocol.references["search"].items():  # a fixed budget, written out in full
        agent = make_agent(by_game, game, get_spec(game).make_config(protocol.player_counts[game][0]))
        assert by_game == agent.options.label()
    for game, counts in protocol.anchors.items():
        for players, anchors in counts.items():
            assert players in protocol.player_counts[game]
            if players > 1:
                assert anchors["random"] == 0.0, "random is the zero of every rating scale"


def test_the_protocol_plays_the_baselines_it_was_calibrated_with():
    """A better baseline may ship later; protocol v1's `ppo-baseline` stays the one its anchors and cards were
    made with (`ppo-baseline@1`, kept in agents/baselines/protocol_v1/ when replaced)."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.ppo import BASELINES

    protocol = load_protocol(1)
    assert set(protocol.references["ppo-baseline"].values()) == {"ppo-baseline@1"}
    calibrated = json.loads((BASELINES / "protocol_v1" / "calibrated.json").read_text())["runs"]
    assert sorted(calibrated) == sorted(f"{g}_{p}p" for g, p in protocol.suite_groups("standard"))
    for game, players in protocol.suite_groups("standard"):
        spec = get_spec(game)
        agent = make_agent("ppo-baseline@1", spec, spec.make_config(players))
        assert agent.meta["run"] == calibrated[f"{game}_{players}p"], f"{game} {players}p: not the calibrated baseline"
    with pytest.raises(ValueError, match="ppo-baseline@N names benchmark protocol N"):
        make_agent("ppo-baseline@v1", "cherry_picking")


def test_every_group_of_every_suite_is_calibrated():
    """Every reference has an anchor at every official player count (every PPO baseline ships, issue 31)."""
    protocol = load_protocol(1)
    for game, players in protocol.suite_groups("standard"):
        anchors = protocol.anchor(game, players)
        assert baseline_files(get_spec(game), players)[0].is_file()
        for name, value in anchors.items():
            assert value is not None, f"{game} {players}p: no anchor for {name}"
        if players > 1:
            assert anchors["search"] > anchors["random"] == 0
            assert anchors["greedy"] > anchors["random"], f"{game} {players}p: greedy beats random"


def test_another_environment_version_is_refused_before_play(tmp_path, no_games):
    text = PROTOCOL.read_text().replace("  cherry_picking: 0", "  cherry_picking: 7")
    path = tmp_path / "protocol_v1_other.yaml"
    path.write_text(text)
    with pytest.raises(BenchmarkError, match=r"pins cherry_picking_v7, this fruit_envs .* has cherry_picking_v0"):
        evaluate("greedy", **{**TINY, "protocol": path})


# --- each kind of POLICY --------------------------------------------------------------------------


def test_policy_by_agent_name_writes_the_report_card(tmp_path):
    report = evaluate("greedy", out=tmp_path / "card", **TINY)
    assert report["status"] == "complete" and report["policy"] == {
        "label": "greedy",
        "kind": "name",
        "privileged": False,
    }
    assert [(c["game"], c["players"], c["reference"], c["games"]) for c in report["cells"]] == [
        (GAME, 2, "random", 4),
        (GAME, 2, "greedy", 4),
    ]
    cell = report["cells"][0]
    assert cell["finished"] + cell["truncated"] == 4 and cell["wins"] + cell["draws"] + cell["losses"] == 4
    assert cell["win_low"] <= cell["win_share"] <= cell["win_high"] and cell["mean_rank"] is None
    (group,) = report["groups"]
    assert group["rated_against"] == ["random", "greedy"] and group["rating_low"] <= group["rating"]
    assert group["rating"] <= group["rating_high"] and group["normalised"] is not None
    assert report["aggregate"]["groups"] == 1
    assert not report["conforms"] and len(report["deviations"]) == 3  # games, references, games filter

    files = sorted(p.name for p in (tmp_path / "card").iterdir())
    assert files == ["card.json", "games.npz", "report.json", "report.md", "report.png"]
    saved = json.loads((tmp_path / "card" / "report.json").read_text())
    assert (
        saved["protocol"] == 1 and saved["package"]["fruit_envs"] and saved["environments"][GAME] == "cherry_picking_v0"
    )
    assert saved["seed"] == load_protocol(1).seed and saved["wall_seconds"] >= 0 and saved["machine"]["cores"] >= 1
    assert saved["cells"] == json.loads(json.dumps(report["cells"]))
    md = (tmp_path / "card" / "report.md").read_text()
    assert md.startswith("# Benchmark of greedy") and "Protocol v1 (protocol_v1.yaml" in md
    assert "| random | 4 |" in md and "DOES NOT CONFORM" in md


def test_policy_by_model_path_plays_as_ppo():
    path = str(ROOT / "agents" / "baselines" / "cherry_picking_2p.zip")
    report = evaluate(path, **TINY)
    assert report["policy"]["kind"] == "model" and report["policy"]["label"] == path
    named = evaluate(f"ppo:{path}", **TINY)
    assert numbers(named) == numbers(report), "a model path is played as ppo:PATH"


def test_policy_as_an_object_with_batched_act():
    report = evaluate(FirstLegal(), **TINY)
    assert report["policy"] == {"label": "first-legal", "kind": "object", "privileged": False}
    assert len(report["cells"]) == 2


def test_policy_as_a_factory_gets_each_game_and_player_count():
    made = []

    def make(spec, config):
        made.append((spec.id, config.num_players))
        return make_agent("greedy", spec, config)

    report = evaluate(make, **{**TINY, "only": [f"{GAME}:2", "juicy_fruits_solo"]})
    assert made == [(GAME, 2), ("juicy_fruits_solo", 1)] and report["policy"]["kind"] == "factory"
    solo = report["cells"][-1]
    assert solo["game"] == "juicy_fruits_solo" and solo["reference"] is None and solo["mean_score"] > 0
    assert numbers(evaluate("greedy", **{**TINY, "only": [f"{GAME}:2", "juicy_fruits_solo"]})) == numbers(report)


def test_policy_by_import_path_on_the_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_policies.py").write_text(
        textwrap.dedent(
            """
            from fruit_envs.agents import make_agent

            def make(game_spec, config):
                return make_agent("greedy", game_spec, config)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ["my_policies:make", "--suite", "quick", "--games-per-cell", "4", "--games", f"{GAME}:2"]
    assert bm.main([*args, "--references", "random", "greedy", "--no-progress"]) == 0
    (out,) = (tmp_path / "results" / "benchmark").iterdir()
    assert out.name.startswith("my_policies_make_quick_")
    report = json.loads((out / "report.json").read_text())
    assert report["policy"] == {"label": "my_policies:make", "kind": "factory", "privileged": False}
    printed = capsys.readouterr().out
    assert "win share (95% CI)" in printed and "aggregate normalised score" in printed and "report in" in printed
    assert numbers(report) == json.loads(json.dumps(numbers(evaluate("greedy", **TINY))))


# --- privileged, determinism -----------------------------------------------------------------------


def test_a_policy_reading_the_true_state_is_marked_privileged(tmp_path, cheap_protocol):
    """Search (here the protocol's own reference search, `reference:search`) reads the true state."""
    report = evaluate("reference:search", out=tmp_path, protocol=cheap_protocol, **{**TINY, "games": 2})
    assert report["policy"] == {"label": "reference:search", "kind": "reference", "privileged": True}
    assert (
        "[privileged]" in (tmp_path / "report.md").read_text()
        and "Privileged policy" in (tmp_path / "report.md").read_text()
    )
    assert "PRIVILEGED" in bm.summary_table(report)
    assert json.loads((tmp_path / "report.json").read_text())["policy"]["privileged"] is True


def test_same_policy_same_protocol_same_numbers():
    first = evaluate("greedy", **{**TINY, "references": ["random", "greedy", "ppo-baseline"]})
    second = evaluate("greedy", **{**TINY, "references": ["random", "greedy", "ppo-baseline"]})
    assert numbers(first) == numbers(second)
    reseeded = evaluate("greedy", **{**TINY, "references": ["random", "greedy", "ppo-baseline"], "seed": 3})
    assert numbers(reseeded) != numbers(first), "the seed picks the deals"


def test_more_players_report_mean_rank():
    report = evaluate(FirstLegal(), **{**TINY, "suite": "standard", "games": 3, "only": [f"{GAME}:3"]})
    for cell in report["cells"]:
        assert cell["games"] == 3 and 1.0 <= cell["mean_rank"] <= 3.0


# --- bad input (point 8) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "how, problem",
    [
        ("illegal", r"chose action \d+, which is not legal here"),
        ("shape", r"returned a malformed batch of actions .*shape \(\d+, 1\)"),
        ("float", r"returned a malformed batch of actions .*dtype float64"),
        ("range", r"returned a malformed batch of actions .*is not an action"),
        ("raise", r"raised RuntimeError: the policy broke"),
    ],
)
def test_a_faulty_policy_stops_the_run_with_the_game_saved(tmp_path, monkeypatch, how, problem):
    policy = Faulty(how, fail=False)
    played = bm.play_cell

    def then_fail(*args, **kwargs):  # the first cell plays well, the second fails
        result = played(*args, **kwargs)
        policy.fail = True
        return result

    monkeypatch.setattr(bm.play, "play_cell", then_fail)  # where a cell (a unit of work) finds it
    with pytest.raises(PolicyError, match=problem) as raised:
        evaluate(policy, out=tmp_path, **TINY)
    message = str(raised.value)
    seed = load_protocol(1).seed
    assert f"in {GAME} with 2 players against greedy, seed {seed}" in message
    assert "seat " in message and "step " in message and "failure.jsonl" in message

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["status"] == "stopped" and report["error"] == message
    assert [c["reference"] for c in report["cells"]] == ["random"], "the finished cell is kept"
    md = (tmp_path / "report.md").read_text()
    assert "| random | 4 |" in md and "run STOPPED before the end" in md and "run conforms" not in md
    assert raised.value.report["cells"] == report["cells"]

    (record,) = frecord.read_records(tmp_path / "failure.jsonl")
    assert record.game == GAME and record.outcome is None and record.meta["source"] == "benchmark"
    assert record.players[record.meta["seat"]] == "faulty" and record.meta["reference"] == "greedy"
    replayed = frecord.replay(record)
    final = replayed.final
    assert int(final.step_count[0]) == record.meta["step"] == len(record.actions)
    assert int(final.to_move[0]) == record.meta["seat"], "the replay stops where the policy had to decide"
    if how == "illegal":
        assert not get_spec(GAME).rules.legal_mask(final)[0, record.meta["attempted"]]
    shown = io.StringIO()
    assert freplay.main([str(tmp_path / "failure.jsonl"), "--summary"], out=shown) == 0, (
        "python -m fruit_envs.replay reads it"
    )
    assert "not finished" in shown.getvalue()


def test_a_faulty_policy_on_the_command_line_exits_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "bad_policies.py").write_text(
        "import numpy as np\nclass Bad:\n    def act(self, obs, mask, rng):\n        return np.argmin(mask, axis=1)\nagent = Bad()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    args = ["bad_policies:agent", "--suite", "quick", "--games", "2", "--games-filter", GAME, "--no-progress"]
    assert bm.main([*args, "--references", "random", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: policy 'bad_policies:agent' chose action") and "failure.jsonl" in err
    assert (tmp_path / "out" / "failure.jsonl").is_file() and (tmp_path / "out" / "report.json").is_file()


# --- refusals before play --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        ({"suite": "huge"}, r"unknown suite 'huge'; protocol v1 has \['quick', 'standard', 'full'\]"),
        ({"only": ["chess"]}, r"unknown game 'chess'; protocol v1 has"),
        ({"only": [f"{GAME}:5"]}, r"suite 'quick' plays cherry_picking with \[2\] players, not 5"),
        ({"references": ["expert"]}, r"unknown references \['expert'\]"),
        ({"games": 0}, r"games \(per cell\) must be a positive integer"),
    ],
)
def test_unknown_suite_game_or_reference_is_refused_before_play(no_games, change, message):
    with pytest.raises(BenchmarkError, match=message):
        evaluate("greedy", **{**TINY, **change})


@pytest.mark.parametrize(
    "policy, message",
    [
        ("nonsense", r"policy 'nonsense': unknown agent 'nonsense'; known agents are"),
        ("missing.zip", r"policy 'missing.zip': no PPO model at 'missing.zip'"),
        ("ppo:missing.zip", r"no PPO model at 'missing.zip'"),
        ("no_such_module_here:make", r"cannot import 'no_such_module_here'"),
        ("fruit_envs.agents:no_such_factory", r"module 'fruit_envs.agents' \(.*\) has no 'no_such_factory'"),
        (42, r"policy must be an agent name .* got 42"),
    ],
)
def test_unknown_policy_is_refused_before_play(no_games, policy, message):
    with pytest.raises(BenchmarkError, match=message):
        evaluate(policy, **TINY)


def test_a_policy_for_another_game_is_refused_before_play(no_games):
    path = str(ROOT / "agents" / "baselines" / "cherry_picking_2p.zip")
    with pytest.raises(BenchmarkError, match=r"cannot play every game of suite 'quick': fruit_picking with 2 players"):
        evaluate(path, **{**TINY, "only": [f"{GAME}:2", "fruit_picking:2"]})


def test_refusals_on_the_command_line_exit_2_and_write_nothing(tmp_path, monkeypatch, capsys, no_games):
    monkeypatch.chdir(tmp_path)
    for args in (
        ["greedy", "--suite", "huge"],
        ["nonsense", "--suite", "quick"],
        ["greedy", "--games-filter", "chess"],
    ):
        assert bm.main([*args, "--no-progress"]) == 2
        assert capsys.readouterr().err.startswith("error: ")
    assert not list(tmp_path.iterdir()), "nothing written"


def test_games_on_the_command_line_name_games_or_count_them(monkeypatch, capsys):
    """The issue's form `--games GAME ...` filters the games; one number is the games per cell (as
    `--games-per-cell N`); `--games-filter` is the older spelling of the filter. A mix is refused."""
    seen = []
    cli = bm.cli  # the command line's module, where main finds what it calls
    monkeypatch.setattr(cli, "evaluate", lambda policy, **kw: seen.append((kw["games"], kw["only"])) or {"out": "x"})
    monkeypatch.setattr(cli, "summary_table", lambda report: "")
    monkeypatch.setattr(cli, "default_out", lambda *a: "unused")
    for args, expected in (
        (["--games", GAME, "fruit_picking:2"], (None, [GAME, "fruit_picking:2"])),
        (["--games", "8"], (8, None)),
        (["--games-per-cell", "8", "--games", GAME], (8, [GAME])),
        (["--games-filter", GAME], (None, [GAME])),
    ):
        seen.clear()
        assert bm.main(["greedy", *args, "--no-progress"]) == 0
        assert seen == [expected], args
    for args, message in (
        (["--games", GAME, "8"], "game names (GAME or GAME:PLAYERS) or one number"),
        (["--games", "8", "--games-per-cell", "4"], "give the games per cell once"),
        (["--games", GAME, "--games-filter", GAME], "give the games once"),
        (["--games", "0"], "must be a positive integer"),
    ):
        with pytest.raises(SystemExit) as exit_:
            bm.main(["greedy", *args, "--no-progress"])
        assert exit_.value.code == 2 and message in capsys.readouterr().err, args


def test_a_missing_ppo_baseline_is_named_before_play(monkeypatch, tmp_path):
    """Every baseline of protocol v1 ships; with one taken away (Cherry Picking 3 players, its files moved
    out of the baselines folder seen by the agents) the run is refused before any game is played."""
    import shutil

    from fruit_envs.agents import ppo

    game, players = "cherry_picking", 3
    folder = tmp_path / "baselines"
    shutil.copytree(ppo.BASELINES, folder)
    for path in baseline_files(get_spec(game), players):
        (folder / path.name).unlink()
    monkeypatch.setattr(ppo, "BASELINES", folder)
    args = {**TINY, "suite": "standard", "games": players, "only": [f"{game}:{players}"]}
    args["references"] = ["random", "ppo-baseline"]
    with monkeypatch.context() as patch:
        patch.setattr(bm.play, "play_games", lambda *a, **k: pytest.fail("played before the refusal"))
        with pytest.raises(BenchmarkError, match=rf"missing for: {game} {players}p \({game}_{players}p.zip\)"):
            evaluate(FirstLegal(), **args)
    report = evaluate(FirstLegal(), **args, skip_missing=True)
    assert [c["reference"] for c in report["cells"]] == ["random"]
    assert any("left out" in d for d in report["deviations"])


# --- ratings, best response, packaging --------------------------------------------------------------


def test_rating_fits_against_fixed_anchors():
    anchors = np.array([0.0, 200.0])
    even = bm.fit_rating(np.array([50.0, 50.0]), np.array([100.0, 100.0]), np.array([100.0, 100.0]), prior=0)
    assert abs(float(even) - 100.0) < 1e-6, "an even score against players at 100 is a rating of 100"
    three_to_one = bm.fit_rating(np.array([75.0]), np.array([100.0]), np.array([0.0]), prior=0)
    assert abs(float(three_to_one) - 400 * np.log10(3)) < 1e-6
    sweep = bm.fit_rating(np.array([10.0, 10.0]), np.array([10.0, 10.0]), anchors, prior=1)
    assert np.isfinite(sweep) and sweep > 200, "a clean sweep stays finite"
    batch = bm.fit_rating(np.array([[5.0, 5.0], [9.0, 6.0]]), np.array([10.0, 10.0]), anchors, prior=0)
    assert batch.shape == (2,) and batch[0] < batch[1]
    joint = bm.fit_joint([("a", "random", 75.0, 100.0), ("b", "a", 50.0, 100.0)], {"random": 0.0}, prior=0)
    assert abs(joint["a"] - 400 * np.log10(3)) < 1e-4 and abs(joint["b"] - joint["a"]) < 1e-4


def test_pairwise_outcomes_rank_winners_then_scores():
    scores = np.array([[10, 20, 5], [7, 7, 9]])
    winners = np.array([[False, True, False], [True, True, False]])
    outcomes = bm.pair_outcomes(scores, winners, np.array([0, 0]))
    assert np.array_equal(outcomes[0, 1:], [0.0, 1.0]), "lost to the winner, beat the lower score"
    assert np.array_equal(outcomes[1, 1:], [0.5, 1.0]), "a shared win ties"


def test_best_response_trains_a_tiny_ppo_against_the_policy():
    options = {"num_envs": 8, "n_steps": 8, "batch_size": 32, "n_epochs": 1, "net_arch": [16], "games_per_seat": 4}
    report = evaluate("random", **{**TINY, "games": 2}, best_response=64, best_response_options=options)
    (result,) = report["best_response"]
    assert result["game"] == GAME and result["steps"] >= 64 and result["games"] == 8
    assert result["win_low"] <= result["win_share"] <= result["win_high"]
    assert "best response in cherry_picking" in bm.summary_table(report)


def test_the_api_module_imports_no_torch():
    code = "import sys, fruit_envs.benchmark; assert 'torch' not in sys.modules and 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_protocol_ships_in_the_package():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"fruit_envs.benchmarks" = ["protocol_v*.yaml"]' in pyproject
    assert 'fruit-envs-benchmark = "fruit_envs.benchmarks.benchmark:main"' in pyproject


def test_calibration_prints_the_anchors_block(capsys, cheap_protocol):
    """`--calibrate` rates the references against each other (random at 0) and prints the block to paste."""
    args = ["--calibrate", "--suite", "quick", "--games", "2", "--games-filter", f"{GAME}:2", "juicy_fruits_solo"]
    assert bm.main([*args, "--protocol", str(cheap_protocol), "--no-progress"]) == 0
    import yaml

    anchors = yaml.safe_load(capsys.readouterr().out)["anchors"]
    assert set(anchors) == {GAME, "juicy_fruits_solo"}
    assert set(anchors[GAME][2]) == {"random", "greedy", "ppo-baseline", "search"} and anchors[GAME][2]["random"] == 0
    solo = anchors["juicy_fruits_solo"][1]
    assert solo["greedy"] > 0 and solo["ppo-baseline"] > solo["random"], "the score attack's baseline ships (issue 31)"


def test_calibration_gives_the_same_anchors_on_two_workers_and_goes_on_from_saved_pairings(tmp_path, cheap_protocol):
    """Issue 57: each pairing of the calibration is a unit of work with its own seeds."""
    from fruit_envs.benchmarks.benchmark.calibration import calibrate

    def numbers(result):
        return result["anchors"], [{k: v for k, v in c.items() if k != "seconds"} for c in result["cells"]]

    settings = {"suite": "quick", "games": 4, "only": [f"{GAME}:2"], "progress": False, "protocol": cheap_protocol}
    one = calibrate(**settings, workers=1)
    two = calibrate(**settings, workers=2, folder=tmp_path)
    assert numbers(one) == numbers(two) and len(one["cells"]) == 6  # four references, each pair once
    saved = sorted((tmp_path / "units").glob("*.pkl"))
    assert len(saved) == 6
    saved[0].unlink()  # as if stopped before that pairing finished
    assert numbers(calibrate(**settings, workers=1, folder=tmp_path)) == numbers(one)


# --- the published reference cards ----------------------------------------------------------------


def test_the_published_cards_are_complete_and_made_under_this_protocol():
    """The cards in benchmarks/results/benchmark/ were made by `--reference-cards` under protocol_v1.yaml as it
    stands: a changed protocol file (its sha256) means regenerating them."""
    protocol = load_protocol(1)
    cards = bm.load_cards()
    assert list(cards) == list(bm.CARDS), "regenerate with: fruit-envs-benchmark --reference-cards"
    for name, card in cards.items():
        assert card["protocol_sha256"] == protocol.sha256, f"{name}: made under another protocol file; regenerate"
        assert card["conforms"] and card["status"] == "complete" and card["suite"] == "standard"
        assert card["policy"]["label"] == f"reference:{name}" and card["policy"]["privileged"] == (name == "search")
        assert [(g["game"], g["players"]) for g in card["groups"]] == protocol.suite_groups("standard")
        assert all(g["normalised"] is not None for g in card["groups"]), f"{name}: every group is rated"
        assert all(g["rating"] is not None for g in card["groups"] if g["players"] > 1), "Elo from two players"
        steps = protocol.best_response["card_steps"]
        if name in bm.BEST_RESPONSE_CARDS:
            games = [g for g in protocol.games() if 2 in protocol.player_counts[g]]
            assert [b["game"] for b in card["best_response"]] == games
            assert all(b["steps"] >= steps for b in card["best_response"])
        else:
            assert card["best_response"] is None
    index = (bm.PUBLISHED / "cards.md").read_text()
    assert index == "# Reference cards\n\n" + bm.cards_markdown(cards)
    assert bm.cards_markdown(cards) in (ROOT / "docs" / "benchmark.md").read_text(), "docs carry the cards"
    assert bm.cards_summary(cards) in (ROOT / "README.md").read_text(), "the README carries their summary"


@pytest.mark.parametrize(
    ("name", "game", "players", "references"),
    [
        ("greedy", "fruit_picking", 3, ["random", "greedy"]),
        ("random", "quickity_pickity", 5, ["greedy"]),
        ("ppo-baseline", "cherry_picking", 2, ["random", "ppo-baseline"]),
        ("search", "juicy_fruits", 2, ["random"]),
    ],
)
def test_a_rerun_slice_agrees_with_the_published_card(name, game, players, references):
    """Re-running cells of a published card gives its numbers exactly: same deals, seeds and agents."""
    card = bm.load_cards()[name]
    report = evaluate(
        f"reference:{name}", suite=card["suite"], only=[(game, players)], references=references, progress=False
    )
    published = {c["reference"]: c for c in card["cells"] if (c["game"], c["players"]) == (game, players)}
    assert [c["reference"] for c in report["cells"]] == references
    for cell in report["cells"]:
        expected = published[cell["reference"]]
        for key in ("games", "finished", "truncated", "wins", "draws", "losses", "mean_rank"):
            assert cell[key] == expected[key], f"{name} {game} {players}p vs {cell['reference']}: {key}"
        for key in ("win_share", "mean_margin"):
            assert cell[key] == pytest.approx(expected[key], rel=1e-9), key


def test_reference_cards_write_each_card_and_the_index(tmp_path, cheap_protocol, monkeypatch):
    """`--reference-cards NAME ...` writes out/NAME/ for each and an index of every card in the folder."""
    real = bm.evaluate

    def tiny(policy, **kwargs):
        return real(policy, **{**kwargs, "games": 2, "only": [f"{GAME}:2"], "references": ["random", "greedy"]})

    monkeypatch.setattr(bm.cards, "evaluate", tiny)  # where reference_cards finds it
    args = ["--reference-cards", "random", "greedy", "--suite", "quick", "--best-response", "0"]
    assert bm.main([*args, "--out", str(tmp_path / "cards"), "--protocol", str(cheap_protocol), "--no-progress"]) == 0
    assert sorted(p.name for p in (tmp_path / "cards").iterdir()) == ["cards.md", "greedy", "random"]
    index = (tmp_path / "cards" / "cards.md").read_text()
    assert "| game | players | random | greedy |" in index and f"| {GAME} | 2 |" in index
    assert "aggregate normalised score" in index and "Best response" not in index
    with pytest.raises(BenchmarkError, match="unknown reference cards"):
        bm.reference_cards(tmp_path / "cards", names=["greedy", "alphazero"])


def test_published_cards_need_a_checkout(monkeypatch):
    from fruit_envs import _checkout

    monkeypatch.setattr(_checkout, "checkout_root", lambda: None)
    with pytest.raises(BenchmarkError, match="give a folder for the cards"):
        bm.reference_cards()


# --- issue 54: reports that flag what they cannot measure -------------------------------------------


class LastLegal:
    """The highest-index legal action every time: it loses, and stalls many Juicy Fruits games to the cap."""

    name = "last-legal"

    def act(self, obs, mask, rng):
        return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)).astype(np.int64)


def duel(won: list[bool]) -> dict:
    """The raw arrays of a two-player cell in which the policy won the games marked True, seats alternating."""
    seat = np.arange(len(won)) % 2
    winners = np.zeros((len(won), 2), dtype=bool)
    winners[np.arange(len(won)), np.where(won, seat, 1 - seat)] = True
    return {"scores": 10 * winners, "winners": winners, "truncated": np.zeros(len(won), bool), "policy_seat": seat}


def rate(cells: dict[str, list[bool]], game: str = "juicy_fruits") -> dict:
    protocol = load_protocol(1)
    raws = [(ref, duel(won)) for ref, won in cells.items()]
    return bm.group_rating(raws, protocol.anchor(game, 2), protocol.rating, protocol.scale_reference, game)


def test_a_group_lost_or_won_throughout_has_an_interval_from_its_games():
    """Every game lost: the bootstrap has no spread (it gave `-640 (-640 to -640)`); the interval now comes from
    the cells' Clopper-Pearson confidence distributions: not empty, its high end falling as games are added."""
    few, many = (rate({"random": [False] * n, "greedy": [False] * n}) for n in (10, 400))
    for group in (few, many):
        assert group["rating_low"] == pytest.approx(group["rating"]), "the low end is where the prior puts it"
        assert group["rating_high"] - group["rating_low"] > 100 and group["normalised_high"] > group["normalised"]
        assert group["interval"].startswith("Clopper-Pearson")
        assert group["sweeps"] == {"random": "lost every game", "greedy": "lost every game"}
    assert many["rating_high"] < few["rating_high"] - 300 and many["rating"] < few["rating"]
    assert many["rating_high"] - many["rating_low"] < few["rating_high"] - few["rating_low"], "it narrows"
    # one reference, n games lost: the high end is the one-sided 95% bound on the share, 1 - 0.05^(1/n)
    n = 60
    alone = rate({"random": [False] * n})
    share = 1 / (1 + 10 ** ((0 - alone["rating_high"]) / 400))
    prior = load_protocol(1).rating["prior_ties"]
    assert share * (n + prior) - prior / 2 == pytest.approx(n * (1 - 0.05 ** (1 / n)), rel=0.15)
    won = rate({"random": [True] * 10, "greedy": [True] * 10})
    assert won["rating_low"] < won["rating"] == pytest.approx(won["rating_high"])
    mixed = rate({"random": [True, False] * 5, "greedy": [False] * 10})
    assert mixed["interval"] == "bootstrap over games" and mixed["sweeps"] == {"greedy": "lost every game"}


def test_a_rating_the_prior_sets_is_marked():
    lost = rate({"random": [False] * 60, "greedy": [False] * 60})
    assert lost["prior_dominated"] and lost["rating_without_prior"] is None
    assert "bound the rating only from above" in lost["prior_note"]
    few = rate({"random": [True, False], "greedy": [True, False]})  # 2 virtual ties among 6 results
    assert few["prior_dominated"] and few["prior_weight"] == pytest.approx(2 / 6) and "few games" in few["prior_note"]
    enough = rate({"random": [True, True, False] * 10, "greedy": [True, False] * 15})
    assert not enough["prior_dominated"] and enough["prior_note"] is None
    assert enough["rating_without_prior"] == pytest.approx(enough["rating"], abs=20)


def test_each_group_says_how_much_it_moves_the_aggregate(tmp_path):
    only = [f"{GAME}:2", "juicy_fruits:2", "juicy_fruits_solo"]
    report = evaluate(LastLegal(), out=tmp_path, **{**TINY, "games": 10, "only": only})
    groups, total = report["groups"], report["aggregate"]["normalised"]
    assert sum(g["aggregate_contribution"] for g in groups) == pytest.approx(total)
    for g in groups:
        others = [h["normalised"] for h in groups if h is not g]
        assert g["aggregate_weight"] == pytest.approx(1 / 3)
        assert g["aggregate_shift"] == pytest.approx(total - np.mean(others))
    worst = min(groups, key=lambda g: g["normalised"])
    assert worst["game"] == "juicy_fruits" and worst["aggregate_shift"] < -20, "the lost game pulls it down"
    saved = json.loads((tmp_path / "report.json").read_text())["groups"]
    assert [g["aggregate_shift"] for g in saved] == [g["aggregate_shift"] for g in groups]
    md = (tmp_path / "report.md").read_text()
    shift = f"with it the aggregate is {worst['aggregate_shift']:+.1f} from the other groups' mean"
    assert f"= {worst['aggregate_contribution']:.1f}; {shift}" in md


def test_a_stalling_policy_is_warned_about_on_every_output(tmp_path, monkeypatch, capsys):
    """The highest legal action every time truncates many Juicy Fruits games and loses the rest: the truncated
    share is flagged (report.json, report.md, the terminal), and so is the rating the prior sets."""
    (tmp_path / "stalling.py").write_text(
        "import numpy as np\n\n\ndef make(game_spec, config):\n    return Last()\n\n\nclass Last:\n"
        "    def act(self, obs, mask, rng):\n        return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ["stalling:make", "--suite", "quick", "--games", "juicy_fruits:2", "--games-per-cell", "10"]
    assert bm.main([*args, "--references", "random", "greedy", "--no-progress", "--out", "out"]) == 0
    printed = capsys.readouterr().out
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["truncation_warning_threshold"] == bm.TRUNCATION_WARNING
    flagged = [c for c in report["cells"] if c["truncation_warning"]]
    assert flagged and all(c["truncated_share"] > bm.TRUNCATION_WARNING for c in flagged)
    for c in flagged:
        line = f"juicy_fruits 2p against {c['reference']}: {c['truncated']} of {c['games']} games truncated"
        assert any(w.startswith(line) for w in report["warnings"])
        assert f"warning: {line}" in printed
    (group,) = report["groups"]
    assert group["prior_dominated"] and group["rating_high"] > group["rating_low"]
    assert any(w.startswith("juicy_fruits 2p: rating") and "prior" in w for w in report["warnings"])
    md = (tmp_path / "out" / "report.md").read_text()
    assert "**Warnings**" in md and all(f"* {w}" in md for w in report["warnings"])
    quiet = evaluate("greedy", **{**TINY, "games": 12})  # finished games, enough of them to outweigh the prior
    assert not any(c["truncation_warning"] for c in quiet["cells"]) and not quiet["warnings"]


def test_report_lists_the_anchors_beside_the_rating(tmp_path):
    report = evaluate("greedy", out=tmp_path, **{**TINY, "only": [f"{GAME}:2", "juicy_fruits_solo"]})
    md = (tmp_path / "report.md").read_text()
    protocol = load_protocol(1)
    (row,) = [line for line in md.splitlines() if line.startswith(f"| {GAME} | 2 |")]
    rating = report["groups"][0]
    anchors = ", ".join(f"{n} {v:.0f}" for n, v in protocol.anchor(GAME, 2).items())
    assert f"| {rating['rating']:.0f} ({rating['rating_low']:.0f} to {rating['rating_high']:.0f}) | {anchors} |" in row
    (solo,) = [line for line in md.splitlines() if line.startswith("| juicy_fruits_solo | 1 |")]
    assert ", ".join(f"{n} {v:.2f}" for n, v in protocol.anchor("juicy_fruits_solo", 1).items()) in solo


def test_the_score_attack_panel_shows_the_mean_score():
    report = evaluate("greedy", **{**TINY, "only": [f"{GAME}:2", "juicy_fruits_solo"]})
    mean = report["cells"][-1]["mean_score"]
    figure = bm.report_figure(report)
    solo = next(ax for ax in figure.axes if ax.get_title().startswith("juicy_fruits_solo"))
    assert solo.get_ylabel() == "mean score" and f"mean score {mean:.2f}" in solo.get_title()
    (bar,) = solo.patches
    assert bar.get_height() == pytest.approx(mean), "the bar is the mean score, not the normalised score"
    labels = {text.get_text() for text in solo.texts}
    assert f"{mean:.2f}" in labels and set(load_protocol(1).references) <= labels, "the references' mean scores"


def test_a_policy_exception_keeps_its_traceback_and_names_the_batch(tmp_path, monkeypatch, capsys):
    (tmp_path / "raising_policy.py").write_text(
        "def helper(mask):\n    raise RuntimeError('the policy broke inside helper')\n\n\nclass Raising:\n"
        "    def act(self, obs, mask, rng):\n        return helper(mask)\n\n\nagent = Raising()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    args = ["raising_policy:agent", "--suite", "quick", "--games", "4", "--games-filter", GAME, "--no-progress"]
    assert bm.main([*args, "--references", "random", "--out", "out"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in helper" in err
    assert "RuntimeError: the policy broke inside helper" in err
    saved = tmp_path / "out" / "failure_traceback.txt"
    assert "in helper" in saved.read_text() and "the policy's traceback is in " in err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert Path(report["failure_traceback"]).resolve() == saved.resolve() and report["status"] == "stopped"


@pytest.mark.parametrize("how", ["raise", "shape"])
def test_a_fault_of_the_whole_batch_does_not_name_one_game(tmp_path, how):
    """An exception (or a malformed answer) belongs to every game the policy was asked about at once."""
    with pytest.raises(PolicyError) as raised:
        evaluate(Faulty(how), out=tmp_path, **TINY)
    message = str(raised.value)
    found = re.search(r"for a batch of (\d+) games of the cell \(games ([\d, ]+)\), not for one game", message)
    assert found and int(found.group(1)) > 1 and len(found.group(2).split(", ")) == int(found.group(1))
    assert not re.search(r"\(game \d+ of the cell", message), "no single game is blamed"
    assert re.search(r"the batch included game \d+ \(key \d+\) at seat \d, step \d+", message)
    (record,) = frecord.read_records(tmp_path / "failure.jsonl")
    assert len(record.meta["batch"]) == int(found.group(1))
    assert raised.value.traceback is None or how == "raise"


def test_every_printed_rating_names_its_scale(tmp_path):
    """The protocol rating (random = 0) is not the tournaments' Elo (field mean 1500): each output names it."""
    report = evaluate("greedy", out=tmp_path, **{**TINY, "only": [f"{GAME}:2", "juicy_fruits_solo"]})
    assert report["rating_scale"] == bm.RATING_SCALE and "random = 0" in bm.RATING_SCALE
    md = (tmp_path / "report.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| game | players |"))
    assert f"rating ({bm.RATING_SCALE}; 95% CI)" in header
    rated = [line for line in bm.summary_table(report).splitlines() if " rating " in line]
    assert rated and all(bm.RATING_SCALE in line for line in rated)
    titles = [ax.get_title() for ax in bm.report_figure(report).axes if "rating" in ax.get_title()]
    assert titles and all("(random = 0)" in title for title in titles)
    cards = bm.cards_markdown(bm.load_cards())
    assert f"Ratings: {bm.RATING_SCALE}" in cards and "field mean is 1500" in cards
    assert "protocol rating" in (ROOT / "docs" / "benchmark.md").read_text()


# --- issue 55: the benchmark is a package of small modules --------------------------------------------


def test_the_benchmark_is_a_package_of_small_modules_with_every_name_re_exported():
    """Issue 55: benchmarks/benchmark/ holds one module per room (protocol, policies, play, ratings, cards,
    reports, command line, ...), each short, and the package re-exports every public name a module defines,
    so `from fruit_envs.benchmarks.benchmark import X` and `python -m fruit_envs.benchmarks.benchmark` stay."""
    import ast
    import importlib
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(bm.__path__)} - {"__main__"}
    assert {"protocol", "policies", "play", "ratings", "cards", "reports", "cli"} <= modules
    for name in sorted(modules):
        module = importlib.import_module(f"{bm.__name__}.{name}")
        source = Path(module.__file__).read_text()
        assert len(source.splitlines()) < 500, f"{name}.py is not small"
        defined = set()
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, ast.Assign):
                defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for public in sorted(n for n in defined if not n.startswith("_")):
            assert public in bm.__all__ and getattr(bm, public) is getattr(module, public), f"{name}.{public}"
    assert bm.protocol_path(1) == PROTOCOL and bm.PUBLISHED == ROOT / "benchmarks" / "results" / "benchmark"
    shown = subprocess.run(
        [sys.executable, "-m", "fruit_envs.benchmarks.benchmark", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert shown.returncode == 0 and bm.__doc__.splitlines()[0] in shown.stdout, shown.stderr


def test_the_terminal_names_pinned_references_with_their_version():
    """The PPO baseline a protocol plays is pinned (`ppo-baseline@1`): the terminal says so, so a policy named
    `ppo-baseline` (the one shipped now) is not read as playing itself."""
    from fruit_envs.benchmarks.benchmark.reports import reference_shown

    assert reference_shown({"reference": "ppo-baseline", "reference_agent": "ppo-baseline@1"}) == "ppo-baseline@1"
    assert reference_shown({"reference": "search", "reference_agent": "search:rollouts=32"}) == "search"
    assert reference_shown({"reference": "greedy", "reference_agent": "greedy"}) == "greedy"
