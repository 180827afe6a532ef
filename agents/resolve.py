"""One resolver for every place that takes an agent: names, model paths and import paths.

Play, the tournament, search_strength, the benchmark, the trainers' opponents and teachers and
Gymnasium's `opponent=` all read an agent through `resolve_agent`, so each takes the same forms:

* a built-in name: `random`, `greedy`, `search[:OPTIONS]`, `ppo-baseline[-sample]`, `ppo-baseline@N`,
  `ppo:PATH`, `ppo-sample:PATH`, `rllib:PATH`;
* a model path: `PATH.zip` (a MaskablePPO model or policy file) or `PATH.json` (a policy exported as data,
  `agents.weights`), played by its argmax like `ppo:PATH`;
* an import path: `module:attr` (`package.module:make`, attribute paths allowed) or `path/to/file.py:attr`,
  naming a factory `make(game_spec, config) -> agent`, an agent class built the same way, or an agent
  object with `act(obs, mask, rng)`.

An import path is resolved from the current folder first, as `python -m` would: a console script such
as `fruit-envs-benchmark` does not put the current folder on the import path, so the resolver does. The
built-in names win over an import path that happens to share their prefix (`search:...` is search's
options, never a module called `search`).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fruit_envs.core.spec import Config, GameSpec

AGENT_NAMES = (
    "random",
    "greedy",
    "search[:OPTIONS]",
    "ppo-baseline",
    "ppo-baseline-sample",
    "ppo-baseline@N",
    "ppo:PATH",
    "ppo-sample:PATH",
    "rllib:PATH",
)
MODEL_SUFFIXES = (".zip", ".json")  # a MaskablePPO file, or a policy exported as data (agents.weights)
FORMS = "PATH.zip or PATH.json (a PPO model) or an import path module:make / path/to/file.py:make"
AGENT_HELP = (
    "random, greedy, search[:OPTIONS] (e.g. search:rollouts=32,depth=8), ppo-baseline, ppo-baseline-sample, "
    "ppo-baseline@N, ppo:PATH (argmax), ppo-sample:PATH (sampled), rllib:PATH, a model PATH.zip or PATH.json, "
    "or your own agent as module:make or path/to/file.py:make (a factory make(game_spec, config) -> agent, "
    "imported from the current folder first)"
)
BUILTIN_PREFIXES = ("ppo:", "ppo-sample:", "search:", "rllib:")  # built-in names that carry a colon
_PLAIN_NAMES = ("random", "greedy", "search", "ppo-baseline", "ppo-baseline-sample")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class AgentSource:
    """What an agent was named by (`label`), its form (`kind`: name, model, or for an import path object or
    factory) and how to build it for a game and player count (`build(spec, config) -> agent`)."""

    label: str
    kind: str
    build: Callable[[GameSpec, Config], Any]


def resolve_agent(name: str) -> AgentSource:
    """The `AgentSource` an agent name, model path or import path stands for. A malformed name, a missing
    file or an import that fails is a `ValueError` saying what was tried; nothing is built yet, except that
    an import path's module is imported (so its errors come now, not at the first game)."""
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string: one of {list(AGENT_NAMES)}, {FORMS}; got {name!r}")
    text = name.strip()
    if text in _PLAIN_NAMES or text.startswith(BUILTIN_PREFIXES) or text.startswith("ppo-baseline@"):
        return AgentSource(text, "name", lambda spec, config: _builtin(text, spec, config))
    if ":" not in text and not text.endswith(MODEL_SUFFIXES):
        raise ValueError(f"unknown agent {text!r}; known agents are {list(AGENT_NAMES)}, or {FORMS}")
    if text.endswith(MODEL_SUFFIXES):
        if not Path(text).is_file():
            raise ValueError(
                f"no PPO model at {text!r} (agent {text!r}: a path ending in .zip or .json names a model file)"
            )
        return AgentSource(text, "model", lambda spec, config: _builtin(f"ppo:{text}", spec, config))
    return _imported(text)


def make_agent(name: str, game: str | GameSpec, config: Config | None = None) -> Any:
    """An agent by name, model path or import path for a game (`resolve_agent` lists the forms)."""
    from fruit_envs.core.spec import get_spec

    spec = get_spec(game)
    config = config if config is not None else spec.make_config()
    return resolve_agent(name).build(spec, config)


