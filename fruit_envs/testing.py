"""Conformance check any user can run on any registered game, like `pgx.api_test`.

    from fruit_envs.testing import check_game
    report = check_game("cherry_picking", num_players=3, num_games=1000)

First the rules module is checked against the rules contract (`fruit_envs.core.rules_api`): every
required part present, every capability its spec declares present and none it has left undeclared,
each named when missing. Then random games are played in one batch, and a few of them again one at a
time, checking the declared capabilities' promises, what the game declared (observation shape and
dtype, action count, length bound, reward bounds, whether it can be truncated), that terminal
rewards follow the truncation contract (a terminated game's returns match its winners, a truncated
game's hold no outcome: `fruit_envs.core.spec.outcome_rewards`), that the mask is non-empty
exactly while a game is live, that inputs are never mutated, that finished games stay frozen, that a
batch of N equals N single games, that save/restore and describe/from_description continue
identically, that no seat's observation or mask changes when what it cannot see is re-dealt (no leak),
that positions a seat can tell apart give it different observations (no loss: sampled pairs of
positions, and one public field of a position edited at a time through `from_description`), the
game's own invariants (conservation of cards, seeds, tiles, fruit), and that every state reached
keeps the schema and value bounds a loaded state is checked against (`fruit_envs.core.validate.check_arrays`).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core import state as fstate
from fruit_envs.core import validate
from fruit_envs.core.rules_api import GameRules, action_names, contract_problems, game_rules
from fruit_envs.core.spec import GameSpec, get_spec, outcome_rewards


class ConformanceError(AssertionError):
    """A game broke one of the facts it declared or one of the rules contract's promises."""


@dataclass
class CheckReport:
    game: str
    config: dict
    num_games: int
    steps: int = 0
    decisions: int = 0
    game_lengths: list[int] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)
    checks: list[str] = field(default_factory=list)

    @property
    def mean_length(self) -> float:
        return float(np.mean(self.game_lengths)) if self.game_lengths else 0.0


def _fail(message: str) -> None:
    raise ConformanceError(message)


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=1)


