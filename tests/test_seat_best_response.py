"""The trained best response per seat at every player count (issue 60, `--exploitability br[:STEPS]`): a row per
seat from each warm start, the start chosen on other deals than those reported, warm starts that really start
from the weights they name, starts that do not apply skipped with the reason, bad starts and budgets refused
before any game, and `--best-response` left as it was."""

from __future__ import annotations

import numpy as np
import pytest

import fruit_envs
from fruit_envs.agents import make_agent
from fruit_envs.agents.ppo import load_baseline
from fruit_envs.benchmark import BenchmarkError, evaluate
from fruit_envs.benchmarks import benchmark as bm
from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark import seat_best_response as sbr

GAME = "cherry_picking"
TINY = {"num_envs": 8, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "games_per_seat": 4}
OPTIONS = {"learning_rate": 3e-4, "gamma": 1.0, "ent_coef": 0.01, **TINY}


def _traveller(name: str) -> bm.PolicyTraveller:
    return bm.PolicyTraveller(name, "", build=lambda spec, config: make_agent(name, spec, config))


def test_starts_are_parsed_and_bad_starts_and_budgets_refused_by_name_before_any_game(monkeypatch):
    assert bm.parse_starts(None) == ["scratch", "baseline", "candidate"]
    assert bm.parse_starts("baseline, scratch,baseline") == ["scratch", "baseline"]
    assert bm.parse_starts(["candidate"]) == ["candidate"]
    for bad in ("warm", "scratch,best", "", []):
        with pytest.raises(BenchmarkError, match="the starts are scratch, baseline, candidate"):
            bm.parse_starts(bad)

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the refusal")

    monkeypatch.setattr(bm.run.units, "run_units", no_games)
    run = {"suite": "quick", "only": [f"{GAME}:2"], "progress": False}
    with pytest.raises(BenchmarkError, match="the starts are scratch, baseline, candidate"):
        evaluate("random", **run, exploitability="br:256", exploitability_starts="scratch,warm")
    for budget in ("br:0", "br:x", "br:-5"):
        with pytest.raises(BenchmarkError, match="positive whole number"):
            evaluate("random", **run, exploitability=budget)
    with pytest.raises(BenchmarkError, match="warm starts of --exploitability br"):
        evaluate("random", **run, exploitability="lbr", exploitability_starts="scratch")
    with pytest.raises(BenchmarkError, match="no warm start applies to cherry_picking with 2 players.*not a Mask"):
        evaluate("random", **run, exploitability="br:256", exploitability_starts="candidate")


def test_the_command_line_refuses_a_bad_start(capsys):
    assert bm.main(["random", "--suite", "quick", "--games", f"{GAME}:2", "--exploitability", "br:256",
                    "--br-starts", "scratch,warm", "--no-progress"]) == 2  # fmt: skip
    assert "the starts are scratch, baseline, candidate" in capsys.readouterr().err


def test_warm_starts_begin_from_the_weights_they_name():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    spec = fruit_envs.get_spec(GAME)
    config = spec.make_config(3)
    baseline = load_baseline(spec, config)
    env = FruitSB3VecEnv(GAME, num_envs=8, num_players=3, opponent="random", seat=1)
    model, reason = bm.responder_model("baseline", spec, config, make_agent("random", spec, config), OPTIONS, env, 3)
    assert reason is None and bm.same_weights(model.policy, baseline.model.policy)  # before any training
    model, reason = bm.responder_model("candidate", spec, config, baseline, OPTIONS, env, 3)
    assert reason is None and bm.same_weights(model.policy, baseline.model.policy)
    scratch, reason = bm.responder_model("scratch", spec, config, baseline, OPTIONS, env, 3)
    assert reason is None and scratch.policy.net_arch == [16]
    assert not bm.same_weights(scratch.policy, baseline.model.policy)
    model, reason = bm.responder_model("candidate", spec, config, make_agent("random", spec, config), OPTIONS, env, 3)
    assert model is None and "is not a MaskablePPO model of cherry_picking with 3 players" in reason


def test_a_candidate_that_is_the_baseline_is_trained_once():
    row = bm.seat_br_unit(_traveller("ppo-baseline"), GAME, 2, 0, 256, ["baseline", "candidate"], OPTIONS, 4, 5)
    assert row["start"] == "baseline" and row["steps"] >= 256
    assert "the baseline's" in row["starts"]["candidate"]["skipped"]
    assert row["starts"]["baseline"]["selection_gain"] is None  # one start trained: nothing to choose


