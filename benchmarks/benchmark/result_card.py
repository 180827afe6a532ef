"""The result card (`card.json` beside every report): what a run played and got, in a form anyone can check.

A card names the protocol (version and file hash), the environments and a digest of their rules, the package
versions, the policy (label, kind, hash of its file, privileged or not), the suite, seed and games per cell;
per cell its numbers and every game's outcome with a digest of the game (deal key, the policy's seat, a hash of
every action, outcome), the digests joined by a Merkle root; the compute it took; the best response if one ran.
`verify` (`fruit-envs-benchmark verify CARD`) recomputes everything a card derives and replays games.
docs/benchmark.md ("Result cards") documents every field; `SCHEMA_VERSION` numbers the layout.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.agents.weights import sha256_file as file_sha256
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.reports import _json_default
from fruit_envs.core.validate import is_number, quoted

SCHEMA = "fruit_envs.result_card"
SCHEMA_VERSION = 1
CARD_FILE = "card.json"
NUMBER_FIELDS = (  # a cell's numbers the card states and `verify` recomputes from its games' outcomes
    "games", "finished", "truncated", "truncated_share", "wins", "draws", "losses", "win_share", "win_low",
    "win_high", "mean_margin", "mean_rank", "mean_score", "score_low", "score_high",
)  # fmt: skip
GROUP_FIELDS = ("rating", "rating_low", "rating_high", "normalised", "normalised_low", "normalised_high")
AGGREGATE_FIELDS = ("normalised", "low", "high", "groups", "of")


def cell_id(game: str, players: int, reference: str | None) -> str:
    """A cell's name in the card and in its games' digests: `cherry_picking-2p-greedy`, `juicy_fruits_solo-1p-alone`."""
    return f"{game}-{players}p-{reference or 'alone'}"


def actions_digest(actions: np.ndarray) -> str:
    """sha256 of one game's actions in order (int64, little-endian)."""
    return hashlib.sha256(np.ascontiguousarray(actions, dtype="<i8").tobytes()).hexdigest()


def game_digest(cell: str, index: int, key: int, seat: int, actions_sha: str, scores, winners, truncated) -> str:
    """The digest of one game: its cell, index, deal key, the policy's seat, its actions' digest and its outcome
    (every seat's score, who won, whether a safety cap truncated it), as sha256 of their canonical JSON."""
    item = [
        cell, int(index), int(key), int(seat), actions_sha, [float(s) for s in scores], [int(bool(w)) for w in winners],
        int(bool(truncated)),
    ]  # fmt: skip
    return hashlib.sha256(json.dumps(item, separators=(",", ":")).encode()).hexdigest()


def merkle_root(digests: list[str]) -> str:
    """The Merkle root of hex digests: leaves and inner nodes hashed with distinct prefixes (0x00, 0x01), an odd
    node carried up unchanged; the empty list's root is sha256 of nothing."""
    if not digests:
        return hashlib.sha256(b"").hexdigest()
    level = [hashlib.sha256(b"\x00" + bytes.fromhex(d)).digest() for d in digests]
    while len(level) > 1:
        pairs = [hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)]
        level = pairs + ([level[-1]] if len(level) % 2 else [])
    return level[0].hex()


def cell_games(cell: str, keys: np.ndarray, raw: dict) -> dict:
    """A cell's games as the card holds them: deal keys' digest, each game's actions digest and outcome, each
    game's digest and their Merkle root."""
    scores, winners, truncated = raw["scores"], raw["winners"], raw["truncated"]
    seats, actions = raw["policy_seat"], raw.get("actions_sha256")
    if actions is None:  # a cell saved by a version before result cards (resumed): no actions to digest
        raise BenchmarkError(f"cell {cell} was played before result cards existed; play it again for a card")
    digests = [
        game_digest(cell, g, keys[g], seats[g], actions[g], scores[g], winners[g], truncated[g])
        for g in range(len(scores))
    ]
    return {
        "keys_sha256": keys_digest(keys),
        "actions_sha256": list(actions),
        "scores": np.asarray(scores).tolist(),
        "winners": ["".join("1" if w else "0" for w in row) for row in np.asarray(winners)],
        "truncated": [int(g) for g in np.flatnonzero(truncated)],
        "digests": digests,
        "merkle_root": merkle_root(digests),
    }


