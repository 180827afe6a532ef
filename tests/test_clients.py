"""Our envs in the RL libraries people plug them into, each by that library's documented path.

TorchRL, Tianshou and SuperSuit come with the `clients` extra (./dev installs it, so CI runs these);
without one, its tests skip naming it. AgileRL cannot share an environment with TorchRL (it pins older
pettingzoo and tensordict releases): what it reads, the action mask in each agent's info, is tested here
without it (tests/test_agilerl.py runs it in its own environment). Every game, parallel paths included.
Rollouts are short, and
every action taken is checked legal.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from conftest import game_ids
from gymnasium.vector import AutoresetMode

import fruit_envs
from fruit_envs.core.spec import get_spec

PARALLEL = game_ids()  # every game has a parallel env (issue 29: the turn-based ones too)


def module(game: str):
    return getattr(fruit_envs, get_spec(game).pettingzoo_name)


def client(name: str):
    return pytest.importorskip(name, reason=f"{name} is not installed: pip install -e '.[clients]' (./dev does)")


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for each row of `mask` `(..., A)`."""
    return np.argmax(np.where(np.asarray(mask, dtype=bool), rng.random(np.shape(mask)), -1.0), axis=-1)


# --- what every client relies on ----------------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_aec_info_holds_each_agents_action_mask(game):
    """AgileRL reads masks from the info dict: every live agent's info has its observation's mask."""
    env = module(game).raw_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        for agent in env.agents:
            mask = env.infos[agent]["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (env.spec.num_actions,)
            np.testing.assert_array_equal(mask, env.observe(agent)["action_mask"])
        _, _, term, trunc, info = env.last()
        if term or trunc:
            break
        env.step(int(random_legal(info["action_mask"], rng)))


def test_envs_pickle_and_deepcopy_mid_game():
    """Vectorizers copy envs (Tianshou, SuperSuit, Gymnasium's async mode pickle them or their makers)."""
    import copy
    import pickle

    def masks(env):
        return {agent: info["action_mask"].tolist() for agent, info in env.infos.items()}

    aec, parallel = fruit_envs.cherry_picking_v0.raw_env(), fruit_envs.cherry_picking_v0.parallel_env()
    aec.reset(seed=0)
    parallel.reset(seed=0)
    for clone in (pickle.loads(pickle.dumps(aec)), copy.deepcopy(aec)):
        np.testing.assert_array_equal(clone.state(), aec.state())
        assert masks(clone) == masks(aec)
    for clone in (pickle.loads(pickle.dumps(parallel)), copy.deepcopy(parallel)):
        np.testing.assert_array_equal(clone.state(), parallel.state())


@pytest.mark.parametrize("game", PARALLEL)
def test_parallel_info_holds_each_agents_action_mask(game):
    env = module(game).parallel_env()
    observations, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert set(infos) == set(observations) == set(env.agents)
        for agent, obs in observations.items():
            assert infos[agent]["action_mask"] is obs["action_mask"], "the same array as in the observation"
        actions = {agent: int(random_legal(info["action_mask"], rng)) for agent, info in infos.items()}
        observations, _, terms, truncs, infos = env.step(actions)
        assert not any(info.get("illegal_action") for info in infos.values())
        if not env.agents:
            break


def test_unknown_keywords_raise_type_error_naming_the_allowed_options():
    """Python raises TypeError for an unexpected keyword, and clients rely on it: TorchRL's GymEnv passes
    `frameskip=` and drops it on a TypeError saying "unexpected keyword argument 'frameskip'"."""
    makers = [
        fruit_envs.cherry_picking_v0.raw_env,
        fruit_envs.cherry_picking_v0.env,
        fruit_envs.cherry_picking_v0.parallel_env,
        lambda **kw: gymnasium.make("fruit_envs/CherryPicking-v0", **kw),
        lambda **kw: gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=2, **kw),
    ]
    for make in makers:
        with pytest.raises(TypeError, match=r"allowed options are \['reward', 'same_sort_bonus'\]") as error:
            make(frameskip=4)
        assert "unexpected keyword argument 'frameskip'" in str(error.value)
        with pytest.raises(ValueError, match=r"choose one of \['repeat', 'once'\]") as error:
            make(same_sort_bonus="twice")
        assert not isinstance(error.value, TypeError), "a bad value of a known option stays a ValueError"


