"""Issue 16, one truncation contract (`fruit_envs.core.spec.outcome_rewards`): a game the rules end is
terminated and pays its outcome; a game a cap cuts off is truncated and pays none, in every API,
record and evaluation.

The truncated game is the clogged Juicy Fruits position of the issue (both islands clogged by a 2 x 2
venue and packed collectors: every turn a forced pass, 13-13); the terminated one is the same position
in the last round (every stack emptied, the license marker at X, player_0 ahead 61-56).
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
from juicy_fruits_helpers import clogged

from fruit_envs import FruitEnv, FruitVectorEnv, juicy_fruits_v2
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import evaluate, play_games
from fruit_envs.benchmarks import tournament, truncation
from fruit_envs.core import record as frecord
from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv
from fruit_envs.core.spec import get_spec, outcome_codes, outcome_rewards, registered_games
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.replay import outcome_line

PASS = R.PASS


def both_positions():
    """A batch of 2: game 0 frozen (will be truncated), game 1 in its last round (will be terminated)."""
    return R.State.concatenate([clogged(), clogged(last_round=True)])


# --- the contract, in core ----------------------------------------------------------------------


def test_every_game_declares_whether_a_cap_can_truncate_it():
    """Caps stay as a safety net, each declared in the game spec; the score attack's round limit is a rule
    of our mode (terminated, no cap), Cherry Picking and Quickity Pickity cannot stall."""
    declared = {spec.id: spec.truncation for spec in registered_games()}
    assert declared["cherry_picking"] is None and declared["quickity_pickity"] is None
    assert declared["juicy_fruits_solo"] is None
    assert "max_rounds" in declared["fruit_picking"] and "ROUND_CAP" in declared["juicy_fruits"]
    assert "truncated" in outcome_rewards.__doc__ and "no outcome" in outcome_rewards.__doc__.lower()


def test_outcome_codes_give_a_truncated_game_no_result():
    won = np.array([[True, False], [False, False], [True, True]])
    assert outcome_codes(won, np.array([0, 0, 1]), np.array([False, True, False])).tolist() == [1, 0, 0]
    assert outcome_codes(won, np.array([1, 1, 0]), np.array([False, False, False])).tolist() == [-1, -1, 0]


# --- every API ------------------------------------------------------------------------------------


def test_aec_env_truncates_the_clogged_game_with_no_reward():
    """PettingZoo AEC: truncations True, terminations False, 0 to both seats; the real end pays +1/-1."""
    for last_round, truncated, rewards in ((False, True, [0.0, 0.0]), (True, False, [1.0, -1.0])):
        env = juicy_fruits_v2.env()
        env.reset(seed=0)
        env.unwrapped.load_state(clogged(last_round=last_round))
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            returns[agent] += reward
            if termination or truncation:
                assert truncation is truncated and termination is (not truncated)
                assert observation["observation"].shape == env.observation_space(agent)["observation"].shape
                env.step(None)
            else:
                assert np.flatnonzero(observation["action_mask"]).tolist() == [PASS]
                env.step(PASS)
        assert list(returns.values()) == rewards


def test_parallel_env_of_turn_based_juicy_fruits_truncates_with_no_reward():
    """Issue 29 gave the turn-based games a parallel env: the clogged game is cut off there too, no outcome."""
    assert not get_spec("juicy_fruits").simultaneous
    for last_round, truncated, rewards in ((False, True, [0.0, 0.0]), (True, False, [1.0, -1.0])):
        env = FruitParallelEnv("juicy_fruits")
        env.reset(seed=0)
        observations, _ = env.load_state(clogged(last_round=last_round))
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
            observations, step_rewards, terms, truncs, _ = env.step(actions)
            for agent, reward in step_rewards.items():
                returns[agent] += reward
        assert all(t is truncated for t in truncs.values()) and all(t is (not truncated) for t in terms.values())
        assert list(returns.values()) == rewards


def test_gymnasium_env_truncates_and_still_gives_the_final_observation():
    """Gymnasium single-agent: truncated=True, terminated=False, reward 0, the final observation; a real end
    is terminated with the outcome."""
    for last_round, seat, expected in ((False, 0, (0.0, False, True, 0)), (True, 1, (-1.0, True, False, -1))):
        env = FruitEnv("juicy_fruits", seat=seat, opponent="greedy")
        env.reset(seed=1)
        state = clogged(last_round=last_round, to_move=f"player_{seat}")
        obs, info = env.load_state(state)
        assert np.flatnonzero(info["action_mask"]).tolist() == [PASS]
        obs, reward, terminated, truncated, info = env.step(PASS)
        assert (reward, terminated, truncated, info["outcome"]) == expected
        assert np.array_equal(obs, R.observe(env.game_state, seat)[0]), "the final observation of the game"


@pytest.mark.parametrize("autoreset_mode", ["NEXT_STEP", "SAME_STEP"])
def test_vector_env_truncates_one_game_and_terminates_the_other(autoreset_mode):
    """The final observation comes back as the step's observation (next-step) or in `infos["final_obs"]`
    (same-step); either way the cut-off pays nothing and the real end its outcome."""
    env = FruitVectorEnv(2, "juicy_fruits", seat=0, opponent="random", autoreset_mode=autoreset_mode)
    env.reset(seed=2)
    env.load_state(both_positions())
    obs, rewards, terminated, truncated, infos = env.step(np.array([PASS, PASS]))
    assert terminated.tolist() == [False, True] and truncated.tolist() == [True, False]
    assert rewards.tolist() == [0.0, 1.0] and infos["outcome"].tolist() == [0, 1]
    final = infos["final_obs"] if autoreset_mode == "SAME_STEP" else obs
    assert autoreset_mode == "NEXT_STEP" or infos["_final_obs"].tolist() == [True, True]
    assert np.array_equal(final, R.observe(env.game_state, 0)) == (autoreset_mode == "NEXT_STEP")
    assert final.shape == obs.shape and np.abs(final).sum(axis=1).all(), "a real observation in each row"


def test_sb3_vec_env_time_limit_truncated_with_no_outcome_and_real_end_with_it():
    """Done when (issue 16): at a truncation the SB3 VecEnv gives `TimeLimit.truncated=True` and reward 0
    (terminal reward mode), at a real end `TimeLimit.truncated=False` and the outcome; both with the
    final observation in `terminal_observation`."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv("juicy_fruits", num_envs=2, seat=0, opponent="random")
    assert env.config.reward == "terminal"
    env.reset()
    env.load_state(both_positions())
    env.step_async(np.array([PASS, PASS]))
    _, rewards, dones, infos = env.step_wait()
    assert dones.tolist() == [True, True]
    assert [info["TimeLimit.truncated"] for info in infos] == [True, False]
    assert rewards.tolist() == [0.0, 1.0]
    assert [info["outcome"] for info in infos] == [0, 1] and [info["is_success"] for info in infos] == [False, True]
    assert all(info["terminal_observation"].shape == env.observation_space.shape for info in infos)
    assert [info["episode"]["r"] for info in infos] == [0.0, 1.0]


