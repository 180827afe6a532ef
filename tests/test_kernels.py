"""The compiled kernels (issue 33): loaded only when a game first runs, cached where they can be, and the
same game everywhere."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fruit_envs

SCRIPT = """
import json, sys
import numpy as np
import fruit_envs
assert "numba" not in sys.modules, "import fruit_envs must not load numba"
from fruit_envs import cherry_picking_v0
env = cherry_picking_v0.env()
env.reset(seed=3)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
obs, *_ = env.last()
from fruit_envs.core import kernels
print(json.dumps({"cached": kernels.CACHED, "obs": obs["observation"].tolist()}))
"""


def _clean_env() -> dict:
    """This process's environment without numba's settings or a kernel tier: a child process as a user's."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "FRUIT_ENVS_KERNELS"))}


def _run(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_kernels_load_lazily_and_run_where_no_cache_can_be_written():
    """`import fruit_envs` stays light; where numba finds no writable cache location the kernels still
    compile and play the same game (here numba may only cache under a path that cannot exist)."""
    base = _clean_env()
    normal = _run(base)
    nowhere = _run(
        base | {"NUMBA_CACHE_DIR": "/dev/null/cache", "NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}
    )
    assert normal["cached"] and not nowhere["cached"]
    assert nowhere["obs"] == normal["obs"]


def test_compile_command_names_each_game_and_refuses_an_unknown_one(capsys):
    """`python -m fruit_envs.compile` (run by `./dev setup`) plays a short game of each named game through
    every kernel, and names the games when one is not known."""
    from fruit_envs import compile as fcompile

    assert fcompile.main(["cherry_picking"]) == 0
    assert capsys.readouterr().out.startswith("cherry_picking: ")
    assert fcompile.main(["chess"]) == 2
    assert "unknown game 'chess'; the games are ['cherry_picking'" in capsys.readouterr().err
    assert fcompile.main(["--help"]) == 0
    assert "python -m fruit_envs.compile" in capsys.readouterr().out


def test_a_batch_stepped_in_row_parts_on_threads_equals_the_whole_batch():
    """`BatchState.rows` parts stepped in place on two threads at once (the kernels release the GIL; the
    throughput table's threaded column) give the batch that one whole step gives, for every game."""
    import threading

    import numpy as np

    from fruit_envs.core import rng as frng
    from fruit_envs.core.spec import registered_games

    for spec in registered_games():
        config = spec.make_config(spec.official_player_counts[-1])
        whole = spec.rules.init(config, frng.keys_from_seed(5, 64))
        split = whole.copy()
        gen = np.random.default_rng(0)
        for _ in range(40):
            mask = spec.rules.legal_mask(whole)
            live = mask.any(axis=1)
            actions = np.where(live, np.argmax(gen.random(mask.shape) * mask, axis=1), 0)
            whole, _ = spec.rules.step(whole, actions)
            parts = [(split.rows(0, 30), actions[:30]), (split.rows(30, 64), actions[30:])]
            workers = [
                threading.Thread(target=spec.rules.step, args=(part, a), kwargs={"in_place": True}) for part, a in parts
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            assert split.equals(whole), spec.id


def test_stable_argsort_orders_as_numpys_stable_argsort_ties_included():
    """The kernels' shuffles and tile orders sort with `stable_argsort`; it must give numpy's stable order
    (equal values keep their index order), for the dtypes the games sort."""
    import numpy as np

    from fruit_envs.core.kernels import stable_argsort

    gen = np.random.default_rng(4)
    for dtype in (np.float64, np.int8, np.int64):
        for n in (0, 1, 2, 7, 67):
            values = gen.integers(0, 5, n).astype(dtype)  # many ties
            assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))
    floats = gen.random(50)
    assert np.array_equal(stable_argsort(floats), np.argsort(floats, kind="stable"))


COMPILES = """
import json, sys
from numba.core import event
from fruit_envs.compile import compile_game
recorder = event.RecordingListener()
event.register("numba:compile", recorder)
compile_game(sys.argv[1])
compiled = [(ev.data["dispatcher"].py_func.__module__, ev.data["dispatcher"].py_func.__qualname__)
            for _, ev in recorder.buffer if ev.is_start]
print(json.dumps(compiled))
"""


def _first_compile(game: str, tmp_path) -> list[tuple[str, str]]:
    """(module, name) of every function numba compiles while `game` plays through every kernel, from an
    empty cache (a new installation)."""
    env = _clean_env() | {"NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", COMPILES, game], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return [tuple(row) for row in json.loads(out.stdout.strip().splitlines()[-1])]


def _check_first_compile(game: str, tmp_path) -> None:
    compiled = _first_compile(game, tmp_path)
    ours = [name for module, name in compiled if module.startswith("fruit_envs")]
    twice = sorted({name for name in ours if ours.count(name) > 1})
    assert not twice, f"{game}: compiled for more than one signature (a constant or narrow-integer argument?): {twice}"
    names = {name for _, name in compiled}
    assert not any("raise_with_shape_context" in name for name in names), (
        f"{game}: an array assigned from an array makes numba compile its shape-error message"
    )


def test_each_kernel_compiles_once_in_a_games_first_compile(tmp_path):
    """A game's first compile (issue 33, cold start) builds each kernel for one signature and no shape-error
    message: both rules of `core.kernels`, which kept Quickity Pickity's first compile a third shorter."""
    _check_first_compile("quickity_pickity", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["cherry_picking", "fruit_picking", "juicy_fruits"])
def test_each_kernel_compiles_once_in_every_games_first_compile(game, tmp_path):
    _check_first_compile(game, tmp_path)


TIERS = """
import json, sys
import numpy as np
from fruit_envs import cherry_picking_v0
from fruit_envs.core import lazy
env = cherry_picking_v0.env()
env.reset(seed=3)
seen, tiers = [], []
for half in range(2):
    for _ in range(int(sys.argv[1])):
        obs, *_ = env.last()
        seen.append(obs["observation"].tolist() + obs["action_mask"].tolist())
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    tiers.append(lazy.tiers()["fruit_envs.games.cherry_picking"])
    lazy.wait_compiled(600)
print(json.dumps({"tiers": tiers, "seen": seen}))
"""


def _tiers(cache: str, steps: int, **env) -> dict:
    base = _clean_env()
    run = subprocess.run(
        [sys.executable, "-c", TIERS, str(steps)], env=base | {"NUMBA_CACHE_DIR": cache} | env,
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_new_installation_plays_at_once_interpreted_then_compiled(tmp_path):
    """Issue 33's cold start: on an empty numba cache the first env plays at once on the interpreted twin of
    the kernels while a background process compiles them; once it has finished the game goes on compiled,
    and a later process starts compiled from the cache. Every tier plays the same game."""
    cold = _tiers(str(tmp_path), 12)
    assert cold["tiers"] == ["interpreted", "compiled"]
    assert any(tmp_path.iterdir()), "the background compile wrote nothing to numba's cache"
    warm = _tiers(str(tmp_path), 12)
    assert warm["tiers"] == ["compiled", "compiled"]
    interpreted = _tiers(str(tmp_path / "unused"), 12, FRUIT_ENVS_KERNELS="interpreted")
    assert interpreted["tiers"] == ["interpreted", "interpreted"]
    assert cold["seen"] == warm["seen"] == interpreted["seen"]


INTERPRETED = """
import json, sys
from fruit_envs.compile import compile_game
from fruit_envs.core import lazy
from fruit_envs.core.spec import get_spec, registered_games
for spec in registered_games():
    rules, config = spec.rules, spec.make_config(spec.official_player_counts[-1])
    import numpy as np
    from fruit_envs.core import rng
    state = rules.init(config, rng.keys_from_seed(0, 3))
    gen = np.random.default_rng(0)
    for _ in range(30):
        mask = rules.legal_mask(state)
        rules.observe(state, state.to_move.astype(np.int64))
        state, _ = rules.step(state, np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1), ~state.done)
    if hasattr(rules, "advance"):
        one = rules.init(config, rng.keys_from_seed(0, 1))
        rules.advance(one, int(np.flatnonzero(rules.legal_mask(one)[0])[0]))
compiled = sorted(
    f"{name}.{key}" for name, module in sys.modules.items() if name.endswith("kernels")
    for key, value in vars(module).items() if getattr(value, "signatures", None)
)
print(json.dumps({"tiers": lazy.tiers(), "compiled": compiled}))
"""


def test_the_interpreted_tier_compiles_nothing(tmp_path):
    """`FRUIT_ENVS_KERNELS=interpreted` runs every game's kernels as plain Python: numba compiles no
    function (every call between kernels reaches the twin, not the dispatcher) and caches nothing."""
    env = _clean_env() | {"NUMBA_CACHE_DIR": str(tmp_path), "FRUIT_ENVS_KERNELS": "interpreted"}
    run = subprocess.run([sys.executable, "-c", INTERPRETED], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(out["tiers"].values()) == {"interpreted"} and len(out["tiers"]) == 4, out["tiers"]
    assert out["compiled"] == []
    assert not list(tmp_path.rglob("*.nb[ic]")), "numba cached compiled code"


@pytest.fixture
def fresh_loader(monkeypatch):
    """A loader of Cherry Picking's kernels of its own (the game's real one stays as it is), on `auto`."""
    from fruit_envs.core import lazy

    monkeypatch.setattr(lazy, "_forced", None)
    monkeypatch.delenv("FRUIT_ENVS_KERNELS", raising=False)
    monkeypatch.setattr(lazy, "_in_cache", lambda module: False)
    return lazy._Loader("fruit_envs.games.cherry_picking")


def test_a_failed_background_compile_warns_and_compiles_here(fresh_loader, monkeypatch):
    from fruit_envs.core import lazy

    fail = [sys.executable, "-c", "import sys; print('no compiler here', file=sys.stderr); sys.exit(3)"]
    monkeypatch.setattr(lazy, "compile_command", lambda package: fail)
    assert fresh_loader.get().__name__ == "fruit_envs.games.cherry_picking.kernels[interpreted]"
    with pytest.warns(RuntimeWarning, match=r"(?s)failed \(exit 3\); compiling them in this process.*no compiler here"):
        module = fresh_loader.wait_compiled(60)
    assert module.__name__ == "fruit_envs.games.cherry_picking.kernels" and fresh_loader.tier == "compiled"


def test_no_background_process_means_compiled_at_once(fresh_loader, monkeypatch):
    from fruit_envs.core import lazy

    monkeypatch.setattr(lazy, "compile_command", lambda package: ["/nonexistent/python", "-m", "x"])
    assert fresh_loader.get().__name__ == "fruit_envs.games.cherry_picking.kernels"


def test_a_wrong_tier_is_refused_by_name(fresh_loader, monkeypatch):
    monkeypatch.setenv("FRUIT_ENVS_KERNELS", "fast")
    with pytest.raises(
        ValueError, match=r"\$FRUIT_ENVS_KERNELS='fast' is not a kernel tier; use one of auto, compiled"
    ):
        fresh_loader.get()
    monkeypatch.setenv("FRUIT_ENVS_KERNELS", " Compiled ")
    assert fresh_loader.get().__name__ == "fruit_envs.games.cherry_picking.kernels"


def test_compile_kernels_option_compiles_the_games_of_a_package_and_refuses_others(capsys):
    from fruit_envs import compile as fcompile

    assert fcompile.games_using("fruit_envs.games.juicy_fruits") == ["juicy_fruits"]
    assert fcompile.main(["--kernels", "fruit_envs.games.cherry_picking"]) == 0
    assert capsys.readouterr().out.startswith("cherry_picking: ")
    assert fcompile.main(["--kernels", "fruit_envs.games.chess"]) == 2
    assert "--kernels takes one game package" in capsys.readouterr().err


def test_a_forked_child_looks_in_the_cache_rather_than_at_its_parents_compile(fresh_loader, monkeypatch):
    """A process forked while its parent's background compile runs cannot wait for that process: it switches
    once numba's cache holds the kernels (here the loader believes another process started the compile)."""
    from fruit_envs.core import lazy

    monkeypatch.setattr(lazy, "compile_command", lambda package: [sys.executable, "-c", "import time; time.sleep(60)"])
    assert fresh_loader.get().__name__.endswith("[interpreted]")
    sleeper = fresh_loader.compiling
    try:
        assert fresh_loader.wait_compiled(0.1).__name__.endswith("[interpreted]")  # a timeout is no error
        fresh_loader._owner = -1
        assert fresh_loader.wait_compiled(0.1).__name__.endswith("[interpreted]")  # not cached: plays on
        monkeypatch.setattr(lazy, "_in_cache", lambda module: True)
        fresh_loader._next_poll = 0.0
        assert fresh_loader.get().__name__ == "fruit_envs.games.cherry_picking.kernels"
    finally:
        sleeper.kill()
        sleeper.wait()


# -- state arrays reach kernels by field name (issue 55) ----------------------------------------------------------

KERNEL_PACKAGES = sorted(path.parent.name for path in (Path(fruit_envs.__file__).parent / "games").glob("*/kernels.py"))


def _state_fields(game: str) -> tuple[str, ...]:
    return tuple(importlib.import_module(f"fruit_envs.games.{game}.rules").State.array_names())


def _source(game: str, module: str) -> ast.Module:
    return ast.parse((Path(fruit_envs.__file__).parent / "games" / game / f"{module}.py").read_text())


def _parameters(tree: ast.Module) -> dict[str, list[str]]:
    """Each function defined at the top of a module: its parameter names."""
    return {node.name: [a.arg for a in node.args.args] for node in tree.body if isinstance(node, ast.FunctionDef)}


def _misbound_in_kernels(tree: ast.Module, fields: tuple[str, ...], imported: ast.Module | None = None) -> list[str]:
    """Calls between a module's kernels (and those of `imported`, the module it calls into) that hand a state
    array (or the tuple `st`) to a parameter of another name, and `st[<number>]` reads (a slot must be named)."""
    params, wrong = (_parameters(imported) if imported else {}) | _parameters(tree), []
    for caller in tree.body:
        for node in ast.walk(caller) if isinstance(caller, ast.FunctionDef) else ():
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "st":
                if isinstance(node.slice, ast.Constant):
                    wrong.append(f"{caller.name}: st[{node.slice.value}] (name the slot)")
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params):
                continue
            callee = params[node.func.id]
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Starred):
                    break
                name = arg.id if isinstance(arg, ast.Name) else None
                if name in fields + ("st",) and (i >= len(callee) or callee[i] != name):
                    wrong.append(f"{caller.name}: {name} reaches {node.func.id}'s {callee[i : i + 1]}")
    return wrong


STATE_NAMES = ("s", "state")  # what the rules call a state


def _kernel_called(func: ast.expr) -> tuple[str, str] | None:
    """`(how, kernel)` of a kernel call in the rules: `_state_kernels.k(...)` (given the state) or `_kernels().k(...)`."""
    if not isinstance(func, ast.Attribute):
        return None
    if isinstance(func.value, ast.Name) and func.value.id == "_state_kernels":
        return "state", func.attr
    if isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) and func.value.func.id == "_kernels":
        return "as it is", func.attr
    return None


