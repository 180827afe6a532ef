"""The report card: its warnings, report.md, report.json, report.png and the terminal's closing table."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

# The benchmark's rating scale, named wherever a rating is printed: not the tournaments' Elo (field mean 1500)
RATING_SCALE = "protocol rating, Elo scale, random = 0"
TRUNCATION_WARNING = 0.10  # a cell with a larger share of truncated games is flagged (docs/benchmark.md)


def report_warnings(report: dict) -> list[str]:
    """What the numbers cannot measure, one line each: cells whose truncated share is over TRUNCATION_WARNING
    (each cell gets `truncation_warning`), ratings set by the prior, intervals the games cannot give."""
    lines = []
    for c in report["cells"]:
        c["truncation_warning"] = c["truncated_share"] > TRUNCATION_WARNING
        if c["truncation_warning"]:
            against = f" against {c['reference']}" if c["reference"] else ""
            lines.append(
                f"{c['game']} {c['players']}p{against}: {c['truncated']} of {c['games']} games truncated "
                f"({c['truncated_share']:.0%}, over the {TRUNCATION_WARNING:.0%} threshold): the numbers describe only "
                f"the finished games, and a policy that stalls where it would lose looks better than it is"
            )
    for g in report["groups"]:
        if g.get("prior_dominated"):
            lines.append(f"{g['game']} {g['players']}p: rating {g['rating']:.0f} ({RATING_SCALE}) is {g['prior_note']}")
        if g.get("interval", "").startswith("none"):
            lines.append(f"{g['game']} {g['players']}p: no interval ({g['interval']})")
    return lines


def _share(row: dict) -> str:
    if row.get("win_share") is None:
        return "-"
    return f"{row['win_share']:.3f} ({row['win_low']:.2f}-{row['win_high']:.2f})"


def _num(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _interval(value: Any, low: Any, high: Any, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f} ({low:.{digits}f} to {high:.{digits}f})"


def protocol_line(report: dict) -> str:
    envs = ", ".join(report["environments"].values())
    conform = "conforms" if report["conforms"] else "DOES NOT CONFORM (" + "; ".join(report["deviations"]) + ")"
    if report.get("status", "complete") != "complete":  # a stopped run's cells are not the suite: never "conforms"
        conform = f"{report['status'].upper()} before the end, so it is not a result of the suite" + (
            "" if report["conforms"] else " (and would not conform: " + "; ".join(report["deviations"]) + ")"
        )
    git = report["package"].get("git", {}).get("commit", "")
    return (
        f"Protocol v{report['protocol']} ({report['protocol_file']}, sha256 {report['protocol_sha256'][:12]}), "
        f"suite {report['suite']}, {report['games_per_cell']} games per cell, seed {report['seed']}; "
        f"fruit_envs {report['package']['fruit_envs']}{f' (git {git[:10]})' if git else ''}; {envs}; run {conform}"
    )


def _anchors(group: dict) -> str:
    """The references' anchors of a group: ratings, or mean scores for the one-player game."""
    digits = 2 if group["players"] == 1 else 0
    shown = [f"{n} {_num(v, digits)}" for n, v in (group.get("anchors") or {}).items()]
    return ", ".join(shown) or "-"


def _part(group: dict) -> str:
    """A group's part in the aggregate: its weight, contribution and how far it moves the aggregate."""
    if group.get("aggregate_contribution") is None:
        return "not in it"
    moves = (
        ""
        if group["aggregate_shift"] is None
        else f"; with it the aggregate is {group['aggregate_shift']:+.1f} from the other groups' mean"
    )
    return f"{group['aggregate_weight']:.2f} x {group['normalised']:.1f} = {group['aggregate_contribution']:.1f}{moves}"


def _flag(cell: dict) -> str:
    return " (high: see warnings)" if cell.get("truncation_warning") else ""


def _notes(group: dict) -> list[str]:
    """What qualifies a group's numbers: a rating set by the prior, an interval not from the bootstrap, sweeps."""
    notes = [] if not group.get("prior_dominated") else [str(group["prior_note"])]
    if group.get("interval") and group["interval"] != "bootstrap over games":
        notes.append(f"interval: {group['interval']}")
    if group.get("interval") == "bootstrap over games":  # a cell whose games all ended alike adds no spread
        notes += [f"{result} against {ref}" for ref, result in (group.get("sweeps") or {}).items()]
    return notes


