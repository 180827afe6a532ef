"""Adapters and contracts written once for every game; nothing here knows about fruit."""

from fruit_envs.core.errors import (
    DescriptionError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
    StateError,
    UnknownOptionError,
)
from fruit_envs.core.spec import Config, GameSpec, get_spec, register_game, registered_games
from fruit_envs.core.state import BatchState, from_bytes, load, save, to_bytes

__all__ = [
    "BatchState",
    "Config",
    "DescriptionError",
    "GameSpec",
    "IllegalActionError",
    "InvalidActionError",
    "ResetNeededError",
    "StateError",
    "UnknownOptionError",
    "from_bytes",
    "get_spec",
    "load",
    "register_game",
    "registered_games",
    "save",
    "to_bytes",
]
