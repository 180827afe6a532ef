"""Errors shared by every game and adapter."""

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


class UnknownOptionError(TypeError, ValueError):
    """A constructor keyword the game does not have. A `TypeError`, as Python raises for an unexpected
    keyword (clients such as TorchRL's `GymEnv` retry without optional keywords on it), and still a
    `ValueError` for code that caught the error of earlier releases."""
