"""Baseline agents behind one batched interface: `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int`.

`make_agent(name, game, config)` builds one by name:

* `random`, `greedy` (one heuristic per game);
* `search[:OPTIONS]`: rollouts from sampled positions, options like `search:rollouts=128,depth=end`
  (see `agents/search.py`);
* `ppo-baseline` / `ppo-baseline-sample`: the PPO policy shipped with the package for the game and
  player count (argmax / sampled from the masked policy; `agents/baselines/`);
* `ppo-baseline@N`: the baseline benchmark protocol N was calibrated with (it stays when a better one
  ships, so the protocol's anchors stay true);
* `ppo:PATH` / `ppo-sample:PATH`: a MaskablePPO model or policy file;
* `rllib:PATH`: a `fruit_envs.training.train_rllib` run's `model/` folder or checkpoint (distributed extra).

An agent that sets `needs_state = True` (search) also takes the true state of the games it decides:
`act(obs, mask, rng, state=<those games>, seats=<(B,) seat to move>)`; `state_kwargs` builds those arguments.
"""

from __future__ import annotations

if __name__ != "fruit_envs.agents":  # one import name per module: this folder is fruit_envs.agents
    from fruit_envs._checkout import refuse_bare_name

    refuse_bare_name(__name__)

from pathlib import Path  # noqa: E402

from fruit_envs.agents.base import Agent, state_kwargs  # noqa: E402
from fruit_envs.agents.random import RandomAgent  # noqa: E402
from fruit_envs.core.spec import Config, GameSpec, get_spec  # noqa: E402

AGENT_NAMES = (
    "random",
    "greedy",
    "search[:OPTIONS]",
    "ppo-baseline",
    "ppo-baseline-sample",
    "ppo-baseline@N",
    "ppo:PATH",
    "ppo-sample:PATH",
    "rllib:PATH",
)


def split_agent_list(text: str) -> list[str]:
    """Agent names from a comma-separated list, where a `key=value` item continues the options of the
    agent before it: `"greedy,search:rollouts=32,depth=8"` is `["greedy", "search:rollouts=32,depth=8"]`."""
    names: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if names and ":" in names[-1] and "=" in item and ":" not in item.split("=", 1)[0]:
            names[-1] += "," + item
        else:
            names.append(item)
    return names


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
    if name.startswith("ppo-baseline@"):
        from fruit_envs.agents.ppo import load_baseline

        version = name.partition("@")[2]
        if not version.isdigit() or int(version) < 1:
            raise ValueError(
                f"agent {name!r}: ppo-baseline@N names benchmark protocol N (a number from 1), got {version!r}"
            )
        return load_baseline(spec, config, protocol=int(version))
    if name == "search" or name.startswith("search:"):
        from fruit_envs.agents.search import make_search

        return make_search(spec, config, name[len("search:") :])
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


__all__ = ["AGENT_NAMES", "Agent", "RandomAgent", "make_agent", "split_agent_list", "state_kwargs"]
