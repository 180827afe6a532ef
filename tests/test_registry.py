"""Issue 35: every game is in PettingZoo's and Gymnasium's registries, by name, and without an import."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test

import fruit_envs
from fruit_envs.core import registry
from fruit_envs.core.registry import pettingzoo_id, retired_ids, served_ids

ROOT = Path(__file__).resolve().parents[1]
IDS_PAGE = (ROOT / "docs" / "ids.md").read_text()  # the README's "Ids" section, on the site since issue 36
ROWS = served_ids()
AEC_IDS = [row["aec"] for row in ROWS]
PARALLEL_IDS = [row["parallel"] for row in ROWS if row["parallel"] is not None]

needs_registry = pytest.mark.skipif(
    not registry.has_pettingzoo_registry(),
    reason=f"PettingZoo {pettingzoo.__version__} has no registry (pettingzoo.register/make came in 1.27)",
)


def _fresh_python(code: str) -> subprocess.CompletedProcess:
    """Run `code` in a new interpreter, which has imported nothing of ours."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_every_game_has_one_row_of_ids():
    games = [spec.id for spec in fruit_envs.registered_games()]
    assert [row["aec"] for row in ROWS] == [f"fruit_envs/{game}-v{fruit_envs.get_spec(game).version}" for game in games]
    assert all(row["gymnasium"] in gymnasium.registry for row in ROWS)
    assert all(importlib.import_module(row["module"]).env for row in ROWS)


def test_each_game_module_constructs_its_own_game_under_its_own_names():
    """The three constructors come from one factory; each is still a function of its game module (so
    pickle, `help()` and the API page find it there), defaults to the game's default player count and
    builds that module's game."""
    import pickle

    for row in ROWS:
        module = importlib.import_module(row["module"])
        spec = fruit_envs.get_spec(module.GAME)
        for name, kind in (("raw_env", "FruitAECEnv"), ("env", None), ("parallel_env", "FruitParallelEnv")):
            constructor = getattr(module, name)
            assert (constructor.__module__, constructor.__qualname__) == (row["module"], name)
            assert pickle.loads(pickle.dumps(constructor)) is constructor
            built = constructor()
            assert built.unwrapped.spec.id == module.GAME
            assert len(built.possible_agents) == spec.default_num_players
            assert kind is None or type(built).__name__ == kind
        assert module.parallel_env.__doc__ and module.parallel_env.__doc__ != module.raw_env.__doc__


@needs_registry
def test_pettingzoo_registries_hold_every_served_and_retired_id_and_nothing_else():
    ours = {kind: sorted(k for k in reg if k.startswith("fruit_envs/")) for kind, reg in _registries().items()}
    assert ours["aec"] == sorted(AEC_IDS + retired_ids())
    assert ours["parallel"] == sorted(PARALLEL_IDS + retired_ids())
    for row in ROWS:
        assert pettingzoo.spec("aec", row["aec"]).entry_point == f"{row['module']}:env"
        assert pettingzoo.spec("parallel", row["parallel"]).entry_point == f"{row['module']}:parallel_env"


@needs_registry
@pytest.mark.parametrize("env_id", AEC_IDS)
def test_aec_id_passes_api_test(env_id):
    api_test(pettingzoo.make("aec", env_id), num_cycles=100)


@needs_registry
@pytest.mark.parametrize("env_id", PARALLEL_IDS)
def test_parallel_id_passes_parallel_api_test(env_id):
    parallel_api_test(pettingzoo.make("parallel", env_id), num_cycles=100)


@needs_registry
def test_keyword_arguments_reach_the_constructors():
    aec = pettingzoo.make("aec", "fruit_envs/cherry_picking-v0", num_players=3, reward="score")
    aec.reset(seed=0)
    assert aec.agents == ["player_0", "player_1", "player_2"]
    assert aec.unwrapped.config.reward == "score"
    parallel = pettingzoo.make("parallel", "fruit_envs/fruit_picking-v1", num_players=4, mask_in_observation=False)
    observations, infos = parallel.reset(seed=0)
    assert len(observations) == 4 and "action_mask" in infos["player_0"]
    with pytest.raises(TypeError, match="unknown option.*'max_cycles'.*allowed options are"):
        pettingzoo.make("aec", "fruit_envs/cherry_picking-v0", max_cycles=10)


