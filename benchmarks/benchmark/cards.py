"""Published reference cards: the protocol's references benchmarked as policies, side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.protocol import HERE, Protocol, load_protocol
from fruit_envs.benchmarks.benchmark.reports import RATING_SCALE, _interval, _share
from fruit_envs.benchmarks.benchmark.run import evaluate
from fruit_envs.core import validate

CARDS = ("random", "greedy", "ppo-baseline", "search")
BEST_RESPONSE_CARDS = ("greedy", "ppo-baseline")  # the policies whose exploitability is published
PUBLISHED = HERE / "results" / "benchmark"  # the checkout's published cards, one folder per reference


def reference_cards(
    out: str | Path = PUBLISHED,
    suite: str = "standard",
    names: list[str] | None = None,
    best_response: int | None = None,
    progress: bool = True,
    protocol: int | str | Path | Protocol = 1,
    workers: int | None = 1,
    ray_address: str | None = None,
    exploitability: str | None = None,
    exploitability_players: Any = None,
) -> dict[str, dict]:
    """The report cards of the protocol's references, each played as the policy (`reference:NAME`) under
    `suite` into out/NAME/, with a best response of `best_response` steps (the protocol's `card_steps` when
    None, 0 for none) against greedy and the PPO baselines; then the index out/cards.md (`cards_index`). Each
    card's cells run on `workers` / `ray_address` as in `evaluate`, with its exploitability bounds when
    `exploitability` (`--exploitability`, limited to `exploitability_players`) is given."""
    proto = load_protocol(protocol)
    names = list(CARDS) if names is None else list(names)
    unknown = [n for n in names if n not in CARDS]
    if unknown or not names:
        raise BenchmarkError(f"unknown reference cards {unknown or names}; the cards are {list(CARDS)}")
    steps = int(proto.best_response.get("card_steps", 0)) if best_response is None else best_response
    if Path(out).resolve() == PUBLISHED.resolve():
        from fruit_envs._checkout import checkout_root

        if checkout_root() is None:
            raise BenchmarkError(
                "the published cards live in a checkout of the repository, and this fruit_envs is an installed "
                "package; give a folder for the cards (out= / --out DIR)"
            )
    out = validate.writable_dir(out, "cards folder")
    reports = {}
    for name in names:
        reports[name] = evaluate(
            f"reference:{name}",
            suite=suite,
            out=out / name,
            progress=progress,
            best_response=steps if steps and name in BEST_RESPONSE_CARDS else None,
            protocol=proto,
            workers=workers,
            ray_address=ray_address,
            exploitability=exploitability,
            exploitability_players=exploitability_players,
        )
    cards_index(out)
    return reports


def load_cards(out: str | Path = PUBLISHED) -> dict[str, dict]:
    """The reports of the reference cards in `out` (out/NAME/report.json), in the order of CARDS."""
    out = Path(out)
    return {n: json.loads((out / n / "report.json").read_text()) for n in CARDS if (out / n / "report.json").is_file()}


def cards_markdown(reports: dict[str, dict]) -> str:
    """The cards side by side: each reference's rating per game and player count (RATING_SCALE, 95%
    bootstrap interval), its aggregate normalised score, and the best responses' win shares against it."""
    names = list(reports)
    first = next(iter(reports.values()))
    lines = [
        f"Protocol v{first['protocol']} (`{first['protocol_file']}`, sha256 {first['protocol_sha256'][:12]}), suite "
        f"`{first['suite']}`, {first['games_per_cell']} games per cell, fruit_envs {first['package']['fruit_envs']}"
        + (f" at {first['package']['git']['commit'][:7]}" if first["package"].get("git") else "")
        + ". Each reference plays as the policy (`reference:NAME`) against all four; its own cell is a mirror match.",
        "",
        "| game | players | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    groups = {(g["game"], g["players"]): {} for r in reports.values() for g in r["groups"]}
    for name, report in reports.items():
        for g in report["groups"]:
            groups[(g["game"], g["players"])][name] = g
    for (game, p), by_name in groups.items():
        shown = []
        for name in names:
            g = by_name.get(name)
            if g is None:
                shown.append("-")
            elif p == 1:
                cell = next(c for c in reports[name]["cells"] if c["game"] == game and c["players"] == 1)
                shown.append(f"mean score {_interval(cell['mean_score'], cell['score_low'], cell['score_high'], 2)}")
            else:
                shown.append(_interval(g["rating"], g["rating_low"], g["rating_high"]))
        lines.append(f"| {game} | {p} | " + " | ".join(shown) + " |")
    lines.append(
        "| **aggregate normalised score** | | "
        + " | ".join(
            _interval(a.get("normalised"), a.get("low"), a.get("high"), 1)
            for a in (reports[n]["aggregate"] or {} for n in names)
        )
        + " |"
    )
    lines += [
        "",
        f"Ratings: {RATING_SCALE} (two players and more; not the tournaments' Elo, whose field mean is 1500); "
        "the score attack: mean score (95% CI).",
    ]
    responses = {n: r["best_response"] for n, r in reports.items() if r.get("best_response")}
    if responses:
        steps = {b["steps"] for rows in responses.values() for b in rows}
        lines += [
            "",
            "Best response (exploitability proxy): a fresh MaskablePPO trained for "
            f"{', '.join(map(str, sorted(steps)))} decisions against the frozen policy, then played against it "
            "with seats rotated; its win share over finished games (95% Wilson). Near 0.5 or below: the policy "
            "is hard to exploit at this budget.",
            "",
            "| game | " + " | ".join(f"best response to {n}" for n in responses) + " |",
            "|---|" + "---|" * len(responses),
        ]
        games = list(dict.fromkeys(b["game"] for rows in responses.values() for b in rows))
        for game in games:
            row = [next((_share(b) for b in responses[n] if b["game"] == game), "-") for n in responses]
            lines.append(f"| {game} | " + " | ".join(row) + " |")

    def load(r: dict) -> str:
        average = r["machine"].get("load_average")
        return f"{average[0]:.1f}" if average else "?"

    wall = ", ".join(
        f"{n} {r['wall_seconds'] / 60:.1f} min ({r['machine']['cores']} cores, load average {load(r)} at the start)"
        for n, r in reports.items()
    )
    lines += ["", f"Wall time of each card, best response included: {wall}."]
    return "\n".join(lines) + "\n"


def cards_index(out: str | Path = PUBLISHED) -> Path:
    """Write out/cards.md from the cards in `out`; for the checkout's published cards also refresh the
    `<!-- cards -->` blocks of docs/benchmark.md and README.md."""
    from fruit_envs._checkout import checkout_root, has_block, replace_block

    out = Path(out)
    reports = load_cards(out)
    if not reports:
        raise BenchmarkError(f"no reference cards in {out} (expected {', '.join(f'{n}/report.json' for n in CARDS)})")
    table = cards_markdown(reports)
    (out / "cards.md").write_text("# Reference cards\n\n" + table)
    root = checkout_root()
    if root is not None and out.resolve() == PUBLISHED.resolve():
        for page, body in ((root / "docs" / "benchmark.md", table), (root / "README.md", cards_summary(reports))):
            if has_block(page, "cards"):
                replace_block(page, "cards", body)
    return out / "cards.md"


def cards_summary(reports: dict[str, dict]) -> str:
    """The README's short form of the cards: each reference's aggregate normalised score."""
    first = next(iter(reports.values()))
    lines = ["| reference | aggregate normalised score (95% CI) |", "|---|---|"]
    for name, report in reports.items():
        a = report["aggregate"] or {}
        lines.append(f"| {name} | {_interval(a.get('normalised'), a.get('low'), a.get('high'), 1)} |")
    lines += [
        "",
        f"Protocol v{first['protocol']}, suite `{first['suite']}` (random = 0, search = 100; every game and player "
        "count in [docs/benchmark.md](docs/benchmark.md#published-reference-cards)).",
    ]
    return "\n".join(lines) + "\n"
