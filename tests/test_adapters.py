"""Behaviour of the adapters every game shares: AEC, parallel, Gymnasium single and vector, SB3."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from conftest import game_ids

import fruit_envs
from fruit_envs import IllegalActionError, cherry_picking_v0
from fruit_envs.core import state as fstate
from fruit_envs.core.aec import FruitAECEnv, make_aec_env
from fruit_envs.core.errors import InvalidActionError
from fruit_envs.core.gym_env import FruitVectorEnv
from fruit_envs.core.spec import get_spec


def first_legal(mask):
    return int(np.flatnonzero(mask)[0])


# --- illegal actions and bad arguments -----------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_raw_env_raises_on_illegal_action_and_changes_nothing(game):
    env = FruitAECEnv(game)
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = fstate.to_bytes(env.game_state)
    with pytest.raises(IllegalActionError, match="legal actions are") as info:
        env.step(illegal)
    assert info.value.action == illegal and info.value.legal == np.flatnonzero(mask).tolist()
    for bad in (-1, 10_000, 2.5, "x", True):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert fstate.to_bytes(env.game_state) == before


@pytest.mark.parametrize("game", game_ids())
def test_env_follows_pettingzoo_classic_on_illegal_action(game):
    env = make_aec_env(game)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1 and all(r == 0 for a, r in env.rewards.items() if a != agent)


def test_parallel_env_illegal_action_ends_the_game():
    env = cherry_picking_v0.parallel_env(num_players=3)
    obs, _ = env.reset(seed=1)
    actions = {a: first_legal(obs[a]["action_mask"]) for a in env.agents}
    actions["player_1"] = cherry_picking_v0.raw_env().rules.WAIT  # not legal while committing
    _, rewards, terms, _, infos = env.step(actions)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terms.values()) and infos["player_1"]["illegal_action"] and env.agents == []


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 9}, r"supports num_players in \[2, 3, 4, 5, 6\]"),
        ({"num_players": "two"}, "must be an integer"),
        ({"colour": "red"}, r"unknown option\(s\) \['colour'\]; allowed options are"),
        ({"same_sort_bonus": "twice"}, r"choose one of \['repeat', 'once'\]"),
        ({"reward": "dense"}, r"choose one of \['terminal', 'score'\]"),
        ({"render_mode": "rgb"}, "render_mode must be None or one of"),
    ],
)
def test_bad_constructor_arguments_say_what_is_allowed(kwargs, message):
    for make in (cherry_picking_v0.raw_env, cherry_picking_v0.env, cherry_picking_v0.parallel_env):
        with pytest.raises(ValueError, match=message):
            make(**kwargs)
    with pytest.raises(ValueError, match=message):
        gymnasium.make("fruit_envs/CherryPicking-v0", **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"opponent": "alphazero"}, r"unknown agent 'alphazero'; known agents are"),
        ({"opponent": "ppo:/nonexistent/model.zip"}, "no PPO model at"),
        ({"opponent": 42}, "opponent must be"),
        ({"seat": 5}, r"seat must be None \(random each game\) or an int in 0..1"),
        ({"illegal_action": "ignore"}, "illegal_action must be 'lose', 'raise' or 'replace'"),
        ({"illegal_action": "replace", "illegal_penalty": -0.5}, r"illegal_penalty must be a finite number >= 0"),
        ({"illegal_action": "replace", "illegal_penalty": float("nan")}, "illegal_penalty must be a finite number"),
        ({"illegal_action": "replace", "illegal_penalty": "0.1"}, "illegal_penalty must be a number >= 0, got '0.1'"),
        ({"illegal_penalty": 0.1}, "illegal_penalty applies only with illegal_action='replace'"),
    ],
)
def test_bad_gymnasium_arguments_say_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gymnasium.make("fruit_envs/CherryPicking-v0", **kwargs)
    with pytest.raises(ValueError, match=message):
        gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=2, **kwargs)


def test_unknown_game_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"unknown game 'chess'; registered games are \['cherry_picking'"):
        FruitAECEnv("chess")


# --- AEC -----------------------------------------------------------------------------------------


def test_aec_exposes_read_only_state_and_rules():
    env = cherry_picking_v0.raw_env(num_players=3)
    env.reset(seed=0)
    assert env.rules.SPEC.id == "cherry_picking"
    assert env.game_state.batch_size == 1
    with pytest.raises(ValueError, match="read-only"):
        env.game_state.hands[0, 0, 0] = 5


@pytest.mark.parametrize("kind", ["aec", "parallel"])
def test_a_game_state_read_earlier_keeps_its_position(kind):
    """The envs step their own state in place (issue 33); a state read before a step still shows the
    position it was read in, and each position's observation and info share one mask."""
    env = cherry_picking_v0.raw_env(num_players=3) if kind == "aec" else cherry_picking_v0.parallel_env(num_players=3)
    first = env.reset(seed=3)
    before = env.game_state
    saved = fstate.to_bytes(before)
    if kind == "aec":
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        assert mask is env.infos[agent]["action_mask"] and mask.dtype == np.int8
        env.step(int(np.flatnonzero(mask)[0]))
    else:
        observations, infos = first
        env.step({a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in env.agents})
    assert fstate.to_bytes(before) == saved, "an earlier game_state changed with the step"
    assert int(env.game_state.step_count[0]) > int(before.step_count[0])
    assert env.game_state is env.game_state, "one copy per position"


