"""Errors shared by every game and adapter.

Bad input at a boundary raises one of these `ValueError`s, naming what was wrong and what is allowed:
`InvalidActionError` (not an action at all: wrong type, shape or range), `IllegalActionError` (an
action the position does not allow), `StateError` (a saved or given state that breaks the schema or
the game's invariants), `DescriptionError` (a `from_description` dict, naming the offending field).
An env used before it has a game raises `ResetNeededError` (a `RuntimeError`) in every adapter.
"""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is not legal in the current position; the state was left unchanged."""

    def __init__(self, action, legal, phase: str, player: str | None = None, game: str | None = None, reason: str = ""):
        self.action = action
        self.legal = [int(a) for a in legal]
        self.phase = phase
        self.player = player
        who = f" by {player}" if player is not None else ""
        where = f" in {game}" if game else ""
        shown = self.legal if len(self.legal) <= 20 else self.legal[:20] + ["..."]
        why = f" ({reason})" if reason else ""
        super().__init__(
            f"illegal action {action!r}{who}{where}{why} during phase {phase!r}; legal actions are {shown}"
        )


class InvalidActionError(IllegalActionError):
    """Not an action of the action space at all (a bool, float, string, wrong shape or out of range).

    Raised by every API whatever its illegal-action policy: a malformed action is a bug in the caller,
    never a move that loses. A subclass of `IllegalActionError`, so code catching that still catches it.
    """

    def __init__(self, action, message: str):
        ValueError.__init__(self, message)
        self.action = action
        self.legal = None
        self.phase = None
        self.player = None


class ResetNeededError(RuntimeError, AttributeError):
    """An env used before `reset()` (or `load_state()`): names the game and what was asked for.

    A `RuntimeError`, as earlier releases raised, and an `AttributeError`, so `hasattr` and
    `getattr(env, name, default)` on a state attribute (`agent_selection`, `rewards`) still answer."""

    def __init__(self, game: str, what: str):
        super().__init__(f"{game}: call reset() (or load_state()) before {what}")


class StateError(ValueError):
    """A state (loaded, given to `load_state`, or built from a description) that is not a sound position."""


class DescriptionError(ValueError):
    """A `from_description` dict that is malformed or inconsistent; `field` is the offending path
    (`"hidden.hands.player_1"`), or None when the position as a whole is inconsistent."""

    def __init__(self, field: str | None, problem: str, game: str = ""):
        self.field = field
        self.problem = problem
        what = f"{game} description" if game else "description"
        super().__init__(f"{what}: field {field!r}: {problem}" if field else f"{what}: {problem}")


class UnknownOptionError(TypeError, ValueError):
    """A constructor keyword the game does not have. A `TypeError`, as Python raises for an unexpected
    keyword (clients such as TorchRL's `GymEnv` retry without optional keywords on it), and still a
    `ValueError` for code that caught the error of earlier releases."""
