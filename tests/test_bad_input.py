"""Bad input at every boundary (issue 19): a clear error naming what was wrong, never a silent wrong
result, a traceback from deep inside, or lost work. Each case the issue lists is a test here (or in
the test file of the command it concerns); the fuzz tests are in test_fuzz_input.py."""

from __future__ import annotations

import copy
import io
import json
import pickle
import re

import gymnasium
import numpy as np
import pytest
from conftest import game_ids

import fruit_envs
from fruit_envs import cherry_picking_v0
from fruit_envs.core import rng as frng
from fruit_envs.core import state as fstate
from fruit_envs.core import validate
from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv, make_aec_env
from fruit_envs.core.errors import IllegalActionError, InvalidActionError, ResetNeededError, StateError
from fruit_envs.core.gym_env import FruitVectorEnv
from fruit_envs.core.spec import get_spec

A = get_spec("cherry_picking").num_actions
RULE = re.escape(validate.action_rule(A))


def legal_of(mask) -> int:
    return int(np.flatnonzero(mask)[0])


# --- actions: one rule and one message in every API ----------------------------------------------


def raw_env():
    env = FruitAECEnv("cherry_picking")
    env.reset(seed=0)
    return env.step, legal_of(env.action_mask()), lambda: fstate.to_bytes(env.game_state)


def wrapped_env():
    env = make_aec_env("cherry_picking")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    return env.step, legal_of(mask), lambda: fstate.to_bytes(env.unwrapped.game_state)


def parallel_env():
    env = FruitParallelEnv("cherry_picking")
    obs, _ = env.reset(seed=0)
    legal = legal_of(obs["player_0"]["action_mask"])
    other = legal_of(obs["player_1"]["action_mask"])
    return (lambda a: env.step({"player_0": a, "player_1": other})), legal, lambda: fstate.to_bytes(env.game_state)


def gym_env(illegal_action="lose"):
    env = gymnasium.make("fruit_envs/CherryPicking-v0", illegal_action=illegal_action)
    _, info = env.reset(seed=0)
    return env.step, legal_of(info["action_mask"]), lambda: fstate.to_bytes(env.unwrapped.game_state)


def rllib_env():
    from fruit_envs.rllib_env import FruitMultiAgentEnv

    env = FruitMultiAgentEnv({"game": "cherry_picking"})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    return (lambda a: env.step({agent: a})), legal_of(o["action_mask"]), lambda: fstate.to_bytes(env.game_state)


SINGLE_APIS = {
    "raw AEC": raw_env,
    "env()": wrapped_env,
    "parallel": parallel_env,
    "gymnasium": gym_env,
    "gymnasium raise": lambda: gym_env("raise"),
    "rllib": rllib_env,
}
NOT_ACTIONS = {
    "float": lambda a: a + 0.7,  # used to play `a`
    "numpy float": lambda a: np.float64(a),
    "nan": lambda a: float("nan"),  # used to name action -9223372036854775808
    "string": lambda a: str(a),  # used to be accepted
    "bool": lambda a: True,  # used to be accepted (or "truth value of an array is ambiguous")
    "numpy bool": lambda a: np.True_,
    "huge": lambda a: 10**30,  # used to raise OverflowError
    "negative": lambda a: -1,
    "one past the end": lambda a: A,
    "list": lambda a: [a, a],  # used to give a reshape message
    "array of one": lambda a: np.array([a]),
    "None": lambda a: None,
}


@pytest.mark.parametrize("api", SINGLE_APIS)
@pytest.mark.parametrize("bad", NOT_ACTIONS)
def test_a_non_action_is_refused_alike_by_every_api(api, bad):
    """Issue 19: `step(legal + 0.7)` played `legal`, "1" and True were accepted, `raw_env` alone refused floats."""
    step, legal, snapshot = SINGLE_APIS[api]()
    before = snapshot()
    with pytest.raises(InvalidActionError, match=RULE):
        step(NOT_ACTIONS[bad](legal))
    assert snapshot() == before, "nothing changed"


