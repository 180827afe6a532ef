"""`fruit-envs-benchmark verify CARD [--sample K] [--sample-seed S] [--policy P]`: check a result card against
itself, the protocol, the installed rules and its games, then play some of its cells again with the policy.

Recomputed from the card: each game's digest from its deal key (the card's seed), the policy's seat, its
actions' digest and its outcome; each cell's Merkle root and the card's; each cell's numbers from its games'
outcomes; each group's rating and normalised score and the aggregate, with the protocol's anchors; the
deviations the card's seed, games per cell, references and cells make. Compared with the protocol and this
installation: protocol version and file hash, environment versions, the references, the rules' digests (one
per game played), the suite's seed, games per cell and cells where the card says it conforms. Replayed through
the rules: every game, from the actions in the card's games file (`games.npz`, bound by each game's actions
digest): each action legal, each outcome the card's, and the seats whose agent draws nothing or only breaks ties
checked move by move (`rules_replay`). A card without its games file fails: its outcomes are unbound.
`policy.privileged` is checked where the policy's kind says it (a reference or shipped agent, a model.json
beside the card), else shown as claimed.

With `--sample K`, K games are drawn (from `--sample-seed`, a fresh seed printed when not given) and each
drawn game's cell is played again whole with the policy (a shipped agent or reference by name, a model.json of
the card's hash in its folder, or `--policy`), every game of it compared with the card's: only a replay with
the policy shows that the policy played the policy's moves. Nothing is written; nothing a card names is
imported, unpickled or looked for (`card_policy`).
"""

from __future__ import annotations

import math
import secrets
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.card_policy import (
    known_privileged,
    play_again,
    reference_ok,
    replay_source,
    same_games,
)
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.play import cell_numbers
from fruit_envs.benchmarks.benchmark.protocol import Protocol, cell_keys, load_protocol, per_seat, run_deviations
from fruit_envs.benchmarks.benchmark.ratings import aggregate, rate_groups
from fruit_envs.benchmarks.benchmark.rules_replay import SHOWN, check_card_games
from fruit_envs.core.validate import quoted

VERIFY_TOLERANCE = 1e-9  # relative, for recomputed floating-point numbers (the same code gives the same bits)
CLAIMED = {  # the card's fields verify cannot check, and why: shown as claimed wherever they are shown
    "created": "when the card was written",
    "code": "the commit it names",
    "packages": "the versions it names",
    "compute": "the time and machine it names",
    "best_response": "a trained response is not re-run",
    "exploitability": "its bounds are not re-run",
}