def cell_outcomes(cell: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A card cell's games as arrays: scores `(G, P)`, winners `(G, P)` bool, truncated `(G,)` bool and the
    policy's seat `(G,)` (seat 0 for the first G/P games, then 1, ...); a ValueError, TypeError or IndexError
    for malformed lists."""
    n, p = len(cell["scores"]), cell["players"]
    scores = np.asarray(cell["scores"], dtype=np.float64).reshape(n, p)
    winners = np.array([[ch == "1" for ch in row] for row in cell["winners"]], dtype=bool).reshape(n, p)
    truncated = np.zeros(n, dtype=bool)
    truncated[np.asarray(cell["truncated"], dtype=np.int64)] = True
    return scores, winners, truncated, np.repeat(np.arange(p), n // p)


def keys_digest(keys: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(keys, dtype="<u8").tobytes()).hexdigest()


@cache
def rules_digest(game: str) -> str:
    """A digest of a game's rules as installed: the regression corpus's digests (every seat's observation and
    mask, rewards, state) along seeded random games at every official player count (`fruit_envs.corpus`)."""
    from fruit_envs import corpus
    from fruit_envs.core.spec import get_spec

    spec = get_spec(game)
    h = hashlib.sha256()
    for case in corpus.cases(spec):
        if case.label != f"{case.config.num_players}p":
            continue  # default options only: the benchmark plays those
        recorded = corpus.record_case(case, "random")
        for name in sorted(recorded):
            h.update(name.encode() + np.ascontiguousarray(recorded[name]).tobytes())
    return h.hexdigest()


def policy_files(label: str, kind: str, groups: list[tuple[str, int]]) -> dict[str, str]:
    """sha256 of each shipped model a policy given by name plays (`ppo-baseline`: one per game and player count),
    so a card says which weights its games came from."""
    if kind not in ("name", "reference") or "ppo-baseline" not in label:
        return {}
    from fruit_envs.agents.ppo import baseline_files
    from fruit_envs.core.spec import get_spec

    out = {}
    for game, p in groups:
        if p < 2:
            continue
        try:
            model, _ = baseline_files(get_spec(game), p)
        except Exception:  # noqa: BLE001 (a game without a baseline: nothing to name)
            continue
        if Path(model).is_file():
            out[f"{game}_{p}p"] = file_sha256(model)
    return out


def make_card(report: dict, raws: dict, keys_of, source, compute: dict) -> dict:
    """The card of a run from its report, its cells' raw games (`raws[(game, p)] = [(reference, raw), ...]`),
    `keys_of(game, p)` (the cells' deal keys), the policy's `PolicySource` and its compute."""
    groups = [(g["game"], g["players"]) for g in report["groups"]]
    cells = []
    for cell in report["cells"]:
        game, p, ref = cell["game"], cell["players"], cell["reference"]
        raw = next(r for name, r in raws[(game, p)] if name == ref)
        name = cell_id(game, p, ref)
        cells.append(
            {
                "id": name,
                "game": game,
                "players": p,
                "reference": ref,
                "reference_agent": cell["reference_agent"],
                "numbers": {k: cell[k] for k in NUMBER_FIELDS if k in cell},
                **cell_games(name, keys_of(game, p), raw),
            }
        )
    policy = report["policy"]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "status": report["status"],
        "protocol": {
            "version": report["protocol"],
            "file": report["protocol_file"],
            "sha256": report["protocol_sha256"],
        },
        "conforms": report["conforms"],
        "deviations": report["deviations"],
        "environments": report["environments"],
        "rules_sha256": {game: rules_digest(game) for game in sorted({g for g, _ in groups})},
        "packages": {**report["machine"]["versions"], "fruit_envs": report["package"]["fruit_envs"]},
        "code": report["package"].get("git"),
        "policy": {
            "label": policy["label"],
            "kind": policy["kind"],
            "privileged": policy["privileged"],
            "sha256": source.fingerprint(),
            "files": policy_files(policy["label"], policy["kind"], groups),
        },
        "suite": report["suite"],
        "seed": report["seed"],
        "games_per_cell": report["games_per_cell"],
        "references": report["references"],
        "cells": cells,
        "groups": [
            {"game": g["game"], "players": g["players"], **{k: g.get(k) for k in GROUP_FIELDS}}
            for g in report["groups"]
        ],
        "aggregate": None if report["aggregate"] is None else {k: report["aggregate"].get(k) for k in AGGREGATE_FIELDS},
        "merkle_root": merkle_root([c["merkle_root"] for c in cells]),
        "compute": compute,
        "best_response": report.get("best_response"),
        "exploitability": report.get("exploitability"),
    }


def card_actions(card: dict, raws: dict) -> list[list[np.ndarray]]:
    """Every game's actions of a card's cells (`[cell][game]`, in card order) from the run's raw games, each
    checked against the card's `actions_sha256`; a `BenchmarkError` for a cell played before cards kept them."""
    out = []
    for cell in card["cells"]:
        raw = next(r for name, r in raws[(cell["game"], cell["players"])] if name == cell["reference"])
        actions = raw.get("actions")
        if actions is None:
            raise BenchmarkError(
                f"cell {cell['id']} was played before result cards kept their games' actions; play it again for a card"
            )
        if [actions_digest(a) for a in actions] != cell["actions_sha256"]:
            raise BenchmarkError(f"cell {cell['id']}: its games' actions are not those its digests were made from")
        out.append(list(actions))
    return out


def write_card(card: dict, out: Path, games: list[list[np.ndarray]] | None = None) -> Path:
    """`out/card.json`, written whole or not at all, after its games' actions (`out/games.npz`) where given."""
    from fruit_envs.benchmarks.benchmark.games_file import write_games

    out.mkdir(parents=True, exist_ok=True)
    if games is not None:
        write_games(out, games)
    path = out / CARD_FILE
    partial = path.with_suffix(".json.partial")
    partial.write_text(card_text(card))
    partial.replace(path)
    return path


def card_text(card: dict) -> str:
    """A card as JSON: one line per field, and per cell (a cell's games are long lists: a diff then names the
    cells that changed)."""
    compact = {"separators": (",", ":"), "default": _json_default}
    lines = []
    for name, value in card.items():
        if name == "cells":
            body = ",\n".join("  " + json.dumps(cell, **compact) for cell in value)
            lines.append(f'"cells": [\n{body}\n ]' if value else '"cells": []')
        else:
            lines.append(f"{json.dumps(name)}: {json.dumps(value, default=_json_default)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


_REQUIRED = {  # field: type, checked before anything is recomputed
    "schema": str, "schema_version": int, "created": str, "status": str, "protocol": dict, "conforms": bool,
    "deviations": list, "environments": dict, "rules_sha256": dict, "policy": dict, "suite": str, "seed": int,
    "games_per_cell": int, "references": dict, "cells": list, "groups": list, "merkle_root": str, "compute": dict,
}  # fmt: skip
_CELL_REQUIRED = {
    "id": str, "game": str, "players": int, "numbers": dict, "keys_sha256": str, "actions_sha256": list,
    "scores": list, "winners": list, "truncated": list, "digests": list, "merkle_root": str,
}  # fmt: skip
STATUSES = ("complete", "stopped")
SEED_LIMIT = 1 << 64  # a seed is a non-negative integer below this
GAMES_LIMIT = 100_000  # games per cell a card may state (the full suite plays 400)
CELLS_LIMIT = 1_000  # cells a card may hold (the full suite has 53)
_HEX = re.compile(r"[0-9a-f]{64}")


def load_card(path: str | Path) -> dict:
    """A card read and checked for shape and types: a `BenchmarkError` naming the file and what is wrong
    otherwise (not a card, another schema version, a missing or mistyped field, a number that is text, a
    winners string of other letters than 0 and 1, a game or player count this fruit_envs does not have)."""
    path = Path(path)
    if path.is_dir():
        path = path / CARD_FILE
    try:
        card = json.loads(path.read_text())
    except FileNotFoundError:
        raise BenchmarkError(f"no result card at {path} (a benchmark run writes card.json beside its report)") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:  # JSONDecodeError, an integer of too many digits
        raise BenchmarkError(f"{path} is not a result card: {str(error)[:200]}") from None
    except RecursionError:
        raise BenchmarkError(f"{path} is not a result card: its JSON nests too deep") from None
    if not isinstance(card, dict) or card.get("schema") != SCHEMA:
        raise BenchmarkError(f"{path} is not a result card (its 'schema' is not {SCHEMA!r})")
    if card.get("schema_version") != SCHEMA_VERSION or isinstance(card.get("schema_version"), bool):
        raise BenchmarkError(
            f"{path}: card schema version {quoted(card.get('schema_version'))}; this fruit_envs reads version "
            f"{SCHEMA_VERSION}"
        )
    _fields(card, _REQUIRED, str(path))
    _check_card(card, str(path))
    for i, cell in enumerate(card["cells"]):
        if not isinstance(cell, dict):
            raise BenchmarkError(f"{path}: cells[{i}] is not an object")
        where = f"{path}: cell {quoted(cell.get('id', i))}"
        _fields(cell, _CELL_REQUIRED, where)
        _check_cell_types(cell, where)
    return card


def _fields(d: dict, required: dict, where: str) -> None:
    for name, kind in required.items():
        if name not in d:
            raise BenchmarkError(f"{where}: field {name!r} is missing")
        value = d[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise BenchmarkError(f"{where}: field {name!r} must be {kind.__name__}, got {type(value).__name__}")


def _numbers(d: Any, where: str, keys: tuple | None = None) -> None:
    """Every value of `d` (or those of `keys` present) a number or null."""
    if not isinstance(d, dict):
        raise BenchmarkError(f"{where} must be an object")
    for key in keys if keys is not None else tuple(d):
        value = d.get(key)
        if value is not None and not is_number(value):
            raise BenchmarkError(f"{where}: {key} must be a number or null, got {quoted(value)}")


def _check_card(card: dict, where: str) -> None:
    """The card's own fields' types and bounds, beyond their kind."""
    if not 0 <= card["seed"] < SEED_LIMIT:
        raise BenchmarkError(f"{where}: seed must be an integer in 0..2**64-1, got {len(str(card['seed']))} digits")
    if not 1 <= card["games_per_cell"] <= GAMES_LIMIT:
        raise BenchmarkError(f"{where}: games_per_cell must be in 1..{GAMES_LIMIT}, got {card['games_per_cell']}")
    if len(card["cells"]) > CELLS_LIMIT:
        raise BenchmarkError(f"{where}: {len(card['cells'])} cells, more than any suite's ({CELLS_LIMIT} at most)")
    if card["status"] not in STATUSES:
        raise BenchmarkError(f"{where}: status must be one of {list(STATUSES)}, got {quoted(card['status'])}")
    if not all(isinstance(d, str) for d in card["deviations"]):
        raise BenchmarkError(f"{where}: deviations must be a list of text")
    policy = card["policy"]
    _fields(policy, {"label": str, "kind": str, "privileged": bool}, f"{where}: policy")
    digest = policy.get("sha256")
    if digest is not None and not (isinstance(digest, str) and _HEX.fullmatch(digest)):
        raise BenchmarkError(f"{where}: policy sha256 must be 64 lowercase hex digits or null")
    files = policy.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) and _HEX.fullmatch(v) for v in files.values()):
        raise BenchmarkError(f"{where}: policy files must map names to 64 lowercase hex digits")
    if not all(isinstance(v, str) and _HEX.fullmatch(v) for v in card["rules_sha256"].values()):
        raise BenchmarkError(f"{where}: rules_sha256 must map games to 64 lowercase hex digits")
    if not _HEX.fullmatch(card["merkle_root"]):
        raise BenchmarkError(f"{where}: merkle_root must be 64 lowercase hex digits")
    for i, group in enumerate(card["groups"]):
        if not isinstance(group, dict):
            raise BenchmarkError(f"{where}: groups[{i}] is not an object")
        _fields(group, {"game": str, "players": int}, f"{where}: groups[{i}]")
        _numbers(group, f"{where}: groups[{i}]", GROUP_FIELDS)
    if card.get("aggregate") is not None:
        _numbers(card["aggregate"], f"{where}: aggregate", AGGREGATE_FIELDS)
    _numbers(card["compute"], f"{where}: compute", ("wall_seconds", "cell_cpu_seconds", "main_cpu_seconds"))
    for key in ("workers", "cores"):
        value = card["compute"].get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise BenchmarkError(f"{where}: compute {key} must be an integer or null, got {quoted(value)}")
    code = card.get("code")
    if code is not None and not (isinstance(code, dict) and isinstance(code.get("commit", ""), (str, type(None)))):
        raise BenchmarkError(f"{where}: code must be null or an object whose commit is text")
    _check_bounds(card.get("exploitability"), f"{where}: exploitability")


def _check_bounds(bound: Any, where: str) -> None:
    """An exploitability block's fields the leaderboard shows: method, budget, and per group its sums."""
    if bound is None:
        return
    if not isinstance(bound, dict):
        raise BenchmarkError(f"{where} must be null or an object")
    _fields(bound, {"method": str, "budget": dict, "groups": list}, where)
    for i, group in enumerate(bound["groups"]):
        if not isinstance(group, dict):
            raise BenchmarkError(f"{where}: groups[{i}] is not an object")
        _fields(group, {"game": str, "players": int}, f"{where}: groups[{i}]")
        for key in ("sum", "sum_low", "sum_high"):
            if not is_number(group.get(key)):
                raise BenchmarkError(f"{where}: groups[{i}]: {key} must be a number, got {quoted(group.get(key))}")


def _check_cell_types(cell: dict, where: str) -> None:
    """A cell's game, player count and every game's outcome of the right type: numbers as numbers, winners as
    one 0 or 1 per seat, digests as hex."""
    from fruit_envs.core.spec import get_spec

    try:
        spec = get_spec(cell["game"])
    except (KeyError, ValueError, TypeError):
        raise BenchmarkError(f"{where}: game {quoted(cell['game'])} is not a game of this fruit_envs") from None
    p = cell["players"]
    if p not in spec.player_counts:
        raise BenchmarkError(
            f"{where}: players {quoted(p)} is not a player count of {spec.id} ({list(spec.player_counts)})"
        )
    for key in ("reference", "reference_agent"):
        if cell.get(key) is not None and not isinstance(cell[key], str):
            raise BenchmarkError(f"{where}: {key} must be text or null")
    _numbers(cell["numbers"], f"{where}: numbers")
    n = len(cell["digests"])
    if n > GAMES_LIMIT or any(len(cell[k]) != n for k in ("actions_sha256", "scores", "winners")):
        raise BenchmarkError(f"{where}: digests, actions_sha256, scores and winners must list the same games")
    for key in ("digests", "actions_sha256"):
        if not all(isinstance(d, str) and _HEX.fullmatch(d) for d in cell[key]):
            raise BenchmarkError(f"{where}: {key} must be 64 lowercase hex digits per game")
    for key in ("keys_sha256", "merkle_root"):
        if not _HEX.fullmatch(cell[key]):
            raise BenchmarkError(f"{where}: {key} must be 64 lowercase hex digits")
    for g, row in enumerate(cell["scores"]):
        if not (isinstance(row, list) and len(row) == p and all(is_number(s) for s in row)):
            raise BenchmarkError(f"{where}: scores of game {g} must be {p} numbers, got {quoted(row)}")
    winners = re.compile(f"[01]{{{p}}}")
    for g, row in enumerate(cell["winners"]):
        if not (isinstance(row, str) and winners.fullmatch(row)):
            raise BenchmarkError(f"{where}: winners of game {g} must be {p} letters 0 or 1, got {quoted(row)}")
    truncated = cell["truncated"]
    if not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < n for t in truncated) or sorted(
        set(truncated)
    ) != list(truncated):
        raise BenchmarkError(f"{where}: truncated must list game indices in 0..{n - 1}, ascending, each once")