# --- records, replay and pictures -----------------------------------------------------------------


def test_records_of_a_truncated_game_have_no_winner_and_replay_exactly(tmp_path):
    path = tmp_path / "games.jsonl"
    env = FruitAECEnv("juicy_fruits", record=path)
    env.reset(seed=0)
    env.load_state(clogged())
    env.step(PASS)
    env.step(PASS)
    (record,) = frecord.read_records(path)
    assert record.outcome["truncated"] and record.outcome["winners"] == [] and record.outcome["leading"] == [1]
    assert record.outcome["scores"] == [13, 13]
    replayed = frecord.replay(record)
    assert replayed.rewards.tolist() == [0.0, 0.0] and replayed.outcome == record.outcome
    assert "truncated" in outcome_line(record, replayed.outcome) and "no winner" in outcome_line(
        record, replayed.outcome
    )
    picture = R.render(replayed.final, 0)
    assert "truncated: no winner" in picture


def test_pictures_of_a_truncated_game_name_no_winner():
    from fruit_envs.games.juicy_fruits import picture

    state, _ = R.step(clogged(), np.array([PASS]))
    state, _ = R.step(state, np.array([PASS]))
    view = picture.view(state, 0)
    assert view["truncated"] and view["winners"] == []
    assert "no winner" in picture.text(view) and "winner: " not in picture.text(view)
    assert picture.draw(state, 0, seat=1).shape[2] == 3