@pytest.mark.parametrize("api", SINGLE_APIS)
def test_every_integer_type_is_an_action(api):
    for kind in (int, np.int8, np.int64, np.uint64, lambda a: np.array(a)):
        step, legal, _ = SINGLE_APIS[api]()
        step(kind(legal))


def vector_env():
    env = gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=4)
    _, info = env.reset(seed=0)
    return env.step, np.argmax(info["action_mask"], axis=1), lambda: fstate.to_bytes(env.unwrapped.game_state)


def sb3_env():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv("cherry_picking", num_envs=4)
    env.reset()
    return env.step, np.argmax(env.action_masks(), axis=1), lambda: fstate.to_bytes(env.batch.state)


BATCH_APIS = {"make_vec": vector_env, "SB3 VecEnv": sb3_env}
NOT_BATCHES = {
    "floats": lambda a: a + 0.5,
    "bools": lambda a: a.astype(bool),
    "strings": lambda a: a.astype(str),
    "(2, 2) for 4 envs": lambda a: a.reshape(2, 2),
    "too few": lambda a: a[:3],
    "list with a float": lambda a: [*a[:3].tolist(), 1.0],
    "list with a bool": lambda a: [*a[:3].tolist(), True],
    "out of range": lambda a: np.array([*a[:3], A]),
    "a scalar": lambda a: int(a[0]),
}


@pytest.mark.parametrize("api", BATCH_APIS)
@pytest.mark.parametrize("bad", NOT_BATCHES)
def test_a_non_batch_of_actions_is_refused(api, bad):
    """Issue 19: make_vec and the SB3 VecEnv accepted `a + 0.5`, bool and str arrays, and (2, 2) for 4 envs."""
    step, actions, snapshot = BATCH_APIS[api]()
    before = snapshot()
    with pytest.raises(InvalidActionError, match=RULE):
        step(NOT_BATCHES[bad](actions))
    assert snapshot() == before


@pytest.mark.parametrize("api", BATCH_APIS)
def test_integer_batches_of_any_integer_dtype_or_a_list_are_actions(api):
    for kind in (np.int32, np.uint8, list):
        step, actions, _ = BATCH_APIS[api]()
        step(kind(actions) if kind is list else actions.astype(kind))


def test_an_opponent_policy_returning_floats_is_named():
    env = gymnasium.make(
        "fruit_envs/CherryPicking-v0", seat=1, opponent=lambda obs, mask, rng: np.argmax(mask, 1) + 0.5
    )
    with pytest.raises(InvalidActionError, match="actions of opponent policy"):
        env.reset(seed=0)


# --- calls in the wrong order, unknown names, seeds -----------------------------------------------


def test_raw_env_before_reset_and_after_the_end():
    """Issue 19: `raw_env().step(0)` before reset gave AttributeError 'agent_selection'; a step after the end KeyError."""
    env = cherry_picking_v0.raw_env()
    for call in (lambda: env.step(0), lambda: env.action_mask(), lambda: env.observe("player_0")):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent 'player_7'; the agents are \['player_0', 'player_1'\]"):
        env.observe("player_7")
    gen = np.random.default_rng(0)
    for _ in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(gen.choice(np.flatnonzero(env.action_mask()))))
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step(0)
    wrapped = finished(cherry_picking_v0.env())  # PettingZoo's order wrapper warns and ignores the step
    wrapped.step(0)


def finished(env):
    env.reset(seed=0)
    gen = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(gen.choice(np.flatnonzero(obs["action_mask"]))))
    return env


def test_action_masks_before_reset_say_so():
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    for env in (
        gymnasium.make("fruit_envs/CherryPicking-v0").unwrapped,
        FruitVectorEnv(num_envs=2),
        FruitSB3VecEnv("cherry_picking", num_envs=2),
    ):
        with pytest.raises(RuntimeError, match=r"call reset\(\) \(or load_state\(\)\) before action_masks\(\)"):
            env.action_masks()