def _builtin(name: str, spec: GameSpec, config: Config) -> Any:
    if name == "random":
        from fruit_envs.agents.random import RandomAgent

        return RandomAgent()
    if name == "greedy":
        from fruit_envs.agents.greedy import make_greedy

        return make_greedy(spec, config)
    if name in ("ppo-baseline", "ppo-baseline-sample"):
        from fruit_envs.agents.ppo import load_baseline

        return load_baseline(spec, config, deterministic=name == "ppo-baseline")
    if name.startswith("ppo-baseline@"):
        from fruit_envs.agents.ppo import load_baseline

        version = name.partition("@")[2]
        if not version.isdigit() or int(version) < 1:
            raise ValueError(
                f"agent {name!r}: ppo-baseline@N names benchmark protocol N (a number from 1), got {version!r}"
            )
        return load_baseline(spec, config, protocol=int(version))
    if name == "search" or name.startswith("search:"):
        from fruit_envs.agents.search import make_search

        return make_search(spec, config, name[len("search:") :])
    if name.startswith(("ppo:", "ppo-sample:")):
        kind, _, rest = name.partition(":")
        path = Path(rest)
        if not path.is_file():
            raise ValueError(f"no PPO model at {str(path)!r} (from agent name {name!r})")
        from fruit_envs.agents.ppo import PPOAgent

        return PPOAgent(path, spec, config, deterministic=kind == "ppo")
    if name.startswith("rllib:"):
        path = Path(name[6:])
        if not path.is_dir():
            raise ValueError(f"no RLlib model folder at {str(path)!r} (from agent name {name!r})")
        from fruit_envs.agents.rllib import RLlibAgent

        return RLlibAgent(path, spec, config)
    raise ValueError(f"unknown agent {name!r}; known agents are {list(AGENT_NAMES)}, or {FORMS}")


def _imported(text: str) -> AgentSource:
    """`module:attr` or `file.py:attr`: the module imported now, from the current folder first."""
    target, _, attr = text.rpartition(":")
    if not target or not DOTTED.fullmatch(attr):
        raise ValueError(
            f"agent {text!r} is neither a known agent ({', '.join(AGENT_NAMES)}) nor an import path "
            f"module:attr / path/to/file.py:attr"
        )
    if target.endswith(".py"):
        module = _import_file(text, Path(target))
    elif DOTTED.fullmatch(target):
        module = _import_module(text, target, Path.cwd())
    else:
        raise ValueError(
            f"agent {text!r}: {target!r} is not a module name (dotted identifiers) or a .py file; "
            f"known agents are {list(AGENT_NAMES)}, or {FORMS}"
        )
    found: Any = module
    for part in attr.split("."):
        if not hasattr(found, part):
            raise ValueError(f"agent {text!r}: module {module.__name__!r} ({module.__file__}) has no {attr!r}")
        found = getattr(found, part)
    if hasattr(found, "act") and not inspect.isclass(found):
        return AgentSource(text, "object", lambda spec, config: found)
    if callable(found):
        return AgentSource(text, "factory", factory_builder(found, text))
    raise ValueError(
        f"agent {text!r}: {attr} is {type(found).__name__}, neither a factory make(game_spec, config) -> agent "
        f"nor an agent with act(obs, mask, rng)"
    )


def _import_module(text: str, module_name: str, folder: Path) -> Any:
    """Imports `module_name` with `folder` first on the import path, where `python -m` from it would put it
    (it stays there, as it would for `python -m`, so the module's own later imports keep working)."""
    entry = str(folder.resolve())
    if entry not in (os.path.abspath(p or os.curdir) for p in sys.path):
        sys.path.insert(0, entry)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        top = module_name.split(".")[0]
        if error.name is not None and (module_name == error.name or module_name.startswith(error.name + ".")):
            tried = ", ".join(os.path.abspath(p or os.curdir) for p in sys.path if p != entry)
            raise ValueError(
                f"agent {text!r}: cannot import {module_name!r}: no module {error.name!r} in {entry} (looked in "
                f"first, as python -m would) nor on the import path ({tried}). Run from the folder that holds "
                f"{top}.py (or its package), add that folder to PYTHONPATH, or name the file: path/to/{top}.py:ATTR"
            ) from None
        raise ValueError(
            f"agent {text!r}: {module_name!r} was found but importing it failed: {type(error).__name__}: {error}"
        ) from error
    except Exception as error:
        raise ValueError(
            f"agent {text!r}: {module_name!r} was found but importing it failed: {type(error).__name__}: {error}"
        ) from error


def _import_file(text: str, path: Path) -> Any:
    """A `.py` file imported by its name from its folder, as `python -m` run in that folder would; a
    module of that name elsewhere (already imported, or earlier on the path) is refused, not used."""
    if not path.is_file():
        raise ValueError(f"agent {text!r}: no Python file at {str(path)!r} (from {Path.cwd()})")
    module_name = path.stem
    if not DOTTED.fullmatch(module_name) or "." in module_name:
        raise ValueError(f"agent {text!r}: {path.name} cannot be imported: its name is not a Python identifier")
    module = _import_module(text, module_name, path.parent)
    loaded = getattr(module, "__file__", None)
    if loaded is None or Path(loaded).resolve() != path.resolve():
        raise ValueError(
            f"agent {text!r}: the name {module_name!r} is already taken by {loaded or module!r}, not {path}; "
            f"rename the file"
        )
    return module


def factory_builder(make: Callable, label: str) -> Callable[[GameSpec, Config], Any]:
    """`build(spec, config)` calling a user's factory `make(spec, config)` and refusing what is not an agent."""

    def build(spec: GameSpec, config: Config) -> Any:
        agent = make(spec, config)
        if not hasattr(agent, "act"):
            raise ValueError(
                f"factory {label} returned {agent!r} for {spec.id} with {config.num_players} players, "
                f"not an agent with act(obs, mask, rng)"
            )
        return agent

    return build