def test_aec_rewards_reach_the_agents_they_belong_to():
    """Terminal rewards arrive through last() for each agent, matching the final scores."""
    env = cherry_picking_v0.env(num_players=3)
    env.reset(seed=11)
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    scores = env.unwrapped.game_state.scores[0]
    expected = get_spec("cherry_picking").rules.terminal_rewards(scores[None])[0]
    assert [total[a] for a in env.possible_agents] == expected.tolist()


def test_aec_load_state_continues_from_a_described_position():
    env = cherry_picking_v0.raw_env(num_players=2)
    env.reset(seed=5)
    env.step(first_legal(env.observe("player_0")["action_mask"]))
    d = env.rules.describe(env.game_state)
    other = cherry_picking_v0.raw_env(num_players=2)
    other.reset(seed=99)
    other.load_state(env.rules.from_description(d))
    assert other.agent_selection == env.agent_selection == "player_1"
    for agent in ("player_0", "player_1"):
        assert np.array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])


def test_aec_render_modes():
    env = cherry_picking_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Cherry Picking" in text and "plants:" in text and "player_1" in text


def test_parallel_env_commits_all_cards_in_one_step():
    env = cherry_picking_v0.parallel_env(num_players=4)
    obs, _ = env.reset(seed=2)
    wait = env.rules.WAIT
    assert all(not o["action_mask"][wait] for o in obs.values()), "everyone chooses a card at first"
    steps = 0
    while env.agents:
        actions = {a: first_legal(obs[a]["action_mask"]) for a in env.agents}
        before = int(env.game_state.step_count[0])
        obs, rewards, terms, truncs, _ = env.step(actions)
        choosers = [a for a, o in obs.items() if not o["action_mask"][wait]]
        assert int(env.game_state.step_count[0]) > before
        if env.agents and env.rules.describe(env.game_state)["phase"] == "choose":
            assert len(choosers) == 1, "after the reveal one player chooses at a time; the others wait"
        steps += 1
    assert all(terms.values()) and sorted(rewards.values())[-1] == 1.0


