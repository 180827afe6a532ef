"""The protocol, read from its YAML file and checked field by field, and what every cell derives from it:
the pinned environments, the suite's groups, the deals and the seeds."""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import fruit_envs
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.core import validate
from fruit_envs.core.spec import get_spec, registered_games

HERE = Path(__file__).resolve().parent.parent  # benchmarks/: the protocol files and the published cards


@dataclass
class Protocol:
    """Protocol vN as read from `protocol_vN.yaml` (see the file's comments and docs/benchmark.md)."""

    version: int
    path: Path
    sha256: str
    environments: dict[str, int]  # game id -> pinned rules version
    player_counts: dict[str, list[int]]  # game id -> official player counts
    references: dict[str, dict[str, str]]  # reference name -> game id -> agent name
    scale_reference: str  # normalised score: random = 0, this reference = 100
    seed: int
    suites: dict[str, dict]
    rating: dict
    anchors: dict[str, dict[int, dict[str, float | None]]]
    calibration: dict
    best_response: dict

    def games(self) -> list[str]:
        return list(self.environments)

    def suite_groups(self, suite: str) -> list[tuple[str, int]]:
        """`(game, players)` of every cell group the suite plays, in protocol order."""
        spec = self.suites[suite]
        counts = spec["player_counts"]
        groups = []
        for game in self.games():
            official = self.player_counts[game]
            if counts == "official":
                chosen = official
            else:
                chosen = [p for p in official if p in counts] or ([1] if official == [1] else [])
            groups += [(game, p) for p in chosen]
        return groups

    def anchor(self, game: str, players: int) -> dict[str, float | None]:
        return dict(self.anchors.get(game, {}).get(players, {}))


def protocol_path(version: int) -> Path:
    return HERE / f"protocol_v{version}.yaml"


def load_protocol(protocol: int | str | Path | Protocol = 1) -> Protocol:
    """The protocol of a version number (a file beside this module) or of a YAML file; a malformed file is
    a `BenchmarkError` naming the field."""
    if isinstance(protocol, Protocol):
        return protocol
    if validate.is_int(protocol):
        path = protocol_path(int(protocol))
        if not path.is_file():
            known = sorted(p.stem for p in HERE.glob("protocol_v*.yaml"))
            raise BenchmarkError(f"no benchmark protocol v{protocol}; known protocols: {known}")
    else:
        path = Path(protocol)
        if not path.is_file():
            raise BenchmarkError(f"no protocol file at {str(path)!r}")
    try:
        import yaml
    except ImportError as error:
        raise BenchmarkError(f"reading the protocol needs PyYAML ({error}): pip install 'fruit_envs[train]'") from None
    text = path.read_text()
    try:
        d = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BenchmarkError(f"{path}: not readable YAML ({error})") from None
    return _parse_protocol(d, path, hashlib.sha256(text.encode()).hexdigest())