def test_every_seat_at_three_players_is_rated_on_deals_not_used_to_choose_its_start(tmp_path, monkeypatch):
    played = []
    real = sbr.play_games

    def recording(spec, config, agents, seating, seed=0, keys=None, **kwargs):
        played.append((len(agents), tuple(int(k) for k in keys)))
        return real(spec, config, agents, seating, seed=seed, keys=keys, **kwargs)

    monkeypatch.setattr(sbr, "play_games", recording)
    out = tmp_path / "run"
    report = evaluate(
        "random", suite="standard", games=3, only=[f"{GAME}:3"], references=["random"], out=out, progress=False,
        exploitability="br:256", exploitability_games=4, best_response_options=TINY,
    )  # fmt: skip
    bound = report["exploitability"]
    assert report["best_response"] is None  # the trained bound leaves the published proxy alone
    assert bound["method"] == "br" and bound["utility"] == bm.UTILITY
    assert bound["budget"] == {"steps": 256, "starts": ["scratch", "baseline", "candidate"], "games_per_seat": 4}
    (group,) = bound["groups"]
    assert (group["game"], group["players"]) == (GAME, 3)
    assert [r["seat"] for r in group["seats"]] == [0, 1, 2]
    for row in group["seats"]:
        assert row["games"] == 4 and row["steps"] >= 256 and row["start"] in ("scratch", "baseline")
        assert row["gain"] == pytest.approx(row["value"] - row["candidate_value"])
        assert row["gain_low"] <= row["gain"] <= row["gain_high"]
        assert "not a MaskablePPO model" in row["starts"]["candidate"]["skipped"]
        for start in ("scratch", "baseline"):
            assert row["starts"][start]["steps"] >= 256 and row["starts"][start]["selection_gain"] is not None
        chosen = max(("scratch", "baseline"), key=lambda s: row["starts"][s]["selection_gain"])
        assert row["start"] == chosen
        keys = bm.response_keys(report["seed"], GAME, 3, row["seat"], 4)
        selection, evaluation = (tuple(int(k) for k in keys[name]) for name in ("selection", "evaluation"))
        assert not set(selection) & set(evaluation)
        # choosing: the candidate's own games and each start's; reporting: the candidate's and the chosen one's
        assert sum(k == selection for _, k in played) == 3 and sum(k == evaluation for _, k in played) == 2
        assert sorted(n for n, k in played if k == evaluation) == [1, 2]
    assert group["sum"] == pytest.approx(sum(r["gain"] for r in group["seats"]))
    assert rc.load_card(out)["exploitability"] == bound
    text = (out / "report.md").read_text()
    assert "## Exploitability: trained best response per seat" in text and "(scratch, baseline, candidate" in text
    summary = bm.summary_table(report)
    assert "exploitability (trained best response)" in summary and "  cherry_picking 3p: gains seat 0" in summary


def test_best_response_alone_keeps_its_report_and_both_run_together():
    run = {"suite": "quick", "games": 2, "only": [f"{GAME}:2"], "references": ["random"], "progress": False}
    fields = {"game", "players", "steps", "settings", "games", "finished", "truncated", "wins", "draws", "losses",
              "win_share", "win_low", "win_high", "seconds"}  # fmt: skip
    alone = evaluate("random", **run, best_response=64, best_response_options=TINY)
    (result,) = alone["best_response"]
    assert set(result) == fields and result["games"] == 8 and "exploitability" not in alone
    both = evaluate(
        "random", **run, best_response=64, best_response_options=TINY, exploitability="br:128",
        exploitability_starts="scratch", exploitability_games=2,
    )  # fmt: skip
    (result,) = both["best_response"]
    assert set(result) == fields and result["steps"] == alone["best_response"][0]["steps"]
    (group,) = both["exploitability"]["groups"]
    assert [r["start"] for r in group["seats"]] == ["scratch", "scratch"]
    assert both["exploitability"]["budget"] == {"steps": 128, "starts": ["scratch"], "games_per_seat": 2}
    assert all(r["starts"]["scratch"]["selection_gain"] is None for r in group["seats"])
    assert np.isfinite(group["sum"])