def check_game(
    game: str | GameSpec,
    num_players: int | None = None,
    options: dict | None = None,
    num_games: int = 64,
    single_games: int = 4,
    hidden_games: int = 8,
    hidden_every: int = 7,
    seed: int = 0,
    loss_games: int = 2,
    loss_every: int = 23,
    loss_edits: int = 24,
) -> CheckReport:
    """Play `num_games` random games in one batch and check every promise; raises `ConformanceError`.

    No loss is checked on the first `loss_games` games every `loss_every` steps, with up to
    `loss_edits` single-field edits of each of those positions (0 games: not checked)."""
    spec = get_spec(game)
    problems = contract_problems(spec)
    if problems:
        _fail(f"{spec.name} breaks the rules contract (fruit_envs/games/README.md): " + "; ".join(problems))
    rules, optional = spec.rules, game_rules(spec)
    config = spec.make_config(num_players, **(options or {}))
    p, a_count = config.num_players, spec.num_actions
    obs_shape = spec.observation_shape(config)
    max_len = spec.max_game_length(config)
    low, high = spec.reward_bounds(config)
    report = CheckReport(spec.id, config.to_dict(), num_games)
    gen = np.random.default_rng(seed)
    keys = frng.keys_from_seed(seed, num_games)
    if optional.observation_rows is not None:
        _check_observation_rows(rules.observation_layout(config), optional.observation_rows(config))
    names = action_names(spec, config)
    for a, name in enumerate(names):
        if names.index(name) != a or rules.string_to_action(config, name) != a:
            _fail(f"action {a} is named {name!r}: names must be distinct and string_to_action must read them back")

    state = rules.init(config, keys)
    if state.batch_size != num_games:
        _fail(f"init made {state.batch_size} games, asked for {num_games}")
    if state.done.any():
        _fail("a game is over straight after init")
    singles = min(single_games, num_games)
    history = [state.take(np.arange(singles))]
    actions_log = []
    length = np.zeros(num_games, dtype=np.int64)
    returns = np.zeros((num_games, p), dtype=np.float64)
    seen_observations: dict[bytes, tuple[str, str]] = {}
    description_pool: dict[tuple, list] = {}
    loss_gen = np.random.default_rng(seed + 1)
    loss_pairs = 0

    for t in range(max_len + 1):
        mask = rules.legal_mask(state)
        if mask.shape != (num_games, a_count) or mask.dtype != bool:
            _fail(f"legal_mask gave {mask.shape} {mask.dtype}, declared ({num_games}, {a_count}) bool")
        live = ~state.done
        if not np.array_equal(mask.any(axis=1), live):
            g = int(np.flatnonzero(mask.any(axis=1) != live)[0])
            _fail(f"game {g} at step {t}: mask non-empty = {bool(mask[g].any())} but live = {bool(live[g])}")
        every = optional.legal_masks(state) if optional.legal_masks is not None else None
        for seat in range(p):
            own = rules.legal_mask(state, seat)
            if every is not None and not np.array_equal(every[:, seat], own):
                g = int(np.flatnonzero((every[:, seat] != own).any(axis=1))[0])
                _fail(f"game {g} at step {t}: legal_masks(state)[:, {seat}] differs from legal_mask(state, {seat})")
            if not spec.simultaneous:  # turn-based: a seat has legal actions only when it is to move
                expected = mask & (state.to_move == seat)[:, None]
                if not np.array_equal(own, expected):
                    g = int(np.flatnonzero((own != expected).any(axis=1))[0])
                    _fail(
                        f"game {g} at step {t}: seat {seat}'s mask differs from the mover's mask where it is to move, "
                        "or has actions where it is not (a turn-based game's promise)"
                    )
            obs = rules.observe(state, seat)
            if obs.shape != (num_games, *obs_shape) or obs.dtype != spec.observation_dtype:
                _fail(f"observe gave {obs.shape} {obs.dtype}, declared {obs_shape} {spec.observation_dtype}")
            if not np.isfinite(obs).all() or (obs < 0).any() or (obs > rules.OBSERVATION_HIGH).any():
                _fail(f"observation of seat {seat} outside [0, {rules.OBSERVATION_HIGH}] at step {t}")
        try:  # the schema and value bounds every loaded state is checked against hold in play
            validate.check_arrays(spec, config, state.arrays(), f"step {t}")
        except ValueError as error:
            _fail(str(error))
        problems = rules.invariants(state)
        if problems:
            _fail(f"step {t}: " + "; ".join(problems))
        _check_optional_parts(optional, state, t)
        if t % hidden_every == 0 and spec.hidden_information:
            _check_hidden(rules, state, min(hidden_games, num_games), t, seed, optional.potential)
        if loss_games and t % loss_every == 0:
            games = range(min(loss_games, num_games))
            loss_pairs += _check_no_loss(
                rules, state, games, seen_observations, description_pool, loss_gen, t, loss_edits
            )
        if not live.any():
            break
        if t == max_len:
            _fail(f"games still live after the declared maximum of {max_len} steps")
        actions = _random_actions(mask, gen)
        before, actions_copy = state.copy(), actions.copy()
        nxt, rewards = rules.step(state, actions)
        if not state.equals(before) or not np.array_equal(actions, actions_copy):
            _fail(f"step {t} mutated its inputs")
        again, again_rewards = rules.step(before, actions, in_place=True)
        if again is not before or not again.equals(nxt) or not np.array_equal(again_rewards, rewards):
            _fail(f"step {t} with in_place=True differs from the step that copies")
        if rewards.shape != (num_games, p):
            _fail(f"step rewards have shape {rewards.shape}, expected ({num_games}, {p})")
        if (rewards < low - 1e-6).any() or (rewards > high + 1e-6).any():
            outside = rewards[(rewards < low) | (rewards > high)][:5]
            _fail(f"reward outside declared bounds [{low}, {high}] at step {t}: {outside}")
        if (rewards[state.done] != 0).any():
            _fail("a finished game produced a reward")
        frozen = state.take(state.done)
        if not nxt.take(state.done).equals(frozen):
            _fail("a finished game changed when stepped")
        if t == 3:
            _check_round_trips(spec, nxt, actions, gen, rules)
        length += live
        returns += rewards
        state = nxt
        actions_log.append(actions)
        history.append(state.take(np.arange(singles)))
        report.decisions += int(live.sum())
    report.steps = len(actions_log)
    if (state.step_count != length).any():
        _fail("step_count differs from the number of decisions taken")
    if (length > max_len).any():
        _fail(f"a game took {length.max()} decisions, declared maximum {max_len}")
    report.game_lengths = length.tolist()
    report.checks.append(
        "masks, observations, rewards, invariants, frozen games, inputs untouched, in-place steps equal"
        + ("" if spec.simultaneous else ", only the seat to move has legal actions")
    )
    truncated = state.truncated
    if truncated.any() and spec.truncation is None:
        _fail(f"game {int(np.flatnonzero(truncated)[0])} was truncated, but the spec declares no cap (truncation=None)")
    if optional.truncation_causes is not None:
        _check_truncation_causes(optional.truncation_causes(state), truncated)
    report.checks.append(f"the rules contract, and the declared {', '.join(spec.capabilities) or 'nothing optional'}")
    if config.reward == "terminal":  # the contract of fruit_envs.core.spec.outcome_rewards
        if not np.isin(returns, (-1.0, 0.0, 1.0)).all():
            _fail("terminal rewards must total +1, 0 or -1 per player")
        ended = state.done & ~truncated
        if not np.allclose(returns[ended], outcome_rewards(rules.winners(state))[ended]):
            _fail("terminal rewards differ from the winners: +1 each winner, -1 each other, 0 all round in a full draw")
        if (returns[truncated] != 0).any():
            g = int(np.flatnonzero(truncated & (returns != 0).any(axis=1))[0])
            _fail(f"truncated game {g} paid an outcome {returns[g].tolist()}: a cut-off pays nothing")
        wins = ended & (returns == 1).any(axis=1)
        report.outcomes = {
            "decided": int(wins.sum()),
            "full_draw": int((ended & (returns == 0).all(axis=1)).sum()),
            "truncated": int(truncated.sum()),
        }
        report.checks.append("terminated games paid their winners' outcome, truncated games nothing")

    advance = optional.advance
    for i in range(singles):
        single = rules.init(config, keys[i : i + 1])
        alone = single.copy()  # played by `rules.advance`, where the game has it
        for t, actions in enumerate(actions_log):
            if not single.equals(history[t].take(i)):
                _fail(f"game {i} played alone differs from the batch at step {t}")
            live = not single.done[0]
            single, rewards = rules.step(single, actions[i : i + 1])
            if advance is not None and live:
                _check_advance(rules, advance, alone, int(actions[i]), single, rewards[0], f"game {i} at step {t}")
        if not single.equals(history[-1].take(i)):
            _fail(f"game {i} played alone ends differently from the batch")
    report.checks.append(
        f"batch of {num_games} equals {singles} games played alone"
        + ("" if advance is None else ", and advance equals step, legal_mask and observe")
    )
    if spec.hidden_information:
        report.checks.append("observations and masks unchanged when hidden information is re-dealt")
    if loss_games:
        report.checks.append(f"no loss: {loss_pairs} pairs of positions compared, none told apart by knowledge alone")
    report.checks.append("save/restore (bytes, npz, pickle) and describe/from_description continue identically")
    return report


