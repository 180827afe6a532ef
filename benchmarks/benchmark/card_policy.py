"""The policy a card's games are played again with, and its cells played again.

A card is data: it may come from anyone, so its own words build only what this project ships or what its
folder holds as data. From the card alone `verify` builds a protocol reference (`reference:NAME`), a shipped
agent within its bounds (`agents.shipped.check_shipped`: random, greedy, the PPO baselines, search with shipped
networks at a bounded budget) or a `model.json` in the card's folder whose sha256 is the card's policy hash
(weights as data, `agents.weights.load_policy`; never a `.zip`, which is a pickle). Anything else (a model
path, a module, a file the label names) is played only with `--policy`, the user's own choice. Nothing here
reads a path the card names, so no message says whether one exists.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.policies import PolicySource, resolve_policy
from fruit_envs.benchmarks.benchmark.protocol import Protocol, cell_keys, per_seat

MODEL_LIMIT = 1 << 20  # bytes: a model.json is a few hundred; larger files in the folder are not looked at
_NOT_MODELS = (rc.CARD_FILE, "entry.json")


def is_search(name: str) -> bool:
    """Whether an agent name is the search agent, which reads the true state (privileged)."""
    return name == "search" or name.startswith("search:")


def folder_model(card: dict, folder: Path) -> Path | None:
    """The `.json` file in the card's folder whose sha256 is the card's policy hash, if there is one."""
    digest = card["policy"].get("sha256")
    if not isinstance(digest, str) or len(digest) != 64:
        return None
    for path in sorted(folder.glob("*.json")):
        if path.name in _NOT_MODELS or not path.is_file() or path.stat().st_size > MODEL_LIMIT:
            continue
        if hashlib.sha256(path.read_bytes()).hexdigest() == digest:
            return path
    return None


def card_source(card: dict, folder: Path, proto: Protocol) -> PolicySource | None:
    """The card's policy as its own words may build it (module docstring), or None where they may not; a
    `BenchmarkError` where a shipped PPO baseline here is not the one the card's games came from."""
    from fruit_envs.agents.shipped import is_shipped, make_shipped

    stated = card["policy"]
    label = stated["label"]
    if label.startswith("reference:") and label.partition(":")[2] in proto.references:
        source = resolve_policy(label, proto)
    elif is_shipped(label):
        source = PolicySource(label, "name", lambda spec, config: make_shipped(label, spec, config))
    else:
        path = folder_model(card, folder)
        if path is None:
            return None
        return PolicySource(label, "model", _model_builder(path, stated["sha256"], not label.startswith("ppo-sample:")))
    for group, want in stated.get("files", {}).items():
        shipped = rc.policy_files(label, stated["kind"], [_group(group)])
        if shipped.get(group) != want:
            raise BenchmarkError(
                f"the shipped model of {label} for {group} is not the one the card's games came from (sha256 "
                f"{str(want)[:12]}); this installation has {str(shipped.get(group))[:12]}"
            )
    return source


def _model_builder(path: Path, digest: str, deterministic: bool):
    """Builds a PPO agent from a model.json of hash `digest` for the game and player count it describes."""

    def build(spec, config):
        from fruit_envs.agents.ppo import PPOAgent
        from fruit_envs.agents.weights import load_policy

        try:
            policy = load_policy(path, sha256=digest)
        except ValueError as error:
            raise BenchmarkError(f"the card's model {path.name} cannot be read: {error}") from None
        described = json.loads(path.read_bytes())
        if (described["game"], described["players"]) != (spec.id, config.num_players):
            raise BenchmarkError(
                f"the card's model {path.name} plays {described['game']} with {described['players']} players, not "
                f"{spec.id} with {config.num_players}"
            )
        return PPOAgent(policy, spec, config, deterministic=deterministic)

    return build


def replay_source(card: dict, folder: Path, proto: Protocol, policy: Any = None) -> PolicySource:
    """The policy to play a card's cells again with: `policy` (the user's `--policy`, whose file must have the
    card's hash where it has one), else `card_source`; a `BenchmarkError` saying what to give otherwise."""
    stated = card["policy"]
    if policy is not None:
        source = resolve_policy(policy, proto)
        digest = stated.get("sha256")
        if digest and source.fingerprint() != digest:
            raise BenchmarkError(
                f"--policy {str(policy)[:200]!r}: its file's sha256 {str(source.fingerprint())[:12]} is not the card's "
                f"{digest[:12]} (another model or source than the card's games came from)"
            )
        return source
    source = card_source(card, folder, proto) or own_factory(card, proto)
    if source is None:
        digest = stated.get("sha256")
        raise BenchmarkError(
            f"the card's policy {stated['label'][:200]!r} is not a shipped agent or protocol reference, and no "
            f"model.json of its hash ({digest[:12] if digest else 'the card names none'}) is in the card's folder: "
            "give it with --policy (a model or factory you trust), or run verify in the folder that holds your "
            "module (a module:make whose file has the card's hash is found there, as the benchmark found it)"
        )
    return source


def own_factory(card: dict, proto: Protocol) -> PolicySource | None:
    """A card's `module:make` whose module's file lies in the current folder (yours: where you run verify, as the
    benchmark found it) with the card's policy hash, built as the benchmark built it; None otherwise. Never a
    path the card names, never a module outside this folder, and nothing is imported before the hash matches."""
    from fruit_envs.agents.resolve import DOTTED
    from fruit_envs.benchmarks.benchmark.policies import module_file

    stated = card["policy"]
    label, digest = stated["label"], stated.get("sha256")
    target, _, attr = label.rpartition(":")
    if not isinstance(digest, str) or not DOTTED.fullmatch(target) or not DOTTED.fullmatch(attr):
        return None
    found = module_file(target)
    here = Path.cwd().resolve()
    if found is None or here not in Path(found).resolve().parents:
        return None
    if hashlib.sha256(Path(found).read_bytes()).hexdigest() != digest:
        return None
    return resolve_policy(label, proto)


