"""A trained RLlib policy behind the batched `act(obs, mask, rng)` interface (needs the distributed extra).

The policy is the `ActionMaskingTorchRLModule` that `fruit_envs.training.train_rllib` trains: it reads
`{"observations": (B, O), "action_mask": (B, A)}` and returns logits with illegal actions pushed to
the float minimum. Load one from a run's `model/` folder, from any of its `checkpoints/step_*`
(whole-algorithm checkpoints), or pass a module object.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from fruit_envs.core.spec import Config, GameSpec, get_spec

POLICY_ID = "shared"  # the one policy every seat plays in self-play
_MODULE_IN_CHECKPOINT = Path("learner_group") / "learner" / "rl_module" / POLICY_ID


def load_module(path: str | Path):
    """The RLModule saved at `path` (a run folder, its `model/`, or a whole-algorithm checkpoint), on the CPU."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = Path(path)
    if (path / "model").is_dir():  # a run folder: its final policy
        path = path / "model"
    if (path / _MODULE_IN_CHECKPOINT).is_dir():
        path = path / _MODULE_IN_CHECKPOINT
    if not (path / "module_state.pkl").is_file() and not (path / "module_state.msgpack").is_file():
        raise ValueError(f"no RLlib module at {str(path)!r} (expected a run folder, its model/ or a checkpoint)")
    return RLModule.from_checkpoint(path.resolve())


class RLlibAgent:
    """Acts with an RLlib action-masking module; `deterministic` takes the most likely legal action.

    Stochastic play samples from the masked policy with the `rng` passed to `act`, so a seeded
    match is reproducible.
    """

    name = "rllib"

    def __init__(self, module_or_path, game: str | GameSpec, config: Config, deterministic: bool = True):
        is_path = isinstance(module_or_path, (str, Path))
        self.module = load_module(module_or_path) if is_path else module_or_path
        self.path = str(module_or_path) if is_path else None
        self.spec, self.config, self.deterministic = get_spec(game), config, deterministic
        space = self.module.observation_space
        got_obs = tuple(space["observations"].shape) if hasattr(space, "spaces") else tuple(space.shape)
        got_actions = getattr(self.module.action_space, "n", None)
        expected_obs = tuple(self.spec.observation_shape(config))
        if got_obs != expected_obs or got_actions != self.spec.num_actions:
            raise ValueError(
                f"RLlib module {self.path or ''} was trained on observations {got_obs} and {got_actions} actions; "
                f"{self.spec.name} with {config.num_players} players has {expected_obs} and {self.spec.num_actions}"
            )
        self.module.eval()

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` float64 masked logits (illegal actions at -inf)."""
        from ray.rllib.core.columns import Columns

        batch = {
            Columns.OBS: {
                "observations": torch.as_tensor(np.asarray(obs, dtype=np.float32)),
                "action_mask": torch.as_tensor(np.asarray(mask, dtype=np.float32)),
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        logits = out[Columns.ACTION_DIST_INPUTS].cpu().numpy().astype(np.float64)
        return np.where(mask, logits, -np.inf)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        logits = self.logits(obs, mask)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
        choice = (cumulative < rng.random((len(obs), 1))).sum(axis=1)
        # guard against rounding pushing past the last legal action
        choice = np.minimum(choice, mask.shape[1] - 1)
        return np.where(mask[np.arange(len(obs)), choice], choice, np.argmax(logits, axis=1)).astype(np.int64)

    def __repr__(self) -> str:
        return f"RLlibAgent({self.path or 'in-memory module'}, deterministic={self.deterministic})"