def _misbound_in_rules(game: str, fields: tuple[str, ...], tree: ast.Module | None = None) -> tuple[list[str], int]:
    """Kernel calls in a game's rules that pass a state array by hand (`s.hands`), pass the state anywhere but
    where the kernel's state arrays go, or hand a named array to a parameter of another name; and how many
    kernel calls there are."""
    rules = importlib.import_module(f"fruit_envs.games.{game}.rules")
    kernels = importlib.import_module(f"fruit_envs.games.{game}.kernels")
    wrong, calls = [], 0
    for node in ast.walk(tree or _source(game, "rules")):
        called = _kernel_called(node.func) if isinstance(node, ast.Call) else None
        if called is None:
            continue
        calls += 1
        how, kernel = called
        function = getattr(rules._state_kernels, kernel) if how == "state" else getattr(kernels, kernel).py_func
        params = list(inspect.signature(function).parameters)  # given the state: `state` where its arrays go
        for arg in node.args:  # a state array, even wrapped (`np.ascontiguousarray(s.hands)`)
            read = {id(n.value) for n in ast.walk(arg) if isinstance(n, ast.Attribute)}  # `s.hands.shape`: fine
            for n in ast.walk(arg):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr in fields:
                    if id(n) not in read:
                        wrong.append(f"{kernel}: {n.value.id}.{n.attr} passed by hand")
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                break  # constants spread from a cache (`*fixed`)
            name = arg.id if isinstance(arg, ast.Name) else None
            param = params[i] if i < len(params) else None
            if (name in STATE_NAMES) != (param == "state"):
                wrong.append(f"{kernel}: argument {i} is {ast.unparse(arg)}, its parameter {param}")
            elif name in fields and param != name:
                wrong.append(f"{kernel}: {name} reaches parameter {param}")
    return wrong, calls


