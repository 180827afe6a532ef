"""PettingZoo's `state()` and `state_space`: the global state a centralized critic may use, on every game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import game_ids
from pettingzoo.test.state_test import test_parallel_env as pettingzoo_parallel_state_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import fruit_envs
from fruit_envs.core import global_state as fglobal
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec


def module(game: str):
    return getattr(fruit_envs, get_spec(game).pettingzoo_name)


def positions(game: str, steps: int = 40, seed: int = 0, num_players: int | None = None):
    """The raw AEC env after each of `steps` random legal decisions (fewer if the game ends)."""
    env = module(game).raw_env(num_players=num_players or get_spec(game).default_num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            return
        yield env
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))


@pytest.mark.parametrize("game", game_ids())
def test_pettingzoo_state_tests_pass(game):
    """PettingZoo's own state test: `state_space` a bounded Box, `state()` inside it after every step."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo warns about infinite bounds, NaNs, non-arrays, all zeros
        pettingzoo_state_space_test(module(game).env())
        pettingzoo_state_test(module(game).env(), num_cycles=10)
        pettingzoo_parallel_state_test(module(game).parallel_env())  # every game has one (issue 29)


@pytest.mark.parametrize("game", game_ids())
def test_global_state_is_every_seat_observation_then_the_game_state(game):
    """The layout the game pages document: each seat's observation, then every state field but `keys`."""
    rules = get_spec(game).rules
    for env in positions(game, steps=25):
        state = env.state()
        parts = fglobal.layout(game, env.config)
        assert state.shape == env.state_space.shape == (max(s.stop for s in parts.values()),)
        assert state.dtype == np.float32 and env.state_space.contains(state)
        for seat in range(env.config.num_players):
            np.testing.assert_array_equal(
                state[parts[f"observation/player_{seat}"]], rules.observe(env.game_state, seat)[0]
            )
        fields = env.game_state.arrays()
        assert {f"state/{name}" for name in fields} - set(parts) == {"state/keys"}, "every field but the random key"
        for name, array in fields.items():
            if name != "keys":
                np.testing.assert_array_equal(state[parts[f"state/{name}"]], array[0].ravel().astype(np.float32))


@pytest.mark.parametrize("game", [g for g in game_ids() if get_spec(g).hidden_information])
def test_global_state_holds_what_no_seat_may_see(game):
    """It is the referee's view, for centralized critics only: re-dealing what seat 0 cannot see leaves
    seat 0's observation as it was and changes the global state (with the most players: two Cherry
    Picking players know each other's hands, every card being in sight or in one of the two)."""
    rules = get_spec(game).rules
    changed = 0
    for step, env in enumerate(positions(game, steps=30, num_players=max(get_spec(game).official_player_counts))):
        state = env.game_state.copy()
        other = rules.redeal_hidden(state, 0, frng.keys_from_seed(step, 1))
        np.testing.assert_array_equal(rules.observe(other, 0), rules.observe(state, 0))
        changed += not np.array_equal(fglobal.global_state(other), fglobal.global_state(state))
    assert changed > 0, "hidden information never reached the global state"


def test_global_state_is_batched_and_space_is_shared_by_the_parallel_env():
    env = fruit_envs.cherry_picking_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=1)
    assert env.state_space == fruit_envs.cherry_picking_v0.raw_env(num_players=3).state_space
    state = env.state()
    for k, agent in enumerate(env.possible_agents):
        part = fglobal.layout("cherry_picking", env.config)[f"observation/player_{k}"]
        np.testing.assert_array_equal(state[part], observations[agent]["observation"])
    batch = fglobal.global_state(get_spec("cherry_picking").rules.init(env.config, frng.keys_from_seed(0, 5)))
    assert batch.shape == (5, *env.state_space.shape)


def test_state_needs_a_started_game():
    env = fruit_envs.cherry_picking_v0.raw_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) \(or load_state\(\)\) before state\(\)"):
        env.state()
    assert env.game_state is None


def test_old_state_attribute_still_answers_with_a_deprecation_warning():
    """`env.state` was the batched game state; read that way it still works, naming `env.game_state`."""
    env = fruit_envs.cherry_picking_v0.env()
    env.reset(seed=0)
    with pytest.warns(DeprecationWarning, match=r"use env\.game_state\.scores"):
        scores = env.unwrapped.state.scores
    np.testing.assert_array_equal(scores, env.unwrapped.game_state.scores)
    gym_env = fruit_envs.FruitEnv("cherry_picking")
    gym_env.reset(seed=0)
    with pytest.warns(DeprecationWarning, match="renamed env.game_state"):
        assert gym_env.state is gym_env.game_state


@pytest.mark.parametrize("game", game_ids())
def test_game_page_says_what_the_global_state_holds(game):
    assert "**Global state**" in module(game).__doc__ and "global_state.layout" in module(game).__doc__