# --- Gymnasium -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_same_seed_same_trajectory_single_env(game):
    spec = get_spec(game)

    def run(seed):
        env = gymnasium.make(spec.gym_id, opponent="greedy")
        obs, info = env.reset(seed=seed)
        out = [obs]
        rng = np.random.default_rng(0)
        for _ in range(40):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, term, trunc, info = env.step(action)
            out += [obs, reward]
            if term or trunc:
                obs, info = env.reset()
        return out

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("game", game_ids())
def test_single_env_plays_the_same_through_the_one_game_path(game, monkeypatch):
    """A batch of one steps through `rules.advance` (one kernel call per decision, opponents included);
    without it (the batched path every vector env takes) the same seeds give the same games: observations,
    masks, rewards, ends, outcomes and records, against a random and a greedy opponent, every player count."""
    spec = get_spec(game)

    def run(players, opponent, **options):
        records = []
        env = gymnasium.make(spec.gym_id, num_players=players, opponent=opponent, record=records, **options)
        obs, info = env.reset(seed=3)
        out = [obs, info["action_mask"]]
        rng = np.random.default_rng(0)
        for _ in range(300):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, term, trunc, info = env.step(action)
            out += [obs, info["action_mask"], reward, term, trunc, info.get("outcome")]
            if term or trunc:
                obs, info = env.reset()
                out += [obs, info["action_mask"]]
        return out, [{k: v for k, v in r.to_dict().items() if k != "meta"} for r in records]  # meta: the time

    cases = [(players, opponent, {}) for players in spec.player_counts for opponent in ("random", "greedy")]
    cases.append((spec.player_counts[0], "greedy", {"reward": "score"}))  # rewards on every step
    for players, opponent, options in cases:
        fast = run(players, opponent, **options)
        with monkeypatch.context() as patch:
            patch.delattr(spec.rules, "advance")
            batched = run(players, opponent, **options)
        assert fast[1] and fast[1] == batched[1], (players, opponent, options)
        assert all(np.array_equal(x, y) for x, y in zip(fast[0], batched[0], strict=True)), (players, opponent, options)


@pytest.mark.parametrize("game", game_ids())
def test_single_env_judges_each_action_by_the_position_it_is_taken_in(game):
    """The Gymnasium env of one game keeps the learner's mask from the call that computed it; an action is
    still judged by the rules' mask of the position it is taken in: after resets in mid-game, after the
    user wrote into a returned mask, and for actions illegal there (each one loses the game)."""
    spec = get_spec(game)
    env = gymnasium.make(spec.gym_id, opponent="random")
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(1)
    illegal_taken = 0
    for _ in range(400):
        legal = spec.rules.legal_mask(env.unwrapped.game_state, env.unwrapped.seat)[0]
        assert np.array_equal(info["action_mask"], legal)
        info["action_mask"][:] = True  # the user's copy, not the env's
        if rng.random() < 0.05:
            obs, info = env.reset(seed=int(rng.integers(1000)))
            continue
        if rng.random() < 0.1 and not legal.all():
            action, illegal = int(rng.choice(np.flatnonzero(~legal))), True
        else:
            action, illegal = int(rng.choice(np.flatnonzero(legal))), False
        obs, reward, term, trunc, info = env.step(action)
        assert info.get("illegal_action", False) == illegal
        if illegal:
            illegal_taken += 1
            assert term and reward == -1.0 and info["outcome"] == -1
        if term or trunc:
            obs, info = env.reset()
    assert illegal_taken > 0


def test_single_env_seat_and_illegal_modes():
    env = gymnasium.make("fruit_envs/CherryPicking-v0", num_players=3, seat=2, opponent="greedy")
    obs, info = env.reset(seed=0)
    assert info["seat"] == 2 and env.unwrapped.game_state.to_move[0] == 2, "opponents moved before the learner"
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, term, trunc, info = env.step(illegal)
    assert term and reward == -1.0 and info["illegal_action"] and info["outcome"] == -1
    strict = gymnasium.make("fruit_envs/CherryPicking-v0", illegal_action="raise")
    _, info = strict.reset(seed=0)
    before = fstate.to_bytes(strict.unwrapped.game_state)
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert fstate.to_bytes(strict.unwrapped.game_state) == before


