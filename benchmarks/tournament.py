"""Round-robin tournaments between agents, played in batch, with pairwise results and ratings.

    python -m fruit_envs.benchmarks.tournament --game cherry_picking --agents random greedy ppo:runs/.../model.zip
    python -m fruit_envs.benchmarks.tournament --game fruit_picking --num-players 3 --agents random greedy --games 200

Every seating is played (every ordered choice of agents for the seats, each agent at least once), the
same fixed seed list for each seating, all games of the tournament stepped together through the
batched rules. Results: a pairwise win/draw/loss/truncated matrix with 95% Wilson intervals (in a game,
A beats B when A is among the winners and B is not), ratings (Bradley-Terry on the Elo scale for 2
players, OpenSkill Plackett-Luce for more). A truncated game (cut off by a cap, not ended by the rules:
`fruit_envs.core.spec.outcome_rewards`) is unfinished: it has its own column, per pair and in totals,
and counts as neither win nor loss: win rates are over finished games, ratings ignore it. Written as
JSON, CSV, markdown and a heatmap to `--out`, by default `results/tournament/<game>_<n>p_<timestamp>/`
under the current directory. `--record FILE` also appends every game to a JSON-lines file of game
records (`python -m fruit_envs.replay FILE` replays them).

An agent that raises, answers malformed or chooses an illegal action stops the tournament with one line naming
its label, the game, seat, step and legal actions (exit status 1); the game up to that decision is saved as
`failure.jsonl` in the results folder (with the agent's traceback beside it, `failure_traceback.txt`).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from fruit_envs._cli import non_negative_int, positive_int, prog, writable_dir, writable_file
from fruit_envs.agents import AGENT_HELP, make_agent
from fruit_envs.agents.arena import AgentFault, play_games, wilson_interval
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core import units, validate
from fruit_envs.core.spec import get_spec
from fruit_envs.core.threads import limit_threads


def seatings(num_agents: int, num_players: int) -> np.ndarray:
    """Every ordered assignment of agents to seats in which each agent plays (distinct agents when
    there are enough of them, repeats otherwise), `(S, num_players)`."""
    if num_agents >= num_players:
        rows = itertools.permutations(range(num_agents), num_players)
    else:
        rows = (t for t in itertools.product(range(num_agents), repeat=num_players) if len(set(t)) == num_agents)
    return np.array(list(rows), dtype=np.int64)


def field_seatings(num_agents: int, num_players: int, field: int) -> np.ndarray:
    """Each agent but `field` alone in one seat, every seat in turn, `field` in all the others:
    `(S, num_players)`, the way a reference agent is measured against a heuristic."""
    rows = []
    for agent in (a for a in range(num_agents) if a != field):
        for seat in range(num_players):
            row = [field] * num_players
            row[seat] = agent
            rows.append(row)
    return np.array(rows, dtype=np.int64)


def played_and_won(seating: np.ndarray, winners: np.ndarray, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """`(games, num_agents)` masks: agent a played game g, and won it (in any of its seats)."""
    won = np.zeros((len(seating), num_agents), dtype=bool)
    plays = np.zeros((len(seating), num_agents), dtype=bool)
    for seat in range(seating.shape[1]):
        plays[np.arange(len(seating)), seating[:, seat]] = True
        won[np.arange(len(seating)), seating[:, seat]] |= winners[:, seat]
    return plays, won


def pairwise(names: list[str], seating: np.ndarray, winners: np.ndarray, truncated: np.ndarray) -> list[dict]:
    """Results of every ordered pair of agents over the games where both played; truncated games are
    counted apart (neither win, draw nor loss) and the win rate is over finished games."""
    k = len(names)
    plays, won = played_and_won(seating, winners, k)
    rows = []
    for a, b in itertools.permutations(range(k), 2):
        both = plays[:, a] & plays[:, b]
        finished = both & ~truncated
        games, done = int(both.sum()), int(finished.sum())
        wins = int((finished & won[:, a] & ~won[:, b]).sum())
        losses = int((finished & won[:, b] & ~won[:, a]).sum())
        low, high = wilson_interval(wins, done)
        rows.append(
            {
                "agent": names[a],
                "opponent": names[b],
                "games": games,
                "wins": wins,
                "draws": done - wins - losses,
                "losses": losses,
                "truncated": games - done,
                "win_rate": wins / done if done else 0.0,
                "win_rate_low": low,
                "win_rate_high": high,
            }
        )
    return rows


ELO_SCALE = "Elo, field mean 1500"  # two players; the benchmark's protocol rating puts random at 0 instead
OPENSKILL_SCALE = "OpenSkill ordinal, mu - 3 sigma, start 0"


def rating_scale(num_players: int) -> str:
    """The scale a tournament's ratings are on, named wherever they are printed: Elo over this field only (its
    mean is 1500, so a rating moves with the other agents), not the benchmark's protocol rating (random = 0)."""
    return ELO_SCALE if num_players == 2 else OPENSKILL_SCALE