def _need(d: Any, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise BenchmarkError(f"{where}: no {key!r}")
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise BenchmarkError(f"{where}: {key} must be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _parse_protocol(d: Any, path: Path, sha: str) -> Protocol:
    where = str(path)
    version = _need(d, "protocol", int, where)
    environments = _need(d, "environments", dict, where)
    counts = _need(d, "player_counts", dict, where)
    if set(counts) != set(environments):
        raise BenchmarkError(f"{where}: player_counts must name the same games as environments")
    references: dict[str, dict[str, str]] = {}
    for name, agent in _need(d, "references", dict, where).items():
        per_game = agent if isinstance(agent, dict) else dict.fromkeys(environments, agent)
        if set(per_game) != set(environments) or not all(isinstance(a, str) for a in per_game.values()):
            raise BenchmarkError(f"{where}: reference {name!r} must be an agent name or one per game of {environments}")
        # the protocol's PPO reference is the baseline it was calibrated with, even after a better one ships
        references[str(name)] = {g: pin_baseline(a, version) for g, a in per_game.items()}
    scale = _need(d, "scale_reference", str, where)
    if "random" not in references or scale not in references:
        raise BenchmarkError(f"{where}: the references must include random (rating 0) and {scale!r}")
    suites = _need(d, "suites", dict, where)
    for name, suite in suites.items():
        players = _need(suite, "player_counts", (str, list), f"{where}: suite {name}")
        if players != "official" and not all(validate.is_int(p) for p in players):
            raise BenchmarkError(f"{where}: suite {name}: player_counts is 'official' or a list of counts")
        if _need(suite, "games_per_cell", int, f"{where}: suite {name}") < 1:
            raise BenchmarkError(f"{where}: suite {name}: games_per_cell must be at least 1")
    anchors: dict[str, dict[int, dict[str, float | None]]] = {}
    for game, by_count in (_need(d, "anchors", dict, where) or {}).items():
        anchors[game] = {}
        for players, values in (by_count or {}).items():
            values = values or {}
            unknown = set(values) - set(references)
            if unknown:
                raise BenchmarkError(f"{where}: anchors of {game} {players}p name unknown references {sorted(unknown)}")
            anchors[game][int(players)] = {r: None if values.get(r) is None else float(values[r]) for r in references}
    return Protocol(
        version=version,
        path=path,
        sha256=sha,
        environments={str(g): int(v) for g, v in environments.items()},
        player_counts={str(g): [int(p) for p in c] for g, c in counts.items()},
        references=references,
        scale_reference=scale,
        seed=_need(d, "seed", int, where),
        suites=suites,
        rating=_need(d, "rating", dict, where),
        anchors=anchors,
        calibration=_need(d, "calibration", dict, where),
        best_response=_need(d, "best_response", dict, where),
    )


def check_environments(protocol: Protocol) -> dict[str, int]:
    """The installed rules version of every game the protocol pins; another version is refused: the
    numbers would not be comparable with anybody else's."""
    installed = {spec.id: spec.version for spec in registered_games()}
    wrong = []
    for game, version in protocol.environments.items():
        if game not in installed:
            wrong.append(f"{game}_v{version} is not installed (games here: {sorted(installed)})")
        elif installed[game] != version:
            wrong.append(
                f"it pins {game}_v{version}, this fruit_envs {fruit_envs.__version__} has {game}_v{installed[game]}"
            )
    if wrong:
        raise BenchmarkError(
            f"protocol v{protocol.version} cannot run with the installed environments: {'; '.join(wrong)}. "
            f"Install the fruit_envs release the protocol was made for, or use a protocol that pins these versions"
        )
    return {game: installed[game] for game in protocol.environments}


def deal_keys(seed: int, game: str, players: int, n: int) -> np.ndarray:
    """The protocol's deals of a game and player count, `(n,) uint64`: the same for every seat and reference,
    and the first n of a longer list are the n of a shorter one (quick's deals begin full's)."""
    return np.random.SeedSequence([seed, zlib.crc32(game.encode()), players]).generate_state(n, dtype=np.uint64)


def cell_keys(seed: int, game: str, players: int, games_per_seat: int) -> np.ndarray:
    """The deal keys of a cell's games in its order: the policy takes seat 0 in the first `games_per_seat`,
    then seat 1, ..., every seat on the same deals."""
    return np.tile(deal_keys(seed, game, players, games_per_seat), players)


def per_seat(games_per_cell: int, players: int) -> int:
    """Games the policy plays in each seat of a cell: the cell's games rounded down to a multiple of the
    player count (at least one in each seat)."""
    return max(1, games_per_cell // players)


def cell_seed(seed: int, game: str, players: int, reference: str) -> int:
    """The seed of the agents' random choices in one cell."""
    entropy = [seed, zlib.crc32(game.encode()), players, zlib.crc32(reference.encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0])


def run_deviations(
    protocol: Protocol, suite: str, games: int, seed: int, references: list[str], groups: list[tuple[str, int]],
    skipped: list[str], published: bool = True,
) -> list[str]:  # fmt: skip
    """Each way a run is not `suite` of `protocol` as written, in the words its report and card give: other games
    per cell, another seed, some references, some groups, another protocol file, baselines' cells left out
    (`skipped`: `GAME Np (FILE)`). Empty: the run conforms."""
    out = []
    if games != protocol.suites[suite]["games_per_cell"]:
        out.append(f"{games} games per cell instead of {protocol.suites[suite]['games_per_cell']}")
    if seed != protocol.seed:
        out.append(f"seed {seed} instead of {protocol.seed}")
    if list(references) != list(protocol.references):
        out.append(f"references {list(references)} only")
    if list(groups) != protocol.suite_groups(suite):
        out.append(f"only {', '.join(f'{g} {p}p' for g, p in groups)}")
    if not published:
        out.append(f"protocol file {protocol.path}, not the published protocol v{protocol.version}")
    if skipped:
        out.append(f"cells without a shipped PPO baseline left out: {', '.join(skipped)}")
    return out


def pin_baseline(agent: str, version: int) -> str:
    """`ppo-baseline` in protocol `version` means `ppo-baseline@version`: the baseline the protocol's anchors
    were calibrated with (`agents/baselines/protocol_v<N>/` keeps it when a newer one replaces it)."""
    return f"ppo-baseline@{version}" if agent == "ppo-baseline" and version >= 1 else agent


def _parse_only(only: Any, protocol: Protocol, groups: list[tuple[str, int]], suite: str) -> list[tuple[str, int]]:
    """The suite's groups restricted to `only` (game ids or `(game, players)` / `"game:players"`); unknown
    games and counts outside the suite are refused."""
    if only is None:
        return groups
    if isinstance(only, (str, tuple)):
        only = [only]
    chosen = set()
    for item in only:
        if isinstance(item, str) and ":" in item:
            game, _, count = item.partition(":")
            if not (count.isascii() and count.isdecimal()):
                raise BenchmarkError(f"game {item!r}: write GAME or GAME:PLAYERS, e.g. cherry_picking:3")
            item = (game, int(count))
        game, players = (item, None) if isinstance(item, str) else item
        try:
            game_id = get_spec(game).id
        except ValueError:
            game_id = None
        if game_id not in protocol.environments:
            raise BenchmarkError(f"unknown game {game!r}; protocol v{protocol.version} has {protocol.games()}")
        matches = [(g, p) for g, p in groups if g == game_id and (players is None or p == players)]
        if not matches:
            counts = [p for g, p in groups if g == game_id]
            raise BenchmarkError(f"suite {suite!r} plays {game_id} with {counts} players, not {players}")
        chosen.update(matches)
    return [g for g in groups if g in chosen]