def _check_advance(rules, advance, alone, action: int, stepped, rewards, where: str) -> None:
    """`rules.advance` (one game, in place) gives `step`'s state and rewards, every seat's mask and the
    observation of the seat to move afterwards."""
    got_rewards, masks, obs = advance(alone, action)
    if not alone.equals(stepped) or not np.array_equal(got_rewards, rewards):
        _fail(f"{where}: advance changed the game or paid rewards differently from step")
    for seat in range(stepped.config.num_players):
        if not np.array_equal(masks[seat], rules.legal_mask(stepped, seat)[0]):
            _fail(f"{where}: advance's mask of seat {seat} differs from legal_mask")
    mover = int(stepped.to_move[0])
    if not np.array_equal(obs, rules.observe(stepped, mover)[0]):
        _fail(f"{where}: advance's observation differs from observe of the seat to move ({mover})")


def _check_optional_parts(optional: GameRules, state, t: int) -> None:
    """The declared capabilities' promises on a position reached in play (`legal_masks` and `advance` are
    compared with what they stand for elsewhere; `field_bounds` hold through `validate.check_arrays`)."""
    n, p = state.batch_size, state.config.num_players
    if optional.position_invariants is not None:
        problems = optional.position_invariants(state)
        if problems:
            _fail(f"step {t}: position_invariants: " + "; ".join(problems))
    if optional.potential is not None:
        running = np.asarray(optional.potential(state))
        if running.shape != (n, p) or not np.isfinite(running).all():
            _fail(f"step {t}: potential gave {running.shape} {running.dtype}, expected finite ({n}, {p})")
    if optional.phase_names is not None:
        phase = np.asarray(state.phase)
        if phase.shape != (n,) or (phase < 0).any() or (phase >= len(optional.phase_names)).any():
            _fail(f"step {t}: state.phase {phase.tolist()[:8]} is not an index of PHASE_NAMES {optional.phase_names}")