def calls_before_reset(game: str):
    """(adapter, what, call) for every public method and property of every adapter that needs a game."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
    from fruit_envs.rllib_env import FruitMultiAgentEnv

    module = fruit_envs.all_environments[f"fruit/{get_spec(game).pettingzoo_name}"]
    a = "player_0"
    for name, make in (("raw_env()", module.raw_env), ("env()", module.env)):
        for what, call in (
            ("last()", lambda e: e.last()),
            ("agent_iter()", lambda e: next(iter(e.agent_iter()))),
            (f"observe('{a}')", lambda e: e.observe(a)),
            ("state()", lambda e: e.state()),
            ("action_mask()", lambda e: e.action_mask()),
            ("render()", lambda e: e.render()),
            ("step()", lambda e: e.step(0)),
            ("agent_selection", lambda e: e.agent_selection),
            ("rewards", lambda e: e.rewards),
            ("terminations", lambda e: e.terminations),
            ("infos", lambda e: e.infos),
        ):
            yield name, what, (lambda make=make, call=call: call(make(render_mode="ansi")))
    for what, call in (
        ("step()", lambda e: e.step({a: 0})),
        ("state()", lambda e: e.state()),
        ("render()", lambda e: e.render()),
    ):
        yield "parallel_env()", what, (lambda call=call: call(module.parallel_env(render_mode="ansi")))
    gym_id = get_spec(game).gym_id
    for name, make in (
        ("gymnasium.make", lambda: gymnasium.make(gym_id, render_mode="ansi")),
        ("FruitEnv", lambda: gymnasium.make(gym_id, render_mode="ansi").unwrapped),
    ):
        for what, call in (
            ("step()", lambda e: e.step(0)),
            ("render()", lambda e: e.render()),
            ("action_masks()", lambda e: e.unwrapped.action_masks()),
            ("seat", lambda e: e.unwrapped.seat),
        ):
            yield name, what, (lambda make=make, call=call: call(make()))
    for what, call in (
        ("step()", lambda e: e.step(np.zeros(2, dtype=np.int64))),
        ("render()", lambda e: e.render()),
        ("action_masks()", lambda e: e.action_masks()),
        ("seats", lambda e: e.seats),
    ):
        yield "make_vec", what, (lambda call=call: call(gymnasium.make_vec(gym_id, num_envs=2, render_mode="ansi")))
    for what, call in (
        ("step()", lambda e: e.step(np.zeros(2, dtype=np.int64))),
        ("action_masks()", lambda e: e.env_method("action_masks")),
    ):
        yield "FruitSB3VecEnv", what, (lambda call=call: call(FruitSB3VecEnv(game, num_envs=2)))
    rllib = {"game": game, "render_mode": "ansi"}
    for what, call in (("step()", lambda e: e.step({a: 0})), ("render()", lambda e: e.render())):
        yield "RLlib", what, (lambda call=call: call(FruitMultiAgentEnv(rllib)))


@pytest.mark.parametrize("game", game_ids())
def test_every_adapter_used_before_reset_says_so(game):
    """Issue 29: `raw_env().last()` before reset raised PettingZoo's AttributeError 'agent_selection',
    `env()` its AssertionErrors, `render()` returned None: every adapter now raises one clear error."""
    name = get_spec(game).name
    calls = list(calls_before_reset(game))
    assert len(calls) >= 30
    for adapter, what, call in calls:
        with pytest.raises(ResetNeededError) as error:
            call()
        assert str(error.value) == f"{name}: call reset() (or load_state()) before {what}", (adapter, what)
        assert isinstance(error.value, RuntimeError) and isinstance(error.value, AttributeError)


def test_state_attributes_before_reset_still_answer_hasattr():
    """`ResetNeededError` is an `AttributeError` too: `hasattr`/`getattr` with a default keep working."""
    env = cherry_picking_v0.raw_env()
    assert not hasattr(env, "agent_selection") and getattr(env, "rewards", "none") == "none"
    env.reset(seed=0)
    assert env.agent_selection == "player_0" and hasattr(env, "rewards")


def test_load_state_through_env_counts_as_a_reset():
    """`env().load_state(...)` starts a game as `reset()` does: no error from the order checks after it."""
    spec = get_spec("cherry_picking")
    env = cherry_picking_v0.env()
    env.load_state(spec.rules.init(spec.make_config(2), frng.keys_from_seed(3, 1)))
    observation, reward, termination, truncation, _ = env.last()
    assert observation["action_mask"].any() and not termination and not truncation
    env.step(legal_of(observation["action_mask"]))


def test_parallel_env_refuses_unknown_agents():
    """Issue 19: the parallel env ignored unknown agent keys."""
    env = FruitParallelEnv("cherry_picking")
    obs, _ = env.reset(seed=0)
    actions = {a: legal_of(o["action_mask"]) for a, o in obs.items()}
    with pytest.raises(ValueError, match=r"actions for unknown or finished agents \['player_9'\]"):
        env.step({**actions, "player_9": 0})
    with pytest.raises(ValueError, match=r"actions missing for \['player_1'\]"):
        env.step({"player_0": actions["player_0"]})
    with pytest.raises(ValueError, match="takes a dict of actions"):
        env.step([0, 0])


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seeds_name_the_argument(seed):
    """Issue 19: `reset(seed=-1)` gave numpy's message."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
    from fruit_envs.rllib_env import FruitMultiAgentEnv

    resets = [
        gymnasium.make("fruit_envs/CherryPicking-v0").reset,
        FruitVectorEnv(num_envs=2).reset,
        FruitAECEnv("cherry_picking").reset,
        FruitParallelEnv("cherry_picking").reset,
        FruitMultiAgentEnv({"game": "cherry_picking"}).reset,
    ]
    for reset in resets:
        with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
            reset(seed=seed)
    with pytest.raises(ValueError, match="seed must be None or a non-negative integer"):
        FruitSB3VecEnv("cherry_picking", num_envs=2).seed(seed)