@needs_registry
def test_pettingzoo_spellings_resolve_to_the_served_version():
    """PettingZoo reads `_v1` as `-v1`, and an id without a version as the highest registered one:
    the served version, never a retired one."""
    for spec in fruit_envs.registered_games():
        for spelling in (f"fruit_envs/{spec.pettingzoo_name}", f"fruit_envs/{spec.id}"):
            assert pettingzoo.spec("aec", spelling).id == pettingzoo_id(spec)


@needs_registry
@pytest.mark.parametrize("env_id", retired_ids())
def test_retired_id_raises_the_error_of_its_module(env_id):
    module = "fruit_envs." + env_id.split("/")[1].replace("-v", "_v")
    with pytest.raises(ImportError) as imported:
        importlib.import_module(module)
    game = env_id.split("/")[1].split("-v")[0]
    current = pettingzoo_id(fruit_envs.get_spec(game))
    assert f"is now {module.rsplit('_v', 1)[0]}_v" in str(imported.value)
    for kind in ("aec", "parallel"):
        with pytest.raises(ImportError) as made:
            pettingzoo.make(kind, env_id, num_players=2)
        assert str(made.value) == str(imported.value)
        if sys.version_info >= (3, 11):
            assert made.value.__notes__ == [f"PettingZoo id of the current version: {current}"]


RETIRED_GYMNASIUM = [
    (spec, old) for spec in fruit_envs.registered_games() for old in range(spec.version)
]  # every version below the served one, of every game


@pytest.mark.parametrize(
    ("spec", "old"), RETIRED_GYMNASIUM, ids=[f"{spec.env_name}-v{old}" for spec, old in RETIRED_GYMNASIUM]
)
def test_retired_gymnasium_id_says_what_replaced_it(spec, old):
    """Issue 54: `gymnasium.make` of a retired version gave Gymnasium's generic `DeprecatedEnv` ("Please use
    ..."); every way of making it now raises the retired module's message, naming the id that was asked for."""
    retired = f"fruit_envs/{spec.env_name}-v{old}"
    with pytest.raises(ImportError) as imported:
        importlib.import_module(f"fruit_envs.{spec.id}_v{old}")
    expected = str(imported.value).replace(f"{spec.id}_v{old} is retired", f"{retired} is retired", 1)
    assert expected.startswith(f"{retired} is retired: {spec.name} is now fruit_envs.{spec.pettingzoo_name} ")
    assert f"(Gymnasium id {spec.gym_id})" in expected and "see CHANGELOG.md" in expected
    makers = {
        "make": lambda: gymnasium.make(retired),
        "make with keywords": lambda: gymnasium.make(retired, num_players=2, opponent="greedy"),
        "make module:id": lambda: gymnasium.make(f"fruit_envs:{retired}"),
        "make_vec": lambda: gymnasium.make_vec(retired, num_envs=2),
        "make_vec sync": lambda: gymnasium.make_vec(retired, num_envs=2, vectorization_mode="sync"),
    }
    for how, make in makers.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # Gymnasium's own "out of date" note comes first
            with pytest.raises(gymnasium.error.DeprecatedEnv) as made:  # what it raised before: still caught
                make()
        assert isinstance(made.value, ImportError), how
        assert str(made.value) == expected, how


def test_libraries_the_ids_page_runs_come_with_an_extra():
    """Issue 54: the ids page ran RL Zoo and Hydra, which no extra installed, without saying so."""
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml with tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for package in ("rl_zoo3", "hydra-core"):
        assert f"pip install {package}`; the `clients` extra has it" in IDS_PAGE, package
        assert any(re.match(rf"{re.escape(package)}\b", dep) for dep in extras["clients"]), package


