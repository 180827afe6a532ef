"""`fruit-envs-benchmark verify CARD [--sample K] [--policy P]`: check a result card against itself, the protocol
and the installed rules, then replay some of its games.

Recomputed from the card alone: each game's digest from its deal key (the card's seed), the policy's seat, its
actions' digest and its outcome; each cell's Merkle root and the card's; each cell's numbers from its games'
outcomes; each group's rating and normalised score and the aggregate, with the protocol's anchors. Compared
with the protocol and this installation: protocol version and file hash, environment versions, the rules'
digests, the suite's seed and games per cell where the card says it conforms. With `--sample K`, K games drawn
at random are replayed with the policy (rebuilt by name for shipped agents, from `--policy` or a model file of
the card's hash in the card's folder otherwise): their cells are played again, with their own seeds, and every
replayed game's digest must equal the card's. Digests catch mistakes and edits; only a replay shows that the
games came from the policy (anyone can recompute digests for invented games). Nothing is written.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.play import cell_numbers
from fruit_envs.benchmarks.benchmark.protocol import Protocol, cell_keys, load_protocol, per_seat
from fruit_envs.benchmarks.benchmark.ratings import aggregate, rate_groups

VERIFY_TOLERANCE = 1e-9  # relative, for recomputed floating-point numbers (the same code gives the same bits)


def verify_card(
    card_path: str | Path,
    sample: int = 0,
    policy: Any = None,
    seed: int = 0,
    rules: bool = True,
) -> dict:
    """Check the card at `card_path` (a card.json or its folder); returns `{"card", "problems", "checked",
    "replayed"}`: `problems` lists every difference found, each naming what differs (empty: verified).
    A card that cannot be checked at all (malformed, another protocol or schema version, a policy that cannot
    be found for a replay) raises `BenchmarkError`. `rules=False` skips the rules' digests (slow: they play
    games of every game)."""
    path = Path(card_path)
    card = rc.load_card(path)
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise BenchmarkError(f"--sample must be a non-negative number of games, got {sample!r}")
    proto = _protocol(card)
    problems: list[str] = []
    checked: list[str] = []
    _check_protocol(card, proto, problems, checked, rules)
    raws: dict[tuple[str, int], list] = {}
    for cell in card["cells"]:
        named = proto.references.get(cell.get("reference"), {}).get(cell["game"]) if cell.get("reference") else None
        if cell.get("reference") is not None and cell.get("reference_agent") != named:
            problems.append(
                f"cell {cell['id']}: reference agent {cell.get('reference_agent')!r}, protocol v{proto.version} "
                f"plays {named!r} as {cell['reference']}"
            )
        raw = _check_cell(card, cell, problems)
        if raw is not None:
            raws.setdefault((cell["game"], cell["players"]), []).append((cell.get("reference"), raw))
    checked.append(f"{len(card['cells'])} cells: every game's digest, each cell's Merkle root and numbers")
    root = rc.merkle_root([c["merkle_root"] for c in card["cells"]])
    if root != card["merkle_root"]:
        problems.append(
            f"the card's Merkle root {card['merkle_root'][:16]}... is not that of its cells ({root[:16]}...)"
        )
    _check_ratings(card, proto, raws, problems)
    checked.append("every group's rating and normalised score, and the aggregate")
    replayed = _replay(card, path, proto, sample, policy, seed, problems) if sample else []
    return {"card": str(path), "problems": problems, "checked": checked, "replayed": replayed}


def _protocol(card: dict) -> Protocol:
    version = card["protocol"].get("version")
    try:
        return load_protocol(int(version))
    except (BenchmarkError, FileNotFoundError, TypeError, ValueError):
        from fruit_envs.benchmarks.benchmark.protocol import HERE

        known = sorted(p.stem.removeprefix("protocol_v") for p in HERE.glob("protocol_v*.yaml"))
        raise BenchmarkError(
            f"the card was made under protocol version {version!r}; this fruit_envs knows protocol "
            f"version{'s' * (len(known) > 1)} {', '.join(known)}"
        ) from None


def _check_protocol(card: dict, proto: Protocol, problems: list, checked: list, rules: bool) -> None:
    if card["protocol"].get("sha256") != proto.sha256:
        problems.append(
            f"protocol file hash {str(card['protocol'].get('sha256'))[:12]} is not that of the published "
            f"protocol v{proto.version} ({proto.sha256[:12]})"
        )
    for game, version in proto.environments.items():
        want = f"{game}_v{version}"
        if card["environments"].get(game) != want:
            problems.append(
                f"environment of {game}: the card says {card['environments'].get(game)!r}, "
                f"protocol v{proto.version} pins {want!r}"
            )
    if rules:
        for game, digest in sorted(card["rules_sha256"].items()):
            if game not in proto.environments:
                problems.append(f"rules digest of {game!r}: not a game of protocol v{proto.version}")
            elif rc.rules_digest(game) != digest:
                problems.append(
                    f"rules of {game}: the installed rules' digest {rc.rules_digest(game)[:12]} is not the card's "
                    f"{digest[:12]} (the games were played by other rules than these)"
                )
        checked.append("the rules' digests against the installed rules")
    suite = proto.suites.get(card["suite"])
    if suite is None:
        problems.append(f"suite {card['suite']!r} is not a suite of protocol v{proto.version} ({list(proto.suites)})")
    elif card["conforms"]:
        if card["seed"] != proto.seed:
            problems.append(
                f"seed {card['seed']}: the card says it conforms, and protocol v{proto.version}'s seed is {proto.seed}"
            )
        if card["games_per_cell"] != suite["games_per_cell"]:
            problems.append(
                f"games per cell {card['games_per_cell']}: the card says it conforms, and suite {card['suite']!r} "
                f"plays {suite['games_per_cell']}"
            )
        want = {
            rc.cell_id(g, p, r)
            for g, p in proto.suite_groups(card["suite"])
            for r in (proto.references if p > 1 else [None])
        }
        have = {c["id"] for c in card["cells"]}
        if want != have:
            problems.append(
                f"cells: the card says it conforms, and suite {card['suite']!r} plays "
                f"{sorted(want - have)[:4] or 'no other'} missing, {sorted(have - want)[:4] or 'none'} extra"
            )
    checked.append("protocol version and hash, environment versions, suite, seed and games per cell")


def _check_cell(card: dict, cell: dict, problems: list) -> dict | None:
    """One cell's games against its digests, root and numbers; its raw arrays for the ratings (None: unusable)."""
    name, game, p, ref = cell["id"], cell["game"], cell["players"], cell.get("reference")
    if name != rc.cell_id(game, p, ref):
        problems.append(f"cell {name!r}: its id is not that of {game} {p}p against {ref}")
    n = per_seat(card["games_per_cell"], p) * p
    lengths = {k: len(cell[k]) for k in ("actions_sha256", "scores", "winners", "digests")}
    if set(lengths.values()) != {n}:
        problems.append(
            f"cell {name}: {card['games_per_cell']} games per cell make {n} games, the card lists {lengths}"
        )
        return None
    try:
        scores, winners, truncated, seats = rc.cell_outcomes(cell)
    except (ValueError, TypeError, IndexError) as error:
        problems.append(f"cell {name}: its games' outcomes are malformed ({error})")
        return None
    keys = cell_keys(card["seed"], game, p, n // p)
    if rc.keys_digest(keys) != cell["keys_sha256"]:
        problems.append(
            f"cell {name}: its deal keys are not those seed {card['seed']} gives (the seed or the keys were changed)"
        )
    for g in range(n):
        digest = rc.game_digest(
            name, g, keys[g], seats[g], cell["actions_sha256"][g], scores[g], winners[g], truncated[g]
        )
        if digest != cell["digests"][g]:
            problems.append(f"cell {name}, game {g}: its key, seat, actions digest or outcome do not give its digest")
            break
    if rc.merkle_root(cell["digests"]) != cell["merkle_root"]:
        problems.append(f"cell {name}: the Merkle root of its games' digests is not the card's")
    numbers = cell_numbers(scores, winners, truncated, seats, 0.0)
    for key in rc.NUMBER_FIELDS:
        if key in numbers and not _same(numbers[key], cell["numbers"].get(key)):
            problems.append(
                f"cell {name}: {key} is {cell['numbers'].get(key)!r} on the card, its games give {numbers[key]!r}"
            )
    return {"scores": scores, "winners": winners, "truncated": truncated, "policy_seat": seats}


def _check_ratings(card: dict, proto: Protocol, raws: dict, problems: list) -> None:
    groups = rate_groups(raws, proto)
    stated = {(g.get("game"), g.get("players")): g for g in card["groups"]}
    for group in groups:
        where = (group["game"], group["players"])
        card_group = stated.get(where)
        if card_group is None:
            problems.append(f"group {group['game']} {group['players']}p: its cells are on the card, its rating is not")
            continue
        for key in rc.GROUP_FIELDS:
            if not _same(group.get(key), card_group.get(key)):
                problems.append(
                    f"group {group['game']} {group['players']}p: {key} is {card_group.get(key)!r} on the card, "
                    f"its games give {group.get(key)!r}"
                )
    whole = aggregate(groups)
    stated_aggregate = card.get("aggregate") or {}
    for key in rc.AGGREGATE_FIELDS:
        if not _same(whole.get(key), stated_aggregate.get(key)):
            problems.append(
                f"aggregate {key} is {stated_aggregate.get(key)!r} on the card, its games give {whole.get(key)!r}"
            )


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (bool, np.bool_)) or isinstance(b, bool):
        return bool(a) == bool(b)
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= VERIFY_TOLERANCE * max(1.0, abs(a), abs(b))