def test_single_env_accepts_a_policy_object_as_opponent():
    calls = []

    class Lowest:
        def act(self, obs, mask, rng):
            calls.append(len(obs))
            return np.argmax(mask, axis=1)

    env = gymnasium.make("fruit_envs/CherryPicking-v0", opponent=Lowest())
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert calls


def test_make_vec_is_backed_by_the_batched_rules():
    """Same-step autoreset: the step that ends a game returns the next one's first observation."""
    same_step = gymnasium.vector.AutoresetMode.SAME_STEP
    env = gymnasium.make_vec(
        "fruit_envs/CherryPicking-v0", num_envs=64, num_players=3, opponent="greedy", autoreset_mode=same_step
    )
    assert isinstance(env.unwrapped, FruitVectorEnv)
    assert env.metadata["autoreset_mode"] == env.unwrapped.autoreset_mode == same_step
    obs, info = env.reset(seed=0)
    assert obs.shape == (64, *env.single_observation_space.shape)
    rng = np.random.default_rng(0)
    finished = 0
    rules = env.unwrapped.spec_.rules
    for _ in range(400):
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"])
        state, seats = env.unwrapped.game_state, env.unwrapped.seats
        assert (state.to_move == seats).all(), "every game waits for its learner"
        assert np.array_equal(mask, rules.legal_mask(state, seats))
        assert np.array_equal(obs, rules.observe(state, seats))
        actions = np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1)
        obs, reward, term, trunc, info = env.step(actions)
        if term.any():
            finished += int(term.sum())
            assert info["_final_obs"].tolist() == term.tolist()
            assert set(np.unique(reward[term])) <= {-1.0, 0.0, 1.0}
            assert set(np.unique(info["outcome"][term])) <= {-1, 0, 1}
        assert (reward[~term] == 0).all(), "terminal rewards only at the end"
    assert finished >= 64


def test_vector_env_autoresets_on_the_next_step_by_default():
    """Gymnasium's default: the step that ends a game returns its last observation; the next step ignores
    that game's action and returns a new game's first observation, reward 0, not terminated."""
    env = gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=16, opponent="random", illegal_action="raise")
    assert env.metadata["autoreset_mode"] == env.unwrapped.autoreset_mode == gymnasium.vector.AutoresetMode.NEXT_STEP
    rules = env.unwrapped.spec_.rules
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = np.zeros(16, dtype=bool)
    restarts = 0
    for _ in range(300):
        mask = info["action_mask"]
        actions = np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1)
        actions[ended] = 10_000  # ignored: with illegal_action="raise" an applied one would raise
        obs, reward, term, trunc, info = env.step(actions)
        state, seats = env.unwrapped.game_state, env.unwrapped.seats
        assert np.array_equal(obs, rules.observe(state, seats)), "the returned observation is of the game in each row"
        if ended.any():
            restarts += int(ended.sum())
            assert (reward[ended] == 0).all() and not (term | trunc)[ended].any()
            assert (state.to_move[ended] == seats[ended]).all() and not state.done[ended].any(), "a new game waits"
        finished = term | trunc
        assert np.array_equal(state.done, finished), "a game that ended stays on show until the next step"
        assert "final_obs" not in info
        if finished.any():
            assert info["_outcome"].tolist() == finished.tolist()
            assert info["action_mask"][finished].all(), "any action is accepted (and ignored) after the end"
        ended = finished
    assert restarts >= 16


@pytest.mark.parametrize("mode", ["SAME_STEP", "SameStep", gymnasium.vector.AutoresetMode.SAME_STEP])
def test_vector_env_autoreset_mode_by_name_or_member(mode):
    env = FruitVectorEnv(num_envs=2, autoreset_mode=mode)
    assert env.autoreset_mode == env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert FruitVectorEnv.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP, "class default kept"


