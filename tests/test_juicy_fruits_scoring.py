"""Juicy Fruits end-of-game stalls, the accounting of fruit and points, and the readable and network views."""

from __future__ import annotations

import numpy as np
import pytest
from juicy_fruits_helpers import START, describe, island, legal, picture, play, points, position, score

import fruit_envs
from fruit_envs.core import rng
from fruit_envs.core.errors import IllegalActionError
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.testing import ConformanceError, check_game

# --- Stalls, scored at the end -------------------------------------------------------------------


def stalls(pic: str, **fields) -> int:
    state = position(players={"player_0": {"island": pic, **fields}})
    return int(R.stall_points(state.island, state.ship_present)[0, 0])


def test_beach_chair_rental():
    """'Beach chair rental — At the end of the game, gain 4 points for each of your four beaches that has been cleared of all its ships.'"""
    assert stalls(". . . . .\n~ B chairs L .\n~ . P . .\n~ O . M .\n. ~ . ~ .") == 8, "north and east cleared"
    assert stalls(". . . . .\n. B . L .\n. . P . .\n. O . M .\n. . . . .") == 0, "no stall, no points"
    assert stalls(". . . ~ .\n~ B chairs L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ .") == 0, "a beach with one ship left"


def test_catering_service():
    """'Catering service — At the end of the game, gain 4 points for each mobile business token on your island with this symbol.'"""
    pic = "BL+ ~ ~ ~ green2\n~ B catering L ~\n~ . P . ~\n~ O . M ~\nblue1 ~ ~ ~ tower"
    assert C.TOKEN_CATERING[C.TOKEN_CODES.index("BL+")] and C.TOKEN_CATERING[C.TOKEN_CODES.index("blue1")]
    assert not C.TOKEN_CATERING[C.TOKEN_CODES.index("green2")]
    assert stalls(pic) == 8


def test_info_booth():
    """'Info booth — At the end of the game, gain 1 point per star icon on your island's venue tokens.'"""
    pic = "tower ~ ~ ~ .\n~ B info L ~\n~ . P eco ~\n~ O M eco ~\n. ~ ~ ~ ."
    assert stalls(pic) == int(C.TOKEN_STARS[C.TOKEN_CODES.index("tower")] + C.TOKEN_STARS[C.TOKEN_CODES.index("eco")])


def test_stalls_are_scored_once_the_game_ends():
    """'Once the game has ended, gain points for any stall tokens on your island'."""
    history = {
        "island": "chairs . . . .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ .",
        "markers": {"blue 6": 2, "blue 5": 2},
    }
    more = {
        "island": "LP+ ~ ~ ~ OM+\n~ B . L ~\n~ . P . ~\n~ O . M ~\ngreen2 ~ ~ ~ pink2",
        "fruit": {"orange": 1, "lime": 1},
    }
    state = position(
        players={"player_0": more, "player_1": history}, business_board=[["tower"], [], [], [], []], to_move="player_0"
    )
    assert describe(state)["license_steps_left"] == 1 and points(state, 1)["stalls"] == 0
    state, _ = play(state, "c3", "c2", "claim row 1 slot 1", "c3")
    state, _ = play(state, "c3", "c2", "pass")
    assert describe(state)["done"] and points(state, 1)["stalls"] == 4, "the north beach is clear"


# --- Accounting ------------------------------------------------------------------------------------


def test_every_point_is_traced_to_its_source():
    """Every point on the score track comes from a ship, a claim, a venue, a marker or a stall (issue 6)."""
    state = R.init(R.SPEC.make_config(3), rng.keys_from_seed(11, 64))
    gen = np.random.default_rng(0)
    from fruit_envs.agents import make_agent

    greedy = make_agent("greedy", R.SPEC, state.config)
    while not state.done.all():
        state, _ = R.step(state, greedy.act(R.observe(state, state.to_move), R.legal_mask(state), gen))
    assert not R.invariants(state)
    assert (R.traced_points(state) == state.points).all()
    assert (state.points[..., R.SOURCES.index("venues")] > 0).any() and (state.points[..., R.STALLS_PTS] > 0).any()


def test_invariants_catch_lost_fruit_and_untraced_points():
    state = position(players={"player_0": {"fruit": {"banana": 2}}})
    bad = state.copy()
    bad.fruit[0, 0, 0] += 1
    assert any("fruit not accounted" in p for p in R.invariants(bad))
    bad = state.copy()
    bad.points[0, 1, R.SHIPS_PTS] += 2
    assert any("points not traced" in p for p in R.invariants(bad))
    bad = state.copy()
    bad.stacks[0, 0] -= 1
    assert any("markers not conserved" in p for p in R.invariants(bad))


