"""The leaderboard: result cards in the repository (`leaderboard/protocol_v1/<entry>/card.json`), checked and
ranked.

    fruit-envs-benchmark leaderboard                       # the checkout's leaderboard/protocol_v1/, as Markdown
    fruit-envs-benchmark leaderboard FOLDER --format json --out leaderboard.json

Each entry is a folder holding its card and its games (`games.npz`), optionally `entry.json` (`{"name", "code",
"notes"}`) and the policy as data (`model.json` and its weights, found by the card's hash when its cells are
played again; a `.zip` there is never loaded). Every card is verified (`verify`, without playing the policy:
its numbers from its games, its games through the rules) before it is shown, and what verify cannot check
(the date, compute and code a card names, its exploitability bounds, a privileged flag only the card states)
is shown as claimed. Everything an entry says is escaped where it is shown.

The table ranks entries by the card's aggregate (mean normalised score, random = 0, the reference search = 100)
with its interval, per game the mean of its player counts' normalised scores, and a rating fitted over every card
at once: one Bradley-Terry fit (Elo scale, random = 0) over all the cards' games against the shared references, the
references' ratings fitted with the entries', with bootstrap intervals (games resampled within each cell; a fixed
seed, so the same cards give the same table). Entries that read the true state (privileged) are ranked apart, and
so are partial entries (cards that do not conform: some games only, other seeds or games per cell), whose aggregate
covers only what they played; the joint rating, fitted on the games each played, compares them all.
"""

from __future__ import annotations

import argparse
import html
import json
import re
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
    """Every entry of a leaderboard folder, sorted by folder: `{"name", "folder", "card", "entry", "problems",
    "claimed", "privileged_checked"}`; a malformed card or entry.json is a `BenchmarkError` naming its file (the
    leaderboard shows only cards it can read)."""
    from fruit_envs.benchmarks.benchmark.verify import verify_card

    folder = Path(folder)
    if not folder.is_dir():
        raise BenchmarkError(f"leaderboard folder {folder} does not exist")
    out = []
    for card_path in sorted(folder.glob(f"*/{rc.CARD_FILE}")):
        card = rc.load_card(card_path)
        extra = _entry(card_path.parent / "entry.json")
        result = verify_card(card_path, rules=False)
        out.append(
            {
                "name": extra.get("name") or card_path.parent.name,
                "folder": card_path.parent.name,
                "card": card,
                "entry": extra,
                "problems": result["problems"],
                "claimed": result["claimed"],
                "privileged_checked": result["privileged_checked"],
            }
        )
    return out


ENTRY_FIELDS = ("name", "code", "notes")
ENTRY_LIMIT = 1 << 16  # bytes of an entry.json: a name, a link and a few lines of notes


def _entry(path: Path) -> dict:
    """An entry's `entry.json` (`{}` where there is none): an object of text fields, each checked."""
    if not path.is_file():
        return {}
    try:
        data = path.read_bytes()
        if len(data) > ENTRY_LIMIT:
            raise ValueError(f"over {ENTRY_LIMIT} bytes")
        extra = json.loads(data)
    except RecursionError:
        raise BenchmarkError(f"{path} is not an entry: its JSON nests too deep") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BenchmarkError(f"{path} is not JSON: {str(error)[:200]}") from None
    if not isinstance(extra, dict):
        raise BenchmarkError(f"{path} must be a JSON object ({', '.join(ENTRY_FIELDS)})")
    for key in ENTRY_FIELDS:
        if extra.get(key) is not None and not isinstance(extra[key], str):
            raise BenchmarkError(f"{path}: {key} must be text")
    return {key: extra[key] for key in ENTRY_FIELDS if extra.get(key)}


def pair_results(listed: list[dict]) -> tuple[list[tuple[str, str, np.ndarray]], list[str]]:
    """Each entry's games against each reference, as `(entry, reference, points per game)` (1 a win, 0.5 a tie,
    0 a loss, averaged over the game's opponents), finished games only; and the entries' player names (one per
    folder: two entries of the same name stay two players)."""
    rows = []
    for item in listed:
        for cell in item["card"]["cells"]:
            ref, p = cell.get("reference"), cell["players"]
            if ref is None or p < 2:
                continue
            scores, winners, truncated, seats = rc.cell_outcomes(cell)
            points = np.nanmean(pair_outcomes(scores, winners, seats), axis=1)[~truncated]
            rows.append((f"entry:{item['folder']}", f"ref:{ref}", points))
    return rows, [f"entry:{item['folder']}" for item in listed]