# --- Gymnasium's vector envs and wrappers --------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_gymnasium_vector_wrappers_on_make_vec(game):
    """Gymnasium's vector wrappers, NormalizeObservation included, over `make_vec` (next-step autoreset)."""
    from gymnasium.wrappers import vector as wrappers

    spec = get_spec(game)
    envs = gymnasium.make_vec(spec.gym_id, num_envs=4, illegal_action="raise")
    envs = wrappers.FlattenObservation(envs)
    envs = wrappers.RescaleObservation(envs, 0.0, 1.0)
    envs = wrappers.NormalizeObservation(envs)
    envs = wrappers.TransformObservation(envs, lambda obs: np.clip(obs, -10, 10), envs.observation_space)
    envs = wrappers.ClipReward(envs, -1.0, 1.0)
    envs = wrappers.NormalizeReward(envs)
    envs = wrappers.RecordEpisodeStatistics(envs)
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, reward, term, trunc, info = envs.step(random_legal(info["action_mask"], rng))
        assert obs.shape == envs.observation_space.shape and np.isfinite(obs).all()
    listed = wrappers.DictInfoToList(gymnasium.make_vec(spec.gym_id, num_envs=2))
    _, infos = listed.reset(seed=0)
    _, _, _, _, infos = listed.step(np.array([random_legal(i["action_mask"], rng) for i in infos]))
    assert isinstance(infos, list) and len(infos) == 2 and infos[0]["action_mask"].shape == (spec.num_actions,)


def test_record_episode_statistics_counts_whole_games():
    """RecordEpisodeStatistics over next-step autoreset reports each finished game's return and length."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=8, reward="score"))
    _, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns, lengths, reported = np.zeros(8), np.zeros(8, dtype=int), 0
    ended = np.zeros(8, dtype=bool)
    for _ in range(400):
        _, reward, term, trunc, info = envs.step(random_legal(info["action_mask"], rng))
        returns, lengths = np.where(ended, 0, returns) + reward, np.where(ended, 0, lengths) + ~ended
        ended = term | trunc
        if ended.any():
            np.testing.assert_allclose(info["episode"]["r"][ended], returns[ended], rtol=1e-5)
            np.testing.assert_array_equal(info["episode"]["l"][ended], lengths[ended])
            reported += int(ended.sum())
    assert reported >= 8


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_sync_and_async_vector_envs(mode):
    """Gymnasium's own vectorization of the single-learner env, for every game in one short loop."""
    rng = np.random.default_rng(0)
    for game in game_ids() if mode == "sync" else ["cherry_picking"]:  # async starts processes: one game
        envs = gymnasium.make_vec(get_spec(game).gym_id, num_envs=2, vectorization_mode=mode, illegal_action="raise")
        _, info = envs.reset(seed=0)
        for _ in range(10):
            _, _, _, _, info = envs.step(random_legal(info["action_mask"], rng))
        envs.close()


# --- TorchRL -------------------------------------------------------------------------------------


def _assert_legal(td, group: str | None = None):
    """Every action of a TorchRL rollout is legal in the mask it was chosen from."""
    root = td if group is None else td[group]
    chosen = root["action"].long().unsqueeze(-1)
    legal = root["action_mask"].gather(-1, chosen).squeeze(-1)
    if group is not None and "mask" in root.keys():
        legal = legal | ~root["mask"]  # an AEC agent that is not acting: its action is not applied
    assert bool(legal.all()), "an illegal action was taken"


@pytest.mark.parametrize("game", game_ids())
def test_torchrl_pettingzoo_wrapper_aec_with_mask_and_state(game):
    client("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(env=module(game).raw_env(), use_mask=True, return_state=True, seed=0)
    check_env_specs(env, seed=0)
    td = env.rollout(25, break_when_any_done=False)  # raw_env raises on an illegal action
    assert td["state"].shape[-1] == module(game).raw_env().state_space.shape[0]
    for group in env.group_map:
        _assert_legal(td, group)


@pytest.mark.parametrize("game", PARALLEL)
def test_torchrl_pettingzoo_wrapper_parallel(game):
    client("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(env=module(game).parallel_env(), use_mask=True, return_state=True, seed=0)
    check_env_specs(env, seed=0)
    td = env.rollout(25, break_when_any_done=False)
    for group in env.group_map:
        _assert_legal(td, group)
        assert not td["next", group, "terminated"].any(), "an illegal action would have ended the game"


def _torchrl_masked(env, num_actions: int, batch: tuple[int, ...] = ()):
    """TorchRL's documented masking: the info's `action_mask` read into the tensordict, then `ActionMask`."""
    import torch
    from torchrl.data import Binary
    from torchrl.envs import ActionMask
    from torchrl.envs.libs.gym import default_info_dict_reader

    spec = {"action_mask": Binary(n=num_actions, shape=(*batch, num_actions), dtype=torch.bool)}
    env.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec=spec))
    return env.append_transform(ActionMask())