def known_privileged(card: dict, folder: Path, proto: Protocol) -> bool | None:
    """Whether the card's policy reads the true state, where its kind says so without playing it (a protocol
    reference or shipped agent: search does; a model.json in its folder: a PPO policy does not); None where
    only the card says so."""
    from fruit_envs.agents.shipped import is_shipped

    label = card["policy"]["label"]
    if label.startswith("reference:") and label.partition(":")[2] in proto.references:
        agents = proto.references[label.partition(":")[2]]
        return any(is_search(agents[g]) for g in {c["game"] for c in card["cells"]} if g in agents)
    if is_shipped(label):
        return is_search(label)
    return False if folder_model(card, folder) is not None else None


def reference_ok(cell: dict, proto: Protocol) -> bool:
    """Whether a card cell's reference is one of the protocol's, named by the protocol's agent for its game (a
    one-player cell: none), so playing it again builds only what the protocol names."""
    reference = cell.get("reference")
    if reference is None:
        return cell.get("reference_agent") is None
    named = proto.references.get(reference, {}).get(cell["game"]) if isinstance(reference, str) else None
    return named is not None and named == cell.get("reference_agent")


def build_agent(source: PolicySource, spec, config) -> Any:
    """The policy's agent for a game and player count; any failure (a model that will not load, a factory that
    raises) a `BenchmarkError` naming the game."""
    try:
        return source.build(spec, config)
    except BenchmarkError:
        raise
    except Exception as error:  # a model that does not load, a factory that raises: the policy's fault
        raise BenchmarkError(
            f"the policy {source.label[:200]!r} cannot be built for {spec.id} with {config.num_players} players: "
            f"{type(error).__name__}: {str(error)[:300]}"
        ) from None


def play_again(card: dict, proto: Protocol, source: PolicySource, index: int) -> tuple[dict, Any]:
    """Card cell `index` played again whole with `source` and the protocol's reference (its own seeds: the same
    batch, the same draws): `play_cell`'s raw games and the policy's agent; a `BenchmarkError` naming what
    failed."""
    from fruit_envs.agents import make_agent
    from fruit_envs.benchmarks.benchmark.play import play_cell
    from fruit_envs.core.spec import get_spec

    cell = card["cells"][index]
    spec = get_spec(cell["game"])
    config = spec.make_config(cell["players"])
    agent = build_agent(source, spec, config)
    if not reference_ok(cell, proto):
        raise BenchmarkError(f"cell {cell['id']}: its reference agent is not protocol v{proto.version}'s")
    reference = None
    if cell.get("reference") is not None:
        reference = make_agent(proto.references[cell["reference"]][cell["game"]], spec, config)
    try:
        _, raw = play_cell(
            spec, config, agent, reference, per_seat(card["games_per_cell"], cell["players"]), card["seed"],
            cell.get("reference"), (source.label, cell.get("reference") or ""),
        )  # fmt: skip
    except BenchmarkError:
        raise
    except Exception as error:
        raise BenchmarkError(f"cell {cell['id']} could not be played again: {type(error).__name__}: {error}") from None
    return raw, agent


def same_games(card: dict, index: int, raw: dict) -> list[int]:
    """The games of card cell `index` whose replay (`raw`) gives another digest than the card's."""
    cell = card["cells"][index]
    keys = cell_keys(card["seed"], cell["game"], cell["players"], per_seat(card["games_per_cell"], cell["players"]))
    again = rc.cell_games(cell["id"], keys, raw)["digests"]
    return [g for g, (a, b) in enumerate(zip(again, cell["digests"], strict=True)) if a != b]


def _group(name: str) -> tuple[str, int]:
    game, _, players = name.rpartition("_")
    return game, int(players.removesuffix("p"))


def write_card_games(card_path: str | Path, policy: Any = None, progress=None) -> tuple[Path, int]:
    """Play every cell of a card again with its policy and, where every game comes out with the card's digest,
    write their actions beside it (`games.npz`): for cards made before cards kept their games. Returns the
    file and the games written; a `BenchmarkError` naming the first cell that differs (nothing written)."""
    from fruit_envs.benchmarks.benchmark.games_file import write_games
    from fruit_envs.benchmarks.benchmark.verify import card_protocol

    path = Path(card_path)
    card = rc.load_card(path)
    folder = path if path.is_dir() else path.parent
    proto = card_protocol(card)
    source = replay_source(card, folder, proto, policy)
    games = []
    for index, cell in enumerate(card["cells"]):
        if not reference_ok(cell, proto):
            raise BenchmarkError(f"cell {cell['id']}: its reference agent is not protocol v{proto.version}'s")
        raw, _ = play_again(card, proto, source, index)
        differ = same_games(card, index, raw)
        if differ:
            raise BenchmarkError(
                f"cell {cell['id']}: {len(differ)} of its games come out otherwise than the card's (first: game "
                f"{differ[0]}); the card's games cannot be reproduced here, nothing written"
            )
        games.append([np.asarray(a, dtype=np.int64) for a in raw["actions"]])
        if progress is not None:
            progress(index, cell)
    written = write_games(folder, games)
    return written, sum(len(c) for c in games)
