"""The leaderboard: result cards in the repository (`leaderboard/protocol_v1/<entry>/card.json`), checked and
ranked.

    fruit-envs-benchmark leaderboard                       # the checkout's leaderboard/protocol_v1/, as Markdown
    fruit-envs-benchmark leaderboard FOLDER --format json --out leaderboard.json

Each entry is a folder holding its card (and, optionally, `entry.json`: `{"name", "code", "notes"}`, and the model
file a card's games came from, found by its hash when the card is replayed). Every card is verified for
consistency (`verify`, without replays) before it is shown. The table ranks entries by the card's aggregate
(mean normalised score, random = 0, the reference search = 100) with its interval, per game the mean of its
player counts' normalised scores, and a rating fitted over every card at once: one Bradley-Terry fit (Elo
scale, random = 0) over all the cards' games against the shared references, the references' ratings fitted with
the entries', with bootstrap intervals (games resampled within each cell; a fixed seed, so the same cards give
the same table). Entries that read the true state (privileged) are ranked apart, and so are partial entries
(cards that do not conform: some games only, other seeds or games per cell), whose aggregate covers only
what they played; the joint rating, fitted on the games each played, compares them all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.play import pair_outcomes
from fruit_envs.benchmarks.benchmark.ratings import fit_joint
from fruit_envs.benchmarks.benchmark.reports import _num

JOINT_BOOTSTRAP, JOINT_BOOTSTRAP_SEED = 200, 2026
JOINT_FIXED = {"ref:random": 0.0}  # the scale's zero: the random reference
SECTIONS = ("seat", "privileged", "partial")  # sees its seat only; reads the true state; not the suite as written
SECTION_TITLES = {
    "seat": "Policies that see only their seat",
    "privileged": "Privileged: reads the true state",
    "partial": "Partial entries: not the suite as written (some games, other seeds or games per cell), ranked apart",
}


def leaderboard_folder(protocol: int = 1) -> Path:
    """The checkout's `leaderboard/protocol_vN/`."""
    from fruit_envs._checkout import checkout_root

    root = checkout_root()
    if root is None:
        raise BenchmarkError("the leaderboard lives in a checkout of the repository; give its folder (FOLDER)")
    return Path(root) / "leaderboard" / f"protocol_v{protocol}"


def leaderboard_entries(folder: str | Path) -> list[dict]:
    """Every entry of a leaderboard folder, sorted by name: `{"name", "folder", "card", "entry", "problems"}`;
    a malformed card is a `BenchmarkError` naming its file (the leaderboard shows only cards it can read)."""
    from fruit_envs.benchmarks.benchmark.verify import verify_card

    folder = Path(folder)
    if not folder.is_dir():
        raise BenchmarkError(f"leaderboard folder {folder} does not exist")
    out = []
    for card_path in sorted(folder.glob(f"*/{rc.CARD_FILE}")):
        card = rc.load_card(card_path)
        extra_path = card_path.parent / "entry.json"
        try:
            extra = json.loads(extra_path.read_text()) if extra_path.is_file() else {}
        except json.JSONDecodeError as error:
            raise BenchmarkError(f"{extra_path} is not JSON: {error}") from None
        if not isinstance(extra, dict):
            raise BenchmarkError(f"{extra_path} must be a JSON object (name, code, notes)")
        result = verify_card(card_path, rules=False)
        out.append(
            {
                "name": str(extra.get("name") or card_path.parent.name),
                "folder": card_path.parent.name,
                "card": card,
                "entry": extra,
                "problems": result["problems"],
            }
        )
    return out


def pair_results(listed: list[dict]) -> tuple[list[tuple[str, str, np.ndarray]], list[str]]:
    """Each entry's games against each reference, as `(entry, reference, points per game)` (1 a win, 0.5 a tie,
    0 a loss, averaged over the game's opponents), finished games only; and the entries' player names."""
    rows = []
    for item in listed:
        for cell in item["card"]["cells"]:
            ref, p = cell.get("reference"), cell["players"]
            if ref is None or p < 2:
                continue
            scores, winners, truncated, seats = rc.cell_outcomes(cell)
            points = np.nanmean(pair_outcomes(scores, winners, seats), axis=1)[~truncated]
            rows.append((f"entry:{item['name']}", f"ref:{ref}", points))
    return rows, [f"entry:{item['name']}" for item in listed]