def test_vector_env_refuses_an_unsupported_autoreset_mode():
    for mode in ("sometimes", gymnasium.vector.AutoresetMode.DISABLED):
        with pytest.raises(ValueError, match=r"autoreset_mode must be one of \['NEXT_STEP', 'SAME_STEP'\]"):
            gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=2, autoreset_mode=mode)


def test_vector_env_same_seed_same_trajectory():
    def run():
        env = gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=8, opponent="random")
        obs, info = env.reset(seed=123)
        rng = np.random.default_rng(1)
        out = [obs]
        for _ in range(150):
            mask = info["action_mask"]
            obs, reward, term, trunc, info = env.step(np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1))
            out += [obs, reward, term]
        return out

    assert all(np.array_equal(x, y) for x, y in zip(run(), run(), strict=True))


def test_vector_env_rejects_wrong_action_batches():
    env = FruitVectorEnv(num_envs=4, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="is not a batch of 4 actions"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="learner in env 0"):
        env.step(np.full(4, 59))


def test_gymnasium_registration_is_idempotent():
    fruit_envs.register_envs()
    assert "fruit_envs/CherryPicking-v0" in gymnasium.registry


# --- SB3 -----------------------------------------------------------------------------------------


def test_sb3_vec_env_masks_describe_the_returned_observations():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv("cherry_picking", num_envs=16, num_players=2, opponent="greedy")
    obs = env.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        masks = env.env_method("action_masks")
        assert masks.shape == (16, 60)
        rules = env.spec_.rules
        assert np.array_equal(masks, rules.legal_mask(env.batch.state, env.batch.seats))
        assert np.array_equal(obs, rules.observe(env.batch.state, env.batch.seats))
        env.step_async(np.argmax(np.where(masks, rng.random(masks.shape), -1), axis=1))
        obs, rewards, dones, infos = env.step_wait()
        for g in np.flatnonzero(dones):
            assert infos[g]["terminal_observation"].shape == obs.shape[1:]
            assert infos[g]["episode"]["r"] == rewards[g]
            episodes += 1
    assert episodes > 16


def test_human_render_prints_the_table(capsys):
    env = cherry_picking_v0.raw_env(render_mode="human")
    env.reset(seed=0)
    env.step(first_legal(env.observe(env.agent_selection)["action_mask"]))
    assert "Cherry Picking" in capsys.readouterr().out


def test_pettingzoo_style_registry():
    assert fruit_envs.all_environments["fruit/cherry_picking_v0"] is cherry_picking_v0
    for module in fruit_envs.all_environments.values():
        assert callable(module.env) and callable(module.raw_env)


def test_game_spec_declares_its_facts():
    spec = get_spec("cherry_picking")
    config = spec.make_config(3)
    assert spec.player_counts == (2, 3, 4, 5, 6) and spec.num_actions == 60
    assert spec.chance and spec.hidden_information and spec.simultaneous
    assert spec.observation_shape(config) == (430 + 108 * 3,)
    assert spec.max_game_length(config) == 3 * 14 * 2 * 3
    assert spec.reward_bounds(config) == (-1.0, 1.0)
    assert spec.reward_bounds(spec.make_config(3, reward="score"))[1] > 100
    assert "same_sort_bonus" in spec.describe_options()
    assert get_spec("cherry_picking_v0") is get_spec("CherryPicking") is spec


# --- issue 29: the vector env's illegal-action flag, parallel envs for turn-based games, masks in info ----


