"""Cherry Picking's search hooks: progress is the rules' running score, `rules.potential`, the same
function reward shaping uses (finished sets plus what the harvest piles of this set would score now)."""

from __future__ import annotations

from fruit_envs.agents.hooks import SearchHooks
from fruit_envs.games.cherry_picking import rules

SEARCH = SearchHooks(
    options="rollouts=32,depth=12",
    # greedy rollouts and the network's 4 likeliest actions only: its own rollouts and value head played worse
    guided="prior=ppo-baseline,width=4",
    progress=rules.potential,
    scale=15.0,
)