@pytest.mark.parametrize("game", KERNEL_PACKAGES)
def test_state_arrays_reach_each_kernel_by_field_name(game):
    """Issue 55: a game's rules call a kernel with the state where its arrays go (`core.lazy.StateKernels`
    fetches each by the name of its parameter) and never pass one by hand; any other array named after a
    field, and between kernels every array, reaches the parameter of its name. Two arrays of one dtype
    swapped would compile and run silently."""
    fields = _state_fields(game)
    wrong, calls = _misbound_in_rules(game, fields)
    assert calls >= 5, f"{game}: found only {calls} kernel calls in rules.py"
    assert not wrong, f"{game}'s rules: {wrong}"
    assert not _misbound_in_kernels(_source(game, "kernels"), fields), game


@pytest.mark.parametrize("game", KERNEL_PACKAGES)
def test_state_arrays_reach_the_rules_kernels_from_greedys_rollout_by_field_name(game):
    """Issue 56: search's compiled rollout (`agents/greedy/<game>/kernels.py`) calls the rules' kernels with
    each state array at the parameter of its name, as the rules' own kernels do."""
    path = Path(importlib.import_module("fruit_envs.agents.greedy").__file__).parent / game / "kernels.py"
    if not path.exists():
        pytest.skip(f"{game} has no greedy kernels of its own")
    tree = ast.parse(path.read_text())
    assert "rollout" in _parameters(tree), f"{game}'s greedy kernels have no rollout"
    assert not _misbound_in_kernels(tree, _state_fields(game), _source(game, "kernels")), game