def test_vector_env_flags_a_game_lost_by_an_illegal_action():
    """Issue 29: the single-game env's info said `illegal_action`, the vector env's did not, so a loss by an
    illegal move looked like a real loss."""
    envs = gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=4, opponent="random", seat=0)
    _, info = envs.reset(seed=0)
    mask = info["action_mask"]
    actions = np.argmax(mask, axis=1)
    actions[1] = int(np.flatnonzero(~mask[1])[0])  # game 1: an illegal move, which loses it
    _, rewards, terminated, _, info = envs.step(actions)
    assert terminated.tolist() == [False, True, False, False] and rewards[1] == -1
    assert info["illegal_action"].tolist() == [False, True, False, False]
    assert info["_illegal_action"].tolist() == [False, True, False, False] and info["outcome"][1] == -1
    finished = 0
    for _ in range(400):  # later games end by the rules: flagged False
        _, _, terminated, truncated, info = envs.step(np.argmax(info["action_mask"], axis=1))
        ended = terminated | truncated
        if ended.any():
            assert not info["illegal_action"][ended].any() and info["_illegal_action"].tolist() == ended.tolist()
            finished += int(ended.sum())
    assert finished > 0


def test_sb3_vec_env_flags_illegal_losses_too():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv("cherry_picking", num_envs=2, seat=0)
    env.reset()
    mask = env.action_masks()
    env.step_async(np.array([first_legal(mask[0]), int(np.flatnonzero(~mask[1])[0])]))
    _, _, done, infos = env.step_wait()
    assert done.tolist() == [False, True] and infos[1]["illegal_action"] is True and infos[1]["outcome"] == -1


@pytest.mark.parametrize("game", ["fruit_picking", "juicy_fruits"])
def test_parallel_env_of_a_turn_based_game_adds_the_wait_action(game):
    """Issue 29: Fruit Picking and Juicy Fruits had no parallel env. The seat to move chooses from its
    own mask; every other seat has only the wait action the env adds, one past the game's last."""
    module = fruit_envs.all_environments[f"fruit/{get_spec(game).pettingzoo_name}"]
    A = get_spec(game).num_actions
    env, aec = module.parallel_env(num_players=3), module.raw_env(num_players=3)
    assert env.wait_action == A and env.action_space("player_0").n == A + 1
    assert env.observation_space("player_1")["action_mask"].shape == (A + 1,)
    observations, infos = env.reset(seed=5)
    aec.reset(seed=5)
    rng = np.random.default_rng(0)
    steps = 0
    while env.agents:
        mover = aec.agent_selection
        for agent, obs in observations.items():
            mask = obs["action_mask"].astype(bool)
            np.testing.assert_array_equal(infos[agent]["action_mask"], obs["action_mask"])
            if agent == mover:
                np.testing.assert_array_equal(mask[:A], aec.action_mask(agent).astype(bool))
                assert not mask[A]
            else:
                assert np.flatnonzero(mask).tolist() == [A]
            np.testing.assert_array_equal(obs["observation"], aec.observe(agent)["observation"])
        action = int(rng.choice(np.flatnonzero(observations[mover]["action_mask"])))
        observations, rewards, terms, truncs, infos = env.step({a: action if a == mover else A for a in env.agents})
        aec.step(action)  # the same game, one decision per parallel step
        steps += 1
        if not env.agents:
            assert all(terms.values()) or all(truncs.values())
            assert rewards == {a: aec.rewards[a] for a in rewards}
    assert steps > 20 and (all(aec.terminations.values()) or all(aec.truncations.values()))


@pytest.mark.parametrize("game", game_ids())
def test_mask_in_observation_false_gives_the_array_and_the_mask_in_info(game):
    """Issue 29: AgileRL refuses any observation holding an `action_mask` key; the option leaves it in info only."""
    module = fruit_envs.all_environments[f"fruit/{get_spec(game).pettingzoo_name}"]
    n = get_spec(game).default_num_players
    plain, usual = module.env(mask_in_observation=False), module.env()
    assert plain.observation_space("player_0") == usual.observation_space("player_0")["observation"]
    plain.reset(seed=1)
    usual.reset(seed=1)
    for agent in plain.agent_iter(200):
        observation, _, termination, truncation, info = plain.last()
        expected = usual.observe(agent)
        assert isinstance(observation, np.ndarray) and observation.shape == plain.observation_space(agent).shape
        np.testing.assert_array_equal(observation, expected["observation"])
        np.testing.assert_array_equal(info["action_mask"], expected["action_mask"])
        action = None if termination or truncation else first_legal(info["action_mask"])
        plain.step(action)
        usual.step(action)
    parallel = module.parallel_env(num_players=n, mask_in_observation=False)
    observations, infos = parallel.reset(seed=1)
    assert all(isinstance(o, np.ndarray) for o in observations.values()) and set(infos) == set(observations)
    with pytest.raises(ValueError, match="mask_in_observation must be True"):
        module.raw_env(mask_in_observation="no")


