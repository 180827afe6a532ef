"""Where `fruit_envs.agents`, `fruit_envs.training` and `fruit_envs.benchmarks` live, and what only a checkout has.

A wheel installs them inside this package (pyproject's `package-dir` maps the repository's top-level
folders there). In a checkout they stay the repository's top-level folders `agents/`, `training/` and
`benchmarks/`, and the finder below serves them under those names only: each folder refuses to be
imported under its bare name, so no module is importable under two names.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import re
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# `fruit_envs.<name>` -> the checkout's top-level folder, for the names not installed inside the package
_CHECKOUT_FOLDERS = {
    f"fruit_envs.{name}": _HERE.parent / name
    for name in ("agents", "training", "benchmarks")
    if not (_HERE / name).is_dir() and (_HERE.parent / name / "__init__.py").is_file()
}


class _CheckoutFinder(importlib.abc.MetaPathFinder):
    """Finds `fruit_envs.agents` / `.training` / `.benchmarks` in the top-level folders of a checkout."""

    def find_spec(self, fullname, path=None, target=None):
        folder = _CHECKOUT_FOLDERS.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )


if _CHECKOUT_FOLDERS and not any(isinstance(f, _CheckoutFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _CheckoutFinder())


def refuse_bare_name(name: str) -> None:
    """A top-level folder imported under its bare name: refused, except `python -m benchmarks.tournament`
    (or any `-m agents|training|benchmarks.<module>`) from a checkout, which runs `fruit_envs.<that>`."""
    target = _interpreter_module(list(getattr(sys, "orig_argv", ())))
    if target.split(".")[0] == name and target != name:
        import runpy

        print(f"(running python -m fruit_envs.{target}: {name}/ is the package fruit_envs.{name})", file=sys.stderr)
        runpy.run_module(f"fruit_envs.{target}", run_name="__main__", alter_sys=True)
        raise SystemExit(0)
    raise ImportError(f"{name}: the {name}/ folder is the package fruit_envs.{name}; import that name")


def _interpreter_module(argv: list[str]) -> str:
    """The module of the interpreter's own `-m` (`python -X dev -m benchmarks.tournament ...`), or ""."""
    i = 1
    while i < len(argv) - 1 and argv[i].startswith("-") and argv[i] != "-c":
        if argv[i] == "-m":
            return argv[i + 1]
        i += 2 if argv[i] in ("-W", "-X") else 1
    return ""


def checkout_root() -> Path | None:
    """The repository folder when `fruit_envs` runs from a checkout (plain or editable), else None (a wheel).

    Scripts use it for what only a checkout has: the git commit of a run, the README a benchmark refreshes.
    """
    root = _HERE.parent
    return root if (root / "pyproject.toml").is_file() and _CHECKOUT_FOLDERS else None


def provenance() -> dict:
    """`{"git": {"commit", "dirty"}}` when run from a git checkout of this project, `{}` otherwise.

    The commit is read only from the checkout's own repository: a wheel installed in a venv that sits
    inside some other git repository must not record that repository's commit as ours.
    """
    import subprocess

    root = checkout_root()
    if root is None:
        return {}

    def git(*args: str) -> str | None:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else None

    try:
        top = git("rev-parse", "--show-toplevel")
        if top is None or Path(top).resolve() != root:
            return {}
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain")
    except (OSError, subprocess.SubprocessError):  # no git on this machine, or it hung
        return {}
    return {"git": {"commit": commit, "dirty": bool(dirty)}} if commit else {}


def has_block(path: Path, name: str) -> bool:
    """Whether `path` holds exactly one `<!-- name:start -->` ... `<!-- name:end -->` block."""
    return path.is_file() and len(_block(name).findall(path.read_text())) == 1


def replace_block(path: Path, name: str, body: str) -> None:
    """Replace what stands between `<!-- name:start -->` and `<!-- name:end -->` in `path` (a generated table in
    a checkout's README or docs page) with `body`; a clear ValueError unless the file has exactly one block."""
    text = path.read_text() if path.is_file() else ""
    new, count = _block(name).subn(lambda _: f"<!-- {name}:start -->\n{body.rstrip()}\n<!-- {name}:end -->", text)
    if count != 1:
        raise ValueError(f"{path} needs exactly one <!-- {name}:start --> ... <!-- {name}:end --> block, found {count}")
    path.write_text(new)


def _block(name: str) -> re.Pattern:
    return re.compile(rf"<!-- {re.escape(name)}:start -->.*?<!-- {re.escape(name)}:end -->", flags=re.S)