def verify_card(
    card_path: str | Path,
    sample: int = 0,
    policy: Any = None,
    seed: int | None = None,
    rules: bool = True,
) -> dict:
    """Check the card at `card_path` (a card.json or its folder); returns `{"card", "problems", "checked",
    "claimed", "privileged_checked", "replayed", "sample_seed"}`: `problems` lists every difference found, each
    naming what differs (empty: verified); `claimed` the fields shown that nothing checks. A card that cannot
    be checked at all (malformed, another protocol or schema version, a policy that cannot be built for a
    replay) raises `BenchmarkError`. `rules=False` skips computing the rules' digests (they play games of every
    game: a few seconds each); the games are still replayed through the installed rules."""
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise BenchmarkError(f"--sample must be a non-negative number of games, got {sample!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 64):
        raise BenchmarkError(f"--sample-seed must be an integer in 0..2**64-1, got {str(seed)[:40]!r}")
    path = Path(card_path)
    card = rc.load_card(path)
    folder = path if path.is_dir() else path.parent
    proto = card_protocol(card)
    problems: list[str] = []
    checked: list[str] = []
    _check_protocol(card, proto, problems, checked, rules)
    raws: dict[tuple[str, int], list] = {}
    outcomes: dict[int, dict] = {}
    for index, cell in enumerate(card["cells"]):
        if not reference_ok(cell, proto):
            named = proto.references.get(cell.get("reference") or "", {}).get(cell["game"])
            problems.append(
                f"cell {cell['id']}: reference agent {str(cell.get('reference_agent'))[:80]!r}, protocol "
                f"v{proto.version} plays {named!r} as {str(cell.get('reference'))[:40]}"
            )
        raw = _check_cell(card, cell, problems)
        if raw is not None:
            raws.setdefault((cell["game"], cell["players"]), []).append((cell.get("reference"), raw))
            if reference_ok(cell, proto):
                outcomes[index] = raw
    checked.append(f"{len(card['cells'])} cells: every game's digest, each cell's Merkle root and numbers")
    root = rc.merkle_root([c["merkle_root"] for c in card["cells"]])
    if root != card["merkle_root"]:
        problems.append(
            f"the card's Merkle root {card['merkle_root'][:16]}... is not that of its cells ({root[:16]}...)"
        )
    _check_ratings(card, proto, raws, problems)
    checked.append("every group's rating and normalised score, and the aggregate")
    check_card_games(card, folder, proto, outcomes, policy, problems, checked)
    privileged = _check_privileged(card, folder, proto, problems, checked)
    sample_seed = None
    replayed: list[dict] = []
    if sample:
        sample_seed = secrets.randbits(32) if seed is None else seed
        replayed, seen = _replay(card, folder, proto, sample, policy, sample_seed, problems)
        if seen is not None and privileged is None:
            privileged = seen
            if seen != card["policy"]["privileged"]:
                problems.append(
                    f"policy.privileged is {str(card['policy']['privileged']).lower()} on the card; the replayed "
                    f"policy {'reads' if seen else 'does not read'} the true state"
                )
    claimed = [name for name in CLAIMED if card.get(name) is not None]
    if privileged is None:
        claimed.append("privileged")
    return {
        "card": str(path),
        "problems": problems,
        "checked": checked,
        "claimed": claimed,
        "privileged_checked": privileged is not None,
        "replayed": replayed,
        "sample_seed": sample_seed,
    }


def card_protocol(card: dict) -> Protocol:
    """The protocol a card names by its version, where this fruit_envs has it; a `BenchmarkError` listing the
    versions it knows otherwise."""
    version = card["protocol"].get("version")
    try:
        if not isinstance(version, int) or isinstance(version, bool) or not 0 < version < 1000:
            raise ValueError(version)
        return load_protocol(version)
    except (BenchmarkError, FileNotFoundError, TypeError, ValueError):
        from fruit_envs.benchmarks.benchmark.protocol import HERE

        known = sorted(p.stem.removeprefix("protocol_v") for p in HERE.glob("protocol_v*.yaml"))
        raise BenchmarkError(
            f"the card was made under protocol version {quoted(version)}; this fruit_envs knows protocol "
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
                f"environment of {game}: the card says {quoted(card['environments'].get(game))}, "
                f"protocol v{proto.version} pins {want!r}"
            )
    played = {c["game"] for c in card["cells"]}
    stated = card["rules_sha256"]
    if not stated or set(stated) != played:
        problems.append(
            f"rules_sha256 names {sorted(stated)[:6]}; it must give one digest for every game the cells play "
            f"({sorted(played)})"
        )
    if rules:
        for game, digest in sorted(stated.items()):
            if game not in proto.environments:
                problems.append(f"rules digest of {quoted(game)}: not a game of protocol v{proto.version}")
            elif rc.rules_digest(game) != digest:
                problems.append(
                    f"rules of {game}: the installed rules' digest {rc.rules_digest(game)[:12]} is not the card's "
                    f"{digest[:12]} (the games were played by other rules than these)"
                )
        checked.append("the rules' digests: one per game played, each the installed rules'")
    else:
        checked.append("the rules' digests name every game played (not recomputed here)")
    if card["suite"] not in proto.suites:
        problems.append(
            f"suite {quoted(card['suite'])} is not a suite of protocol v{proto.version} ({list(proto.suites)})"
        )
        return
    _check_deviations(card, proto, problems)
    checked.append(
        "protocol version and hash, environment versions, the references, and the deviations (or conformance) "
        "the card's seed, games per cell, references and cells make"
    )


def _check_deviations(card: dict, proto: Protocol, problems: list) -> None:
    """The card's references, cells, deviations and `conforms` against what its seed, games per cell,
    references and cells make (`protocol.run_deviations`, the words a run writes)."""
    suite = card["suite"]
    unknown = [r for r in card["references"] if r not in proto.references]
    if unknown:
        problems.append(f"references {quoted(unknown)}: not references of protocol v{proto.version}")
    references = [r for r in proto.references if r in card["references"]]
    for name in references:
        if card["references"][name] != proto.references[name]:
            problems.append(f"reference {name}: the card's agents are not protocol v{proto.version}'s")
    played = {(c["game"], c["players"]) for c in card["cells"]}
    groups = [g for g in proto.suite_groups(suite) if g in played]
    outside = sorted(played - set(groups))
    if outside:
        problems.append(f"cells of {outside[:4]}: not groups of suite {suite!r}")
    have = {c["id"] for c in card["cells"]}
    skipped = [
        f"{g} {p}p ({g}_{p}p.zip)"
        for g, p in groups
        if p > 1 and "ppo-baseline" in references and rc.cell_id(g, p, "ppo-baseline") not in have
    ]
    want = {
        rc.cell_id(g, p, r)
        for g, p in groups
        for r in (references if p > 1 else [None])
        if not (r == "ppo-baseline" and f"{g} {p}p ({g}_{p}p.zip)" in skipped)
    }
    if want != have:
        problems.append(
            f"cells: the card's groups and references make {sorted(want - have)[:4] or 'no other'} missing, "
            f"{sorted(have - want)[:4] or 'none'} extra"
        )
    derived = run_deviations(proto, suite, card["games_per_cell"], card["seed"], references, groups, skipped)
    if card["deviations"] != derived:
        problems.append(
            f"deviations {str(card['deviations'])[:300]} on the card; its seed, games per cell, references and "
            f"cells make {derived}"
        )
    if card["conforms"] != (not derived):
        problems.append(
            f"the card says it {'conforms' if card['conforms'] else 'does not conform'}; its deviations "
            f"{derived or 'are none'}"
        )


def _check_cell(card: dict, cell: dict, problems: list) -> dict | None:
    """One cell's games against its digests, root and numbers; its raw arrays for the ratings (None: unusable)."""
    name, game, p, ref = cell["id"], cell["game"], cell["players"], cell.get("reference")
    if name != rc.cell_id(game, p, ref):
        problems.append(f"cell {quoted(name)}: its id is not that of {game} {p}p against {quoted(ref)}")
    if (ref is None) != (p == 1):
        problems.append(f"cell {name}: a cell has a reference exactly when it has more than one player")
        return None
    n = per_seat(card["games_per_cell"], p) * p
    if len(cell["digests"]) != n:
        listed = len(cell["digests"])
        problems.append(f"cell {name}: {card['games_per_cell']} games per cell make {n} games, it lists {listed}")
        return None
    scores, winners, truncated, seats = rc.cell_outcomes(cell)
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
    return {"scores": scores, "winners": winners, "truncated": truncated, "policy_seat": seats, "keys": keys}


def _check_ratings(card: dict, proto: Protocol, raws: dict, problems: list) -> None:
    groups = rate_groups(raws, proto)
    stated = {(g.get("game"), g.get("players")): g for g in card["groups"]}
    for group in groups:
        where = (group["game"], group["players"])
        card_group = stated.pop(where, None)
        if card_group is None:
            problems.append(f"group {group['game']} {group['players']}p: its cells are on the card, its rating is not")
            continue
        for key in rc.GROUP_FIELDS:
            if not _same(group.get(key), card_group.get(key)):
                problems.append(
                    f"group {group['game']} {group['players']}p: {key} is {card_group.get(key)!r} on the card, "
                    f"its games give {group.get(key)!r}"
                )
    for game, players in list(stated)[:4]:
        problems.append(f"group {quoted(game)} {players}p: rated on the card, with no cells of its own")
    whole = aggregate(groups)
    stated_aggregate = card.get("aggregate") or {}
    for key in rc.AGGREGATE_FIELDS:
        if not _same(whole.get(key), stated_aggregate.get(key)):
            problems.append(
                f"aggregate {key} is {stated_aggregate.get(key)!r} on the card, its games give {whole.get(key)!r}"
            )


def _check_privileged(card: dict, folder: Path, proto: Protocol, problems: list, checked: list) -> bool | None:
    """`policy.privileged` against what the policy's kind says (None: only the card says it)."""
    known = known_privileged(card, folder, proto)
    if known is None:
        return None
    if known != card["policy"]["privileged"]:
        problems.append(
            f"policy.privileged is {str(card['policy']['privileged']).lower()} on the card; "
            f"{card['policy']['label'][:80]} {'reads' if known else 'does not read'} the true state"
        )
    checked.append("policy.privileged from the policy's kind")
    return known


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, str) or isinstance(a, str):
        return False
    if isinstance(a, (bool, np.bool_)) or isinstance(b, bool):
        return bool(a) == bool(b)
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= VERIFY_TOLERANCE * max(1.0, abs(a), abs(b))