def test_an_opponent_that_needs_no_observation_is_not_observed_for():
    """Random play declares `needs_observation = False`: the envs pass it None and skip observing (the
    Gymnasium env against random got faster by one observation per opponent decision); any other policy
    still gets the observations of its seats."""
    seen = {"random": [], "plain": []}

    class Blind:
        needs_observation = False

        def act(self, obs, mask, rng):
            seen["random"].append(obs)
            return np.argmax(mask, axis=1)

    class Plain:
        def act(self, obs, mask, rng):
            seen["plain"].append(obs)
            return np.argmax(mask, axis=1)

    for policy in (Blind(), Plain()):
        env = gymnasium.make("fruit_envs/CherryPicking-v0", opponent=policy, seat=0)
        _, info = env.reset(seed=1)
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert seen["random"] and all(obs is None for obs in seen["random"])
    assert seen["plain"] and all(isinstance(obs, np.ndarray) and obs.ndim == 2 for obs in seen["plain"])


# --- issue 54: illegal_action="replace", for learners that cannot mask (RL Zoo's PPO, DQN, ...) ----------


def next_legal(mask: np.ndarray, action: int) -> int:
    """The documented rule, written out: the first legal action at or after `action`, wrapping round to 0."""
    return next(a % len(mask) for a in range(action, action + len(mask)) if mask[a % len(mask)])


def test_replacement_rule_on_hand_made_masks():
    from fruit_envs.core.engine import replacement_actions

    masks = np.array([[0, 1, 0, 0, 1], [0, 1, 0, 0, 1], [0, 1, 0, 0, 1], [1, 0, 0, 0, 0]], dtype=bool)
    actions = np.array([1, 2, 4, 3])  # legal, next one up, legal, wraps round past the last action to 0
    assert replacement_actions(masks, actions).tolist() == [1, 4, 4, 0]
    assert replacement_actions(masks[:1], np.array([0])).tolist() == [1]


@pytest.mark.parametrize("game", game_ids())
def test_replace_plays_the_next_legal_action_flags_it_and_charges_the_penalty(game):
    """A game played with illegal_action="replace" and random actions (most of them illegal) is the game the
    default env plays with the actions that were played: same observations, same ends, the same rewards less
    `illegal_penalty` where an action was replaced; every step's info says what happened."""
    spec = get_spec(game)
    penalty = 0.25
    replacing = gymnasium.make(spec.gym_id, opponent="random", illegal_action="replace", illegal_penalty=penalty)
    plain = gymnasium.make(spec.gym_id, opponent="random")
    obs, info = replacing.reset(seed=3)
    plain_obs, plain_info = plain.reset(seed=3)
    rng = np.random.default_rng(0)
    replaced = games = 0
    for _ in range(300):
        np.testing.assert_array_equal(obs, plain_obs)
        mask = info["action_mask"]
        action = int(rng.integers(spec.num_actions))
        obs, reward, term, trunc, info = replacing.step(action)
        played = next_legal(mask, action)
        assert info["requested_action"] == action and info["played_action"] == played
        assert info["illegal_action_replaced"] is (not mask[action])
        plain_obs, plain_reward, plain_term, plain_trunc, plain_info = plain.step(played)
        assert not {"illegal_action_replaced", "requested_action", "played_action"} & set(plain_info)
        assert (term, trunc) == (plain_term, plain_trunc)
        assert reward == pytest.approx(plain_reward - penalty * info["illegal_action_replaced"])
        replaced += info["illegal_action_replaced"]
        if term or trunc:
            assert info["outcome"] == plain_info["outcome"] and info["illegal_action"] is False
            games += 1
            obs, info = replacing.reset(seed=games)
            plain_obs, plain_info = plain.reset(seed=games)
    assert replaced > 20