def markdown(report: dict) -> str:
    """report.md: the protocol line, the aggregate, one table per game and player count."""
    policy = report["policy"]
    tag = " [privileged]" if policy["privileged"] else ""
    lines = [f"# Benchmark of {policy['label']}{tag}", "", protocol_line(report), ""]
    if policy["privileged"]:
        lines += [
            "**Privileged policy**: it reads the true game state (`needs_state`), hidden parts included; its "
            "numbers are ranked apart from policies that see only their own observation.",
            "",
        ]
    if report["status"] != "complete":
        lines += [f"**Run {report['status']}**: {report['error']}", "", "The tables hold the cells that finished.", ""]
    agg = report["aggregate"] or {}
    lines += [
        f"**Aggregate** (mean normalised score over {agg.get('groups', 0)} of {agg.get('of', 0)} game and player "
        f"count groups; random = 0, {report['scale_reference']} = 100; 95% bootstrap interval): "
        f"{_interval(agg.get('normalised'), agg.get('low'), agg.get('high'), 1)}",
        "",
    ]
    if report.get("warnings"):
        lines += ["**Warnings** (what these numbers cannot measure):", ""]
        lines += [f"* {line}" for line in report["warnings"]] + [""]
    lines += [
        f"| game | players | rating ({RATING_SCALE}; 95% CI) | references' anchors (same scale; one player: mean "
        "score) | normalised (95% CI) | in the aggregate: weight x normalised = contribution; how far it moves it | "
        "rated against | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in report["groups"]:
        against = ", ".join(g["rated_against"]) or ("(mean score)" if g["players"] == 1 else "no anchored reference")
        lines.append(
            f"| {g['game']} | {g['players']} | {_interval(g['rating'], g['rating_low'], g['rating_high'])} | "
            f"{_anchors(g)} | {_interval(g['normalised'], g['normalised_low'], g['normalised_high'], 1)} | "
            f"{_part(g)} | {against} | {'; '.join(_notes(g)) or '-'} |"
        )
    for (game, p), cells in _by_group(report["cells"]).items():
        lines += ["", f"## {game}, {p} player{'s' if p > 1 else ''}", ""]
        if p == 1:
            c = cells[0]
            lines += [
                "| games | mean score (95% CI) | truncated |",
                "|---|---|---|",
                f"| {c['games']} | {_interval(c['mean_score'], c['score_low'], c['score_high'], 2)} | "
                f"{c['truncated']}{_flag(c)} |",
            ]
            continue
        lines += [
            "| reference | games | W/D/L | win share of finished games (95% Wilson) | mean score margin | "
            "mean rank | truncated share |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in cells:
            lines.append(
                f"| {c['reference']} | {c['games']} | {c['wins']}/{c['draws']}/{c['losses']} | {_share(c)} | "
                f"{_num(c['mean_margin'])} | {_num(c['mean_rank'], 2)} | {c['truncated_share']:.3f}{_flag(c)} |"
            )
    if report.get("best_response"):
        lines += [
            "",
            "## Best response (exploitability proxy)",
            "",
            "A fresh MaskablePPO trained against the frozen policy; its win share against it (95% Wilson).",
            "",
            "| game | steps | games | W/D/L | best response's win share |",
            "|---|---|---|---|---|",
        ]
        for b in report["best_response"]:
            lines.append(
                f"| {b['game']} | {b['steps']} | {b['games']} | {b['wins']}/{b['draws']}/{b['losses']} | {_share(b)} |"
            )
    lines += exploitability_lines(report.get("exploitability"))
    lines += [
        "",
        f"Wall time {report.get('wall_seconds', 0):.0f} s on {report['machine']['platform']} "
        f"({report['machine']['cores']} cores), started {report['started']}.",
    ]
    return "\n".join(lines) + "\n"


def exploitability_lines(bound: dict | None) -> list[str]:
    """report.md's section on a per-seat best response, local (`--exploitability lbr`) or trained (`br`): each
    seat's gain (a trained one's chosen warm start) and their sum."""
    if not bound or bound.get("method") not in ("lbr", "br"):
        return []
    budget = bound["budget"]
    bounds = (
        "A gain is a lower bound on what a best response gains there (a negative one: this response found "
        "nothing); the sum over the seats bounds NashConv from below. 95% intervals."
    )
    if bound["method"] == "lbr":
        title = "local best response"
        method = (
            f"A particle local best response ({budget['particles']} positions per decision, no training) in each "
            f"seat against the policy in every other, {budget['games_per_seat']} games per seat"
            + (
                f"; its positions drawn from {budget['filter_size']} per game its seat cannot tell apart from the true "
                "one, weighted by the policy's probability of what the seat saw happen"
                if budget.get("filter_size")
                else ""
            )
        )
    else:
        title = "trained best response per seat"
        method = (
            f"A MaskablePPO trained for {budget['steps']} decisions in each seat against the policy in every other, "
            f"from each warm start ({', '.join(budget['starts'])}; the best, shown in brackets, chosen on "
            f"{budget['games_per_seat']} games), then {budget['games_per_seat']} fresh games per seat"
        )
    lines = [
        "",
        f"## Exploitability: {title}",
        "",
        f"{method}; its mean outcome (+1 win, -1 loss, 0 draw or truncated) less the policy's own in that seat over "
        f"the same deals. {bounds}",
        "",
        "| game | players | gain per seat | sum |",
        "|---|---|---|---|",
    ]
    for g in bound["groups"]:
        seats = ", ".join(
            f"{r['seat']}: {_interval(r['gain'], r['gain_low'], r['gain_high'], 2)}"
            + (f" ({r['start']})" if r.get("start") else "")
            for r in g["seats"]
        )
        total = _interval(g["sum"], g["sum_low"], g["sum_high"], 2)
        lines.append(f"| {g['game']} | {g['players']} | {seats} | {total} |")
    return lines


def _by_group(cells: list[dict]) -> dict[tuple[str, int], list[dict]]:
    groups: dict[tuple[str, int], list[dict]] = {}
    for c in cells:
        groups.setdefault((c["game"], c["players"]), []).append(c)
    return groups


def reference_shown(cell: dict) -> str:
    """A cell's reference as the terminal names it: with its pinned version where the protocol plays one
    (`ppo-baseline@1`, not the shipped `ppo-baseline` a policy may also be)."""
    name, agent = cell["reference"], cell.get("reference_agent") or ""
    return agent if agent.startswith(f"{name}@") else name


def summary_table(report: dict) -> str:
    """The terminal's closing table: one line per cell, then the ratings and the aggregate."""
    rows = [("game", "players", "reference", "win share (95% CI)", "margin", "rank", "truncated")]
    for c in report["cells"]:
        if c["players"] == 1:
            rows.append((c["game"], "1", "(alone)", f"mean score {c['mean_score']:.2f}", "-", "-", str(c["truncated"])))
        else:
            rows.append(
                (
                    c["game"],
                    str(c["players"]),
                    reference_shown(c),
                    _share(c),
                    _num(c["mean_margin"]),
                    _num(c["mean_rank"], 2),
                    f"{c['truncated_share']:.3f}",
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    text = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    text.append("")
    for g in report["groups"]:
        rating = (
            f"mean score {g['mean_score']:.2f} (reference mean scores: {_anchors(g)})"
            if g["players"] == 1 and g.get("mean_score") is not None
            else f"rating {_interval(g['rating'], g['rating_low'], g['rating_high'])} ({RATING_SCALE}; anchors: "
            f"{_anchors(g)})"
        )
        text.append(
            f"{g['game']} {g['players']}p: {rating}, "
            f"normalised {_interval(g['normalised'], g['normalised_low'], g['normalised_high'], 1)}, "
            f"in the aggregate {_part(g)}"
        )
    agg = report["aggregate"] or {}
    text.append(f"aggregate normalised score: {_interval(agg.get('normalised'), agg.get('low'), agg.get('high'), 1)}")
    text += [f"warning: {line}" for line in report.get("warnings") or []]
    if report["policy"]["privileged"]:
        text.append("PRIVILEGED policy (reads the true state): ranked apart from observation-only policies")
    for b in report.get("best_response") or []:
        text.append(f"best response in {b['game']} ({b['steps']} steps): win share {_share(b)}")
    bound = report.get("exploitability") or {}
    method = {"lbr": "local best response", "br": "trained best response"}.get(bound.get("method"))
    if method and bound.get("groups"):
        text.append(
            f"exploitability ({method}): each seat's gain is what a response in that seat wins over the policy's "
            "own value there, in outcomes (+1 win, -1 loss: at most 2 per seat); their sum is a lower bound on "
            "NashConv (0: nothing found; at most 2 x players)"
        )
    for g in bound.get("groups", []) if method else []:
        seats = ", ".join(
            f"seat {r['seat']} {r['gain']:+.2f}" + (f" ({r['start']})" if r.get("start") else "") for r in g["seats"]
        )
        meaning = "" if g["sum"] > 0 else " (found nothing: the bound is 0)"
        text.append(
            f"  {g['game']} {g['players']}p: gains {seats}; "
            f"sum {_interval(g['sum'], g['sum_low'], g['sum_high'], 2)}{meaning}"
        )
    text.append(protocol_line(report))
    return "\n".join(text)


def picture(report: dict, path: Path) -> None:
    """report.png: the picture of `report_figure`."""
    import matplotlib.pyplot as plt

    fig = report_figure(report)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def report_figure(report: dict) -> Any:
    """The report's matplotlib figure: per game and player count, the policy's win share against each reference
    (95% Wilson error bars, a dashed line at an even share); a one-player game: its mean score (95% interval)
    beside the references' mean scores, its normalised score in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = _by_group(report["cells"])
    columns = min(4, max(1, len(groups)))
    rows = max(1, math.ceil(len(groups) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(3.4 * columns, 2.8 * rows), squeeze=False)
    for ax in axes.flat[len(groups) :]:
        ax.axis("off")
    ratings = {(g["game"], g["players"]): g for g in report["groups"]}
    for ax, ((game, p), cells) in zip(axes.flat, groups.items(), strict=False):
        rating = ratings.get((game, p), {})
        if p == 1:
            c = cells[0]
            mean = c["mean_score"]
            error = [[mean - c["score_low"]], [c["score_high"] - mean]] if math.isfinite(c["score_high"]) else None
            ax.bar([0], [mean], width=0.5, yerr=error, color="tab:blue", capsize=3)
            ax.text(0, mean, f"{mean:.2f}", ha="center", va="bottom", fontsize=8)
            anchors = {n: v for n, v in (rating.get("anchors") or {}).items() if v is not None}
            for name, value in anchors.items():
                ax.axhline(value, color="grey", linestyle="--", linewidth=0.8)
                ax.text(0.55, value, name, ha="right", va="bottom", fontsize=7, color="grey")
            top = max([mean, *anchors.values()] + ([c["score_high"]] if error else []))
            ax.set_ylim(0, 1.15 * top if top > 0 else 1)
            ax.set_xlim(-0.6, 0.6)
            ax.set_xticks([0], ["policy"], fontsize=8)
            ax.set_ylabel("mean score", fontsize=8)
            shown = "" if rating.get("normalised") is None else f", normalised {rating['normalised']:.0f}"
            ax.set_title(f"{game} (alone)\nmean score {mean:.2f}{shown}", fontsize=9)
            continue
        names = [c["reference"] for c in cells]
        share = np.array([c["win_share"] or 0.0 for c in cells])
        low = np.array([c["win_low"] for c in cells])
        high = np.array([c["win_high"] for c in cells])
        ax.bar(range(len(cells)), share, yerr=[share - low, high - share], color="tab:green", capsize=3)
        ax.axhline(1 / p, color="grey", linestyle="--", linewidth=1)
        ax.set_xticks(range(len(cells)), names, rotation=25, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        shown = "" if rating.get("rating") is None else f"\nrating {rating['rating']:.0f} (random = 0)"
        ax.set_title(f"{game}, {p} players{shown}", fontsize=9)
        ax.set_ylabel("win share", fontsize=8)
    tag = " [privileged]" if report["policy"]["privileged"] else ""
    fig.suptitle(
        f"{report['policy']['label']}{tag}: protocol v{report['protocol']}, suite {report['suite']}", fontsize=10
    )
    fig.tight_layout()
    return fig


def write_report(report: dict, out: Path) -> None:
    """report.json (every number and setting), report.md and report.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2, default=_json_default))
    (out / "report.md").write_text(markdown(report))
    picture(report, out / "report.png")
    report["out"] = str(out)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)
