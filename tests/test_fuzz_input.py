"""Hypothesis fuzz of what users hand us: descriptions, saved-state bytes and game records, for every game.

Each mutated input gives either a clear error (`DescriptionError`, `StateError`, `RecordError`: all
`ValueError`s naming the field or the problem) or a valid result: a state that passes `check_state`
and keeps passing it for some random decisions. Never another exception type, never a state that
breaks an invariant. The default suite runs a few dozen examples per game and input kind
(derandomised, so CI is stable); `-m slow` runs many more, freshly random.
"""

from __future__ import annotations

import copy
import functools
import io
import json

import numpy as np
import pytest
from conftest import game_ids
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs import replay as replay_cli
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core import state as fstate
from fruit_envs.core import validate
from fruit_envs.core.errors import DescriptionError, StateError
from fruit_envs.core.spec import get_spec

SHORT = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LONG = settings(
    max_examples=600,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- pools of genuine inputs ----------------------------------------------------------------------


def random_states(game: str, num_players: int, seed: int, every: int):
    """Batch-of-1 states of one random game: the start, every `every` decisions, and the end."""
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(num_players), frng.keys_from_seed(seed, 1))
    gen = np.random.default_rng(seed)
    states, t = [state], 0
    while not state.done[0]:
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        t += 1
        if t % every == 0:
            states.append(state)
    return states + [state]


@functools.cache
def description_pool(game: str) -> list[dict]:
    spec = get_spec(game)
    counts = sorted({spec.official_player_counts[0], spec.official_player_counts[-1]})
    return [
        spec.rules.describe(s, 0) for p in counts for seed in (1, 2) for s in random_states(game, p, seed, every=37)
    ]


@functools.cache
def state_pool(game: str) -> list[bytes]:
    states = random_states(game, get_spec(game).default_num_players, 3, every=41)
    return [fstate.to_bytes(s) for s in states]


@functools.cache
def record_pool(game: str) -> list[dict]:
    """A finished game's record and the records of its first decisions (short: replays stay cheap)."""
    spec = get_spec(game)
    states = random_states(game, spec.default_num_players, 4, every=10**9)
    final = states[-1]
    rules = spec.rules
    gen = np.random.default_rng(4)
    state, actions = rules.init(final.config, frng.keys_from_seed(4, 1)), []
    while not state.done[0]:
        mask = rules.legal_mask(state)
        action = int(np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1)[0])
        state, _ = rules.step(state, np.array([action]))
        actions.append(action)
    key = int(frng.keys_from_seed(4, 1)[0])
    whole = frecord.record_from_states(spec, final.config, actions, state, key=key, source="fuzz")
    short = frecord.record_from_states(spec, final.config, actions[:12], states[0], key=key, source="fuzz")
    short.outcome = None
    return [whole.to_dict(), short.to_dict()]


# --- mutations ------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.sampled_from([0, 1, -1, 2, 3, 127, 128, 255, 256, 2**31, 2**63, 2**64])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def paths(obj, path=()):
    """The path of every node below the root."""
    if path:
        yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from paths(value, (*path, key))
    elif isinstance(obj, list):
        for k, value in enumerate(obj):
            yield from paths(value, (*path, k))


def node(obj, path):
    for key in path:
        obj = obj[key]
    return obj


@st.composite
def mutated(draw, originals: list[dict]) -> dict:
    """A genuine input with one to three edits: a field deleted, replaced by arbitrary JSON, nudged
    (numbers moved, flags flipped, lists shortened or lengthened) or replaced by another field's value
    (plausible values reach the deeper consistency checks)."""
    d = copy.deepcopy(draw(st.sampled_from(originals)))
    for _ in range(draw(st.integers(1, 3))):
        every = list(paths(d))
        if not every:
            break
        path = draw(st.sampled_from(every))
        parent, key = node(d, path[:-1]), path[-1]
        value = parent[key]
        how = draw(st.sampled_from(["delete", "json", "nudge", "transplant"]))
        if how == "delete":
            del parent[key]
        elif how == "json":
            parent[key] = draw(JSON)
        elif how == "transplant":
            parent[key] = copy.deepcopy(node(d, draw(st.sampled_from(every))))
        elif isinstance(value, bool):
            parent[key] = not value
        elif isinstance(value, int):
            parent[key] = value + draw(st.sampled_from([-1, 1, -2, 2, -100, 100, 2**40]))
        elif isinstance(value, list) and value:
            parent[key] = value + [value[0]] if draw(st.booleans()) else value[:-1]
        elif isinstance(value, str):
            parent[key] = value + draw(st.sampled_from(["", "x", " ", "_1"]))
    return d