# --- config options: bool is not int, 15.0 is not 15 ----------------------------------------------


def wrong_types(value):
    """Values Python's `==` or `isinstance` confuse with `value`, of another type."""
    if isinstance(value, bool):
        return [int(value), str(value), None]
    if isinstance(value, int):
        return [True, float(value), str(value)]
    return [1, True, [value]]


def option_cases():
    for spec in fruit_envs.registered_games():
        for name, f in spec.config_cls.options().items():
            for bad in wrong_types(f.default):
                yield spec.id, name, bad


@pytest.mark.parametrize("game, name, bad", list(option_cases()))
def test_an_option_of_the_wrong_type_is_refused(game, name, bad):
    """Issue 19: `max_rounds=True`, `rounds_to_win=True` and the score attack's `rounds=15.0` were accepted."""
    spec = get_spec(game)
    with pytest.raises(ValueError, match=rf"option {name} must be .*got {re.escape(repr(bad))}"):
        spec.make_config(spec.default_num_players, **{name: bad})


@pytest.mark.parametrize("num_players", [True, 2.0, "2", None.__class__])
def test_num_players_must_be_an_int(num_players):
    with pytest.raises(ValueError, match="num_players must be an integer"):
        get_spec("cherry_picking").make_config(num_players)


def test_numpy_option_values_become_plain_python():
    config = get_spec("quickity_pickity").make_config(np.int64(2), rounds_to_win=np.int64(2), family=np.True_)
    assert type(config.rounds_to_win) is int and type(config.family) is bool and type(config.num_players) is int
    json.dumps(config.to_dict())


# --- saved states: schema, bounds, invariants ------------------------------------------------------


def saved(game: str, steps: int = 5):
    """A few games of `game` after `steps` random decisions: (bytes, meta, arrays)."""
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(), np.arange(3, dtype=np.uint64))
    gen = np.random.default_rng(0)
    for _ in range(steps):
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
    data = fstate.to_bytes(state)
    with np.load(io.BytesIO(data)) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return data, json.loads(str(arrays.pop("__meta__"))), arrays


def npz(meta: dict, arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, __meta__=np.array(json.dumps(meta)), **arrays)
    return buffer.getvalue()


