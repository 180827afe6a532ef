"""A trained MaskablePPO policy behind the batched `act(obs, mask, rng)` interface (needs the train extra)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import torch

from fruit_envs.core.spec import Config, GameSpec, get_spec


class PolicyOnly:
    """What `PPOAgent` needs of a model: its policy and spaces (a saved policy has no optimizer)."""

    def __init__(self, policy):
        self.policy = policy
        self.observation_space = policy.observation_space
        self.action_space = policy.action_space


def load_model(path: str | Path):
    """Load a MaskablePPO zip (or a saved policy) on the CPU, or a policy exported as data (`model.json`, read by
    `fruit_envs.agents.weights` without unpickling); a missing or unreadable file is a ValueError. A zip is a
    pickle: load only files you trust."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no PPO model at {str(path)!r}")
    if path.suffix == ".json":
        from fruit_envs.agents.weights import load_policy

        return load_policy(path)
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as model_error:  # not a full model: maybe a policy saved with policy.save()
        try:
            return PolicyOnly(MaskableActorCriticPolicy.load(path, device="cpu"))
        except Exception:
            raise ValueError(f"{str(path)!r} is not a readable MaskablePPO model: {model_error}") from model_error


class PPOAgent:
    """Acts with a MaskablePPO policy; `deterministic` takes the most likely legal action.

    Stochastic play samples from the masked policy with the `rng` passed to `act`, so a seeded
    match is reproducible.
    """

    name = "ppo"

    def __init__(self, model_or_path, game: str | GameSpec, config: Config, deterministic: bool = True):
        self.model = load_model(model_or_path) if isinstance(model_or_path, (str, Path)) else model_or_path
        self.path = str(model_or_path) if isinstance(model_or_path, (str, Path)) else None
        self.spec, self.config, self.deterministic = get_spec(game), config, deterministic
        self._plain: bool | None = None  # whether observations go to the network as they are (`_tensor`)
        self._actor = None  # observations to logits (`scores`), built on first use
        expected_obs = self.spec.observation_shape(config)
        got_obs = tuple(self.model.observation_space.shape)
        got_actions = getattr(self.model.action_space, "n", None)
        if got_obs != tuple(expected_obs) or got_actions != self.spec.num_actions:
            raise ValueError(
                f"model {self.path or ''} was trained on observations {got_obs} and {got_actions} actions; "
                f"{self.spec.name} with {config.num_players} players has {tuple(expected_obs)} and "
                f"{self.spec.num_actions}"
            )

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` float64 the policy's logits (higher: likelier), the ranking search's `prior` reads."""
        if self._actor is None:
            policy = self.model.policy
            self._actor = _layers(policy.pi_features_extractor, policy.mlp_extractor.policy_net, policy.action_net) or (
                lambda x: policy.action_net(policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x)))
            )
        with torch.inference_mode():  # the actor's logits alone: no value head, no distribution objects
            return self._actor(self._tensor(obs)).cpu().numpy().astype(np.float64)

    def values(self, obs: np.ndarray) -> np.ndarray:
        """`(B,)` float64 the value head's estimate of the observing seat's return from here on."""
        policy = self.model.policy
        with torch.inference_mode():
            features = policy.vf_features_extractor(self._tensor(obs))
            values = policy.value_net(policy.mlp_extractor.forward_critic(features))
            return values.cpu().numpy().reshape(-1).astype(np.float64)

    def _tensor(self, obs: np.ndarray) -> torch.Tensor:
        """The batch as the features extractors' input (SB3's `obs_to_tensor` then `preprocess_obs`). A flat
        float observation on the CPU needs neither, so it skips their checks (issue 56: a fifth of a small
        batch's time) for the very same tensor."""
        policy = self.model.policy
        if self._plain is None:
            from gymnasium import spaces
            from stable_baselines3.common.preprocessing import is_image_space

            space = policy.observation_space
            self._plain = (
                isinstance(space, spaces.Box)
                and space.dtype == np.float32
                and not is_image_space(space)
                and policy.device.type == "cpu"
            )
        if self._plain:
            return torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32).reshape(len(obs), -1))
        from stable_baselines3.common.preprocessing import preprocess_obs

        tensor, _ = policy.obs_to_tensor(np.asarray(obs, dtype=np.float32))
        return preprocess_obs(tensor, policy.observation_space, normalize_images=policy.normalize_images)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        logits = np.where(mask, self.scores(obs, mask), -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
        draws = rng.random((len(obs), 1))
        choice = (cumulative < draws).sum(axis=1)
        # guard against rounding pushing past the last legal action
        return np.where(mask[np.arange(len(obs)), np.minimum(choice, mask.shape[1] - 1)], choice, np.argmax(logits, 1))

    def __repr__(self) -> str:
        return f"PPOAgent({self.path or 'in-memory model'}, deterministic={self.deterministic})"


def _layers(*modules):
    """One function running `modules` in turn by their layers' own `forward` (skipping torch's module-call
    machinery: most of a small batch's overhead), or None where one is not a plain stack of layers. The same
    operations on the same tensors as calling the modules, so the same results to the bit."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    steps = []
    for module in modules:
        if isinstance(module, FlattenExtractor):
            continue  # the batch is already flat (`_tensor`)
        layers = list(module) if isinstance(module, torch.nn.Sequential) else [module]
        if not all(type(layer) in _PLAIN for layer in layers) or module._forward_hooks or module._forward_pre_hooks:
            return None
        steps += [layer.forward for layer in layers]

    def run(x):
        for step in steps:
            x = step(x)
        return x

    return run


_PLAIN = (torch.nn.Linear, torch.nn.Tanh, torch.nn.ReLU)

BASELINES = Path(__file__).resolve().parent / "baselines"


def baseline_files(spec: GameSpec, num_players: int, protocol: int | None = None) -> tuple[Path, Path]:
    """The shipped policy of a game and player count, and its metadata (`<game>_<n>p.zip` / `.json`).

    With `protocol`, the policy benchmark protocol v`protocol` was calibrated with: a baseline replaced
    since keeps its old files in `baselines/protocol_v<N>/`, so the protocol's anchors stay true."""
    stem = BASELINES / f"{spec.id}_{num_players}p"
    pinned = BASELINES / f"protocol_v{protocol}" / stem.name
    if protocol is not None and pinned.with_suffix(".json").is_file():
        stem = pinned
    return stem.with_suffix(".zip"), stem.with_suffix(".json")


_SHARED: dict = {}
_SHARED_LOCK = threading.Lock()


def _shared_model(path: Path):
    """One loaded copy of a shipped model file per process, shared by every agent that plays it (the web app's
    games, search's networks); its users only read it (a warm start copies its weights)."""
    key = (str(path), path.stat().st_mtime_ns)
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = load_model(path)
        return _SHARED[key]


def shipped_baselines() -> list[dict]:
    """Metadata of every shipped PPO baseline."""
    import json

    return [json.loads(path.read_text()) for path in sorted(BASELINES.glob("*.json"))]


def load_baseline(
    game: str | GameSpec, config: Config, deterministic: bool = True, protocol: int | None = None
) -> PPOAgent:
    """The PPO policy shipped with the package for this game and player count (with `protocol`: the one
    that benchmark protocol was calibrated with, `ppo-baseline@N`).

    It was trained on one rules version and observation size (its `.json` says which); another is
    refused with a clear message rather than played with the wrong meaning."""
    import json

    spec = get_spec(game)
    policy_path, meta_path = baseline_files(spec, config.num_players, protocol)
    if not meta_path.is_file() or not policy_path.is_file():
        have = [f"{m['game']} ({m['num_players']} players)" for m in shipped_baselines()]
        raise ValueError(
            f"no PPO baseline is shipped for {spec.name} with {config.num_players} players; shipped: {have}. "
            f"Train and ship one with: python -m fruit_envs.training.baselines retrain --games {spec.id} "
            f"--players {config.num_players}"
        )
    meta = json.loads(meta_path.read_text())
    expected = list(spec.observation_shape(config))
    if meta["rules_version"] != spec.version or meta["observation_shape"] != expected:
        raise ValueError(
            f"the shipped PPO baseline for {spec.name} was trained on rules v{meta['rules_version']} with "
            f"observations of shape {tuple(meta['observation_shape'])}; the installed rules are v{spec.version} "
            f"with {tuple(expected)}. Retrain it: python -m fruit_envs.training.baselines retrain --games {spec.id}"
        )
    agent = PPOAgent(_shared_model(policy_path), spec, config, deterministic=deterministic)
    agent.path = str(policy_path)
    agent.name = "ppo-baseline" if deterministic else "ppo-baseline-sample"
    agent.meta = meta
    return agent