def test_hydra_instantiates_the_ids_page_config():
    """The Hydra config on docs/ids.md, through Hydra itself, in an interpreter that never imported fruit_envs."""
    if importlib.util.find_spec("hydra") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hydra-core is missing in CI: the clients extra installs it (./dev setup)")
        pytest.skip("hydra-core is not installed: pip install -e '.[clients]' (./dev does)")
    (block,) = re.findall(r"```yaml\n(.*?)```", IDS_PAGE, flags=re.S)
    code = f"""
import sys
from hydra.utils import instantiate
from omegaconf import OmegaConf
assert "fruit_envs" not in sys.modules
cfg = OmegaConf.create({block!r})
env, parallel = instantiate(cfg.env), instantiate(cfg.multi_agent_env)
env.reset(seed=0)
observations, infos = parallel.reset(seed=0)
print(env.unwrapped.spec.id, type(env.unwrapped).__name__, type(parallel).__name__, len(observations))
"""
    out = _fresh_python(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["fruit_envs/CherryPicking-v0", "FruitEnv", "FruitParallelEnv", "3"]


@needs_registry
def test_registration_is_idempotent():
    before = {kind: dict(reg) for kind, reg in _registries().items()}
    gym_before = {k: v for k, v in gymnasium.registry.items() if k.startswith("fruit_envs/")}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo warns "Overriding environment" on a second register
        fruit_envs.register_envs()
        fruit_envs.register_envs()
    assert {kind: dict(reg) for kind, reg in _registries().items()} == before
    assert {k: v for k, v in gymnasium.registry.items() if k.startswith("fruit_envs/")} == gym_before


def test_reloading_fruit_envs_neither_warns_nor_duplicates():
    code = """
import importlib, warnings
warnings.simplefilter("error")
import gymnasium, pettingzoo, fruit_envs
from fruit_envs.core import registry
count = lambda: (len(gymnasium.registry), len(getattr(pettingzoo, "aec_registry", ())), len(getattr(pettingzoo, "parallel_registry", ())))
before = count()
importlib.reload(registry)
importlib.reload(fruit_envs)
fruit_envs.register_envs()
assert count() == before, (count(), before)
"""
    out = _fresh_python(code)
    assert out.returncode == 0, out.stderr


def test_no_pettingzoo_registry_is_skipped_quietly(monkeypatch):
    """PettingZoo before 1.27 has no registry: importing fruit_envs must still work (Gymnasium ids only)."""
    monkeypatch.delattr(pettingzoo, "register")
    assert not registry.has_pettingzoo_registry()
    fruit_envs.register_envs()


def test_gymnasium_module_id_strings_need_no_import():
    """A config string `fruit_envs:<id>` makes and vectorises every game in an interpreter that never imported
    fruit_envs; the Hydra config on docs/ids.md instantiates both its entries the same way."""
    config = json.dumps(_readme_yaml())
    code = f"""
import importlib, json, sys
import gymnasium
assert "fruit_envs" not in sys.modules
for gym_id in {[row["gymnasium"] for row in ROWS]!r}:
    env = gymnasium.make("fruit_envs:" + gym_id)
    env.reset(seed=0)
    envs = gymnasium.make_vec("fruit_envs:" + gym_id, num_envs=3)
    obs, info = envs.reset(seed=0)
    assert obs.shape[0] == 3 and info["action_mask"].shape[0] == 3, gym_id
for name, node in json.loads({config!r}).items():  # hydra.utils.instantiate, in short
    node = dict(node)
    module, _, attr = node.pop("_target_").rpartition(".")
    made = getattr(importlib.import_module(module), attr)(**node)
    made.reset(seed=0)
    print(name, type(made).__name__)
"""
    out = _fresh_python(code)
    assert out.returncode == 0, out.stderr
    made = dict(line.split() for line in out.stdout.splitlines())
    assert set(made) == {"env", "multi_agent_env"} and made["multi_agent_env"] == "FruitParallelEnv", made


@needs_registry
@pytest.mark.parametrize("env_id", AEC_IDS)
def test_done_when_command_works_for_every_game(env_id):
    """The issue's Done-when command, run as written for each game."""
    out = _fresh_python(f"import pettingzoo, fruit_envs; env = pettingzoo.make('aec', '{env_id}'); env.reset(seed=0)")
    assert out.returncode == 0, out.stderr


def test_readme_table_lists_every_id():
    table = re.search(
        r"\| PettingZoo AEC id \| PettingZoo parallel id \| Gymnasium id \| module \|\n\|[-|]+\|\n((?:\|.*\n)+)",
        IDS_PAGE,
    )
    assert table, "docs/ids.md has no id table"
    listed = [[cell.strip(" `") for cell in line.strip("|").split("|")] for line in table.group(1).splitlines()]
    assert listed == [[row["aec"], row["parallel"] or "-", row["gymnasium"], row["module"]] for row in ROWS]


def _registries() -> dict[str, dict]:
    return {"aec": pettingzoo.aec_registry, "parallel": pettingzoo.parallel_registry}


def _readme_yaml() -> dict:
    yaml = pytest.importorskip("yaml", reason="the Hydra config on docs/ids.md is read with pyyaml (train extra)")
    (block,) = re.findall(r"```yaml\n(.*?)```", IDS_PAGE, flags=re.S)
    return yaml.safe_load(block)