def replay_policy(card: dict, folder: Path, proto: Protocol, policy: Any = None):
    """The `PolicySource` that replays a card: `policy` if given (its file's hash must be the card's), else the
    card's own (a shipped agent by name, or a model file of the card's hash in the card's folder or named by
    its label); a `BenchmarkError` naming what to give otherwise."""
    from fruit_envs.benchmarks.benchmark.policies import resolve_policy

    stated = card["policy"]
    if policy is not None:
        source = resolve_policy(policy, proto)
        if stated.get("sha256") and source.fingerprint() != stated["sha256"]:
            raise BenchmarkError(
                f"--policy {policy!r}: its file's sha256 {str(source.fingerprint())[:12]} is not the card's "
                f"{stated['sha256'][:12]} (another model or source than the card's games came from)"
            )
        return source
    digest = stated.get("sha256")
    if stated["kind"] in ("name", "reference") and _built_in(stated["label"], proto):
        try:
            source = resolve_policy(stated["label"], proto)
        except BenchmarkError:
            source = None  # a model path that is not here: looked for by its hash below
        if source is not None and (not digest or source.fingerprint() == digest):
            for group, want in stated.get("files", {}).items():
                shipped = rc.policy_files(stated["label"], stated["kind"], [_group(group)])
                if shipped.get(group) != want:
                    raise BenchmarkError(
                        f"the shipped model of {stated['label']} for {group} is not the one the card's games came "
                        f"from (sha256 {want[:12]}); this installation has {str(shipped.get(group))[:12]}"
                    )
            return source
    if digest:
        label = stated["label"]
        prefix = next((p for p in ("ppo-sample:", "ppo:") if label.startswith(p)), "")
        for candidate in [Path(label.removeprefix(prefix))] + sorted(folder.glob("*.zip")):
            if candidate.is_file() and rc.file_sha256(candidate) == digest:
                return resolve_policy(f"{prefix}{candidate}", proto)
    raise BenchmarkError(
        f"the card's policy {stated['label']!r} ({stated['kind']}"
        + (f", sha256 {digest[:12]}" if digest else "")
        + ") cannot be rebuilt here: give it with --policy (a model file of that hash, or the factory's import path)"
    )