def joint_ratings(listed: list[dict]) -> dict[str, dict]:
    """One Bradley-Terry fit over every card's games against the shared references (random = 0), with 95%
    bootstrap intervals: `{player: {"rating", "low", "high"}}` for entries (`entry:FOLDER`) and references
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
                "joint_rating": ratings.get(f"entry:{item['folder']}"),
                "suite": card["suite"],
                "games_per_cell": card["games_per_cell"],
                "conforms": card["conforms"],
                "deviations": card.get("deviations", []),
                "date": card["created"][:10],
                "wall_seconds": card["compute"].get("wall_seconds"),
                "cores": card["compute"].get("cores"),
                "workers": card["compute"].get("workers"),
                "code": code,
                "merkle_root": card["merkle_root"],
                "verified": not item["problems"],
                "problems": item["problems"],
                "claimed": list(item.get("claimed", [])),  # shown, not checked by verify: marked as claimed
                "privileged_checked": bool(item.get("privileged_checked", False)),
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
            if not r["privileged_checked"]:
                verified += f" (privileged: {'yes' if r['privileged'] else 'no'}, claimed)"
            entry, policy = text(r["entry"]), text(r["policy"])
            out.append(f"| {rank} | {entry} | {policy} | {aggregate} | {joint} | {verified} |")
        columns = " | ".join(GAME_COLUMNS[g] for g in games)
        out += ["", f"| entry | {columns} | suite | date (claimed) | compute (claimed) | code (claimed) |"]
        out.append("|---|" + "---:|" * len(games) + "---|---|---|---|")
        for r in rows:
            suite = text(r["suite"] + ("" if r["conforms"] else f" ({'; '.join(r['deviations'])})"))
            compute = "-" if r["wall_seconds"] is None else f"{r['wall_seconds'] / 60:.1f} min, {r['workers']} workers"
            per_game = " | ".join(_num(r["per_game"].get(g)) for g in games)
            row = f"| {text(r['entry'])} | {per_game} | {suite} | {text(r['date'])} | {compute} | {_code(r['code'])} |"
            out.append(row)
        out.append("")
    out += _bounds_markdown([r for r in data["entries"] if r.get("exploitability")], games)
    if data["references"]:
        fitted = sorted(data["references"].items())
        refs = ", ".join(f"{name} {v['rating']:.0f} [{v['low']:.0f}, {v['high']:.0f}]" for name, v in fitted)
        out += [
            "**Joint rating**: one Bradley-Terry fit (Elo scale) of every card's games at once, entries and the "
            "protocol's references together, with the random *reference* pinned at 0 as in the protocol. Each entry "
            "is rated from its own games, so random's card lands near 0 but not at it (it is an entry like any "
            "other, rated from a sample of games), and adding an entry refits everyone, moving the others by a few "
            "points. A card's aggregate (normalised: random 0, search 100, from its own games against the anchors "
            "the protocol publishes) is its own and never moves. The references in this fit: "
            f"{text(refs)}.",
            "",
        ]
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
        game, _, players = key.rpartition(":")
        return order.get(game, len(order)), int(players), game

    keys = sorted({key for r in rows for key in r["exploitability"]["groups"]}, key=place)
    columns = [
        text(f"{GAME_COLUMNS.get(k.rpartition(':')[0], k.rpartition(':')[0])} {k.rpartition(':')[2]}p") for k in keys
    ]
    out = [
        "### Exploitability bounds (claimed)",
        "",
        "From the cards that carry them (`--exploitability`), as the cards state them: `verify` does not run the "
        "responses again. Per game and player count, the sum over the seats of a best response's gain over the "
        "policy's own value (outcome utility, 95% interval), a lower bound on NashConv; a sum at or below 0 means "
        "that response found nothing (the bound is 0).",
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
        out.append(f"| {text(r['entry'])} | {text(bound['method'])} ({text(budget)}) | " + " | ".join(cells) + " |")
    return out + [""]


_MARKUP = str.maketrans({ch: f"&#{ord(ch)};" for ch in "|[]`{}\\"})
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/%+=-]*)?(?:\?[A-Za-z0-9._~/%+=&;-]*)?")


def text(value: Any) -> str:
    """Any text from a card or an entry as it may stand in a Markdown table cell: HTML escaped, and the marks
    that would make a link, an attribute list, code or another cell shown as themselves."""
    plain = " ".join(str(value).split())
    return html.escape(plain, quote=True).translate(_MARKUP)


def _code(code: Any) -> str:
    """Where an entry's code is: a plain http(s) link, a commit of this repository, or escaped text."""
    if not code:
        return "-"
    shown = str(code)
    if _URL.fullmatch(shown) and len(shown) <= 300:
        return f"[link]({html.escape(shown, quote=True)})"
    if 7 <= len(shown) <= 40 and all(ch in "0123456789abcdef" for ch in shown):
        return f"`{shown[:10]}`"  # a commit of this repository
    return text(shown)


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
    from fruit_envs.benchmarks.benchmark.cli import CARD_ERRORS

    try:
        folder = Path(args.folder) if args.folder else leaderboard_folder()
        data = leaderboard_table(leaderboard_entries(folder))
    except BenchmarkError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except CARD_ERRORS as error:  # data no check foresaw: one line, never a traceback
        print(f"error: the leaderboard cannot be built: {type(error).__name__}: {str(error)[:300]}", file=sys.stderr)
        return 2
    text = json.dumps(data, indent=2) + "\n" if args.format == "json" else leaderboard_markdown(data)
    if args.out is None:
        print(text)
    else:
        args.out.write_text(text)
        print(f"wrote {args.out}")
    return 1 if any(not r["verified"] for r in data["entries"]) else 0
