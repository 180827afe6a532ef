"""Juicy Fruits score attack greedy: the Juicy Fruits greedy, which reads any player count's observation."""

from __future__ import annotations

from fruit_envs.agents.greedy.juicy_fruits import JuicyFruitsGreedy, make

__all__ = ["JuicyFruitsGreedy", "make"]
