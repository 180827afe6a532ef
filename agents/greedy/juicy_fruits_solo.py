"""Juicy Fruits score attack greedy: the Juicy Fruits greedy, which reads any player count's observation."""

from __future__ import annotations

from agents.greedy.juicy_fruits import JuicyFruitsGreedy, make

__all__ = ["JuicyFruitsGreedy", "make"]