def test_check_game_catches_fruit_from_nowhere(monkeypatch):
    honest = R.step

    def generous(state, actions, active=None, in_place=False):
        nxt, rewards = honest(state, actions, active, in_place=in_place)
        nxt.fruit[:, 0, 0] += 1
        return nxt, rewards

    monkeypatch.setattr(R, "step", generous)
    with pytest.raises(ConformanceError, match="fruit not accounted"):
        check_game("juicy_fruits", 2, num_games=8)


# --- Readable views --------------------------------------------------------------------------------


def test_describe_round_trips_through_from_description():
    state = R.init(R.SPEC.make_config(4), rng.keys_from_seed(5, 8))
    gen = np.random.default_rng(1)
    for _ in range(60):
        mask = R.legal_mask(state)
        state, _ = R.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        for i in range(0, 8, 3):
            assert R.from_description(R.describe(state, i)).equals(state.take(i))


def test_island_picture_reads_back():
    assert island(position()) == picture(START)
    text = R.render(position())
    assert "player_0: score 0" in text and "row 5 (3 orange + 3 banana -> 5 pts)" in text and "~" in text


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"players": {"player_0": {"island": ". ~ ~ ~ .\n~ X . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."}}},
            "unknown island symbol",
        ),
        ({"players": {"player_0": {"island": ". ~ ~ ~\n~ B . L ~"}}}, "5 rows of 5"),
        ({"players": {"player_0": {"island": START.replace("B", ".")}}}, "banana collector"),
        ({"players": {"player_0": {"fruit": {"kiwi": 1}}}}, "field 'players.player_0.fruit.kiwi': unknown field"),
        ({"players": {"player_0": {"ships": {"Z": "BBO/2"}}}}, "field 'players.player_0.ships.Z': unknown field"),
        ({"players": {"player_0": {"ships": {"A": "XYZ/2"}}}}, "no ship has the order"),
        ({"business_board": [["dragon"], [], [], [], []]}, r"field 'business_board\[0\]\[0\]': must be one of"),
        ({"business_board": [["lemonade"], [], [], [], []]}, "lemonade stand"),
        ({"phase": "dancing"}, "field 'phase': must be one of"),
        ({"to_move": "player_7"}, "field 'to_move': must be one of"),
        ({"license_steps_left": 3}, "license marker misplaced"),
    ],
)
def test_bad_descriptions_say_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        position(**change)


def test_action_names_round_trip_and_bad_names():
    cfg = R.SPEC.make_config(2)
    names = [R.action_to_string(cfg, a) for a in range(R.NUM_ACTIONS)]
    assert len(set(names)) == R.NUM_ACTIONS == 66
    assert all(R.string_to_action(cfg, n) == a for a, n in enumerate(names))
    assert names[:2] == ["a1", "b1"] and names[R.PASS] == "pass" and names[R.CLAIM] == "claim row 1 slot 1"
    with pytest.raises(ValueError, match="no Juicy Fruits action"):
        R.string_to_action(cfg, "jump")
    with pytest.raises(ValueError, match="0..65"):
        R.action_to_string(cfg, 66)


# --- What a network sees ---------------------------------------------------------------------------


def test_observation_is_the_whole_public_state_seen_from_each_seat():
    """Full information after setup: every seat sees every island, reserve and score, its own first."""
    state = position(players={"player_1": {"fruit": {"banana": 3}}, "player_0": {"fruit": {"lime": 1}}})
    lay = R.observation_layout(state.config)
    mine, theirs = R.observe(state, 0)[0], R.observe(state, 1)[0]
    assert np.allclose(mine[lay["fruit"]] * 10, [0, 1, 0, 0, 0, 3, 0, 0, 0, 0]), "own reserve first"
    assert np.allclose(theirs[lay["fruit"]] * 10, [3, 0, 0, 0, 0, 0, 1, 0, 0, 0])
    planes = mine[lay["islands"]].reshape(2, R.N_CHANNELS, 25)
    assert planes[0, 3, 6] == 1 and planes[0, 2, 1] == 1, "banana collector on b2, a ship on b1"
    assert mine[lay["phase"]].argmax() == R.MOVE_TOKEN and mine[lay["to_move"]].tolist() == [1, 0]
    assert theirs[lay["to_move"]].tolist() == [0, 1] and theirs[lay["seat"]].tolist() == [0, 1]
    assert R.observation_shape(state.config) == (lay["hints"].stop,) and lay["hints"].start == lay["islands"].stop


def test_observation_declared_shape_and_bounds():
    for players in (2, 3, 4):
        cfg = R.SPEC.make_config(players)
        state = R.init(cfg, rng.keys_from_seed(0, 4))
        obs = R.observe(state, 0)
        assert obs.shape == (4, *R.observation_shape(cfg)) and obs.dtype == np.float32
        assert 0 <= obs.min() and obs.max() <= R.OBSERVATION_HIGH


