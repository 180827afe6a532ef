"""A batch of games in which one seat per game learns and every other seat is played inside `step`.

Shared by the Gymnasium single-agent env (a batch of 1), the Gymnasium vector env and the SB3
VecEnv, so the three behave identically. Opponents move in batch: a fixed loop over "someone other
than the learner is to move", each pass one numpy step for every game that needs it, never a loop
over games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core import validate
from fruit_envs.core.errors import IllegalActionError, ResetNeededError
from fruit_envs.core.rules_api import game_rules, phase_name
from fruit_envs.core.spec import Config, GameSpec, game_winners, outcome_codes


class Policy(Protocol):
    """What an opponent must provide: batched `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int`."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


OpponentArg = str | Policy | Callable | Sequence


def resolve_policy(spec: GameSpec, config: Config, opponent: Any) -> Policy:
    """A policy object from anything `fruit_envs.agents.resolve_agent` takes (a name such as "greedy", a model
    path, an import path "module:make"), an agent, or a callable."""
    if isinstance(opponent, str):
        from fruit_envs.agents import make_agent  # agents build on fruit_envs; import only when named

        return make_agent(opponent, spec, config)
    if hasattr(opponent, "act"):
        return opponent
    if callable(opponent):
        return _CallablePolicy(opponent)
    raise ValueError(
        f"opponent must be an agent name ('random', 'greedy', 'search', 'ppo-baseline', 'ppo:PATH', ...), a model "
        f"PATH.zip, an import path 'module:make', an object with act(obs, mask, rng), "
        f"or a callable (obs, mask, rng) -> actions; got {opponent!r}"
    )


def _needs_state(policy) -> bool:
    """An agent such as search also takes the true state of its games, `act(..., state=, seats=)`,
    to re-sample what its seat cannot know (see `fruit_envs.agents.base.state_kwargs`)."""
    return bool(getattr(policy, "needs_state", False))


def _needs_observation(policy) -> bool:
    """An agent that declares `needs_observation = False` (random play) is given None instead of an
    observation, which spares computing one for each of its decisions."""
    return bool(getattr(policy, "needs_observation", True))


_ONE_GAME = np.ones(1, dtype=bool)  # the `applied` rows of a batch of one (read only)
_ONE_GAME.setflags(write=False)
_FIRST = np.zeros(1, dtype=np.int64)


def _one_action(chosen, num_actions: int, policy) -> int:
    """An opponent's action in a batch of one, checked as `validate.as_actions` checks it (cheaply when it
    is what agents return: an int64 array of shape (1,) in range)."""
    if (
        type(chosen) is np.ndarray
        and chosen.shape == (1,)
        and chosen.dtype == np.int64
        and 0 <= chosen[0] < num_actions
    ):
        return int(chosen[0])
    where = f"actions of opponent policy {frecord.agent_label(policy)}"
    return int(validate.as_actions(chosen, 1, num_actions, where)[0])


ILLEGAL_ACTION_MODES = ("lose", "raise", "replace")


def replacement_actions(masks: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """`(N,)` what `illegal_action="replace"` plays for `actions` `(N,)` in positions with legal `masks` `(N, A)`:
    each action itself where legal, otherwise the first legal action above it, wrapping round past the last
    to 0. Deterministic, and it draws nothing from any random generator."""
    num_actions = masks.shape[1]
    order = (actions[:, None] + np.arange(num_actions)) % num_actions  # each row: a, a+1, ..., A-1, 0, ..., a-1
    return (actions + np.argmax(np.take_along_axis(masks, order, axis=1), axis=1)) % num_actions


def check_illegal_options(illegal_action: str, illegal_penalty: float) -> float:
    """`illegal_penalty` as a float, once `illegal_action` is one of `ILLEGAL_ACTION_MODES` and the penalty is a
    finite number >= 0 given only where it applies (mode "replace"); ValueError naming what is allowed."""
    if illegal_action not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be 'lose', 'raise' or 'replace', got {illegal_action!r}")
    if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, (int, float, np.integer, np.floating)):
        raise ValueError(f"illegal_penalty must be a number >= 0, got {illegal_penalty!r}")
    if not np.isfinite(illegal_penalty) or illegal_penalty < 0:
        raise ValueError(f"illegal_penalty must be a finite number >= 0 (taken off the reward), got {illegal_penalty}")
    if illegal_penalty and illegal_action != "replace":
        raise ValueError(
            f"illegal_penalty applies only with illegal_action='replace' (with {illegal_action!r} it would do "
            f"nothing; 'lose' pays illegal_reward instead), got illegal_penalty={illegal_penalty}"
        )
    return float(illegal_penalty)