def test_replace_leaves_the_default_as_it_was():
    """The default still ends the game as a loss on an illegal action, with nothing new in its info."""
    for kwargs in ({}, {"illegal_action": "lose"}):
        env = gymnasium.make("fruit_envs/CherryPicking-v0", seat=0, **kwargs)
        _, info = env.reset(seed=0)
        _, reward, term, _, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
        assert term and reward == -1.0 and info["illegal_action"] and info["outcome"] == -1
        assert "illegal_action_replaced" not in info
    env = gymnasium.make("fruit_envs/CherryPicking-v0", seat=0, illegal_action="replace")  # no penalty by default
    _, info = env.reset(seed=0)
    _, reward, term, _, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert not term and reward == 0.0 and info["illegal_action_replaced"]


@pytest.mark.parametrize("autoreset_mode", ["NEXT_STEP", "SAME_STEP"])
def test_vector_env_replaces_illegal_actions_game_by_game(autoreset_mode):
    """The vector env plays what the single env does, flags replaced rows, and marks as acted only the rows
    that took an action (next-step, a row starting a new game ignores its action)."""
    kwargs = {"num_envs": 6, "opponent": "random", "autoreset_mode": autoreset_mode}
    envs = gymnasium.make_vec("fruit_envs/FruitPicking-v1", illegal_action="replace", illegal_penalty=0.5, **kwargs)
    plain = gymnasium.make_vec("fruit_envs/FruitPicking-v1", **kwargs)
    obs, info = envs.reset(seed=2)
    plain_obs, _ = plain.reset(seed=2)
    rng = np.random.default_rng(1)
    ended = np.zeros(6, dtype=bool)
    replaced = 0
    for _ in range(150):
        np.testing.assert_array_equal(obs, plain_obs)
        mask = info["action_mask"]
        actions = rng.integers(get_spec("fruit_picking").num_actions, size=6)
        expected = np.array([next_legal(m, a) for m, a in zip(mask, actions, strict=True)])
        obs, rewards, term, trunc, info = envs.step(actions)
        acted = ~ended
        assert info["_played_action"].tolist() == acted.tolist() == info["_illegal_action_replaced"].tolist()
        assert info["played_action"][acted].tolist() == expected[acted].tolist()
        flagged = info["illegal_action_replaced"]
        assert flagged.tolist() == (acted & ~mask[np.arange(6), actions]).tolist()
        plain_obs, plain_rewards, plain_term, plain_trunc, _ = plain.step(np.where(acted, expected, 0))
        np.testing.assert_allclose(rewards, plain_rewards - 0.5 * flagged)
        assert term.tolist() == plain_term.tolist() and trunc.tolist() == plain_trunc.tolist()
        ended = (term | trunc) if autoreset_mode == "NEXT_STEP" else ended
        replaced += int(flagged.sum())
    assert replaced > 50


def test_sb3_vec_env_replaces_too():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv("cherry_picking", num_envs=2, seat=0, illegal_action="replace", illegal_penalty=0.1)
    env.reset()
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask[1])[0])
    env.step_async(np.array([first_legal(mask[0]), illegal]))
    _, rewards, done, infos = env.step_wait()
    assert not done.any() and rewards.tolist() == pytest.approx([0.0, -0.1])
    assert [info["illegal_action_replaced"] for info in infos] == [False, True]
    assert [info["played_action"] for info in infos] == [first_legal(mask[0]), next_legal(mask[1], illegal)]
