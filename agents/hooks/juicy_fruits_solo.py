"""The Juicy Fruits score attack's search hooks: Juicy Fruits' progress, scaled to a lone player's score."""

from __future__ import annotations

from fruit_envs.agents.hooks import SearchHooks
from fruit_envs.agents.hooks.juicy_fruits import progress

SEARCH = SearchHooks(options="rollouts=32,depth=8", progress=progress, scale=30.0)