def _built_in(label: str, proto: Protocol) -> bool:
    """Whether a card's policy label names what this project ships (a protocol reference, a built-in agent name
    or form): only those are rebuilt from a card's own words, never a module or file it names (a card may come
    from anywhere)."""
    from fruit_envs.agents.resolve import _PLAIN_NAMES, BUILTIN_PREFIXES

    if label.startswith("reference:"):
        return label.partition(":")[2] in proto.references
    return label in _PLAIN_NAMES or label.startswith(BUILTIN_PREFIXES) or label.startswith("ppo-baseline@")


def _group(name: str) -> tuple[str, int]:
    game, _, players = name.rpartition("_")
    return game, int(players.removesuffix("p"))


def _replay(card: dict, path: Path, proto: Protocol, sample: int, policy: Any, seed: int, problems: list) -> list:
    """Replay `sample` games drawn at random (seeded): each drawn game's cell is played again whole (a cell is
    one batch, and a sampled policy's draws run across it), and the drawn games' digests compared."""
    from fruit_envs.benchmarks.benchmark.play import play_cell
    from fruit_envs.core.spec import get_spec

    folder = path if path.is_dir() else path.parent
    source = replay_policy(card, folder, proto, policy)
    games = [(i, g) for i, cell in enumerate(card["cells"]) for g in range(len(cell["digests"]))]
    if not games:
        return []
    rng = np.random.default_rng(seed)
    drawn = sorted(games[k] for k in rng.choice(len(games), size=min(sample, len(games)), replace=False))
    by_cell: dict[int, list[int]] = {}
    for i, g in drawn:
        by_cell.setdefault(i, []).append(g)
    replayed = []
    for i, chosen in by_cell.items():
        cell = card["cells"][i]
        spec = get_spec(cell["game"])
        config = spec.make_config(cell["players"])
        agent = source.build(spec, config)
        reference = None
        if cell.get("reference") is not None:  # the protocol's agent for the reference, not the card's words
            from fruit_envs.agents import make_agent

            named = proto.references.get(cell["reference"], {}).get(cell["game"])
            if named is None or named != cell.get("reference_agent"):
                problems.append(
                    f"cell {cell['id']}: its reference agent {cell.get('reference_agent')!r} is not protocol "
                    f"v{proto.version}'s {named!r}; not replayed"
                )
                continue
            reference = make_agent(named, spec, config)
        _, raw = play_cell(
            spec, config, agent, reference, per_seat(card["games_per_cell"], cell["players"]), card["seed"],
            cell.get("reference"), (source.label, cell.get("reference") or ""),
        )  # fmt: skip
        games_per_seat = len(raw["scores"]) // cell["players"]
        again = rc.cell_games(cell["id"], cell_keys(card["seed"], cell["game"], cell["players"], games_per_seat), raw)
        for g in chosen:
            same = again["digests"][g] == cell["digests"][g]
            replayed.append({"cell": cell["id"], "game": g, "same": same})
            if not same:
                problems.append(
                    f"cell {cell['id']}, game {g}: replayed with the policy, it gives another game than the card's"
                )
    return replayed


def verify_summary(result: dict) -> str:
    """What `verify` prints."""
    lines = [f"card {result['card']}"]
    lines += [f"  checked: {line}" for line in result["checked"]]
    if result["replayed"]:
        same = sum(r["same"] for r in result["replayed"])
        cells = len({r["cell"] for r in result["replayed"]})
        lines.append(f"  replayed {len(result['replayed'])} games ({cells} cells played again): {same} identical")
    if result["problems"]:
        lines.append(f"FAILED: {len(result['problems'])} difference{'s' * (len(result['problems']) > 1)}")
        lines += [f"  - {problem}" for problem in result["problems"]]
    else:
        lines.append(
            "verified: every number the card states follows from its games"
            + (", and the replayed games are the card's" if result["replayed"] else "")
        )
    return "\n".join(lines)