class _CallablePolicy:
    def __init__(self, fn: Callable):
        self.fn = fn

    def act(self, obs, mask, rng):
        return self.fn(obs, mask, rng)


class LearnerBatch:
    """`num_envs` games of one config; the learner's seat acts through `step`, opponents inside it."""

    def __init__(
        self,
        spec: GameSpec,
        config: Config,
        num_envs: int,
        opponent: OpponentArg = "random",
        seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        autoreset: bool = True,
        record=None,
        record_source: str = "vector env",
        illegal_penalty: float = 0.0,
    ):
        if not validate.is_int(num_envs) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < config.num_players
        ):
            raise ValueError(
                f"seat must be None (random each game) or an int in 0..{config.num_players - 1}, got {seat!r}"
            )
        self.illegal_penalty = check_illegal_options(illegal_action, illegal_penalty)
        self.spec, self.config = spec, config
        self._move_limit = spec.max_game_length(config) + 1  # opponents' moves in a row, at most
        self._one_call = game_rules(spec).advance is not None  # one game steps through `rules.advance`
        self.num_envs = int(num_envs)
        self.fixed_seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.autoreset = autoreset
        self.set_opponents(opponent)
        self.state = None
        self._rng = np.random.default_rng()
        self._episode_keys = frng.keys_from_seed(None, self.num_envs)
        n, p = self.num_envs, config.num_players
        self.seats = np.zeros(n, dtype=np.int64)
        self.opponent_of = np.zeros((n, p), dtype=np.int64)
        self.pending_reward = np.zeros(n, dtype=np.float32)
        self.episode_return = np.zeros(n, dtype=np.float64)
        self.episode_length = np.zeros(n, dtype=np.int64)
        self._learner_mask: tuple | None = None  # batch of one: (state, step count, mask) of the learner's turn
        self.recorder: frecord.BatchRecorder | None = None
        self.set_record(record, record_source)
        self.start_positions = None

    @property
    def rules(self):
        """The game's rules module (a property, not an attribute: modules do not pickle)."""
        return self.spec.rules

    def set_record(self, record, source: str = "vector env") -> None:
        """Record every game finished from now on: `record` is a JSON-lines path, a list, a callable
        taking a `GameRecord`, or None to stop; games already started are recorded from their start."""
        sink = frecord.make_sink(record)
        if sink is None:
            self.recorder = None
            return
        if self.recorder is not None:
            self.recorder.sink, self.recorder.source = sink, source
            return
        self.recorder = frecord.BatchRecorder(self.spec, self.config, self.num_envs, sink, source)
        if self.state is not None:  # games in progress: their first actions are unknown, they are not recorded
            self.recorder.skip[:] = True

    def _players(self, g: int) -> list[str]:
        return [
            "learner" if k == self.seats[g] else frecord.agent_label(self.opponents[self.opponent_of[g, k]])
            for k in range(self.config.num_players)
        ]

    # -- opponents -------------------------------------------------------------------------------

    def set_opponents(self, opponent: OpponentArg, weights: Sequence[float] | None = None) -> None:
        """Opponents for games started from now on: one policy, or a pool sampled per game and seat."""
        if isinstance(opponent, (list, tuple)):
            if not opponent:
                raise ValueError("opponent pool is empty")
            pool = [resolve_policy(self.spec, self.config, o) for o in opponent]
        else:
            pool = [resolve_policy(self.spec, self.config, opponent)]
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (len(pool),) or (w < 0).any() or w.sum() <= 0:
                raise ValueError(f"weights must be {len(pool)} non-negative numbers with a positive sum")
            weights = w / w.sum()
        self.opponents, self.opponent_weights = pool, weights

    # -- episode control -------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        seed = validate.check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._episode_keys = frng.keys_from_seed(seed, self.num_envs)
        elif self.state is None:
            self._rng = np.random.default_rng()
        self.pending_reward[:] = 0
        self.state = None
        self._start_games(np.arange(self.num_envs))
        self._play_until_learner(np.arange(self.num_envs))
        return self.observe(), self.action_masks()

    def load_state(self, state) -> tuple[np.ndarray, np.ndarray]:
        """Continue from given positions (a batch of `num_envs` live games, e.g. from `from_description`):
        opponents move until each learner's turn; returns `reset`'s pair. These games are not recorded
        (their start is not a seeded setup); the next ones are."""
        if state.GAME != self.spec.id or state.config != self.config or state.batch_size != self.num_envs:
            raise ValueError(
                f"expected a batch of {self.num_envs} {self.spec.id} games with config {self.config}, "
                f"got {state.batch_size} {state.GAME} games with config {state.config}"
            )
        if state.done.any():
            raise ValueError("every loaded game must be live (not done)")
        if self.state is None:
            self.reset()
        self.state = state.copy()
        self._learner_mask = None
        self.pending_reward[:] = 0
        self.episode_return[:] = 0
        self.episode_length[:] = 0
        if self.recorder is not None:
            self.recorder.skip[:] = True
        self._play_opponents()
        return self.observe(), self.action_masks()

    def set_start_positions(self, positions) -> None:
        """Start every later game from one of `positions` (a batch state of live games of this config), drawn
        uniformly, instead of a new deal: training from given positions (a curriculum, an analysis setting).
        None returns to new deals. Games started so are not recorded."""
        if positions is not None:
            if positions.GAME != self.spec.id or positions.config != self.config or not positions.batch_size:
                raise ValueError(
                    f"start positions must be {self.spec.id} games with config {self.config}, got "
                    f"{positions.batch_size} {positions.GAME} games with config {positions.config}"
                )
            if positions.done.any():
                raise ValueError("every start position must be a live game (not done)")
            positions = positions.copy()
        self.start_positions = positions

    def _start_games(self, games: np.ndarray) -> None:
        self._learner_mask = None
        self._episode_keys[games], keys = frng.split(self._episode_keys[games])
        if self.start_positions is None:
            fresh = self.rules.init(self.config, keys)
        else:
            fresh = self.start_positions.take(self._rng.integers(0, self.start_positions.batch_size, len(games)))
        if self.state is None:
            self.state = fresh
        else:
            self.state.put(games, fresh)
        p = self.config.num_players
        if self.fixed_seat is None:
            self.seats[games] = self._rng.integers(0, p, size=len(games))
        else:
            self.seats[games] = self.fixed_seat
        self.opponent_of[games] = self._rng.choice(len(self.opponents), size=(len(games), p), p=self.opponent_weights)
        self.episode_return[games] = 0
        self.episode_length[games] = 0
        if self.recorder is not None:
            self.recorder.begin(games, keys, [self._players(g) for g in games])
            if self.start_positions is not None:  # not a seeded setup: a record could not replay it
                self.recorder.skip[games] = True

    def require_reset(self, what: str) -> None:
        """`ResetNeededError` naming `what` while no game has started."""
        if self.state is None:
            raise ResetNeededError(self.spec.name, what)

    def observe(self) -> np.ndarray:
        return self.rules.observe(self.state, self.seats)

    def action_masks(self) -> np.ndarray:
        """`(N, A)` bool: legal actions of the learner in the observation just returned."""
        self.require_reset("action_masks()")
        masks = self.rules.legal_mask(self.state, self.seats)
        if self.num_envs == 1:
            self._learner_mask = (self.state, int(self.state.step_count[0]), masks[0].copy())
        return masks

    def _mask_one(self) -> np.ndarray:
        """`(A,)` bool: the learner's legal actions in a batch of one, as last computed for this position."""
        known = self._learner_mask
        if known is not None and known[0] is self.state and known[1] == self.state.step_count[0]:
            return known[2]
        return self.rules.legal_mask(self.state, int(self.seats[0]))[0]

    def _play_opponents(self) -> np.ndarray:
        """Let opponents move until every game waits for its learner; returns learner rewards."""
        gained = np.zeros(self.num_envs, dtype=np.float32)
        rows = np.arange(self.num_envs)
        for _ in range(self._move_limit):
            need = ~self.state.done & (self.state.to_move != self.seats)
            if not need.any():
                return gained
            movers = self.state.to_move.astype(np.int64)
            observed = any(_needs_observation(policy) for policy in self.opponents)
            obs = self.rules.observe(self.state, movers) if observed else None
            masks = self.rules.legal_mask(self.state)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            who = self.opponent_of[rows, movers]
            for k, policy in enumerate(self.opponents):
                sel = np.flatnonzero(need & (who == k))
                if len(sel):
                    extra = {"state": self.state.take(sel), "seats": movers[sel]} if _needs_state(policy) else {}
                    chosen = validate.as_actions(
                        policy.act(None if obs is None else obs[sel], masks[sel], self._rng, **extra),
                        len(sel),
                        self.spec.num_actions,
                        f"actions of opponent policy {frecord.agent_label(policy)}",
                    )
                    bad = ~masks[sel, chosen]
                    if bad.any():
                        i = np.flatnonzero(bad)[0]
                        raise IllegalActionError(
                            int(chosen[i]),
                            np.flatnonzero(masks[sel[i]]),
                            self._phase_name(sel[i]),
                            player=f"opponent policy {policy!r}",
                            game=self.spec.name,
                        )
                    actions[sel] = chosen
            self.state, rewards = self.rules.step(self.state, actions, need, in_place=True)  # checked above
            if self.recorder is not None:
                self.recorder.log(actions, need)
            gained += rewards[rows, self.seats]
        raise RuntimeError("opponents kept moving beyond the declared maximum game length")

    def restart(self, games: np.ndarray) -> None:
        """Start new games at rows `games`; opponents move until each learner's turn (their rewards are
        paid with the learner's next step)."""
        self._start_games(games)
        self.pending_reward += self._play_until_learner(games)

    def _play_until_learner(self, games: np.ndarray) -> np.ndarray:
        """Opponents move until the learner's turn (`_play_opponents`). A game started from a given position that
        ends before the learner decides anything starts again from another (it gives the learner nothing to
        learn), its rewards dropped; a `RuntimeError` if the positions leave the learner no turn in 100 draws."""
        gained = self._play_opponents()
        for _ in range(100):
            over = games[self.state.done[games]] if self.start_positions is not None else games[:0]
            if not len(over):
                return gained
            gained[over] = 0
            self._start_games(over)
            gained += self._play_opponents()
        raise RuntimeError(
            "the start positions left the learner no turn in 100 draws: every one ends before its seat decides"
        )

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Apply the learners' actions, play opponents, autoreset finished games (same step).

        `active`: `(N,)` bool, the games that take their action (default all); the others are left as
        they are, their action ignored, with reward 0 and neither terminated nor truncated. With
        `illegal_action="replace"`, `replaced` `(N,)` bool marks the games whose action was replaced (None in
        the other modes) and `played_action` the actions played."""
        self.require_reset("step()")
        if self.num_envs == 1 and active is None and self._one_call and not self.state.done[0]:
            checked = validate.as_actions(actions, 1, self.spec.num_actions, f"{self.spec.name}: actions")
            out = self._step_one(int(checked[0]))
            if out is not None:
                return out
        self._learner_mask = None
        active = np.ones(self.num_envs, dtype=bool) if active is None else active
        if (self.state.done & active).any():
            raise RuntimeError("the episode is over; call reset() before step()")
        if not active.all() and isinstance(actions, np.ndarray) and actions.shape == (self.num_envs,):
            actions = np.where(active, actions, 0).astype(actions.dtype)  # inactive rows' actions are never read
        actions = validate.as_actions(actions, self.num_envs, self.spec.num_actions, f"{self.spec.name}: actions")
        rows = np.arange(self.num_envs)
        masks = self.action_masks()
        legal = masks[rows, actions] | ~active
        replacing = self.illegal_action == "replace"
        replaced = np.zeros(self.num_envs, dtype=bool) if replacing else None  # read only in that mode
        if replacing and not legal.all():
            replaced, legal = ~legal, np.ones(self.num_envs, dtype=bool)
            actions = np.where(replaced, replacement_actions(masks, actions), actions)
        if not legal.all() and self.illegal_action == "raise":
            g = np.flatnonzero(~legal)[0]
            phase = self._phase_name(g)
            raise IllegalActionError(
                int(actions[g]), np.flatnonzero(masks[g]), phase, player=f"learner in env {g}", game=self.spec.name
            )
        reward = np.where(active, self.pending_reward, 0).astype(np.float32)
        self.pending_reward[active] = 0
        safe_actions = np.where(legal, actions, np.argmax(masks, axis=1))
        applied = legal & active
        self.state, rewards = self.rules.step(self.state, safe_actions, applied, in_place=True)  # legal only
        if self.recorder is not None:
            self.recorder.log(safe_actions, applied)
        reward += rewards[rows, self.seats]
        reward += self._play_opponents()
        illegal = ~legal
        reward[illegal] = self.illegal_reward
        if replacing:
            reward[replaced] -= self.illegal_penalty
        terminated = (self.state.done & ~self.state.truncated & active) | illegal
        truncated = self.state.truncated & ~illegal & active
        self.episode_length += active
        self.episode_return += reward
        finished = terminated | truncated
        out = {
            "reward": reward,
            "terminated": terminated,
            "truncated": truncated,
            "illegal": illegal,
            "replaced": replaced,
            "played_action": actions,
            "final_obs": None,
            "episode_return": self.episode_return[finished].copy(),
            "episode_length": self.episode_length[finished].copy(),
            "final_scores": None,
        }
        if finished.any():
            self._close(out, np.flatnonzero(finished), illegal, actions)
        out["obs"] = self.observe()
        out["mask"] = self.action_masks()
        return out

    def _close(self, out: dict, games: np.ndarray, illegal: np.ndarray, actions: np.ndarray) -> None:
        """The games `games` just ended: their final observations, outcomes and records into `out`, then
        a new game there (autoreset) or the game left over."""
        out["final_obs"] = self.rules.observe(self.state.take(games), self.seats[games])
        out["final_seats"] = self.seats[games].copy()
        out["final_outcome"] = self._outcome(games, illegal[games])
        if self.recorder is not None:
            offenders = {
                int(g): {"seats": [int(self.seats[g])], "actions": [int(actions[g])]} for g in games[illegal[games]]
            }
            self.recorder.finish(games, self.state, offenders)
        if self.autoreset:
            self.restart(games)
        else:
            self.state.done[games] = True

    def step_action(self, action: int) -> dict[str, np.ndarray] | tuple[np.ndarray, np.ndarray, np.float32]:
        """`step` of a batch of one game with an action already checked to be an int in range: where the game
        goes on with the learner to move (most steps), `(obs (O,), mask (A,), reward)` without building
        `step`'s batch of one; otherwise `step`'s dict."""
        self.require_reset("step()")
        played = self._play_one(action) if self._one_call else None
        if played is None:
            return self.step(np.array([action]))
        reward, after = played
        return (*after, reward) if after is not None else self._out_one(action, reward, None)

    def _step_one(self, action: int) -> dict[str, np.ndarray] | None:
        """`step` for a batch of one game through `rules.advance`, with its numbers as scalars: the same
        result as the batched code below, which takes over (None, nothing changed) where the game is over
        or the action is illegal."""
        played = self._play_one(action)
        return None if played is None else self._out_one(action, *played)

    def _play_one(self, action: int) -> tuple[np.float32, tuple | None] | None:
        """The learner's legal `action` and the opponents' replies in a batch of one, with the episode's
        bookkeeping: its reward and `(obs, mask)` for its next turn (None when the game is over); None, and
        nothing changed, where the game is over already or the action is illegal (the batched path's cases)."""
        if self.state.done[0] or not self._mask_one()[action]:
            return None
        pending = self.pending_reward[0]
        self.pending_reward[0] = 0
        learner, opponents, after = self._advance_one(action)
        reward = np.float32(pending + learner + opponents)  # float32 sums, in step's order
        self.episode_length[0] += 1
        self.episode_return[0] += reward
        if after is not None:
            self._learner_mask = (self.state, int(self.state.step_count[0]), after[1].copy())
        return reward, after

    def _out_one(self, action: int, reward: np.float32, after: tuple | None) -> dict[str, np.ndarray]:
        """`step`'s dict for a batch of one after `_play_one`: the game closed (and restarted, with
        autoreset) where it ended."""
        done, trunc = bool(self.state.done[0]), bool(self.state.truncated[0])
        out = {
            "reward": np.array([reward], dtype=np.float32),
            "terminated": np.array([done and not trunc]),
            "truncated": np.array([done and trunc]),
            "illegal": np.zeros(1, dtype=bool),
            "replaced": np.zeros(1, dtype=bool),
            "played_action": np.array([action]),
            "final_obs": None,
            "episode_return": self.episode_return[: int(done)].copy(),
            "episode_length": self.episode_length[: int(done)].copy(),
            "final_scores": None,
        }
        if after is None:
            self._close(out, _FIRST, out["illegal"], np.array([action]))
            out["obs"] = self.observe()
            out["mask"] = self.action_masks()
        else:
            out["obs"], out["mask"] = after[0][None], after[1][None]
        return out

    def _advance_one(self, action: int) -> tuple[np.float32, np.float32, tuple | None]:
        """One game (`rules.advance`: a kernel call per decision, which also gives the next mover's mask and
        observation): the learner's legal `action`, then opponents until the learner is to move or the game
        ends, as `step` and `_play_opponents` do for a batch. Returns the learner's reward from its own action
        and from the opponents' ones, and its next `(obs (O,), mask (A,))`, None when the game is over."""
        state, seat = self.state, int(self.seats[0])
        rewards, masks, obs = self.rules.advance(state, action)
        if self.recorder is not None:
            self.recorder.log(np.array([action]), _ONE_GAME)
        learner, gained = rewards[seat], np.float32(0)
        for _ in range(self._move_limit):
            if state.done[0]:
                return learner, gained, None
            mover = int(state.to_move[0])
            if mover == seat:
                return learner, gained, (obs, masks[seat])
            policy = self.opponents[self.opponent_of[0, mover]]
            extra = {"state": state.take(_FIRST), "seats": np.array([mover])} if _needs_state(policy) else {}
            chosen = policy.act(
                obs[None] if _needs_observation(policy) else None, masks[mover][None], self._rng, **extra
            )
            a = _one_action(chosen, self.spec.num_actions, policy)
            if not masks[mover, a]:
                raise IllegalActionError(
                    a,
                    np.flatnonzero(masks[mover]),
                    self._phase_name(0),
                    player=f"opponent policy {policy!r}",
                    game=self.spec.name,
                )
            rewards, masks, obs = self.rules.advance(state, a)
            if self.recorder is not None:
                self.recorder.log(np.array([a]), _ONE_GAME)
            gained += rewards[seat]
        raise RuntimeError("opponents kept moving beyond the declared maximum game length")

    def _outcome(self, games: np.ndarray, illegal: np.ndarray) -> np.ndarray:
        """+1 win, 0 draw or truncated (no outcome), -1 loss of each finished learner (an illegal move
        is a loss); see `fruit_envs.core.spec.outcome_rewards` for the contract."""
        sub = self.state.take(games)
        outcome = outcome_codes(game_winners(self.rules, sub), self.seats[games], sub.truncated)
        outcome[illegal] = -1
        return outcome

    def _phase_name(self, g: int) -> str:
        return phase_name(self.spec, self.state, g) or "play"