def _check_observation_rows(layout: dict[str, slice], rows: dict[str, int]) -> None:
    """Each block `observation_rows` names is a block of the layout made of whole rows of its width."""
    for name, width in rows.items():
        block = layout.get(name)
        if block is None:
            _fail(f"observation_rows names {name!r}, which observation_layout does not have")
        if width < 1 or (block.stop - block.start) % width:
            _fail(f"observation_rows: block {name!r} of {block.stop - block.start} entries is not rows of {width}")


def _check_truncation_causes(causes: dict[str, np.ndarray], truncated: np.ndarray) -> None:
    """Every truncated game has exactly one cause, and no other game has any."""
    for name, cut in causes.items():
        if not isinstance(name, str) or np.asarray(cut).shape != truncated.shape or np.asarray(cut).dtype != bool:
            _fail(f"truncation_causes[{name!r}] must be a {truncated.shape} bool array")
    count = sum((np.asarray(cut, dtype=np.int64) for cut in causes.values()), np.zeros(truncated.shape, np.int64))
    if (count != truncated).any():
        g = int(np.flatnonzero(count != truncated)[0])
        _fail(f"game {g}: truncation_causes gives it {int(count[g])} causes, truncated={bool(truncated[g])}")


def _check_hidden(rules, state, games: int, t: int, seed: int, potential=None) -> None:
    sub = state.take(np.arange(games))
    for seat in range(sub.config.num_players):
        keys = frng.keys_from_seed(seed * 1000 + t * 10 + seat, games)
        other = rules.redeal_hidden(sub, seat, keys)
        if rules.invariants(other):
            _fail(f"redeal_hidden broke the invariants: {rules.invariants(other)}")
        if not np.array_equal(rules.observe(sub, seat), rules.observe(other, seat)):
            _fail(f"step {t}: seat {seat}'s observation changed when hidden information was re-dealt")
        if not np.array_equal(rules.legal_mask(sub, seat), rules.legal_mask(other, seat)):
            _fail(f"step {t}: seat {seat}'s legal actions depend on information it cannot see")
        if potential is not None and not np.array_equal(potential(sub), potential(other)):
            _fail(f"step {t}: potential changed when what seat {seat} cannot see was re-dealt (it must be public)")


def _check_round_trips(spec, state, actions, gen, rules) -> None:
    import io
    import pickle

    probe = _random_actions(np.maximum(rules.legal_mask(state), state.done[:, None]), gen)
    expected, expected_rewards = rules.step(state, probe)
    buffer = io.BytesIO()
    fstate.save(state, buffer)
    buffer.seek(0)
    restored = [fstate.from_bytes(fstate.to_bytes(state)), fstate.load(buffer), pickle.loads(pickle.dumps(state))]
    for how, restored_state in zip(("bytes", "npz", "pickle"), restored, strict=True):
        if not restored_state.equals(state):
            _fail(f"state changed through a {how} round trip")
        again, rewards = rules.step(restored_state, probe)
        if not again.equals(expected) or not np.array_equal(rewards, expected_rewards):
            _fail(f"a state restored from {how} continued differently")
    for i in range(min(3, state.batch_size)):
        rebuilt = rules.from_description(rules.describe(state, i))
        if not rebuilt.equals(state.take(i)):
            _fail(f"from_description(describe(state, {i})) is not the same position")
        again, _ = rules.step(rebuilt, probe[i : i + 1])
        if not again.equals(expected.take(i)):
            _fail(f"a position rebuilt from its description continued differently (game {i})")


# ----------------------------------------------------------------------------------------------
# No loss: positions a seat can tell apart give it different observations


def canonical_knowledge(state, i: int, seat: int) -> str:
    """What `seat` knows of game `i` (its seat view without what can no longer matter, see
    `fruit_envs.core.picture.knowledge`) as canonical JSON. In a game with `symmetric_seats` the seat
    names are made relative to the observer (`player_{seat}` reads `seat+0`, the next seat `seat+1`):
    such a game's observation need not say which seat it is. Otherwise names stay absolute, so the
    observation must tell the seats apart."""
    from fruit_envs.core import picture as fpicture

    text = json.dumps(fpicture.knowledge(state, i, seat), default=str)
    if get_spec(state.GAME).symmetric_seats:
        p = state.config.num_players
        text = _SEAT_NAME.sub(lambda m: f"seat+{(int(m.group(1)) - seat) % p}", text)
    return json.dumps(json.loads(text), sort_keys=True)


