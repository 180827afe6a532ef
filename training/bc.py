"""Behaviour cloning warm start: a PPO policy first imitates a baseline agent on batched games.

The batched rules play thousands of games of the teacher (the greedy agent by default, or the search
agent, which also sees the state it re-samples from) against itself in one batch. Every decision of every seat becomes a sample: the seat's observation and legal
mask, the teacher's action, and the value target the learner will later estimate, the seat's return
from that decision on (its outcome, less the shaping potential when potential-based shaping is used).
`pretrain` then fits the policy's masked action distribution (cross-entropy) and its value head
(mean squared error) before PPO starts, so PPO refines a policy that already plays like the teacher.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.shaping import score_margin
from fruit_envs.core.spec import Config, GameSpec, get_spec, outcome_rewards


@dataclass
class Demonstrations:
    """Teacher decisions: `obs (N, O)`, `mask (N, A)` bool, `actions (N,)`, `returns (N,)` float32."""

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    games: int

    def __len__(self) -> int:
        return len(self.actions)


def demonstrations(
    game: str | GameSpec,
    config: Config,
    teacher,
    games: int,
    seed: int = 0,
    shaping: float = 0.0,
) -> Demonstrations:
    """Play `games` games with `teacher` in every seat, in one batch, and keep every decision.

    The return of a decision is the seat's terminal reward (`config.reward == "terminal"`) or the
    rewards it collects from then on (`"score"`), minus `shaping` times its potential at the decision
    (what a potential-shaped learner's value estimates with gamma = 1)."""
    spec = get_spec(game)
    rules = spec.rules
    gen = np.random.default_rng(seed)
    state = rules.init(config, frng.keys_from_seed(seed, games))
    p = config.num_players
    obs_log, mask_log, action_log, game_log, seat_log, phi_log, collected_log = [], [], [], [], [], [], []
    collected = np.zeros((games, p), dtype=np.float64)  # rewards paid to each seat so far
    for _ in range(spec.max_game_length(config) + 1):
        live = np.flatnonzero(~state.done)
        if len(live) == 0:
            break
        sub = state.take(live)
        seats = sub.to_move.astype(np.int64)
        obs = rules.observe(sub, seats)
        mask = rules.legal_mask(sub)
        extra = {"state": sub, "seats": seats} if getattr(teacher, "needs_state", False) else {}
        actions = np.asarray(teacher.act(obs, mask, gen, **extra), dtype=np.int64)
        obs_log.append(obs.astype(np.float32))
        mask_log.append(mask)
        action_log.append(actions)
        game_log.append(live)
        seat_log.append(seats)
        phi_log.append(score_margin(spec, sub, seats) if shaping else np.zeros(len(live)))
        collected_log.append(collected[live, seats].copy())
        full = np.zeros(games, dtype=np.int64)
        full[live] = actions
        state, rewards = rules.step(state, full)
        collected += rewards
    else:
        raise RuntimeError("teacher games outlived the declared maximum length")
    g, k = np.concatenate(game_log), np.concatenate(seat_log)
    if config.reward == "terminal":
        final = outcome_rewards(rules.winners(state)).astype(np.float64)
        final[state.truncated] = 0.0  # a game cut off by a cap pays no outcome
        returns = final[g, k]
    else:
        returns = collected[g, k] - np.concatenate(collected_log)
    returns = returns - shaping * np.concatenate(phi_log)
    return Demonstrations(
        obs=np.concatenate(obs_log),
        mask=np.concatenate(mask_log),
        actions=np.concatenate(action_log),
        returns=returns.astype(np.float32),
        games=games,
    )


def pretrain(
    policy,
    data: Demonstrations,
    epochs: int = 10,
    batch_size: int = 2048,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
) -> list[dict]:
    """Fit a MaskableActorCriticPolicy to the demonstrations; returns per-epoch mean losses and accuracy."""
    import torch

    gen = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data.obs)
    mask = torch.as_tensor(data.mask)
    actions = torch.as_tensor(data.actions)
    returns = torch.as_tensor(data.returns)
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = torch.as_tensor(gen.permutation(len(data)))
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        for start in range(0, len(data), batch_size):
            idx = order[start : start + batch_size]
            features = policy.extract_features(obs[idx])
            pi_features, vf_features = features if isinstance(features, tuple) else (features, features)
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
            logits = policy.action_net(latent_pi).masked_fill(~mask[idx], -1e8)
            values = policy.value_net(latent_vf).squeeze(-1)
            policy_loss = torch.nn.functional.cross_entropy(logits, actions[idx])
            value_loss = torch.nn.functional.mse_loss(values, returns[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            share = len(idx) / len(data)
            totals["policy_loss"] += policy_loss.item() * share
            totals["value_loss"] += value_loss.item() * share
            totals["accuracy"] += float((logits.argmax(dim=1) == actions[idx]).float().mean()) * share
        history.append({"epoch": epoch + 1, **{k: round(v, 5) for k, v in totals.items()}})
    policy.set_training_mode(False)
    return history