def test_a_swapped_state_array_is_caught():
    """The checks above are not vacuous: two same-dtype arrays swapped in a call between kernels, arrays listed
    by hand or the state out of place at a call in the rules, and a kernel whose parameters leave the field
    order are each named."""
    from fruit_envs.core.lazy import kernel_fields

    fields = _state_fields("cherry_picking")
    folder = Path(fruit_envs.__file__).parent / "games/cherry_picking"
    call = re.compile(r"(?<!def )deal\(g, keys, deck, hand, hands, piles,")
    swapped, calls = call.subn("deal(g, keys, deck, hand, piles, hands,", (folder / "kernels.py").read_text())
    assert calls == 2
    assert _misbound_in_kernels(ast.parse(swapped), fields) == [
        f"{caller}: {name} reaches deal's ['{param}']"
        for caller in ("deal_all", "step")
        for name, param in (("piles", "hands"), ("hands", "piles"))
    ]
    rules = (folder / "rules.py").read_text()
    masks = "_state_kernels.legal_mask(games, seats, state, mask)"
    by_hand = masks.replace(", state,", ", state.done, state.to_move, state.phase, state.hands, state.played,")
    out_of_place = masks.replace("seats, state", "state, seats")
    for changed, first in ((by_hand, "legal_mask: state.done passed by hand"), (out_of_place, "legal_mask: arg")):
        assert rules.count(masks) == 1
        wrong, _ = _misbound_in_rules("cherry_picking", fields, ast.parse(rules.replace(masks, changed)))
        assert wrong and wrong[0].startswith(first), wrong

    def step(actions, live, keys, done, phase, to_move, rewards):
        """`phase` and `to_move` (both int8) in the other order than `State`'s fields."""

    with pytest.raises(
        ValueError, match=r"kernel .*step\(actions, live, keys, .*\) must take its state arrays .*order"
    ):
        kernel_fields(step, fields)