def bradley_terry(names: list[str], pairs: list[dict], iterations: int = 200) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings (draws count half a win each), mean 1500."""
    k = len(names)
    index = {name: i for i, name in enumerate(names)}
    w = np.zeros((k, k))
    for row in pairs:
        w[index[row["agent"]], index[row["opponent"]]] = row["wins"] + 0.5 * row["draws"] + 0.5  # +0.5 prior
    games = w + w.T
    strength = np.ones(k)
    for _ in range(iterations):  # minorisation-maximisation (Hunter 2004)
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1) - np.diag(games) / (2 * strength)
        strength = w.sum(axis=1) / np.maximum(denom, 1e-12)
        strength /= np.exp(np.log(strength).mean())
    elo = 400 * np.log10(strength)
    return {name: float(1500 + elo[i] - elo.mean()) for i, name in enumerate(names)}


def openskill_ratings(
    names: list[str], seating: np.ndarray, scores: np.ndarray, winners: np.ndarray, truncated: np.ndarray
) -> dict:
    """OpenSkill Plackett-Luce ratings; a game ranks its winners first, the rest by score; truncated
    games (unfinished) are left out."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for g in np.flatnonzero(~truncated):
        # rank 1 for winners, then by descending score (ties share a rank)
        keys = [(-int(winners[g, s]), -float(scores[g, s])) for s in range(seating.shape[1])]
        order = sorted(set(keys))
        ranks = [order.index(key) + 1 for key in keys]
        teams = [[ratings[names[seating[g, s]]]] for s in range(seating.shape[1])]
        updated = model.rate(teams, ranks=ranks)
        for s, team in enumerate(updated):
            ratings[names[seating[g, s]]] = team[0]
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}


