"""Juicy Fruits score attack (`juicy_fruits_solo`): OUR OWN single-player mode, not the official solo rules.

Its rules are ours (components.py, "Score attack"): one island, the 2-player business display, a rival
that empties a slot at the end of every round and a refill from the face-down pile, the end when the
license marker reaches X or after `rounds` rounds, and the points as the reward.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from juicy_fruits_helpers import START, play

import fruit_envs
from fruit_envs.core import rng
from fruit_envs.core import state as fstate
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import rules as R

SPEC = fruit_envs.get_spec("juicy_fruits_solo")
S = SPEC.rules


def solo(players: dict | None = None, **top):
    """A score attack from a partial description (island START, an empty display and pile by default)."""
    d = {
        "config": {"num_players": 1, **top.pop("config", {})},
        "players": {"player_0": {"island": START, **(players or {})}},
        "business_board": [[], [], [], [], []],
        "business_pile": [],
    }
    d.update(top)
    return S.from_description(d)


def board(state) -> list[list]:
    return S.describe(state, 0)["business_board"]


def a_turn(state):
    """Move the pomegranate collector one space (north or back south) and pass."""
    pic = S.describe(state, 0)["players"]["player_0"]["island"]
    at = "c3" if pic[2].split()[2] == "P" else "c2"
    return play_solo(state, at, "c2" if at == "c3" else "c3", "pass")


def play_solo(state, *names):
    state, rewards = play(state, *names)
    assert not S.invariants(state), S.invariants(state)
    return state, rewards


# --- What it is -----------------------------------------------------------------------------------


def test_registered_as_its_own_game_and_clearly_not_the_official_solo_mode():
    assert SPEC.gym_id == "fruit_envs/JuicyFruitsSolo-v1" and SPEC.pettingzoo_name == "juicy_fruits_solo_v1"
    assert SPEC.player_counts == (1,) and SPEC.default_num_players == 1 and SPEC.num_actions == 66
    assert "score attack" in SPEC.name
    page = fruit_envs.all_environments["fruit/juicy_fruits_solo_v1"].__doc__
    assert "OUR OWN" in page and "not the official solo" in page
    assert "score attack" in fruit_envs.juicy_fruits_v2.__doc__.lower()
    assert "NOT the official solo mode" in " ".join(C.__doc__.split())
    with pytest.raises(ValueError, match="num_players in \\[1\\]"):
        SPEC.make_config(2)
    with pytest.raises(ValueError, match="num_players in \\[2, 3, 4\\]"):
        fruit_envs.get_spec("juicy_fruits").make_config(1)


def test_the_reward_is_points():
    """With one player there is nobody to beat: reward = points, never a terminal +1/-1."""
    with pytest.raises(ValueError, match="reward='terminal' is not allowed"):
        SPEC.make_config(reward="terminal")
    cfg = SPEC.make_config()
    assert cfg.reward == "score" and cfg.rounds == C.SOLO_ROUNDS
    state = S.init(cfg, rng.keys_from_seed(3, 64))
    total = np.zeros(64)
    gen = np.random.default_rng(0)
    while not state.done.all():
        mask = S.legal_mask(state)
        state, rewards = S.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        total += rewards[:, 0]
    assert (total == S.final_scores(state)[:, 0]).all() and total.max() > 0


# --- Setup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("score_board, pile", [("basic", 13), ("juicy", 14)])
def test_setup_one_island_the_two_player_display_and_a_pile(score_board, pile):
    state = S.init(SPEC.make_config(score_board=score_board), rng.keys_from_seed(4, 50))
    assert state.island.shape == (50, 1, 25) and (state.license_left == C.LICENSE_STEPS[2]).all()
    assert (state.board[:, :, :2] >= 0).all() and (state.board[:, :, 2:] < 0).all(), "the 2-player display"
    assert (state.pile.sum(axis=1) == pile).all()
    on_board = np.zeros((50, C.N_TOKENS), dtype=bool)
    on_board[np.arange(50)[:, None], state.board[:, :, :2].reshape(50, -1)] = True
    assert not (on_board & state.pile).any() and ((on_board | state.pile).sum(axis=1) == pile + 10).all()
    assert (state.pile[:, C.LEMONADE] | on_board[:, C.LEMONADE]).all() == (score_board == "juicy")


# --- The rival and the refill ---------------------------------------------------------------------


def test_the_rival_empties_a_slot_of_the_rounds_row_and_the_pile_refills_the_display():
    """End of round 1: the leftmost token of row 1 goes to the box; every empty display space is refilled from the pile, row 1 first."""
    display = [["tower", "museum"], ["croc", None], ["chairs", "info"], ["BL+", "LP+"], ["green1", "blue1"]]
    state = solo(business_board=display, business_pile=["spa", "eco"])
    before = S.describe(state, 0)["license_steps_left"]
    state, _ = a_turn(state)
    after = board(state)
    assert after[0][1] == "museum" and after[0][0] in ("spa", "eco"), "tower to the box, a pile token in its place"
    assert after[1][1] in ("spa", "eco") and after[1][1] != after[0][0], "the empty space in row 2 is refilled too"
    assert S.describe(state, 0)["business_pile"] == [] and S.describe(state, 0)["license_steps_left"] == before
    assert "tower" not in str(after), "the rival's token is gone for good"
    state, _ = a_turn(state)
    assert board(state)[1][0] is None and board(state)[1][1] is not None, (
        "round 2: row 2's leftmost token; no pile left"
    )
    for _ in range(3):
        state, _ = a_turn(state)
    assert board(state)[4][0] is None and board(state)[0][0] is not None, "rows 1, 2, 3, 4, 5 in turn"
    state, _ = a_turn(state)
    assert board(state)[0][0] is None, "then row 1 again"


PILE = ["tower", "museum", "observatory", "spa", "climbing", "diving", "birds", "eco"]


def test_the_rival_skips_an_empty_row_and_the_refill_is_random():
    state = solo(business_board=[[], ["croc"], [], [], []], business_pile=PILE)
    state, _ = a_turn(state)
    assert board(state)[1][0] == "croc", "row 1 was empty: nothing to take"
    assert sum(t is not None for row in board(state) for t in row) == 9
    draws = set()
    for key in range(20):
        again = solo(business_board=[[], ["croc"], [], [], []], business_pile=PILE, rng_key=key)
        draws.add(str(board(a_turn(again)[0])))
    assert len(draws) > 5, "the pile's order is drawn from the game's own random stream"


def test_the_pile_and_rival_row_are_observed():
    state = S.init(SPEC.make_config(), rng.keys_from_seed(5, 3))
    lay = S.observation_layout(state.config)
    obs = S.observe(state, 0)
    assert (obs[:, lay["pile"]] == state.pile).all()
    assert (obs[:, lay["rival_row"]].argmax(axis=1) == 0).all()
    assert S.observation_shape(state.config) == (551 + 692 + R.NUM_ACTIONS * R.N_HINTS + C.N_TOKENS + C.N_ROWS,)


# --- The end --------------------------------------------------------------------------------------


def test_the_round_limit_ends_the_game_without_truncation():
    state = solo(config={"rounds": 10}, rounds_completed=9)
    lay = S.observation_layout(state.config)
    assert S.observe(state, 0)[0, lay["final_round"]] == 1, "the last round is announced"
    state, _ = a_turn(state)
    d = S.describe(state, 0)
    assert d["done"] and not d["truncated"] and d["rounds_completed"] == 10


def test_the_license_marker_at_x_ends_the_game():
    """As in the rulebook: the game ends at the end of the round in which the license marker arrives at X."""
    island = "tower museum observatory catering .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    markers = {"green 8": 3, "green 7": 3, "blue 6": 2}
    state = solo(
        players={"island": island, "markers": markers, "fruit": {"orange": 1, "lime": 1}},
        business_board=[["info"], [], [], [], []],
    )
    assert S.describe(state, 0)["license_steps_left"] == 1
    state, _ = play_solo(state, "c3", "c2", "claim row 1 slot 1", "e1")
    d = S.describe(state, 0)
    assert d["done"] and not d["truncated"] and d["players"]["player_0"]["points"]["stalls"] == 6, "stars 1 + 2 + 3"


def test_a_score_attack_with_the_juice_factory():
    state = solo(config={"score_board": "juicy"}, players={"fruit": {"banana": 1}}, phase="factory")
    state, rewards = play_solo(state, "arrow S-A1")
    assert rewards.tolist() == [2.0] and S.describe(state, 0)["players"]["player_0"]["factory_discs"] == ["A1", "S"]


# --- APIs -----------------------------------------------------------------------------------------


def test_gymnasium_single_and_vector_envs():
    env = gymnasium.make("fruit_envs/JuicyFruitsSolo-v1")
    obs, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        total += reward
        done = terminated or truncated
    assert terminated and not truncated and total == S.final_scores(env.unwrapped.game_state)[0, 0]
    envs = gymnasium.make_vec("fruit_envs/JuicyFruitsSolo-v1", num_envs=64)
    obs, info = envs.reset(seed=1)
    assert obs.shape == (64, *S.observation_shape(SPEC.make_config()))
    gen = np.random.default_rng(0)
    finished = 0
    for _ in range(80):
        mask = info["action_mask"]
        obs, rewards, terminations, truncations, info = envs.step(
            np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1)
        )
        finished += int(terminations.sum())
        assert not truncations.any() and (rewards >= 0).all()
    assert finished >= 64


def test_pettingzoo_module_and_saved_states_keep_their_game():
    env = fruit_envs.juicy_fruits_solo_v1.env()
    env.reset(seed=0)
    assert env.possible_agents == ["player_0"]
    state = S.init(SPEC.make_config(), rng.keys_from_seed(0, 2))
    loaded = fstate.from_bytes(fstate.to_bytes(state))
    assert type(loaded) is S.State and loaded.equals(state)
    raw = fruit_envs.juicy_fruits_solo_v1.raw_env()
    with pytest.raises(ValueError, match="juicy_fruits_solo"):
        raw.load_state(R.init(R.SPEC.make_config(2), rng.keys_from_seed(0, 1)))
    with pytest.raises(ValueError, match="the description is of 'juicy_fruits'"):
        S.from_description(R.describe(R.init(R.SPEC.make_config(2), rng.keys_from_seed(0, 1)), 0))
    assert "score attack" in S.render(state, 0)


def test_greedy_scores_more_than_random():
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate_alone

    cfg = SPEC.make_config()
    greedy = evaluate_alone(SPEC, cfg, make_agent("greedy", SPEC, cfg), 200, seed=2)
    rand = evaluate_alone(SPEC, cfg, make_agent("random", SPEC, cfg), 200, seed=2)
    assert greedy["score_low"] > rand["score_high"]
    with pytest.raises(ValueError, match="no win rate"):
        from fruit_envs.agents.arena import evaluate

        evaluate(SPEC, cfg, make_agent("greedy", SPEC, cfg), make_agent("random", SPEC, cfg), 10)


def test_v0_is_retired_naming_v1():
    """v1 (issue 17): the observation gains Juicy Fruits v2's hints block; the old module and id say where to go."""
    import importlib

    with pytest.raises(ImportError, match="juicy_fruits_solo_v0 is retired.*fruit_envs.juicy_fruits_solo_v1"):
        importlib.import_module("fruit_envs.juicy_fruits_solo_v0")
    with pytest.warns(DeprecationWarning), pytest.raises(gymnasium.error.DeprecatedEnv, match="JuicyFruitsSolo-v1"):
        gymnasium.make("fruit_envs/JuicyFruitsSolo-v0")