def test_older_records_naming_the_leader_of_a_truncated_game_still_replay():
    """Records written before the contract listed the leaders of a truncated game as its winners."""
    config = get_spec("fruit_picking").make_config(2, max_rounds=2)
    result = play_games("fruit_picking", config, [make_agent("random", "fruit_picking", config)], np.zeros((8, 2), int))
    records = play_games(
        "fruit_picking", config, [make_agent("random", "fruit_picking", config)], np.zeros((8, 2), int), record_to=[]
    ).records
    assert result.truncated.all() and not result.winners.any()
    old = frecord.GameRecord.from_dict(records[0].to_dict())
    old.outcome = {k: v for k, v in old.outcome.items() if k != "leading"} | {"winners": records[0].outcome["leading"]}
    frecord.replay(old)  # no ReplayMismatch


# --- evaluation -----------------------------------------------------------------------------------


def test_evaluate_counts_truncated_games_as_unfinished():
    """A truncated game is neither win, draw nor loss; the win rate is over finished games."""
    config = get_spec("fruit_picking").make_config(2, max_rounds=30)
    agent, opponent = make_agent("greedy", "fruit_picking", config), make_agent("random", "fruit_picking", config)
    result = evaluate("fruit_picking", config, agent, opponent, 64, seed=0)
    assert 0 < result["truncated"] < result["games"]
    assert result["finished"] + result["truncated"] == result["games"]
    assert result["wins"] + result["draws"] + result["losses"] == result["finished"]
    assert result["win_rate"] == result["wins"] / result["finished"]
    assert result["truncated_rate"] == result["truncated"] / result["games"]


def test_tournament_shows_truncated_games_per_pair_and_in_totals(tmp_path):
    summary = tournament.run(
        "fruit_picking", ["random", "greedy"], 2, 16, 0, tmp_path / "t", progress=False, options={"max_rounds": 20}
    )
    assert summary["truncated_games"] > 0
    for row in summary["pairwise"]:
        assert row["wins"] + row["draws"] + row["losses"] + row["truncated"] == row["games"]
        finished = row["games"] - row["truncated"]
        assert row["win_rate"] == row["wins"] / finished
    for total in summary["agents"].values():
        assert total["truncated"] == summary["truncated_games"] and total["finished"] + total["truncated"] == 32
    rows = list(csv.DictReader((tmp_path / "t" / "pairwise.csv").open()))
    assert "truncated" in rows[0]
    text = (tmp_path / "t" / "summary.md").read_text()
    assert "| agent | games | truncated | wins (shared) |" in text and "wins/draws/losses/truncated" in text


def test_openskill_ignores_truncated_games():
    names, seating = ["a", "b", "c"], np.array([[0, 1, 2], [2, 1, 0]])
    scores, winners = np.array([[3, 2, 1], [3, 2, 1]]), np.array([[True, False, False], [False, False, False]])
    only_first = tournament.openskill_ratings(names, seating[:1], scores[:1], winners[:1], np.array([False]))
    both = tournament.openskill_ratings(names, seating, scores, winners, np.array([False, True]))
    assert both == only_first


def test_truncation_benchmark_reports_shares_and_causes(capsys):
    code = truncation.main(["--game", "juicy_fruits", "--players", "2", "--agents", "random", "--games", "8"])
    out = capsys.readouterr().out
    assert code == 0 and "| juicy_fruits | 2 | random | 8 |" in out and "round cap" in out and "frozen" in out
    assert truncation.main(["--game", "nope"]) == 2
