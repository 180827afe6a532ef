"""Search: for each decision, try every legal action with batched rollouts from sampled positions.

`make_agent("search", game, config)` or with options, `"search:rollouts=128,depth=16,policy=greedy"`
(`search:depth=end,policy=random`, `search:width=6,gate=1`, ...).
For each game of the batch where it decides, the agent

1. samples positions its seat cannot tell apart from the true one: the game's `redeal_hidden` (the
   "resample from information state" function) re-deals what the seat cannot see and replaces the
   random key, so neither hidden cards nor future chance are peeked at (where a game's function
   permutes hidden cards where they lie, its hooks' `canonical` first puts them in a fixed order). The true state
   is used for nothing else, so the agent's decisions are the same whatever the hidden parts hold;
2. plays each legal action in those positions and continues with the playout `policy` for every seat
   (`greedy`: the game's greedy agent, making the search a policy-improvement step over greedy, the
   rollout algorithm of Bertsekas; `random`: cheaper) for `depth` decisions or to the end;
3. scores each rollout for its seat: the outcome (+1 win, -1 loss, 0 full draw) where the game ended,
   otherwise the squashed lead of its progress score over the best other seat (`tanh(lead / scale)`,
   the progress score and scale from the game's hooks); one player: its progress score / scale;
4. shares `rollouts` per game between the candidate actions by sequential halving (Karnin et al.
   2013: rounds that each spend an equal part of the budget on the surviving actions and keep the
   better half; `select=uniform` splits it evenly in one round) and plays the best mean. With `gate`,
   the greedy playout's own choice (never eliminated) is kept unless the best action's mean gain
   over it, paired rollout by rollout, is more than `gate` standard errors above zero: where rollouts
   are noisy (Quickity Pickity's random flips) search then deviates from greedy only on evidence.

Rollouts of every game of a decision are stepped together through the batched rules: a loop over
halving rounds and rollout steps, never over games. With a greedy or random playout the rollout steps
run in one compiled call (the greedy agent's `rollout` kernel, issue 56), which plays exactly what the
loop of observe, act and step plays, tie-break draws from the same generator included. A decision
with a single legal action costs nothing. In the simultaneous games (Cherry Picking's commit, Quickity
Pickity's ticks) the seats that chose earlier in the round have hidden choices, which `redeal_hidden`
re-draws; the seats after the decider choose in the rollouts with the playout policy.

Everything search knows of a game beyond its rules comes from the game's search hooks
(`agents/hooks/<game>.py`, `fruit_envs.agents.hooks.SearchHooks`): its default and guided budgets, its
progress score and scale, the canonical order of its hidden cards, and the greedy agent whose playouts
and scores it uses. A game without hooks gets defaults that work for any game.

Options (defaults per game in its hooks, `default_options(game)`, chosen so one decision for 64 games
takes about a second on 2 cores; measured figures in the README):

* `rollouts`: rollouts per game and decision, shared between the legal actions;
* `depth`: decisions (of any seat) played after the candidate action, or `end` (to the end);
* `policy`: `greedy` or `random`, the playout policy of every seat;
* `select`: `halving` (sequential halving) or `uniform`;
* `determinizations`: sampled positions per game and round (0: one per rollout of an action; fewer
  are reused in turn). Every candidate action is played in the same positions (common random numbers);
* `width`: search only the ranking's best `width` legal actions (0: all); the ranking is the greedy
  playout's own scores, or the `prior` network's logits;
* `gate`: standard errors by which the best action must beat the ranking's own choice (0: off).

Guided by a trained network (issue 34; `ppo-baseline`, the shipped policy of the game and player count,
or `ppo:PATH`, any MaskablePPO model for it):

* `policy=ppo-baseline`: the network plays every seat's rollout decisions (its most likely legal action;
  one batched forward pass for all rollouts of all games at each step);
* `prior=ppo-baseline`: its policy ranks the candidates for `width` and `gate`;
* `value=ppo-baseline`: its value head scores positions at the depth limit (the seat's expected outcome;
  one player: the points still to come) instead of the progress score.

`search:guided` is the game's guided budget (`guided_options(game)`, from its hooks): its default budget
with the shipped network where that measured best against plain search (Cherry Picking: `prior` and
`width=4` over greedy rollouts; Fruit Picking: `policy`, `prior` and `value`; Quickity Pickity: `policy`
and `prior` with twice the rollouts, still half plain search's time; the others: `policy` and `prior`).
Options after it change it (`search:guided,value=ppo-baseline`). The network reads the deciding seat's
observation (the prior) and positions the search sampled (rollouts and leaves), so the
guided search stays as blind to hidden information as the plain one.

The agent needs the true state of the games it decides (`needs_state = True`): callers pass
`act(obs, mask, rng, state=..., seats=...)`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from fruit_envs.agents.base import argmax_legal
from fruit_envs.agents.greedy import KernelGreedy
from fruit_envs.agents.hooks import SearchHooks, search_hooks
from fruit_envs.core.spec import Config, GameSpec, get_spec, outcome_rewards, registered_games

MAX_ROWS = 16384  # rollouts stepped together at most (memory bound; larger budgets run in chunks)


@dataclass(frozen=True)
class SearchOptions:
    """The budget knobs, parsed from `search:key=value,...`."""

    rollouts: int = 64
    depth: int | None = 16  # None: to the end of the game
    policy: str = "greedy"  # greedy, random, or a network: ppo-baseline or ppo:PATH
    select: str = "halving"
    determinizations: int = 0
    width: int = 0  # candidates: the ranking's best `width` legal actions (0: every legal action)
    gate: float = 0.0  # keep the ranking's own choice unless the best beats it by `gate` standard errors
    prior: str = ""  # a network whose policy ranks the candidates for width and gate ("": the greedy playout's)
    value: str = ""  # a network whose value head scores positions at the depth limit ("": the progress score)

    def label(self) -> str:
        depth = "end" if self.depth is None else self.depth
        guided = "".join(f",{key}={getattr(self, key)}" for key in ("prior", "value") if getattr(self, key))
        return (
            f"search:rollouts={self.rollouts},depth={depth},policy={self.policy},select={self.select},"
            f"determinizations={self.determinizations},width={self.width},gate={self.gate:g}{guided}"
        )


POLICIES = ("greedy", "random")


def is_network(name: str) -> bool:
    """Whether an option names a trained network: the shipped baseline (`ppo-baseline@N`: the one benchmark
    protocol N was calibrated with) or a MaskablePPO file."""
    return name == "ppo-baseline" or any(name.startswith(p) and len(name) > len(p) for p in ("ppo-baseline@", "ppo:"))


SELECTS = ("halving", "uniform")


def default_options(game: str | None) -> SearchOptions:
    """The game's default budget (`search`), from its hooks: about a second of CPU per decision for 64 games
    (README: measured figures); `SearchOptions()` with no game."""
    if game is None:
        return SearchOptions()
    return _with_options(SearchOptions(), search_hooks(game).options)


def guided_options(game: str | None) -> SearchOptions:
    """The game's guided budget (`search:guided`, issue 34), from its hooks: its default budget, guided by the
    shipped network where that measured best against plain search (400 two-player games each, docs/search.md)."""
    hooks = search_hooks(game) if game is not None else SearchHooks()
    return _with_options(default_options(game), hooks.guided)


def __getattr__(name: str) -> dict[str, SearchOptions]:
    """`DEFAULTS` and `GUIDED`: `default_options` and `guided_options` of every registered game, as tables."""
    if name in ("DEFAULTS", "GUIDED"):
        read = default_options if name == "DEFAULTS" else guided_options
        return {spec.id: read(spec.id) for spec in registered_games()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_options(text: str, game: str | None = None) -> SearchOptions:
    """Options from `"rollouts=128,depth=end,policy=random"` over the game's defaults (`guided` first: over
    its guided defaults); bad input is a `ValueError` naming the option and what is allowed."""
    if not isinstance(text, str):
        raise ValueError(f"search options must be a string like 'rollouts=64,depth=16', got {text!r}")
    items = [part.strip() for part in text.split(",") if part.strip()]
    if items and items[0] == "guided":
        return _with_options(guided_options(game), ",".join(items[1:]))
    return _with_options(default_options(game), text)


def _with_options(options: SearchOptions, text: str) -> SearchOptions:
    """`options` changed by the `key=value` items of `text`."""
    allowed = [f.name for f in fields(SearchOptions)]
    items = [part.strip() for part in text.split(",") if part.strip()]
    changes: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or key not in allowed:
            raise ValueError(
                f"search option {item!r}: write key=value with key one of {allowed} ('guided' comes first)"
            )
        if key in changes:
            raise ValueError(f"search option {key!r} given twice")
        changes[key] = _option_value(key, value)
    return replace(options, **changes)


def _option_value(key: str, value: str):
    if key == "policy":
        if value not in POLICIES and not is_network(value):
            raise ValueError(
                f"search option policy={value!r}: choose one of {list(POLICIES)}, ppo-baseline[@N] or ppo:PATH"
            )
        return value
    if key in ("prior", "value"):
        if value in ("", "none"):
            return ""
        if not is_network(value):
            raise ValueError(f"search option {key}={value!r}: ppo-baseline[@N], ppo:PATH (a MaskablePPO model) or none")
        return value
    if key == "select":
        if value not in SELECTS:
            raise ValueError(f"search option select={value!r}: choose one of {list(SELECTS)}")
        return value
    if key == "depth" and value == "end":
        return None
    if key == "gate":
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not number >= 0 or number == float("inf"):
            raise ValueError(f"search option gate={value!r}: a number >= 0 (standard errors; 0 turns the gate off)")
        return number
    low = 1 if key == "rollouts" else 0
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < low:
        extra = " or 'end'" if key == "depth" else ""
        raise ValueError(f"search option {key}={value!r}: an integer >= {low}{extra}")
    return number


def resample(rules, state, seats: np.ndarray, keys: np.ndarray):
    """A state drawn from each game's information state for its seat: `rules.redeal_hidden`, after the
    game's hooks' `canonical` where it has one. Called once per distinct seat (a handful), so it also works
    where a game's `redeal_hidden` takes a single seat."""
    seats = np.asarray(seats, dtype=np.int64)
    canonical = search_hooks(state.GAME).canonical
    if canonical is not None:
        state = canonical(state, seats)
    out = None
    for seat in np.unique(seats):
        rows = np.flatnonzero(seats == seat)
        part = rules.redeal_hidden(state.take(rows), int(seat), keys[rows])
        if len(rows) == len(seats):
            return part
        if out is None:
            out = state.copy()
        out.put(rows, part)
    return out if out is not None else state.copy()