def schema_edits(meta: dict, arrays: dict):
    """Edited copies `(what, meta, arrays)` that no game can load: the issue's 39 edits and more."""
    first = sorted(arrays)[0]
    for name, array in arrays.items():
        yield f"{name} as float64", meta, {**arrays, name: array.astype(np.float64)}
        yield f"{name} with an extra axis", meta, {**arrays, name: array[..., None]}
        yield f"{name} of one game fewer", meta, {**arrays, name: array[:-1]}
        rest = {k: v for k, v in arrays.items() if k != name}
        yield f"{name} missing", meta, rest
    yield "an unknown field", meta, {**arrays, "cheat": np.zeros(3)}
    yield "to_move 9", meta, {**arrays, "to_move": np.full_like(arrays["to_move"], 9)}
    yield "to_move -1", meta, {**arrays, "to_move": np.full_like(arrays["to_move"], -1)}
    yield "step_count -1", meta, {**arrays, "step_count": np.full_like(arrays["step_count"], -1)}
    yield "truncated but live", meta, {**arrays, "truncated": np.ones_like(arrays["truncated"])}
    other = 3 if meta["config"]["num_players"] != 3 else 2
    yield "meta with another num_players", {**meta, "config": {**meta["config"], "num_players": other}}, arrays
    yield "meta of another version", {**meta, "version": meta["version"] + 1}, arrays
    yield "meta of an unknown game", {**meta, "game": "chess"}, arrays
    yield "meta with a bad option", {**meta, "config": {**meta["config"], "reward": 1}}, arrays
    yield "meta without config", {k: v for k, v in meta.items() if k != "config"}, arrays
    yield "meta not an object", [], arrays
    yield "first field as object pickle", meta, {**arrays, first: arrays[first].astype(object)}


@pytest.mark.parametrize("game", game_ids())
def test_edited_saved_states_are_refused(game):
    """Issue 19: 39 of 39 edits across 5 games loaded (wrong shapes, float dtypes, disagreeing batch sizes,
    `to_move=9`, meta with another num_players); the failure surfaced later as an IndexError, or never."""
    data, meta, arrays = saved(game)
    fstate.from_bytes(data)
    for what, m, a in schema_edits(meta, arrays):
        try:
            blob = npz(m, a)
        except ValueError:  # numpy refuses to save object arrays without pickle: nothing to load
            continue
        with pytest.raises(StateError):
            fstate.from_bytes(blob)
            pytest.fail(f"{game}: {what} loaded")