def joint_ratings(listed: list[dict]) -> dict[str, dict]:
    """One Bradley-Terry fit over every card's games against the shared references (random = 0), with 95%
    bootstrap intervals: `{player: {"rating", "low", "high"}}` for entries (`entry:NAME`) and references
    (`ref:NAME`). Deterministic for a given set of cards."""
    rows, _ = pair_results(listed)
    rows = sorted((r for r in rows if len(r[2])), key=lambda r: (r[0], r[1]))  # the cards' order does not matter
    if not rows:
        return {}
    point = fit_joint([(a, b, float(x.sum()), float(len(x))) for a, b, x in rows], JOINT_FIXED)
    rng = np.random.default_rng(JOINT_BOOTSTRAP_SEED)
    draws: dict[str, list[float]] = {name: [] for name in point}
    for _ in range(JOINT_BOOTSTRAP):
        again = []
        for a, b, x in rows:
            picked = x[rng.integers(0, len(x), len(x))]
            again.append((a, b, float(picked.sum()), float(len(x))))
        for name, value in fit_joint(again, JOINT_FIXED).items():
            draws[name].append(value)
    return {
        name: {
            "rating": point[name],
            "low": float(np.percentile(draws[name], 2.5)),
            "high": float(np.percentile(draws[name], 97.5)),
        }
        for name in point
    }


def leaderboard_table(listed: list[dict]) -> dict:
    """The leaderboard as data: one row per entry (ranked within its section) and the references' fitted ratings."""
    ratings = joint_ratings(listed)
    rows = []
    for item in listed:
        card = item["card"]
        per_game: dict[str, list[float]] = {}
        for group in card["groups"]:
            if group.get("normalised") is not None:
                per_game.setdefault(group["game"], []).append(group["normalised"])
        aggregate = card.get("aggregate") or {}
        code = item["entry"].get("code") or (card.get("code") or {}).get("commit")
        rows.append(
            {
                "entry": item["name"],
                "folder": item["folder"],
                "policy": card["policy"]["label"],
                "privileged": bool(card["policy"]["privileged"]),
                "aggregate": aggregate.get("normalised"),
                "aggregate_low": aggregate.get("low"),
                "aggregate_high": aggregate.get("high"),
                "per_game": {game: float(np.mean(values)) for game, values in per_game.items()},
                "joint_rating": ratings.get(f"entry:{item['name']}"),
                "suite": card["suite"],
                "games_per_cell": card["games_per_cell"],
                "conforms": card["conforms"],
                "deviations": card.get("deviations", []),
                "date": card.get("created", "")[:10],
                "wall_seconds": card["compute"].get("wall_seconds"),
                "cores": card["compute"].get("cores"),
                "workers": card["compute"].get("workers"),
                "code": code,
                "merkle_root": card["merkle_root"],
                "verified": not item["problems"],
                "problems": item["problems"],
                "exploitability": _bounds(card.get("exploitability")),
            }
        )
    for row in rows:
        row["section"] = "partial" if not row["conforms"] else ("privileged" if row["privileged"] else "seat")
    unrated = float("-inf")
    rows.sort(
        key=lambda r: (
            SECTIONS.index(r["section"]),
            -(unrated if r["aggregate"] is None else r["aggregate"]),
            r["entry"],
        )
    )
    references = {name.removeprefix("ref:"): value for name, value in ratings.items() if name.startswith("ref:")}
    bootstrap = {"replicates": JOINT_BOOTSTRAP, "seed": JOINT_BOOTSTRAP_SEED}
    return {"entries": rows, "references": references, "bootstrap": bootstrap}


GAME_COLUMNS = {"cherry_picking": "CP", "fruit_picking": "FP", "quickity_pickity": "QP", "juicy_fruits": "JF",
              "juicy_fruits_solo": "JF solo"}  # fmt: skip