def _random_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True)


class SearchAgent:
    """Determinized rollout search over the batched rules (see the module docstring)."""

    needs_state = True
    last_values: np.ndarray | None = (
        None  # (B, A) mean rollout value of each action tried in the last call, NaN untried
    )

    def __init__(self, spec: GameSpec, config: Config, options: SearchOptions | None = None):
        self.spec, self.config, self.rules = spec, config, spec.rules
        self.hooks = search_hooks(spec.id)
        self.options = opts = options if options is not None else default_options(spec.id)
        if opts == default_options(spec.id):
            self.name = "search"
        else:
            self.name = "search:guided" if opts == guided_options(spec.id) else opts.label()
        self._networks: dict = {}
        if opts.policy == "greedy":
            self.playout = self.hooks.greedy(spec, config)
        else:
            self.playout = self._network(opts.policy) if is_network(opts.policy) else None
        self.prior = self._network(opts.prior) if opts.prior else None
        self.value_net = self._network(opts.value) if opts.value else None
        self.max_rows = MAX_ROWS
        self.compiled_rollouts = True  # False: every rollout runs the step-by-step loop (the reference)
        self._random_roller = None

    def _network(self, name: str):
        """The PPO agent of a network option (argmax play, logits as ranking, its value head), loaded once."""
        if name not in self._networks:
            from fruit_envs.agents import make_agent

            self._networks[name] = make_agent(name, self.spec, self.config)
        return self._networks[name]

    def __repr__(self) -> str:
        return f"SearchAgent({self.spec.id}, {self.options.label()})"

    # -- the interface ---------------------------------------------------------------------------

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, state=None, seats=None) -> np.ndarray:
        """`(B,)` int64 actions for the games `state` (a batch of B) where seat `seats[b]` is to move."""
        mask = np.asarray(mask, dtype=bool)
        if state is None or seats is None:
            raise ValueError(
                "the search agent needs the games it decides: act(obs, mask, rng, state=<batch of those games>, "
                "seats=<(B,) deciding seat>); arena, tournaments, the Gymnasium opponents and play pass them"
            )
        b = len(mask)
        if mask.ndim != 2 or mask.shape[1] != self.spec.num_actions:
            raise ValueError(f"mask must be (B, {self.spec.num_actions}) bool, got shape {mask.shape}")
        if state.batch_size != b or state.GAME != self.spec.id:
            raise ValueError(
                f"state must be a batch of {b} {self.spec.id} games (one per mask row), "
                f"got {state.batch_size} {state.GAME} games"
            )
        seats = np.asarray(seats, dtype=np.int64).reshape(-1)
        if seats.shape != (b,) or (state.to_move.astype(np.int64) != seats).any():
            raise ValueError("seats must give, for each game, the seat to move in state (state.to_move)")
        if not mask.any(axis=1).all():
            raise ValueError("every row of the mask needs at least one legal action")
        actions = argmax_legal(np.zeros(mask.shape), mask, rng)
        self.last_values = np.full(mask.shape, np.nan)
        mask, anchor = self._candidates(obs, mask)
        actions = np.where(mask.sum(axis=1) == 1, np.argmax(mask, axis=1), actions)
        choose = np.flatnonzero(mask.sum(axis=1) > 1)
        if len(choose):
            actions[choose], self.last_values[choose] = self._search(
                state.take(choose), seats[choose], mask[choose], anchor[choose], rng
            )
        return actions

    # -- search ----------------------------------------------------------------------------------

    def _candidates(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The legal actions worth searching and the playout policy's own choice (`(B,)`, -1 none).

        With a greedy playout its scores of the seat's observation rank the legal actions (ties to the
        lower action): `width` keeps the best `width` of them, and the best is the anchor that `gate`
        compares the search's pick against."""
        opts = self.options
        anchor = np.full(len(mask), -1, dtype=np.int64)
        ranking = self.prior if self.prior is not None else self.playout
        if ranking is None or not (opts.width or opts.gate):
            return mask, anchor
        prefs = np.where(mask, np.asarray(ranking.scores(obs, mask), dtype=np.float64), -np.inf)
        order = np.argsort(-prefs, axis=1, kind="stable")
        if opts.gate:
            anchor = order[:, 0].astype(np.int64)
        if not opts.width:
            return mask, anchor
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(mask.shape[1])[None, :], axis=1)
        return mask & (rank < opts.width), anchor

    def _search(self, state, seats: np.ndarray, mask: np.ndarray, anchor: np.ndarray, rng: np.random.Generator):
        """Sequential halving (or one uniform round) over the candidate actions of every game at once;
        returns the chosen actions `(G,)` and the mean value of every action tried `(G, A)`, NaN untried.

        Every action alive in a round is played in the same sampled positions, so its values pair with
        the anchor's (never eliminated): with `gate`, the best action replaces the anchor only when its
        mean paired gain is more than `gate` standard errors above zero."""
        opts = self.options
        g_count, a_count = mask.shape
        if opts.select == "halving":
            rounds = np.ceil(np.log2(mask.sum(axis=1))).astype(np.int64)
        else:
            rounds = np.ones(g_count, dtype=np.int64)
        has_anchor = anchor >= 0
        is_anchor = has_anchor[:, None] & (np.arange(a_count)[None, :] == anchor[:, None])
        alive = mask.copy()
        total, visits = np.zeros(mask.shape), np.zeros(mask.shape)
        gain, gain_sq = np.zeros(mask.shape), np.zeros(mask.shape)  # paired differences to the anchor
        for r in range(int(rounds.max())):
            games = np.flatnonzero(rounds > r)
            surviving = alive[games].sum(axis=1)
            per_action = np.maximum(1, opts.rollouts // (rounds[games] * surviving))
            samples = per_action if opts.determinizations == 0 else np.minimum(per_action, opts.determinizations)
            # sampled positions: `samples[i]` per game, each played with every surviving action
            det_game = np.repeat(games, samples)
            det_start = np.concatenate([[0], np.cumsum(samples)[:-1]])
            det = resample(self.rules, state.take(det_game), seats[det_game], _random_keys(rng, len(det_game)))
            pair_i, pair_action = np.nonzero(alive[games])  # pair_i indexes `games`
            count = per_action[pair_i]
            pair_start = np.cumsum(count) - count
            row_i = np.repeat(pair_i, count)
            row_action = np.repeat(pair_action, count)
            within = np.arange(len(row_i)) - np.repeat(pair_start, count)
            row_det = det_start[row_i] + within % samples[row_i]
            values = self._rollouts(det, row_det, row_action, seats[det_game[row_det]], rng)
            cells = (games[row_i], row_action)
            np.add.at(total, cells, values)
            np.add.at(visits, cells, 1.0)
            anchor_pair = np.zeros(len(games), dtype=np.int64)
            anchored = is_anchor[games[pair_i], pair_action]
            anchor_pair[pair_i[anchored]] = np.flatnonzero(anchored)
            paired = has_anchor[games[row_i]]
            diff = values - values[pair_start[anchor_pair[row_i]] + within]
            np.add.at(gain, (cells[0][paired], cells[1][paired]), diff[paired])
            np.add.at(gain_sq, (cells[0][paired], cells[1][paired]), diff[paired] ** 2)
            if r + 1 == rounds.max():
                break
            # keep the better half (rounded up) of each game still halving, and its anchor
            mean = np.where(alive, total / np.maximum(visits, 1.0), -np.inf)
            keep = np.ceil(surviving / 2).astype(np.int64)
            order = np.argsort(-(mean[games] + rng.random((len(games), a_count)) * 1e-9), axis=1, kind="stable")
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.arange(a_count)[None, :], axis=1)
            halving = rounds[games] > r + 1
            sub = games[halving]
            alive[sub] &= (rank[halving] < keep[halving, None]) | is_anchor[sub]
        tried = alive & (visits > 0)
        mean = np.where(visits > 0, total / np.maximum(visits, 1.0), np.nan)
        best = argmax_legal(np.nan_to_num(mean, nan=-np.inf), tried, rng)
        if opts.gate and has_anchor.any():
            rows = np.arange(g_count)
            n = visits[rows, best]
            avg = gain[rows, best] / np.maximum(n, 1.0)
            var = np.maximum(gain_sq[rows, best] - n * avg * avg, 0.0) / np.maximum(n - 1.0, 1.0)
            confident = (n >= 2) & (avg > opts.gate * np.sqrt(var / np.maximum(n, 1.0)))
            best = np.where(has_anchor & ~confident, anchor, best)
        return best, mean

    def _rollouts(self, det, row_det: np.ndarray, row_action: np.ndarray, row_seat: np.ndarray, rng) -> np.ndarray:
        """`(R,)` values for `row_seat` of playing `row_action` in sampled position `row_det`, in chunks."""
        values = np.empty(len(row_det))
        for lo in range(0, len(row_det), self.max_rows):
            part = slice(lo, lo + self.max_rows)
            values[part] = self._rollout(det.take(row_det[part]), row_action[part], row_seat[part], rng)
        return values

    def _rollout(self, state, actions: np.ndarray, seats: np.ndarray, rng) -> np.ndarray:
        rules, depth = self.rules, self.options.depth
        state, _ = rules.step(state, actions, in_place=True)  # `state` is the rollouts' own copy
        steps = self.spec.max_game_length(self.config) if depth is None else depth
        roller = self._roller()
        if roller is not None and roller.rollout(state, steps, rng, greedy=self.playout is not None):
            return self._leaf(state, seats)
        values = np.empty(len(actions))
        index = np.arange(len(actions))  # rows of `state` among the rollouts
        for _ in range(steps):
            done = state.done
            if done.all() or done.mean() > 0.25:  # finished rollouts are scored and dropped
                values[index[done]] = self._leaf(state.take(done), seats[index[done]])
                index = index[~done]
                if not len(index):
                    return values
                state = state.take(~done)
                done = state.done
            mask = rules.legal_mask(state) | done[:, None]
            state, _ = rules.step(state, self._playout(state, mask, rng))
        values[index] = self._leaf(state, seats[index])
        return values

    def _roller(self):
        """The greedy agent whose compiled `rollout` plays the rollouts in one kernel call, exactly as the loop
        below would (issue 56), or None where the loop runs: a network playout or value head (whose batches
        that loop shapes), a playout that is not the game's kernel greedy as it is, kernels not compiled yet
        (the loop's numpy tie-breaks beat the interpreted twin's draw by draw), `compiled_rollouts` off."""
        if not self.compiled_rollouts or self.value_net is not None:
            return None
        if self.options.policy == "random" and self._random_roller is None:
            self._random_roller = self.hooks.greedy(self.spec, self.config)  # only its kernel runs
        agent = self.playout if self.options.policy == "greedy" else self._random_roller
        kind = type(agent)
        if not isinstance(agent, KernelGreedy) or (kind.act, kind.scores) != (KernelGreedy.act, KernelGreedy.scores):
            return None
        return agent if agent.compiled else None

    def _playout(self, state, mask: np.ndarray, rng) -> np.ndarray:
        if self.playout is None:
            return argmax_legal(np.zeros(mask.shape, dtype=np.float32), mask, rng)
        return self.playout.act(self.rules.observe(state, state.to_move), mask, rng)

    def _leaf(self, state, seats: np.ndarray) -> np.ndarray:
        """Value in [-1, 1] of each position for `seats` (one player: progress / scale)."""
        n, p = state.batch_size, self.config.num_players
        rows = np.arange(n)
        ahead = None if self.value_net is None else self.value_net.values(self.rules.observe(state, seats))
        if p == 1:  # the value head: the points still to come
            progress = np.asarray(self.hooks.progress(state), dtype=np.float64)
            return (progress[:, 0] + (0.0 if ahead is None else ahead)) / self.hooks.scale
        if ahead is not None:  # the value head: the seat's expected outcome (+1 win, -1 loss)
            values = np.clip(ahead, -1.0, 1.0)
        else:
            progress = np.asarray(self.hooks.progress(state), dtype=np.float64)
            mine = progress[rows, seats]
            best_other = np.where(np.arange(p)[None, :] == seats[:, None], -np.inf, progress).max(axis=1)
            values = np.tanh((mine - best_other) / self.hooks.scale)
        ended = np.flatnonzero(state.done & ~state.truncated)
        if len(ended):
            values[ended] = outcome_rewards(self.rules.winners(state.take(ended)))[np.arange(len(ended)), seats[ended]]
        return values


def make_search(spec: GameSpec, config: Config, text: str = "") -> SearchAgent:
    """A search agent for a game from its option string (the part after `search:`)."""
    spec = get_spec(spec)
    return SearchAgent(spec, config, parse_options(text, spec.id))


__all__ = [  # and `DEFAULTS`, `GUIDED` (module `__getattr__`)
    "SearchAgent",
    "SearchOptions",
    "default_options",
    "guided_options",
    "is_network",
    "make_search",
    "parse_options",
    "resample",
]
