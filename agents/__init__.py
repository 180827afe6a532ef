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
* `rllib:PATH`: a `fruit_envs.training.train_rllib` run's `model/` folder or checkpoint (distributed extra);
* `PATH.zip`: a model file, as `ppo:PATH`;
* `module:make` or `path/to/file.py:make`: your own agent, a factory `make(game_spec, config) -> agent` (or
  an agent object), imported from the current folder first as `python -m` would.

Every command and API that takes an agent reads it through `resolve_agent` (`agents/resolve.py`), so
these forms work everywhere: play, tournaments, the benchmark, the trainers' opponents and teachers,
Gymnasium's `opponent=`.

An agent that sets `needs_state = True` (search) also takes the true state of the games it decides:
`act(obs, mask, rng, state=<those games>, seats=<(B,) seat to move>)`; `state_kwargs` builds those arguments.
"""

from __future__ import annotations

if __name__ != "fruit_envs.agents":  # one import name per module: this folder is fruit_envs.agents
    from fruit_envs._checkout import refuse_bare_name

    refuse_bare_name(__name__)

from fruit_envs.agents.base import Agent, state_kwargs  # noqa: E402
from fruit_envs.agents.random import RandomAgent  # noqa: E402
from fruit_envs.agents.resolve import AGENT_HELP, AGENT_NAMES, AgentSource, make_agent, resolve_agent  # noqa: E402


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


__all__ = [
    "AGENT_HELP",
    "AGENT_NAMES",
    "Agent",
    "AgentSource",
    "RandomAgent",
    "make_agent",
    "resolve_agent",
    "split_agent_list",
    "state_kwargs",
]
