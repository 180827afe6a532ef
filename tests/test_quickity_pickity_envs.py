"""Quickity Pickity through the shared adapters: ticks in the parallel env, turns in the AEC env,
Gymnasium single and vector envs, declared facts and option errors."""

from __future__ import annotations

import importlib

import gymnasium
import numpy as np
import pytest

import fruit_envs
from fruit_envs import quickity_pickity_v2
from fruit_envs.core.gym_env import FruitVectorEnv
from fruit_envs.core.spec import get_spec

SPEC = get_spec("quickity_pickity")
R = SPEC.rules


def random_legal(mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


def test_parallel_env_step_is_one_tick_of_the_race():
    env = quickity_pickity_v2.parallel_env(num_players=3)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    ticks = 0
    while env.agents:
        assert all(not o["action_mask"][R.WAIT] for o in obs.values()), "every player acts in every tick"
        before = int(env.game_state.step_count[0])
        actions = {a: random_legal(obs[a]["action_mask"], rng) for a in env.agents}
        obs, rewards, terms, truncs, _ = env.step(actions)
        assert int(env.game_state.step_count[0]) == before + 3, "one decision per player"
        if env.agents:
            assert env.game_state.to_move[0] == 0 and (env.game_state.committed[0] == -1).all(), "the tick resolved"
        ticks += 1
    assert all(terms.values()) and not any(truncs.values())
    assert sorted(rewards.values())[-1] == 1.0
    assert ticks <= R.max_game_length(env.config) // 3


def test_aec_players_choose_in_seat_order_each_tick():
    env = quickity_pickity_v2.env(num_players=4)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    order = []
    for agent in env.agent_iter(max_iter=40):
        obs, _, term, trunc, _ = env.last()
        order.append(agent)
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    assert order == [f"player_{k % 4}" for k in range(40)]


def test_aec_terminal_rewards_reach_their_agents():
    env = quickity_pickity_v2.env(num_players=2)
    env.reset(seed=11)
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    cards = env.unwrapped.game_state.cards_won[0]
    assert [total[a] for a in env.possible_agents] == R.terminal_rewards(cards[None])[0].tolist()


def test_gymnasium_single_and_vector_envs():
    env = gymnasium.make("fruit_envs/QuickityPickity-v2", num_players=3, opponent="greedy", seat=1)
    obs, info = env.reset(seed=0)
    assert obs.shape == SPEC.observation_shape(env.unwrapped.config) and info["seat"] == 1
    assert env.unwrapped.game_state.to_move[0] == 1, "player_0 chose before the learner"
    vec = gymnasium.make_vec("fruit_envs/QuickityPickity-v2", num_envs=32, opponent="greedy")
    assert isinstance(vec.unwrapped, FruitVectorEnv)
    obs, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(600):
        mask = info["action_mask"]
        obs, reward, term, trunc, info = vec.step(np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1))
        finished += int(term.sum())
        assert not trunc.any()
    assert finished > 0


def test_options_reach_the_game_and_bad_ones_are_explained():
    env = quickity_pickity_v2.raw_env(num_players=2, family=True, two_player_tiles="all", rounds_to_win=2)
    env.reset(seed=0)
    assert env.game_state.layout.shape[1] == 67 and env.config.family and env.config.rounds_to_win == 2
    for kwargs, message in [
        ({"family": "yes"}, r"choose one of \[False, True\]"),
        ({"two_player_tiles": "half"}, r"choose one of \['random_half', 'one_of_each', 'all'\]"),
        ({"rounds_to_win": 9}, r"choose one of \[1, 2, 3, 4, 5\]"),
        ({"num_players": 6}, r"supports num_players in \[2, 3, 4, 5\]"),
        ({"monkeys": 4}, r"unknown option\(s\) \['monkeys'\]; allowed options are"),
    ]:
        with pytest.raises(ValueError, match=message):
            quickity_pickity_v2.parallel_env(**kwargs)
        with pytest.raises(ValueError, match=message):
            gymnasium.make("fruit_envs/QuickityPickity-v2", **kwargs)


def test_declared_facts():
    config = SPEC.make_config(4)
    assert SPEC.num_actions == R.NUM_ACTIONS == 99 and SPEC.wait_action == R.WAIT == 98
    assert SPEC.simultaneous and SPEC.hidden_information and SPEC.chance and SPEC.symmetric_seats
    assert SPEC.version == 2 and SPEC.gym_id == "fruit_envs/QuickityPickity-v2"
    assert SPEC.observation_shape(config) == (419 + 21 * 4 + 64 * (4 + 15),)
    assert SPEC.observation_shape(SPEC.make_config(2)) == (419 + 21 * 2 + 32 * (2 + 15) + 64,) == (1069,)
    assert SPEC.observation_shape(SPEC.make_config(2, two_player_tiles="one_of_each")) == (1069 - 64,)
    assert SPEC.observation_shape(SPEC.make_config(3)) == (1634,)
    assert SPEC.max_game_length(config) == 9 * 195 * 4
    assert SPEC.reward_bounds(config) == (-1.0, 1.0)
    low, high = SPEC.reward_bounds(SPEC.make_config(2, reward="score"))
    assert low == -20 and high > 0
    assert fruit_envs.all_environments["fruit/quickity_pickity_v2"] is quickity_pickity_v2
    for name in ("family", "two_player_tiles", "rounds_to_win"):
        assert name in SPEC.describe_options()