def test_unreadable_bytes_and_files_are_state_errors(tmp_path):
    """Issue 19: a few bit-flipped .npz files raised zipfile's NotImplementedError."""
    data, _, _ = saved("cherry_picking")
    for blob in (b"", b"not a zip", data[: len(data) // 2], data[:30] + bytes([data[30] ^ 0xFF]) + data[31:]):
        with pytest.raises(StateError):
            fstate.from_bytes(blob)
    with pytest.raises(StateError, match="from_bytes takes the bytes"):
        fstate.from_bytes("a string")
    with pytest.raises(StateError, match="no saved state at"):
        fstate.load(tmp_path / "missing.npz")
    with pytest.raises(StateError, match="no saved state at"):
        fstate.load(tmp_path)


def test_negative_counts_are_refused():
    _, meta, arrays = saved("cherry_picking")
    hands = arrays["hands"].copy()
    hands[0, 0, 5] = -1
    with pytest.raises(StateError, match=r"field 'hands' holds -1 at \(0, 0, 5\)"):
        fstate.from_bytes(npz(meta, {**arrays, "hands": hands}))


def test_load_state_checks_the_whole_state():
    """Issue 19: `env.load_state` checked only batch size, game and config."""
    from fruit_envs.rllib_env import FruitMultiAgentEnv

    env = cherry_picking_v0.raw_env()
    env.reset(seed=0)
    good = env.game_state.copy()
    bad = good.copy()
    bad.hands[0, 0, bad.hands[0, 0].argmax()] -= 1  # a card vanished: hand sizes differ
    rllib = FruitMultiAgentEnv({"game": "cherry_picking"})
    for load in (env.load_state, rllib.load_state):
        with pytest.raises(StateError, match="hand sizes differ"):
            load(bad)
        with pytest.raises(StateError, match="expected a batch of 1 game, got 2"):
            load(type(good).concatenate([good, good]))
        with pytest.raises(StateError, match="differs from the expected"):
            load(
                get_spec("cherry_picking").rules.init(get_spec("cherry_picking").make_config(3), np.zeros(1, np.uint64))
            )
        with pytest.raises(StateError, match="expected a Cherry Picking state"):
            load(get_spec("fruit_picking").rules.init(get_spec("fruit_picking").make_config(), np.zeros(1, np.uint64)))
        load(good)


# --- descriptions ---------------------------------------------------------------------------------


def cherry_description():
    rules = get_spec("cherry_picking").rules
    return rules, rules.describe(rules.init(get_spec("cherry_picking").make_config(), np.arange(1, dtype=np.uint64)), 0)


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["hidden"].pop("hands"), None),  # no hands: the seat to move could not play
        (lambda d: d["hidden"]["hands"].pop("player_1"), None),  # uneven hands: a seat would run out first
        (lambda d: d["hidden"]["hands"].update(player_1=7), "hidden.hands.player_1"),
        (lambda d: d.update(phase="choose"), None),  # nobody holds a card that chooses a plant
        (lambda d: d.update(set=0), "set"),
        (lambda d: d.update(hiden={}), "hiden"),
        (lambda d: d["plants"].pop("cherry"), "plants.cherry"),
        (lambda d: d.update(step_count=True), "step_count"),
        (lambda d: d.update(rng_key="-1"), "rng_key"),
        (lambda d: d["config"].update(num_players=2.0), "config"),
        (lambda d: d["scores"].update(player_0=5), None),  # totals are the sums of the set scores
    ],
)
def test_cherry_picking_descriptions_name_what_is_wrong(change, field):
    """Issue 19: a description with `hidden.hands` (or one hand) deleted gave a live game whose player to
    move had no legal action, and forcing a step gave negative card counts."""
    from fruit_envs.core.errors import DescriptionError

    rules, d = cherry_description()
    change(d)
    with pytest.raises(DescriptionError) as error:
        rules.from_description(d)
    assert error.value.field == field
    if field:
        assert f"field {field!r}" in str(error.value)


def draw_two_while_planting(d: dict) -> None:
    """Two stack cards moved to `hidden.drawn` while the seat to move is planting."""
    d["hidden"]["drawn"] = [d["hidden"]["stack"].pop(), d["hidden"]["stack"].pop()]
    d.update(stack_size=d["stack_size"] - 2, stack_known_by=d["stack_known_by"][:-2])
    d["drawn_known_by"] = [["player_0"]] * 2


def start_description(game: str, **options) -> dict:
    spec = get_spec(game)
    config = spec.make_config(spec.default_num_players, **options)
    return spec.rules.describe(spec.rules.init(config, np.arange(1, dtype=np.uint64)), 0)


