"""One import name per module: agents/, training/ and benchmarks/ are fruit_envs.agents, .training, .benchmarks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml with tomllib")

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("agents", "training", "benchmarks")


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_wheel_package_list_names_every_package_folder():
    """pyproject lists packages by hand (package-dir maps the top-level folders into fruit_envs);
    a package folder missing from the list would be missing from the wheel."""
    cfg = _setuptools()
    folders = {"fruit_envs": "fruit_envs", **{f"fruit_envs.{name}": name for name in MAPPED}}
    assert cfg["package-dir"] == folders
    found = set()
    for package, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *rel.parts]))
    assert sorted(cfg["packages"]) == sorted(found)
    assert all(p.split(".")[0] == "fruit_envs" for p in cfg["packages"])


@pytest.mark.parametrize("name", MAPPED)
def test_top_level_folder_is_importable_only_under_fruit_envs(name):
    code = f"""
import importlib, sys
import fruit_envs.{name} as m
assert m.__name__ == "fruit_envs.{name}"
assert m.__file__.endswith("{name}/__init__.py"), m.__file__
try:
    importlib.import_module("{name}")
except ImportError as error:
    assert "fruit_envs.{name}" in str(error), error
else:
    raise SystemExit("{name} imported under its bare name")
assert "{name}" not in sys.modules
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    ("module", "package"),
    [
        ("benchmarks.tournament", "fruit_envs.benchmarks.tournament"),
        ("training.train_ppo", "fruit_envs.training.train_ppo"),
    ],
)
def test_python_m_with_a_bare_folder_name_runs_the_package_module(module, package):
    """`python -m benchmarks.tournament` in a checkout (the name in older notes) runs the package's module
    with its arguments and exit status; importing the bare name stays refused (above)."""
    extra = ["--agents", "random"] if module.startswith("benchmarks") else []
    ok = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert f"usage: python -m {package}" in ok.stdout and f"running python -m {package}" in ok.stderr
    bad = subprocess.run(
        [sys.executable, "-m", module, "--game", "chess", *extra], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and "unknown game 'chess'" in bad.stderr, bad.stderr