def _replay(
    card: dict, folder: Path, proto: Protocol, sample: int, policy: Any, seed: int, problems: list
) -> tuple[list, bool | None]:
    """Draw `sample` games (seeded by `seed`) and play each drawn game's cell again whole with the policy (a
    cell is one batch, and a sampled policy's draws run across it); every game of a replayed cell is compared.
    Returns per cell played `{"cell", "games", "differ"}`, and whether the policy read the true state."""
    from fruit_envs.benchmarks.benchmark.policies import is_privileged

    source = replay_source(card, folder, proto, policy)
    sizes = [len(cell["digests"]) for cell in card["cells"]]
    total = sum(sizes)
    if not total:
        return [], None
    drawn = np.random.default_rng(seed).choice(total, size=min(sample, total), replace=False)
    chosen = sorted({int(np.searchsorted(np.cumsum(sizes), k, side="right")) for k in drawn})
    replayed, seen = [], None
    for index in chosen:
        cell = card["cells"][index]
        if not reference_ok(cell, proto):
            problems.append(f"cell {cell['id']}: its reference agent is not protocol v{proto.version}'s; not replayed")
            continue
        raw, agent = play_again(card, proto, source, index)
        differ = same_games(card, index, raw)
        replayed.append({"cell": cell["id"], "games": len(cell["digests"]), "differ": differ})
        problems += [
            f"cell {cell['id']}, game {g}: played again with the policy, it gives another game than the card's"
            for g in differ[:SHOWN]
        ]
        if len(differ) > SHOWN:
            problems.append(f"cell {cell['id']}: and {len(differ) - SHOWN} more games played otherwise")
        seen = bool(seen) or is_privileged(agent)
    return replayed, seen


def verify_summary(result: dict) -> str:
    """What `verify` prints."""
    lines = [f"card {result['card']}"]
    lines += [f"  checked: {line}" for line in result["checked"]]
    if result["claimed"]:
        lines.append(f"  claimed, not checked: {', '.join(result['claimed'])}")
    if result["sample_seed"] is not None:
        games = sum(r["games"] for r in result["replayed"])
        same = games - sum(len(r["differ"]) for r in result["replayed"])
        lines.append(
            f"  played again with the policy: {len(result['replayed'])} cells ({games} games), {same} games identical "
            f"(sample seed {result['sample_seed']}: --sample-seed {result['sample_seed']} draws them again)"
        )
    if result["problems"]:
        lines.append(f"FAILED: {len(result['problems'])} difference{'s' * (len(result['problems']) > 1)}")
        lines += [f"  - {problem}" for problem in result["problems"]]
    else:
        lines.append(
            "verified: every number the card states follows from its games, and its games from the rules"
            + (", and the cells played again are the card's" if result["replayed"] else "")
        )
    return "\n".join(lines)