@pytest.mark.parametrize(
    "game, options, change, field, message",
    [
        # Fruit Picking: positions that cannot occur (issue 19), now refused as DescriptionErrors
        ("fruit_picking", {}, lambda d: d.update(phase="target"), None, "phase 'target' needs a target"),
        ("fruit_picking", {}, lambda d: d.update(phase="target", target=0), "target", "the House is never a target"),
        (
            "fruit_picking",
            {"market_operation": True},
            lambda d: d.update(phase="keep", target=1, market=["empty", *d["market"][1:]]),
            None,
            "phase 'keep' needs two drawn cards",
        ),
        (
            "fruit_picking",
            {},
            draw_two_while_planting,
            None,
            "hidden.drawn must be empty outside phase 'keep'",
        ),
        (
            "fruit_picking",
            {},
            lambda d: d["farms"]["player_1"]["seeds"].__setitem__(3, 128),
            "farms.player_1.seeds[3]",
            "0..18",
        ),
        ("fruit_picking", {}, lambda d: d["market"].append("cherry"), "market", "at most 4"),
        ("fruit_picking", {}, lambda d: d["hidden"]["stack"].__setitem__(0, 3), "hidden.stack[0]", "must be a string"),
        # Quickity Pickity: the phase field was silently ignored
        ("quickity_pickity", {}, lambda d: d.update(phase="place"), "phase", "must be 'flip'"),
        ("quickity_pickity", {}, lambda d: d.update(card="3"), "card", "must be an integer"),
        # the score attack: a token listed twice in business_pile was silently ignored
        (
            "juicy_fruits_solo",
            {},
            lambda d: d.update(business_pile=[d["business_pile"][0]] * 2),
            "business_pile[1]",
            "listed twice",
        ),
    ],
)
def test_descriptions_that_cannot_occur_name_what_is_wrong(game, options, change, field, message):
    """Issue 19: Fruit Picking accepted phase 'target' with no target, phase 'keep' with no drawn cards,
    drawn cards during planting and the House as target; Quickity's `phase` and a duplicate in the score
    attack's `business_pile` were silently ignored. Each is a DescriptionError naming the field."""
    from fruit_envs.core.errors import DescriptionError

    d = start_description(game, **options)
    change(d)
    with pytest.raises(DescriptionError, match=re.escape(message)) as error:
        get_spec(game).rules.from_description(d)
    assert error.value.field == field


# --- copies and pickles ---------------------------------------------------------------------------


def continues_alike(env, copy_, steps: int = 6):
    """`env` and its copy, stepped with the same first legal actions, give the same observations."""
    for _ in range(steps):
        a, b = (e.unwrapped.action_masks() for e in (env, copy_))
        assert np.array_equal(a, b)
        action = np.argmax(a, axis=-1)
        out_a, out_b = env.step(action), copy_.step(action)
        assert np.array_equal(out_a[0], out_b[0])


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_gymnasium_and_sb3_envs_copy_and_pickle(clone):
    """Issue 19: deepcopy and pickle of `gymnasium.make(...)`, `make_vec` and `FruitSB3VecEnv` envs failed
    ("cannot pickle 'module' object")."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    single = gymnasium.make("fruit_envs/CherryPicking-v0", opponent="greedy")
    single.reset(seed=0)
    continues_alike(single, clone(single))
    vector = gymnasium.make_vec("fruit_envs/CherryPicking-v0", num_envs=3)
    vector.reset(seed=0)
    continues_alike(vector, clone(vector))
    sb3 = FruitSB3VecEnv("cherry_picking", num_envs=3)
    sb3.reset()
    twin = clone(sb3)
    for _ in range(6):
        actions = np.argmax(sb3.action_masks(), axis=1)
        assert np.array_equal(sb3.step(actions)[0], twin.step(actions)[0])


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_pettingzoo_and_rllib_envs_copy_and_pickle_and_keep_recording(clone, tmp_path):
    """An env with `record=PATH` holds the path, not an open file: its copy appends to the same file."""
    from fruit_envs.rllib_env import FruitMultiAgentEnv

    path = tmp_path / "games.jsonl"
    env = cherry_picking_v0.raw_env(record=path)
    env.reset(seed=0)
    twin = clone(env)
    for e in (env, twin):
        for _ in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else legal_of(e.action_mask()))
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    assert first["actions"] == second["actions"] and first["outcome"] == second["outcome"]
    for env in (cherry_picking_v0.env(), cherry_picking_v0.parallel_env(), FruitMultiAgentEnv({})):
        env.reset(seed=0)
        clone(env)


def test_sb3_subprocess_vec_env_pickles_gymnasium_factories():
    """SB3's SubprocVecEnv pickles each env factory into a worker process."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # "module:id" imports fruit_envs (and registers its ids) in each worker process first
    make = [lambda: gymnasium.make("fruit_envs:fruit_envs/CherryPicking-v0") for _ in range(2)]
    env = SubprocVecEnv(make)
    try:
        obs = env.reset()
        masks = np.array(env.env_method("action_masks"))
        obs, rewards, dones, infos = env.step(np.argmax(masks, axis=1))
        assert obs.shape[0] == 2
    finally:
        env.close()