@pytest.mark.parametrize("game", game_ids())
def test_torchrl_gym_env_by_id(game):
    """`GymEnv(id)` passes `frameskip=`, then retries without it on our TypeError."""
    client("torchrl")
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    spec = get_spec(game)
    env = GymEnv(spec.gym_id, categorical_action_encoding=True, illegal_action="raise")
    env = _torchrl_masked(env, spec.num_actions)
    check_env_specs(env, seed=0)
    _assert_legal(env.rollout(25, break_when_any_done=False))


@pytest.mark.parametrize("game", game_ids())
def test_torchrl_gym_wrapper_over_make_vec(game):
    """TorchRL wants same-step autoreset (it refuses next-step): `autoreset_mode=SAME_STEP`."""
    client("torchrl")
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    spec = get_spec(game)
    envs = gymnasium.make_vec(spec.gym_id, num_envs=3, autoreset_mode=AutoresetMode.SAME_STEP)
    env = _torchrl_masked(GymWrapper(envs, categorical_action_encoding=True), spec.num_actions, (3,))
    check_env_specs(env, seed=0)
    _assert_legal(env.rollout(25, break_when_any_done=False))


# --- Tianshou ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_tianshou_pettingzoo_env_with_a_collector(game):
    """Tianshou's PettingZooEnv reads the mask from the observation; masked random players, in a collector."""
    client("tianshou")
    from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, CollectStats
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv

    def make():
        return PettingZooEnv(module(game).raw_env())  # raises on an illegal action

    env = make()
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    stats = Collector[CollectStats](algorithm, envs).collect(n_step=40, reset_before_collect=True)
    assert stats.n_collected_steps == 40


def test_tianshou_dqn_trains_in_one_seat():
    """A Tianshou DQN in one seat against a masked random player, through Tianshou's off-policy trainer."""
    client("tianshou")
    import torch
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    torch.manual_seed(0)

    def make():
        return PettingZooEnv(fruit_envs.cherry_picking_v0.raw_env(num_players=2))

    env = make()
    shape = env.observation_space["observation"].shape
    net = Net(state_shape=shape, action_shape=env.action_space.n, hidden_sizes=[64])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=10)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn, opponent], env=env)
    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    collector = Collector[CollectStats](algorithm, envs, VectorReplayBuffer(2000, 2), exploration_noise=True)
    collector.reset()
    before = [p.detach().clone() for p in net.parameters()]
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=32,
            collection_step_num_env_steps=16,
            update_step_num_gradient_steps_per_sample=0.25,
            batch_size=16,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
            verbose=False,
            show_progress=False,
        )
    )
    assert result.train_step >= 32 and result.update_step > 0
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters(), strict=True)), "the DQN learned"
    assert np.isin(collector.buffer.rew, [-1.0, 0.0, 1.0]).all(), "outcome rewards only"


# --- SuperSuit -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", PARALLEL)
def test_supersuit_vector_env_of_a_parallel_env(game):
    """`pettingzoo_env_to_vec_env_v1` + `concat_vec_envs_v1`: each agent of each copy is a row."""
    ss = client("supersuit")

    players = min(2, max(get_spec(game).player_counts))
    env = module(game).parallel_env(num_players=players)
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="gymnasium")
    assert envs.num_envs == 2 * players
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(get_spec(game).max_game_length(env.config) if game == "cherry_picking" else 30):
        obs, _, term, trunc, infos = envs.step(random_legal(obs["action_mask"], rng))
        assert not any(info.get("illegal_action") for info in infos)
        finished += int((term | trunc).sum())
        if finished:
            break
    assert finished or game != "cherry_picking", "a whole game was played and reset"