@pytest.mark.parametrize("old", [0, 1])
def test_old_versions_are_retired_with_a_message_naming_version_two(old):
    """The rules changed in v1 and the observation in v1 and v2: the old modules and Gymnasium ids refuse
    to load, each naming the new one."""
    with pytest.raises(ImportError, match=rf"quickity_pickity_v{old} is retired: .*fruit_envs\.quickity_pickity_v2 "):
        importlib.import_module(f"fruit_envs.quickity_pickity_v{old}")
    retired = rf"fruit_envs/QuickityPickity-v{old} is retired: .*\(Gymnasium id fruit_envs/QuickityPickity-v2\)"
    with pytest.raises(gymnasium.error.DeprecatedEnv, match=retired):
        with pytest.warns(DeprecationWarning):
            gymnasium.make(f"fruit_envs/QuickityPickity-v{old}")
    assert f"fruit/quickity_pickity_v{old}" not in fruit_envs.all_environments
    description = R.describe(R.init(SPEC.make_config(2), np.array([1], dtype=np.uint64)))
    description["version"] = old
    with pytest.raises(ValueError, match=f"description is of quickity_pickity v{old}, rules are v2"):
        R.from_description(description)


def test_page_documents_every_option_and_layout_block():
    page = quickity_pickity_v2.__doc__
    for name in list(SPEC.config_cls.options()) + list(R.observation_layout(SPEC.make_config(2))):
        assert f"`{name}`" in page, name


def test_render_modes():
    env = quickity_pickity_v2.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("Quickity Pickity - 2 players") and "monkeys face up: 0/3" in text


def test_check_game_catches_a_peek_under_face_down_tiles(monkeypatch):
    """`redeal_hidden` permutes the face-down tiles, so an observation that peeks under one fails."""
    from fruit_envs.testing import ConformanceError, check_game

    honest = R.observe

    def peeking(state, player):
        obs = honest(state, player)
        down = state.location == R.FACE_DOWN
        obs[:, 0] = (down & (state.layout == 0)).any(axis=1)  # "a sweet red round is still face down somewhere"
        obs[:, 1] = state.layout[:, -1] == 5  # what lies under the last slot
        return obs

    monkeypatch.setattr(R, "observe", peeking)
    with pytest.raises(ConformanceError, match="re-dealt"):
        check_game("quickity_pickity", 2, num_games=32, loss_games=0)


def test_check_game_catches_a_peek_into_the_box(monkeypatch):
    """With two players a random half of the fruit lies in the box unseen; `redeal_hidden` redraws it from
    what the seats have seen, so an observation that counts a type's copies in play fails."""
    from fruit_envs.testing import ConformanceError, check_game

    honest = R.observe

    def peeking(state, player):
        obs = honest(state, player)
        obs[:, 0] = state.in_play[:, 0]  # copies of sweet red round in play
        return obs

    monkeypatch.setattr(R, "observe", peeking)
    with pytest.raises(ConformanceError, match="re-dealt"):
        check_game("quickity_pickity", 2, num_games=32)


def test_check_game_catches_a_peek_at_the_pile(monkeypatch):
    from fruit_envs.testing import ConformanceError, check_game

    honest = R.observe

    def peeking(state, player):
        obs = honest(state, player)
        obs[:, 0] = state.deck[np.arange(state.batch_size), state.deck_pos] / 16  # the next card
        return obs

    monkeypatch.setattr(R, "observe", peeking)
    with pytest.raises(ConformanceError, match="re-dealt"):
        check_game("quickity_pickity", 3, num_games=32, loss_games=0)


def test_check_game_catches_a_peek_at_another_players_choice(monkeypatch):
    from fruit_envs.testing import ConformanceError, check_game

    honest = R.observe

    def peeking(state, player):
        obs = honest(state, player)
        other = (np.asarray(player) + 1) % state.config.num_players
        obs[:, 0] = state.committed[np.arange(state.batch_size), other] == R.FLIP_ACTION
        return obs

    monkeypatch.setattr(R, "observe", peeking)
    with pytest.raises(ConformanceError, match="re-dealt"):
        check_game("quickity_pickity", 2, num_games=64, loss_games=0)


def test_greedy_places_where_the_card_pays_and_beats_random():
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate

    config = SPEC.make_config(2)
    greedy = make_agent("greedy", SPEC, config)
    state = R.from_description(
        {
            "config": {"num_players": 2},
            "held": {"player_0": "sweet yellow bunch"},
            "sets": {"player_0": [["sour green drop"], ["sweet yellow long", "sweet yellow drop"]]},
        }
    )
    action = greedy.act(R.observe(state, 0), R.legal_mask(state), np.random.default_rng(0))
    assert R.action_to_string(config, action[0]) == "place in set 1", "the yellow set grows to 3 and pays"
    result = evaluate(SPEC, config, greedy, make_agent("random", SPEC, config), 60, seed=0)
    assert result["win_rate"] > 0.9