def leaderboard_markdown(data: dict) -> str:
    """The leaderboard as Markdown, per section (seat-only policies, privileged ones, partial entries): a ranking
    table, then each entry's games and provenance."""
    games = list(GAME_COLUMNS)
    out = []
    for section in SECTIONS:
        rows = [r for r in data["entries"] if r["section"] == section]
        if not rows:
            continue
        out += [f"### {SECTION_TITLES[section]}", ""]
        out += ["| # | entry | policy | aggregate [95%] | joint rating [95%] | card verifies |"]
        out += ["|---:|---|---|---|---|---|"]
        for rank, r in enumerate(rows, 1):
            rating = r["joint_rating"]
            joint = "-" if rating is None else f"{rating['rating']:.0f} [{rating['low']:.0f}, {rating['high']:.0f}]"
            aggregate = (
                "-" if r["aggregate"] is None
                else f"{r['aggregate']:.1f} [{_num(r['aggregate_low'])}, {_num(r['aggregate_high'])}]"
            )  # fmt: skip
            verified = "yes" if r["verified"] else f"**no**: {len(r['problems'])} differences"
            out.append(f"| {rank} | {r['entry']} | `{r['policy']}` | {aggregate} | {joint} | {verified} |")
        out += ["", "| entry | " + " | ".join(GAME_COLUMNS[g] for g in games) + " | suite | date | compute | code |"]
        out.append("|---|" + "---:|" * len(games) + "---|---|---|---|")
        for r in rows:
            suite = r["suite"] + ("" if r["conforms"] else f" ({'; '.join(r['deviations'])})")
            compute = "-" if r["wall_seconds"] is None else f"{r['wall_seconds'] / 60:.1f} min, {r['workers']} workers"
            per_game = " | ".join(_num(r["per_game"].get(g)) for g in games)
            out.append(f"| {r['entry']} | {per_game} | {suite} | {r['date']} | {compute} | {_code(r['code'])} |")
        out.append("")
    out += _bounds_markdown([r for r in data["entries"] if r.get("exploitability")], games)
    if data["references"]:
        fitted = sorted(data["references"].items())
        refs = ", ".join(f"{name} {v['rating']:.0f} [{v['low']:.0f}, {v['high']:.0f}]" for name, v in fitted)
        out += [f"The references in the joint fit (random = 0): {refs}.", ""]
    return "\n".join(out)


def _bounds(bound: dict | None) -> dict | None:
    """A card's exploitability bounds (`--exploitability`) as the leaderboard shows them: the method, its budget
    and per group (`game:players`) the sum of the seats' gains with its interval."""
    if not bound or not bound.get("groups"):
        return None
    groups = {f"{g['game']}:{g['players']}": [g["sum"], g["sum_low"], g["sum_high"]] for g in bound["groups"]}
    return {"method": bound["method"], "budget": bound["budget"], "groups": groups}


def _bounds_markdown(rows: list[dict], games: list[str]) -> list[str]:
    """The entries' exploitability bounds, one column per game and player count any of them measured."""
    if not rows:
        return []
    order = {game: k for k, game in enumerate(games)}

    def place(key: str) -> tuple:
        game, players = key.split(":")
        return order.get(game, len(order)), int(players)

    keys = sorted({key for r in rows for key in r["exploitability"]["groups"]}, key=place)
    columns = [f"{GAME_COLUMNS.get(k.split(':')[0], k.split(':')[0])} {k.split(':')[1]}p" for k in keys]
    out = [
        "### Exploitability bounds",
        "",
        "From the cards that carry them (`--exploitability`): per game and player count, the sum over the seats of "
        "a best response's gain over the policy's own value (outcome utility, 95% interval), a lower bound on "
        "NashConv; a sum at or below 0 means that response found nothing (the bound is 0).",
        "",
        "| entry | method | " + " | ".join(columns) + " |",
        "|---|---|" + "---:|" * len(keys),
    ]
    for r in rows:
        bound = r["exploitability"]
        budget = ", ".join(f"{k} {v}" for k, v in bound["budget"].items() if not isinstance(v, (list, dict)))
        cells = []
        for key in keys:
            value = bound["groups"].get(key)
            cells.append("-" if value is None else f"{value[0]:.2f} [{value[1]:.2f}, {value[2]:.2f}]")
        out.append(f"| {r['entry']} | {bound['method']} ({budget}) | " + " | ".join(cells) + " |")
    return out + [""]


def _code(code: Any) -> str:
    if not code:
        return "-"
    text = str(code)
    if text.startswith(("http://", "https://")):
        return f"[link]({text})"
    if len(text) >= 7 and all(ch in "0123456789abcdef" for ch in text):
        return f"`{text[:10]}`"  # a commit of this repository
    return text


def leaderboard_main(argv: list[str] | None = None) -> int:
    from fruit_envs._cli import prog

    parser = argparse.ArgumentParser(
        prog=f"{prog('fruit_envs.benchmarks.benchmark')} leaderboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", nargs="?", default=None, help="leaderboard folder (default: the checkout's "
                        "leaderboard/protocol_v1/)")  # fmt: skip
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--out", type=Path, default=None, help="write the table to this file instead of printing it")
    args = parser.parse_args(argv)
    try:
        folder = Path(args.folder) if args.folder else leaderboard_folder()
        data = leaderboard_table(leaderboard_entries(folder))
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = json.dumps(data, indent=2) + "\n" if args.format == "json" else leaderboard_markdown(data)
    if args.out is None:
        print(text)
    else:
        args.out.write_text(text)
        print(f"wrote {args.out}")
    return 1 if any(not r["verified"] for r in data["entries"]) else 0