# --- the checks -----------------------------------------------------------------------------------


def plays_soundly(state, steps: int = 25) -> None:
    """A state accepted from a user passes check_state, and so does every state reached from it."""
    rules = get_spec(state.GAME).rules
    gen = np.random.default_rng(0)
    for t in range(steps):
        validate.check_state(state, f"after {t} random decisions")
        if state.done.all():
            return
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))


def check_description(game: str, d: dict) -> None:
    rules = get_spec(game).rules
    try:
        state = rules.from_description(d)
    except DescriptionError as error:
        assert str(error) and (error.field is None or repr(error.field) in str(error))
        return
    plays_soundly(state)


def check_state_bytes(data: bytes) -> None:
    try:
        state = fstate.from_bytes(data)
    except StateError as error:
        assert str(error)
        return
    plays_soundly(state)


def check_record(d: dict) -> None:
    try:
        record = frecord.GameRecord.from_dict(json.loads(json.dumps(d)))
        frecord.replay(record)
    except frecord.RecordError as error:
        assert str(error)


@st.composite
def edited_state_bytes(draw, pool: list[bytes]) -> bytes:
    """Saved bytes with one array entry set to any value of its dtype, or with bytes flipped or cut."""
    data = pool[draw(st.integers(0, len(pool) - 1))]  # an index: hypothesis shows it, not kilobytes of zip
    if draw(st.booleans()):
        with np.load(io.BytesIO(data)) as npz:
            arrays = {k: npz[k] for k in npz.files}
        name = draw(st.sampled_from(sorted(k for k in arrays if k != "__meta__")))
        array = arrays[name].copy()
        flat = array.reshape(-1)
        if flat.size:
            k = draw(st.integers(0, flat.size - 1))
            if array.dtype == bool:
                flat[k] = not flat[k]
            else:
                info = np.iinfo(array.dtype)
                small = st.integers(max(int(info.min), -3), min(int(info.max), 3))
                flat[k] = draw(st.integers(int(info.min), int(info.max)) | small)
        buffer = io.BytesIO()
        np.savez(buffer, **{**arrays, name: array})
        return buffer.getvalue()
    data = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(data) - 1))
        data[k] = draw(st.integers(0, 255))
    return bytes(data[: draw(st.integers(len(data) // 2, len(data)))])


def fuzz(kind: str, game: str, how: settings):
    """Run fuzzer `kind` on `game` with settings `how`."""
    if kind == "description":
        test = given(mutated(description_pool(game)))(lambda d: check_description(game, d))
    elif kind == "state":
        test = given(edited_state_bytes(state_pool(game)))(check_state_bytes)
    else:
        test = given(mutated(record_pool(game)))(check_record)
    how(test)()


KINDS = ["description", "state", "record"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", game_ids())
def test_fuzz_short(kind, game):
    fuzz(kind, game, SHORT)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", game_ids())
def test_fuzz_long(kind, game):
    fuzz(kind, game, LONG)


def test_the_replay_command_never_raises_on_a_mutated_record(tmp_path):
    """Issue 19: 44 of 214 edited records gave a traceback; the command answers 0, 1 or 2 instead."""
    path = tmp_path / "games.jsonl"

    @SHORT
    @given(mutated(record_pool("cherry_picking")))
    def run(d):
        path.write_text(json.dumps(d) + "\n")
        out = io.StringIO()
        assert replay_cli.main([str(path), "--summary"], out=out) in (0, 1, 2)

    run()


def test_unedited_inputs_are_accepted():
    """The pools hold genuine inputs: any refusal in the fuzz comes from an edit."""
    for game in game_ids():
        for d in description_pool(game):
            get_spec(game).rules.from_description(d)
        for data in state_pool(game):
            fstate.from_bytes(data)
        for d in record_pool(game):
            frecord.replay(frecord.GameRecord.from_dict(d))