def test_a_kernel_is_given_the_state_where_its_arrays_go():
    """`state_call`: the arrays a kernel's parameters name, fetched from the state by those names (all of them
    as one tuple for `st`), the kernel looked up at each call (a game may change tier between two calls)."""
    from types import SimpleNamespace

    from fruit_envs.core.lazy import state_call

    fields = ("keys", "done", "phase", "hands", "played")
    state = SimpleNamespace(**{name: f"<{name}>" for name in fields})

    def observe(seat, done, phase, hands, obs):
        return "compiled", seat, done, phase, hands, obs

    def legal_mask(st, seats, out):
        return st, seats, out

    def score_many(counts, out):
        return counts, out

    def apart(done, seat, phase):
        """Two state arrays split by another argument."""

    tier = [SimpleNamespace(observe=observe, legal_mask=legal_mask)]
    calls = {k.__name__: state_call(k, fields, lambda: tier[0]) for k in (observe, legal_mask)}
    assert [str(inspect.signature(c)) for c in calls.values()] == ["(seat, state, obs)", "(state, seats, out)"]
    assert calls["observe"](1, state, 2) == ("compiled", 1, "<done>", "<phase>", "<hands>", 2)
    assert calls["legal_mask"](state, 1, 2) == (tuple(f"<{name}>" for name in fields), 1, 2)
    tier[0] = SimpleNamespace(observe=lambda *args: ("interpreted", *args[1:]))
    assert calls["observe"](1, state, 2) == ("interpreted", "<done>", "<phase>", "<hands>", 2)
    with pytest.raises(ValueError, match="must take its state arrays as parameters named after the state's fields"):
        state_call(apart, fields, lambda: tier[0])
    with pytest.raises(ValueError, match=r"kernel score_many\(counts, out\) takes no state array"):
        state_call(score_many, fields, lambda: tier[0])


def test_juicy_fruits_kernels_read_each_slot_of_st_by_its_fields_name():
    from fruit_envs.games.juicy_fruits import kernels

    for i, name in enumerate(_state_fields("juicy_fruits")):
        assert getattr(kernels, name.upper()) == i, name