def test_spec_declares_its_facts():
    spec = fruit_envs.get_spec("juicy_fruits")
    assert spec.gym_id == "fruit_envs/JuicyFruits-v2" and spec.pettingzoo_name == "juicy_fruits_v2"
    assert spec.num_actions == 66 and spec.player_counts == (2, 3, 4)
    assert spec.chance and not spec.hidden_information and not spec.simultaneous
    assert spec.max_game_length(spec.make_config(2)) == C.ROUND_CAP * 2 * 9
    assert spec.reward_bounds(spec.make_config(2, reward="score"))[1] >= 12 + 16
    assert "corners_playable" in spec.describe_options() and "ship_setup" in spec.describe_options()
    assert fruit_envs.all_environments["fruit/juicy_fruits_v2"].__doc__.startswith("Juicy Fruits")
    assert "ROUND_CAP" in spec.truncation and "frozen" in spec.truncation


@pytest.mark.parametrize("old", [0, 1])
def test_old_versions_are_retired_naming_v2(old):
    """v1 (issue 16): a cut-off game pays no outcome; v2 (issue 17): the observation's hints block. The old
    modules and Gymnasium ids refuse to load, each naming the new one."""
    import importlib

    import gymnasium

    with pytest.raises(
        ImportError, match=rf"juicy_fruits_v{old} is retired.*fruit_envs.juicy_fruits_v2.*JuicyFruits-v2"
    ):
        importlib.import_module(f"fruit_envs.juicy_fruits_v{old}")
    with pytest.warns(DeprecationWarning), pytest.raises(gymnasium.error.DeprecatedEnv, match="JuicyFruits-v2"):
        gymnasium.make(f"fruit_envs/JuicyFruits-v{old}")
    assert f"fruit/juicy_fruits_v{old}" not in fruit_envs.all_environments


def test_bad_options_say_what_is_allowed():
    spec = fruit_envs.get_spec("juicy_fruits")
    with pytest.raises(ValueError, match="num_players in \\[2, 3, 4\\]"):
        spec.make_config(5)
    with pytest.raises(ValueError, match="choose one of \\['bags', 'mixed'\\]"):
        spec.make_config(2, ship_setup="sorted")
    with pytest.raises(ValueError, match="allowed options are"):
        spec.make_config(2, juice_factory=True)


def test_raw_env_refuses_an_illegal_action():
    env = fruit_envs.juicy_fruits_v2.raw_env()
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError, match="move_token"):
        env.step(int(np.flatnonzero(mask == 0)[0]))


def test_score_reward_pays_the_points_as_they_come():
    """`reward="score"`: per-step score deltas; the supply example pays 2 to its player."""
    state = position(
        players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": {"banana": 2, "orange": 1}}},
        config={"num_players": 2, "reward": "score"},
        phase="supply_or_claim",
    )
    _, rewards = play(state, "b1")
    assert rewards.tolist() == [2.0, 0.0]


def test_greedy_beats_random():
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate

    spec = fruit_envs.get_spec("juicy_fruits")
    cfg = spec.make_config(2)
    result = evaluate(spec, cfg, make_agent("greedy", spec, cfg), make_agent("random", spec, cfg), 60, seed=4)
    assert result["win_rate"] > 0.65
    assert legal(position()) and score(position()) == 0


def test_step_refuses_actions_of_the_wrong_kind():
    state = position()
    with pytest.raises(ValueError, match="cannot be taken in phase 'move_token'; legal actions are"):
        R.step(state, np.array([R.PASS]))
    with pytest.raises(ValueError, match="out of 0..65"):
        R.step(state, np.array([99]))
    with pytest.raises(ValueError, match="1 integer actions"):
        R.step(state, np.array([1, 2]))


def random_games(players: int, seed: int, n: int):
    """`n` random-legal games played to the end; the final state and each seat's summed rewards."""
    state = R.init(R.SPEC.make_config(players), rng.keys_from_seed(seed, n))
    gen, total = np.random.default_rng(seed), np.zeros((n, players))
    while not state.done.all():
        mask = R.legal_mask(state)
        state, rewards = R.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        total += rewards
    return state, total


def test_a_full_draw_pays_nothing(monkeypatch):
    """The reward contract (`fruit_envs.core.spec.outcome_rewards`, docs/termination.md): +1 each winner, -1 each loser, 0 all round in a full draw.
    Random games never tie completely, so the end of each game is judged a full draw here."""
    monkeypatch.setattr(R, "winners", lambda state: np.ones((state.batch_size, state.config.num_players), bool))
    state, total = random_games(3, 4, 8)
    finished = ~state.truncated
    assert finished.any() and (total[finished] == 0).all()


def test_terminal_rewards_follow_the_winners():
    """+1 each winner and -1 each other (the reward contract, docs/termination.md), from the game's own winners."""
    state, total = random_games(2, 5, 16)
    won, ended = R.winners(state), ~state.truncated
    assert ended.any()
    np.testing.assert_array_equal(total[ended], np.where(won, 1.0, -1.0)[ended])