def heatmap(names: list[str], pairs: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(names)
    matrix = np.full((k, k), np.nan)
    for row in pairs:
        matrix[names.index(row["agent"]), names.index(row["opponent"])] = row["win_rate"]
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * k, 1.2 + 1.1 * k))
    image = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(k), names, rotation=30, ha="right")
    ax.set_yticks(range(k), names)
    ax.set(xlabel="opponent", ylabel="agent", title=title)
    for i, j in itertools.product(range(k), range(k)):
        if not math.isnan(matrix[i, j]):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=9)
    fig.colorbar(image, ax=ax, label="win rate")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def markdown(summary: dict) -> str:
    lines = [
        f"{summary['game']} v{summary['version']} with {summary['num_players']} players: {summary['total_games']} "
        f"games ({summary['seatings']} seatings x {summary['games_per_seating']}), seed {summary['seed']}; "
        f"{summary['truncated_games']} truncated (cut off by a cap: neither win nor loss)",
        *(
            [f"Each agent plays alone in one seat (every seat in turn) against {summary['field']} in all the others."]
            if summary.get("field")
            else []
        ),
        "",
        "| agent | games | truncated | wins (shared) | win rate of finished games (95% CI) | "
        f"rating ({rating_scale(summary['num_players'])}) |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in summary["agents"].items():
        rating = summary["ratings"][name]
        shown = f"{rating:.0f} (Elo)" if isinstance(rating, float) else f"{rating['ordinal']:.2f} (OpenSkill)"
        lines.append(
            f"| {name} | {r['games']} | {r['truncated']} | {r['wins']} ({r['shared_wins']}) | {r['win_rate']:.3f} "
            f"({r['win_rate_low']:.3f}-{r['win_rate_high']:.3f}) | {shown} |"
        )
    lines += [
        "",
        "| agent \\ opponent | " + " | ".join(summary["agents"]) + " |",
        "|---" * (len(summary["agents"]) + 1) + "|",
    ]
    for name in summary["agents"]:
        cells = []
        for other in summary["agents"]:
            row = next((p for p in summary["pairwise"] if p["agent"] == name and p["opponent"] == other), None)
            cells.append(
                "-"
                if row is None
                else f"{row['wins']}/{row['draws']}/{row['losses']}/{row['truncated']} ({row['win_rate']:.2f})"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append(
        "\nWins: games the agent is among the winners, those it won along with another agent (shared) "
        "included; the cells below count a shared game as a draw. "
        "Cells: wins/draws/losses/truncated of the row agent against the column agent "
        "(win rate of the finished games). "
        + (
            "Ratings: Elo scale (Bradley-Terry), shifted so that the mean of this tournament's agents is 1500: they "
            "compare these agents with each other only, and are not the benchmark's protocol rating "
            "(fruit-envs-benchmark, random = 0)."
            if summary["num_players"] == 2
            else "Ratings: OpenSkill Plackett-Luce ordinal (mu - 3 sigma; every agent starts at 0), over this "
            "tournament's agents only; not the benchmark's protocol rating (fruit-envs-benchmark, random = 0)."
        )
    )
    return "\n".join(lines) + "\n"


_made: dict = {}  # the agents this process plays a tournament's units with: key -> (game, config, agent texts)


def _seating_unit(
    game: str, config, specs: tuple, labels: tuple, seating: np.ndarray, keys: np.ndarray, seed: int, record: bool
) -> dict:
    """One unit of a tournament (`fruit_envs.core.units`): its games, their results and, with `record`, records."""
    spec = get_spec(game)
    if _made.get("key") != (game, config, specs):
        _made.update(key=(game, config, specs), agents=[make_agent(agent, spec, config) for agent in specs])
    records: list = []
    result = play_games(
        spec, config, _made["agents"], seating, seed=seed, keys=keys, record_to=records if record else None,
        labels=list(labels), record_meta={"source": "tournament"},
    )  # fmt: skip
    return {"scores": result.scores, "winners": result.winners, "truncated": result.truncated, "records": records}


def _kept(fault: AgentFault, out: Path | None) -> AgentFault:
    """The fault with its game saved as `failure.jsonl` (and the agent's traceback beside it) in `out` (or the
    temporary folder), the message saying where and how to replay it."""
    folder = out if out is not None else Path(tempfile.mkdtemp(prefix="fruit_envs_tournament_"))
    folder.mkdir(parents=True, exist_ok=True)
    kept = ""
    if fault.record is not None:
        path = frecord.write_records(folder / "failure.jsonl", [fault.record])
        kept = f"; the game up to that decision is saved in {path} (python -m fruit_envs.replay {path})"
    if fault.traceback:
        trace = folder / "failure_traceback.txt"
        trace.write_text(fault.traceback)
        kept += f"; the agent's traceback is in {trace}"
    return AgentFault(f"{fault}{kept}", fault.record, fault.traceback)


def run(
    game: str,
    agent_names: list[str],
    num_players: int | None,
    games_per_seating: int,
    seed: int,
    out: Path | None,
    progress: bool = True,
    options: dict | None = None,
    record: Path | None = None,
    field: str | None = None,
    workers: int | None = 1,
    ray_address: str | None = None,
) -> dict:
    """Play the tournament and write its files to `out`; with `field` (one of the labels), every other
    agent plays alone in one seat against `field` in all the others instead of a round robin. Each seating's
    games are a unit of work with its own deals and seed, played on `workers` local processes or the Ray
    cluster at `ray_address` (`fruit_envs.core.units`) with the same results."""
    spec = get_spec(game)
    config = spec.make_config(num_players, **(options or {}))
    if config.num_players < 2:
        raise ValueError(
            f"{spec.name} has one seat: compare agents by mean score (fruit_envs.agents.arena.evaluate_alone)"
        )
    if len(agent_names) < 2:
        raise ValueError("a tournament needs at least two agents")
    if not validate.is_int(games_per_seating) or games_per_seating < 1:
        raise ValueError(f"games per seating must be a positive integer, got {games_per_seating!r}")
    validate.check_seed(seed)
    if out is not None:
        validate.writable_dir(out, "results folder")
    if record is not None:
        validate.writable_file(record, "record file")
    pairs_of = [name.split("=", 1) if "=" in name.split(":", 1)[0] else (name, name) for name in agent_names]
    agent_names, specs = [label for label, _ in pairs_of], [agent for _, agent in pairs_of]
    if len(set(agent_names)) != len(agent_names):
        raise ValueError(f"agent labels must be distinct, got {agent_names}")
    if field is not None and field not in agent_names:
        raise ValueError(f"--field {field} must be one of the agents' labels {agent_names}")
    agents = [make_agent(agent, spec, config) for agent in specs]  # bad names fail before any game
    table = (
        seatings(len(agents), config.num_players)
        if field is None
        else field_seatings(len(agents), config.num_players, agent_names.index(field))
    )
    seating = np.repeat(table, games_per_seating, axis=0)
    keys = np.tile(frng.keys_from_seed(seed, games_per_seating), len(table))
    chunk = min(games_per_seating, max(1, 8192 // config.num_players))
    jobs = [  # a unit per seating (or a slice of one), each with its deals and seed: any worker count plays alike
        units.Unit(
            f"seating-{s:04d}-{lo:06d}",
            _seating_unit,
            (
                spec.id,
                config,
                tuple(specs),
                tuple(agent_names),
                seating[first : first + n],
                keys[first : first + n],
                seed + first,
                record is not None,
            ),  # fmt: skip
            n,
        )
        for s in range(len(table))
        for lo in range(0, games_per_seating, chunk)
        for first, n in [(s * games_per_seating + lo, min(chunk, games_per_seating - lo))]
    ]
    _made.update(key=(spec.id, config, tuple(specs)), agents=agents)  # this process plays with the agents above
    start = time.time()
    try:
        parts = units.run_units(jobs, units.backend(workers, ray_address), progress=progress, desc=spec.id)
    except AgentFault as fault:
        raise _kept(fault, out) from None
    scores = np.concatenate([p["scores"] for p in parts])
    winners = np.concatenate([p["winners"] for p in parts])
    truncated = np.concatenate([p["truncated"] for p in parts])
    if record is not None:
        frecord.write_records(record, [r for p in parts for r in p["records"]])
    pairs = pairwise(agent_names, seating, winners, truncated)
    plays, won = played_and_won(seating, winners, len(agent_names))
    shared = won & (won.sum(axis=1, keepdims=True) > 1)  # won along with another agent
    totals = {}
    for a, name in enumerate(agent_names):
        seat_rows, seat_cols = np.nonzero(seating == a)
        games = np.flatnonzero(plays[:, a])
        finished = games[~truncated[games]]
        wins = int(won[:, a].sum())  # truncated games have no winners
        low, high = wilson_interval(wins, len(finished))
        totals[name] = {
            "games": len(games),
            "finished": len(finished),
            "truncated": len(games) - len(finished),
            "wins": wins,
            "shared_wins": int(shared[:, a].sum()),
            "win_rate": wins / len(finished) if len(finished) else 0.0,
            "win_rate_low": low,
            "win_rate_high": high,
            "mean_score": float(scores[seat_rows, seat_cols].mean()),
        }
    ratings = (
        bradley_terry(agent_names, pairs)
        if config.num_players == 2
        else openskill_ratings(agent_names, seating, scores, winners, truncated)
    )
    summary = {
        "game": spec.id,
        "version": spec.version,
        "num_players": config.num_players,
        "config": config.to_dict(),
        "agents": totals,
        "pairwise": pairs,
        "ratings": ratings,
        "rating_scale": rating_scale(config.num_players),
        "seatings": len(table),
        "field": field,
        "games_per_seating": games_per_seating,
        "total_games": len(seating),
        "truncated_games": int(truncated.sum()),
        "seed": seed,
        "seconds": round(time.time() - start, 2),
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(summary, indent=2))
        with (out / "pairwise.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, list(pairs[0]))
            writer.writeheader()
            writer.writerows(pairs)
        (out / "summary.md").write_text(markdown(summary))
        heatmap(agent_names, pairs, out / "heatmap.png", f"{spec.name}, {config.num_players} players")
        summary["out"] = str(out)
    if record is not None:
        summary["record"] = str(record)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.tournament"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True, help="registered game id")
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help=f"{AGENT_HELP}; optionally labelled LABEL=AGENT (at least two)",
    )
    parser.add_argument(
        "--num-players", type=positive_int, default=None, help="players per game (default: the game's default)"
    )
    parser.add_argument("--games", type=positive_int, default=100, help="games per seating")
    parser.add_argument(
        "--field",
        default=None,
        help="one of the agents' labels: each other agent plays alone in one seat (every seat in turn) against "
        "this one in all the others, instead of a round robin",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the fixed game list")
    parser.add_argument(
        "--out",
        type=writable_dir,
        default=None,
        help="results folder (default: ./results/tournament/<game>_<n>p_<time>/)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="local worker processes playing the seatings (default: every usable core; 1: this process)",
    )
    parser.add_argument("--ray", default=None, metavar="ADDRESS", help="on a Ray cluster: auto, ray://HOST:PORT, local")
    parser.add_argument(
        "--record",
        type=writable_file,
        default=None,
        help="append every game to this JSON-lines file (replay: python -m fruit_envs.replay FILE)",
    )
    args = parser.parse_args(argv)
    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)
    try:
        spec = get_spec(args.game)
        players = args.num_players or spec.default_num_players
        out = args.out or Path("results", "tournament", f"{spec.id}_{players}p_{time.strftime('%Y%m%d-%H%M%S')}")
        summary = run(
            args.game,
            args.agents,
            args.num_players,
            args.games,
            args.seed,
            out,
            not args.no_progress,
            record=args.record,
            field=args.field,
            workers=args.workers,
            ray_address=args.ray,
        )
    except AgentFault as fault:
        print(f"error: {fault}", file=sys.stderr)
        return 1
    except (ValueError, units.UnitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(markdown(summary))
    print(f"results in {summary['out']}")
    if "record" in summary:
        print(f"games recorded in {summary['record']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
