"""The PPO agent's fast path (issue 56): it runs the network's layers itself, skipping SB3's input checks and
torch's module calls, and must give SB3's own logits and values to the bit, or fall back to SB3's path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fruit_envs.agents import make_agent
from fruit_envs.agents.ppo import _layers
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec


def sb3_outputs(policy, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Logits and values through SB3's own path (`obs_to_tensor`, `extract_features`, the modules)."""
    with torch.no_grad():
        tensor, _ = policy.obs_to_tensor(obs)
        features = policy.extract_features(tensor, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy().astype(np.float64)
        values = policy.predict_values(tensor).numpy().reshape(-1).astype(np.float64)
    return logits, values


def positions(game: str, players: int):
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(players), frng.keys_from_seed(5, 32))
    gen = np.random.default_rng(5)
    for _ in range(12):
        mask = rules.legal_mask(state)
        yield rules.observe(state, state.to_move.astype(np.int64)), mask
        state, _ = rules.step(state, np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1), ~state.done)


@pytest.mark.parametrize("game", ["cherry_picking", "quickity_pickity", "juicy_fruits"])
def test_fast_path_gives_sb3s_logits_and_values_to_the_bit(game):
    spec = get_spec(game)
    agent = make_agent("ppo-baseline", spec, spec.make_config(2))
    for obs, mask in positions(game, 2):
        for rows in (slice(0, 1), slice(0, 16), slice(None)):
            logits, values = sb3_outputs(agent.model.policy, obs[rows])
            assert np.array_equal(agent.scores(obs[rows], mask[rows]), logits)
            assert np.array_equal(agent.values(obs[rows]), values)
    assert agent._plain and agent._actor is not None, "the shipped baselines take the fast path"


def test_a_network_with_other_layers_takes_sb3s_path_with_the_same_results():
    """A layer the fast path does not know (here a LayerNorm in the policy's network) makes it use the
    modules themselves: still exactly SB3's outputs."""
    spec = get_spec("cherry_picking")
    agent = make_agent("ppo-baseline", spec, spec.make_config(2))
    net = agent.model.policy.mlp_extractor.policy_net
    net.append(torch.nn.LayerNorm(net[-2].out_features))
    policy = agent.model.policy
    assert _layers(policy.pi_features_extractor, net, policy.action_net) is None, "not a plain stack of layers"
    for obs, mask in positions("cherry_picking", 2):
        logits, _ = sb3_outputs(agent.model.policy, obs)
        assert np.array_equal(agent.scores(obs, mask), logits)
    assert agent._actor is not None
    assert np.array_equal(agent.act(obs, mask, np.random.default_rng(0)), np.where(mask, logits, -np.inf).argmax(1))
