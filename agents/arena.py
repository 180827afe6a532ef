"""Play agents against each other in batch: every seat of every game driven by an agent.

The loop runs over decisions and, inside, over seats (a handful), never over games: each pass asks
each seat's agent for the actions of all games where that seat is to move.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fruit_envs.agents.base import state_kwargs
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core import validate
from fruit_envs.core.errors import InvalidActionError
from fruit_envs.core.spec import Config, GameSpec, game_winners, get_spec, outcome_codes


@dataclass
class MatchResult:
    """Outcome of `num_games` games; arrays are indexed by game then seat.

    A truncated game (cut off by a cap, not ended by the rules) is unfinished: it has no winners and
    counts as neither a win nor a loss (`fruit_envs.core.spec.outcome_rewards` states the contract).
    """

    scores: np.ndarray  # (G, P) final score of each seat (the game's own score; at the cut-off if truncated)
    winners: np.ndarray  # (G, P) bool, several when tied; none in a truncated game
    lengths: np.ndarray  # (G,) decisions per game
    truncated: np.ndarray  # (G,) bool
    actions: list[np.ndarray] | None = None  # per decision, (G,) actions (-1 where a game was over)
    records: list[frecord.GameRecord] | None = None  # one per game, when asked for with `record_to`
    final_state: object = None  # the batch state at the end (every game over)

    def outcome(self, seat_of_interest: np.ndarray) -> np.ndarray:
        """+1 win, 0 draw (everyone tied) or truncated (see `truncated`), -1 loss for the given seat of each game."""
        return outcome_codes(self.winners, np.asarray(seat_of_interest), self.truncated).astype(np.int64)


class AgentFault(ValueError):
    """An agent that raised, answered malformed or chose an illegal action in `play_games`: the message names the
    agent's label, the game, its seat, the step and the legal actions; `record` is that game up to the fault (a
    `GameRecord` that replays), None for games played from a given start."""

    def __init__(self, message: str, record: frecord.GameRecord | None = None, traceback: str | None = None):
        super().__init__(message)
        self.record, self.traceback = record, traceback  # traceback: the agent's own, where it raised

    def __reduce__(self):  # record and traceback travel back from a worker process too
        return (type(self), (str(self), self.record, self.traceback))


def _fault(problem, spec, config, names, who, seats, keys, log, state, g, seating) -> AgentFault:
    """The `AgentFault` of game `g` (an index into the batch): what its agent did, where, and its game so far."""
    legal = np.flatnonzero(spec.rules.legal_mask(state.take(np.array([g])))[0]).tolist()
    message = (
        f"agent {names[who[g]]!r} in seat {int(seats[g])} of game {g} ({spec.id}, {config.num_players} players) at "
        f"step {int(state.step_count[g])} {problem} (legal actions: {legal})"
    )
    record = None
    if keys is not None:
        table = np.stack(log) if log else np.zeros((0, len(seating)), dtype=np.int64)
        record = frecord.record_from_states(
            spec, config, table[table[:, g] >= 0, g].tolist(), state, g, key=int(keys[g]),
            players=[names[a] for a in seating[g]], source="fault", meta={"fault": message},
        )  # fmt: skip
    return AgentFault(message, record)


def play_games(
    game: str | GameSpec,
    config: Config,
    agents: list,
    seating: np.ndarray,
    seed: int = 0,
    record: bool = False,
    keys: np.ndarray | None = None,
    record_to=None,
    labels: list[str] | None = None,
    record_meta: dict | None = None,
    start=None,
) -> MatchResult:
    """Play `len(seating)` games in one batch; `seating[g, k]` indexes the agent in seat k of game g.

    Each decision asks every agent once for all games where one of its seats is to move. An agent with a
    `watch(before, actions, after)` method is shown every step of the batch (-1: a finished game's action).
    `record=True` keeps the actions; `record_to` (a JSON-lines path, a list or a callable) also
    receives a `GameRecord` of every game, its seats labelled with `labels` (default: the agents' names).
    `start`: a batch state of `len(seating)` live games to play on from, instead of new deals (not recorded).
    """
    spec = get_spec(game)
    rules = spec.rules
    p = config.num_players
    seating = np.asarray(seating, dtype=np.int64)
    num_games = len(seating)
    if seating.ndim != 2 or seating.shape[1] != p:
        raise ValueError(f"{spec.name} with {p} players needs a seating of shape (games, {p}), got {seating.shape}")
    if seating.min() < 0 or seating.max() >= len(agents):
        raise ValueError(f"seating refers to agents 0..{seating.max()}, but {len(agents)} agents were given")
    gen = np.random.default_rng(seed)
    keys = frng.keys_from_seed(seed, num_games) if keys is None else np.asarray(keys, dtype=np.uint64)
    if start is None:
        state = rules.init(config, keys)
    elif record or record_to is not None or start.batch_size != num_games or start.config != config:
        raise ValueError(
            f"start must be a batch of {num_games} {spec.id} games with config {config}, not recorded; got "
            f"{start.batch_size} games with config {start.config}"
        )
    else:
        state = start.copy()
    rows = np.arange(num_games)
    log: list = []  # every step's actions: the records, and a faulty agent's game
    names = labels if labels is not None else [frecord.agent_label(agent) for agent in agents]
    from_keys = keys if start is None else None

    def fault(problem: str, g: int) -> AgentFault:
        return _fault(problem, spec, config, names, who, mover, from_keys, log, state, g, seating)

    watchers = [agent for agent in agents if hasattr(agent, "watch")]  # see every step: `watch(before, actions, after)`
    for _ in range(spec.max_game_length(config) + 1):
        if state.done.all():
            break
        actions = np.full(num_games, -1, dtype=np.int64)
        mask = rules.legal_mask(state)
        mover = state.to_move.astype(np.int64)
        who = seating[rows, mover]
        for k, agent in enumerate(agents):
            games = np.flatnonzero(~state.done & (who == k))
            if len(games):
                sub = state.take(games)
                obs = rules.observe(sub, mover[games])
                extra = state_kwargs(agent, sub, mover[games])
                if getattr(agent, "needs_games", False):  # e.g. a recorder of decisions (benchmarks.decisions)
                    extra["games"] = games
                try:
                    chosen = agent.act(obs, mask[games], gen, **extra)
                except Exception as error:  # a user's agent: its failure is reported as its own, by name
                    if isinstance(error, AgentFault) or getattr(agent, "reports_faults", False):
                        raise  # a fault already told, or an agent that reports its own (the benchmark's checker)
                    raised = fault(f"raised {type(error).__name__}: {error}", int(games[0]))
                    raised.traceback = traceback.format_exc()
                    raise raised from None
                try:
                    actions[games] = validate.as_actions(chosen, len(games), mask.shape[1], "its actions")
                except InvalidActionError as error:
                    raise fault(f"answered malformed ({error})", int(games[0])) from None
        live = np.flatnonzero(~state.done)
        if not mask[live, actions[live]].all():
            bad = live[~mask[live, actions[live]]][0]
            raise fault(f"chose action {int(actions[bad])}, which is not legal there", int(bad))
        log.append(actions.copy())
        before, (state, _) = state, rules.step(state, np.maximum(actions, 0))
        for agent in watchers:
            agent.watch(before, actions, state)
    else:
        raise RuntimeError("games outlived the declared maximum length")
    records = None
    if record_to is not None:
        records = game_records(
            spec, config, keys, log, state, [[names[a] for a in row] for row in seating], record_meta
        )
        if isinstance(record_to, (str, Path)):
            frecord.write_records(record_to, records)
        else:
            sink = frecord.make_sink(record_to)
            for one in records:
                sink(one)
    return MatchResult(
        scores=np.asarray(rules.final_scores(state)),
        winners=game_winners(rules, state),
        lengths=state.step_count.astype(np.int64),
        truncated=state.truncated.copy(),
        actions=log,
        records=records,
        final_state=state,
    )


def game_records(spec, config, keys, log, state, players, meta=None, source: str = "arena"):
    """One `GameRecord` per game from the batch's keys, its action log `(T,)` arrays (-1: no action)
    and final state."""
    meta = dict(meta or {})
    source = meta.pop("source", source)
    table = np.stack(log) if log else np.zeros((0, len(keys)), dtype=np.int64)
    return [
        frecord.record_from_states(
            spec,
            config,
            table[table[:, g] >= 0, g].tolist(),
            state,
            g,
            key=int(keys[g]),
            players=players[g],
            source=source,
            meta=meta,
        )
        for g in range(len(keys))
    ]


def play_match(
    game, config: Config, seat_agents: list, num_games: int, seed: int = 0, record: bool = False, record_to=None
):
    """`num_games` games with `seat_agents[k]` always in seat k."""
    if len(seat_agents) != config.num_players:
        raise ValueError(f"{config.num_players} players need {config.num_players} seat agents, got {len(seat_agents)}")
    seating = np.tile(np.arange(config.num_players), (num_games, 1))
    return play_games(game, config, list(seat_agents), seating, seed=seed, record=record, record_to=record_to)


def evaluate(
    game: str | GameSpec,
    config: Config,
    agent,
    opponent,
    num_games: int,
    seed: int = 0,
    record_to=None,
    record_meta: dict | None = None,
) -> dict:
    """`agent` against `opponent` in every other seat, its seat rotating game by game; win rate with 95% Wilson CI.

    A truncated game is unfinished: counted in `truncated` (and `truncated_rate`, its share of all
    games), never as a win, draw or loss; `win_rate` is wins over finished games (`finished`).
    The games are a fixed list for a given seed, so evaluations at different times are comparable. A
    one-player game has no opponent: use `evaluate_alone` (mean score) instead.
    `record_to` (a JSON-lines path, a list or a callable) receives a record of every game.
    """
    p = config.num_players
    if p == 1:
        raise ValueError("a one-player game has no win rate; evaluate it with evaluate_alone (mean score)")
    num_games = max(p, num_games - num_games % p)
    agent_seat = np.arange(num_games) % p
    seating = np.ones((num_games, p), dtype=np.int64)
    seating[np.arange(num_games), agent_seat] = 0
    meta = {"source": "evaluation", **(record_meta or {})}
    result = play_games(game, config, [agent, opponent], seating, seed=seed, record_to=record_to, record_meta=meta)
    outcomes = result.outcome(agent_seat)
    finished = ~result.truncated
    wins, draws = int((finished & (outcomes == 1)).sum()), int((finished & (outcomes == 0)).sum())
    played = int(finished.sum())
    low, high = wilson_interval(wins, played)
    return {
        "games": num_games,
        "finished": played,
        "wins": wins,
        "draws": draws,
        "losses": played - wins - draws,
        "truncated": num_games - played,
        "truncated_rate": (num_games - played) / num_games,
        "win_rate": wins / played if played else 0.0,
        "win_rate_low": low,
        "win_rate_high": high,
    }


def evaluate_alone(
    game: str | GameSpec,
    config: Config,
    agent,
    num_games: int,
    seed: int = 0,
    record_to=None,
    record_meta: dict | None = None,
) -> dict:
    """A one-player game's evaluation: `agent`'s mean final score over a fixed list of seeded games, with a
    95% confidence interval of the mean (normal approximation). Win rates mean nothing with one seat.
    `record_to` (a JSON-lines path, a list or a callable) receives a record of every game."""
    if config.num_players != 1:
        raise ValueError(f"evaluate_alone is for one-player games; this config has {config.num_players} players")
    meta = {"source": "evaluation", **(record_meta or {})}
    seating = np.zeros((num_games, 1), dtype=np.int64)
    result = play_games(game, config, [agent], seating, seed=seed, record_to=record_to, record_meta=meta)
    scores = result.scores[:, 0].astype(np.float64)
    half = 1.959964 * scores.std(ddof=1) / math.sqrt(num_games) if num_games > 1 else float("inf")
    return {
        "games": num_games,
        "mean_score": float(scores.mean()),
        "score_std": float(scores.std(ddof=1)) if num_games > 1 else 0.0,
        "score_low": float(scores.mean() - half),
        "score_high": float(scores.mean() + half),
        "mean_length": float(result.lengths.mean()),
        "truncated": int(result.truncated.sum()),
    }


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if trials == 0:
        return (0.0, 1.0)
    phat = successes / trials
    denom = 1 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z * math.sqrt(phat * (1 - phat) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, min(phat, centre - half)), min(1.0, max(phat, centre + half)))  # rounding never excludes phat