def test_a_record_file_that_cannot_be_written_is_refused_at_once(tmp_path):
    """`record=FOLDER` used to fail at the end of the first game, losing it."""
    with pytest.raises(ValueError, match="is a folder; give a file name"):
        cherry_picking_v0.raw_env(record=tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file, so no folder can be made below it"):
        gymnasium.make("fruit_envs/CherryPicking-v0", record=tmp_path / "file" / "games.jsonl")


def test_missing_sb3_names_the_extra(monkeypatch):
    """Issue 19: without the train extra, FruitSB3VecEnv said only "No module named 'stable_baselines3'"."""
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.vec_env", None)
    monkeypatch.delitem(sys.modules, "fruit_envs.core.sb3_vec_env", raising=False)
    with pytest.raises(ImportError, match=re.escape("pip install 'fruit_envs[train]'")):
        importlib.import_module("fruit_envs.core.sb3_vec_env")
    monkeypatch.delitem(sys.modules, "fruit_envs.core.sb3_vec_env", raising=False)


def test_illegal_action_error_is_still_what_callers_catch():
    assert issubclass(InvalidActionError, IllegalActionError) and issubclass(InvalidActionError, ValueError)


# --- output paths: checked by writing, before any work ----------------------------------------------

UNWRITABLE = "/proc/fruit_envs_nope"  # refused to everyone, root included, though os.access may say yes


def command_mains():
    from fruit_envs import pictures, replay
    from fruit_envs.benchmarks import throughput, tournament
    from fruit_envs.training import baselines, bc, train_ppo, train_rllib

    return {
        "replay --gif": (replay.main, ["games.jsonl", "--gif", f"{UNWRITABLE}/game.gif"]),
        "replay --png": (replay.main, ["games.jsonl", "--png", f"{UNWRITABLE}/strip.png"]),
        "tournament --out": (tournament.main, ["--game", "cherry_picking", "--out", UNWRITABLE]),
        "tournament --record": (tournament.main, ["--game", "cherry_picking", "--record", f"{UNWRITABLE}/g.jsonl"]),
        "throughput --out": (throughput.main, ["--out", UNWRITABLE]),
        "train_ppo --runs-dir": (train_ppo.main, ["--runs-dir", UNWRITABLE, "--total-timesteps", "128"]),
        "train_rllib --runs-dir": (train_rllib.main, ["--runs-dir", UNWRITABLE]),
        "demonstrations --out": (bc.main, ["--game", "cherry_picking", "--out", f"{UNWRITABLE}/d.npz"]),
        "baselines export --out": (baselines.main, ["export", "runs/x", "--out", UNWRITABLE]),
        "baselines retrain --runs-dir": (baselines.main, ["retrain", "--runs-dir", UNWRITABLE]),
        "pictures": (pictures.main, [UNWRITABLE]),
    }


@pytest.mark.parametrize("command", sorted(command_mains()))
def test_every_command_that_writes_refuses_an_unwritable_path_first(command, capsys):
    """Issue 29: the check trusted `os.access` on the first existing folder, true for root almost everywhere,
    so `play --record /proc/nope/x.jsonl` played the game and lost it. Every command checks by writing."""
    main, argv = command_mains()[command]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own refusal of a bad --out
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err
    assert UNWRITABLE in err and "Traceback" not in err


def test_the_path_check_leaves_nothing_behind(tmp_path):
    new_file = tmp_path / "a" / "b" / "games.jsonl"
    assert validate.writable_file(new_file, "--record") == new_file
    assert list(tmp_path.iterdir()) == [], "the folders the check made are gone again"
    assert validate.writable_dir(tmp_path / "runs" / "deep", "--runs-dir") == tmp_path / "runs" / "deep"
    assert list(tmp_path.iterdir()) == []
    kept = tmp_path / "kept.jsonl"
    kept.write_text("a record\n")
    validate.writable_file(kept)
    assert kept.read_text() == "a record\n"
    for bad, message in ((f"{UNWRITABLE}/x.jsonl", "cannot make the folder"), (kept / "x", "is a file")):
        with pytest.raises(ValueError, match=message):
            validate.writable_file(bad, "--record")
