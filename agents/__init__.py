"""Baseline agents behind one batched interface: `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int`.

`make_agent(name, game, config)` builds one by name:

* `random`, `greedy` (one heuristic per game);
* `ppo-baseline` / `ppo-baseline-sample`: the PPO policy shipped with the package for the game and
  player count (argmax / sampled from the masked policy; `agents/baselines/`);
* `ppo:PATH` / `ppo-sample:PATH`: a MaskablePPO model or policy file;
* `rllib:PATH`: a `fruit_envs.training.train_rllib` run's `model/` folder or checkpoint (distributed extra).
"""

from __future__ import annotations

if __name__ != "fruit_envs.agents":  # one import name per module: this folder is fruit_envs.agents
    raise ImportError(f"{__name__}: the agents/ folder is the package fruit_envs.agents; import that name")

from pathlib import Path  # noqa: E402

from fruit_envs.agents.base import Agent  # noqa: E402
from fruit_envs.agents.random import RandomAgent  # noqa: E402
from fruit_envs.core.spec import Config, GameSpec, get_spec  # noqa: E402

AGENT_NAMES = ("random", "greedy", "ppo-baseline", "ppo-baseline-sample", "ppo:PATH", "ppo-sample:PATH", "rllib:PATH")


def make_agent(name: str, game: str | GameSpec, config: Config | None = None) -> Agent:
    """An agent by name for a game; a bad name or a missing file is a clear `ValueError`."""
    spec = get_spec(game)
    config = config if config is not None else spec.make_config()
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, one of {list(AGENT_NAMES)}; got {name!r}")
    if name == "random":
        return RandomAgent()
    if name == "greedy":
        from fruit_envs.agents.greedy import make_greedy

        return make_greedy(spec, config)
    if name in ("ppo-baseline", "ppo-baseline-sample"):
        from fruit_envs.agents.ppo import load_baseline

        return load_baseline(spec, config, deterministic=name == "ppo-baseline")
    if name.startswith(("ppo:", "ppo-sample:")):
        kind, _, rest = name.partition(":")
        path = Path(rest)
        if not path.is_file():
            raise ValueError(f"no PPO model at {str(path)!r} (from agent name {name!r})")
        from fruit_envs.agents.ppo import PPOAgent

        return PPOAgent(path, spec, config, deterministic=kind == "ppo")
    if name.startswith("rllib:"):
        path = Path(name[6:])
        if not path.is_dir():
            raise ValueError(f"no RLlib model folder at {str(path)!r} (from agent name {name!r})")
        from fruit_envs.agents.rllib import RLlibAgent

        return RLlibAgent(path, spec, config)
    raise ValueError(f"unknown agent {name!r}; known agents are {list(AGENT_NAMES)}")


__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "make_agent"]