_SEAT_NAME = re.compile(r"player_(\d+)")
# description keys that are not public table facts, or must agree with everything else
_NOT_EDITED = ("game", "version", "config", "rng_key", "hidden", "step_count", "done", "truncated")


def _leaves(obj, path=()):
    """`(path, value)` of every scalar and every list in a description (lists also as a whole)."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not path and key in _NOT_EDITED:
                continue
            yield from _leaves(value, (*path, key))
    elif isinstance(obj, list):
        yield path, obj
        for k, value in enumerate(obj):
            if isinstance(value, (dict, list)):
                yield from _leaves(value, (*path, k))
    else:
        yield path, obj


def _dicts(obj, path=()):
    """`(path, dict)` of every dict below the top level with two or more entries."""
    if isinstance(obj, dict):
        if path and len(obj) >= 2:
            yield path, obj
        for key, value in obj.items():
            if not path and key in _NOT_EDITED:
                continue
            yield from _dicts(value, (*path, key))
    elif isinstance(obj, list):
        for k, value in enumerate(obj):
            yield from _dicts(value, (*path, k))


def _pool_key(path) -> tuple:
    """A path with list positions and seat names wildcarded: where values of one kind are pooled."""
    return tuple("*" if isinstance(p, int) or _SEAT_NAME.fullmatch(str(p)) else p for p in path)


def _set_path(d: dict, path, value) -> dict:
    out = copy.deepcopy(d)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _edits(d: dict, pool: dict, gen: np.random.Generator, p: int):
    """Edited copies of description `d`, one public field changed each: `(what, description, seat shift)`."""
    out = []
    for path, value in _leaves(d):
        where = "/".join(str(x) for x in path)
        if isinstance(value, bool):
            out.append((where, _set_path(d, path, not value), 0))
        elif isinstance(value, (int, float)):
            for delta in (1, -1):
                out.append((where, _set_path(d, path, value + delta), 0))
        elif isinstance(value, list):
            distinct = [k for k in range(len(value) - 1) if value[k] != value[k + 1]]
            if distinct:
                k = int(gen.choice(distinct))
                swapped = value[:k] + [value[k + 1], value[k]] + value[k + 2 :]
                out.append((f"{where} (order)", _set_path(d, path, swapped), 0))
            if value:
                out.append((f"{where} (last removed)", _set_path(d, path, value[:-1]), 0))
        others = [v for v in pool.get(_pool_key(path), ()) if v != value]
        if others:
            out.append((where, _set_path(d, path, copy.deepcopy(others[int(gen.integers(len(others)))])), 0))
    for path, node in _dicts(d):  # two entries exchanged: keeps whatever the entries hold together
        names = list(node)
        pairs = [(a, b) for j, a in enumerate(names) for b in names[j + 1 :] if node[a] != node[b]]
        if pairs:
            a, b = pairs[int(gen.integers(len(pairs)))]
            swapped = {**node, a: node[b], b: node[a]}
            out.append(("/".join(map(str, path)) + f" ({a} and {b} exchanged)", _set_path(d, path, swapped), 0))
    text = json.dumps(d)
    for shift in range(1, p):
        moved = _SEAT_NAME.sub(lambda m, s=shift: f"player_{(int(m.group(1)) + s) % p}", text)
        out.append((f"every seat moved on by {shift}", json.loads(moved), shift))
    return out


def _collect_pool(pool: dict, d: dict) -> None:
    for path, value in _leaves(d):
        bucket = pool.setdefault(_pool_key(path), [])
        if value not in bucket and len(bucket) < 16:
            bucket.append(copy.deepcopy(value))


def _diff(a, b, path="") -> list[str]:
    """Paths where two JSON values differ (at most a few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _diff(a.get(key), b.get(key), f"{path}/{key}")
        return out[:6]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            out += _diff(x, y, f"{path}/{k}")
        return out[:6]
    return [] if a == b else [path or "/"]


def _check_no_loss(rules, state, games, seen: dict, pool: dict, gen, t: int, edits: int) -> int:
    """Sampled pairs (every position seen so far) and targeted edits of each public field of the
    positions at `games`: whenever two positions' canonical knowledge differs for a seat, so must its
    observations. Returns how many position pairs were compared."""
    p = state.config.num_players
    compared = 0
    for i in games:
        obs = [rules.observe(state.take(i), k)[0] for k in range(p)]
        views = [canonical_knowledge(state, i, k) for k in range(p)]
        for k in range(p):
            key = obs[k].tobytes()
            earlier = seen.setdefault(key, (views[k], f"step {t}, game {i}, seat {k}"))
            compared += 1
            if earlier[0] != views[k]:
                fields = _diff(json.loads(earlier[0]), json.loads(views[k]))
                _fail(
                    f"no loss: two positions that seat {k} can tell apart ({earlier[1]}; step {t}, game {i}) "
                    f"give the same observation; they differ in {fields}"
                )
        d = rules.describe(state, i)
        _collect_pool(pool, d)
        if state.done[i]:  # edits of a finished game make positions no game reaches
            continue
        candidates = _edits(d, pool, gen, p)
        picked = gen.permutation(len(candidates))[:edits] if len(candidates) > edits else range(len(candidates))
        for c in picked:
            what, edited, shift = candidates[c]
            try:
                other = rules.from_description(edited)
            except Exception:  # an edit that no consistent position allows
                continue
            for k in range(p):
                k2 = (k + shift) % p
                view2 = canonical_knowledge(other, 0, k2)
                compared += 1
                if view2 == views[k]:
                    continue
                if np.array_equal(obs[k], rules.observe(other, k2)[0]):
                    fields = _diff(json.loads(views[k]), json.loads(view2))
                    _fail(
                        f"no loss: seat {k} of game {i} at step {t} and seat {k2} after editing {what!r} can tell "
                        f"the positions apart (their knowledge differs in {fields}) but get the same observation"
                    )
    return compared


def playthrough(game: str | GameSpec, num_players: int | None = None, seed: int = 0) -> str:
    """A seeded random game as text (OpenSpiel-style golden playthrough): every decision by name,
    the rewards, and a digest of every seat's observation, so a diff shows what a rule change did."""
    import hashlib
    import json

    spec = get_spec(game)
    rules = spec.rules
    config = spec.make_config(num_players)
    gen = np.random.default_rng(seed)
    state = rules.init(config, frng.keys_from_seed(seed, 1))
    lines = [
        f"game: {spec.id} v{spec.version}",
        f"config: {json.dumps(config.to_dict(), sort_keys=True)}",
        f"seed: {seed}",
        "start: " + json.dumps(rules.describe(state, 0), sort_keys=True),
    ]
    while not state.done[0]:
        seat = int(state.to_move[0])
        digests = " ".join(
            hashlib.sha256(rules.observe(state, k).tobytes()).hexdigest()[:10] for k in range(config.num_players)
        )
        action = int(_random_actions(rules.legal_mask(state), gen)[0])
        state, rewards = rules.step(state, np.array([action]))
        lines.append(
            f"{int(state.step_count[0]):4d} player_{seat}: {rules.action_to_string(config, action)}"
            f" | rewards {rewards[0].tolist()} | obs {digests}"
        )
    lines.append("end: " + json.dumps(rules.describe(state, 0), sort_keys=True))
    return "\n".join(lines) + "\n"


GOLDEN_PLAYER_COUNTS = (2, 4)


def golden_player_counts(spec: GameSpec) -> tuple[int, ...]:
    """Player counts recorded for a game: 2 and 4 where it has them, else its default (a one-player game)."""
    return tuple(p for p in GOLDEN_PLAYER_COUNTS if p in spec.player_counts) or (spec.default_num_players,)


def write_goldens(folder) -> list:
    """Regenerate `<game>_<players>p.txt` for every registered game (run after an intended rule change)."""
    from pathlib import Path

    from fruit_envs.core.spec import registered_games

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in registered_games():
        for p in golden_player_counts(spec):
            path = folder / f"{spec.id}_{p}p.txt"
            path.write_text(playthrough(spec, p, seed=0))
            written.append(path)
    return written


if __name__ == "__main__":
    import sys

    import fruit_envs  # noqa: F401  (registers the games)

    target = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    for path in write_goldens(target):
        print("wrote", path)
