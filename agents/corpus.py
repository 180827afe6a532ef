"""A recorded corpus of agent decisions that any change to an agent's code must reproduce exactly.

The rules' corpus (`fruit_envs.corpus`) proves the rules unchanged; this one proves the agents built on
them unchanged: the greedy heuristics (whose decisions tournaments, the PPO baselines trained against
them and protocol v1's published cards depend on), search at a small budget, and the shipped PPO
baselines. For every case of the rules' corpus (player counts, option values), a seeded batch of games is
played, each move greedy's or a uniformly random legal one (so positions leave greedy's own lines), and
at every decision greedy is asked with a generator seeded for that step; its actions are kept, ties
included. At a few steps of the default-option cases, search (`search:rollouts=16,depth=8`) and
`ppo-baseline` are asked too; search's action values are kept as a digest.

Positions are kept as deal keys and the actions played (the rules' corpus proves them reproducible), so
the file stays small:

    python -m fruit_envs.agents.corpus record tests/agent_corpus    # after an intended change only
    python -m fruit_envs.agents.corpus check tests/agent_corpus [GAME ...]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec
from fruit_envs.corpus import Case, cases, command_line, digest, record_files

GAMES = 12  # games per case
SEARCH = "search:rollouts=16,depth=8"  # a small budget: every part of search runs, in seconds
SEARCH_STEPS = 3  # steps of each default-option game at which search and the PPO baseline are asked


def _seed(case: Case) -> int:
    return sum(map(ord, f"agents/{case.spec.id}/{case.label}")) * 1009


def _asked(case: Case, steps: int) -> np.ndarray:
    """The steps at which search and the PPO baseline decide (default options only; none elsewhere)."""
    if "-" in case.label:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.linspace(0, max(steps - 1, 0), SEARCH_STEPS + 2).astype(np.int64)[1:-1])


def _decide(agent, rules, state, seed: int) -> tuple[np.ndarray, np.ndarray | None]:
    """`agent`'s actions `(G,)` (-1 where the game is over) and search's action values of the live games."""
    from fruit_envs.agents.base import state_kwargs

    live = np.flatnonzero(~state.done)
    sub = state.take(live)
    mover = sub.to_move.astype(np.int64)
    mask = rules.legal_mask(sub)
    chosen = agent.act(rules.observe(sub, mover), mask, np.random.default_rng(seed), **state_kwargs(agent, sub, mover))
    row = np.full(state.batch_size, -1, dtype=np.int64)
    row[live] = chosen
    return row, getattr(agent, "last_values", None) if getattr(agent, "needs_state", False) else None


def greedy_games(case: Case, keys: np.ndarray, played: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy's decision `(T, G)` at every step of the case's games, and the moves played `(T, G)` (-1: over):
    `played` where given, else greedy's or a random legal move by a coin seeded from the case."""
    from fruit_envs.agents import make_agent

    rules, seed = case.spec.rules, _seed(case)
    greedy = make_agent("greedy", case.spec, case.config)
    gen = np.random.default_rng(seed)
    state = rules.init(case.config, keys)
    decisions, moves = [], []
    for t in range(case.spec.max_game_length(case.config) + 1 if played is None else len(played)):
        if state.done.all():
            break
        row, _ = _decide(greedy, rules, state, seed + 7 * t)
        decisions.append(row)
        if played is None:
            mask = rules.legal_mask(state)
            randomly = np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1)
            move = np.where(state.done, -1, np.where(gen.random(len(keys)) < 0.5, row, randomly))
        else:
            move = played[t].astype(np.int64)
        moves.append(move)
        state, _ = rules.step(state, np.maximum(move, 0), active=move >= 0)
    return np.array(decisions, dtype=np.int64), np.array(moves, dtype=np.int64)


def other_agents(case: Case, keys: np.ndarray, played: np.ndarray) -> dict[str, np.ndarray]:
    """Search's and the PPO baseline's decisions `(K, G)` at the `asked_at` steps of the games `played`, and a
    digest of search's action values `(K, G_live)` per step (concatenated, `values`)."""
    from fruit_envs.agents import make_agent

    asked = _asked(case, len(played))
    out: dict[str, np.ndarray] = {"asked_at": asked}
    if not len(asked):
        return out
    agents = {SEARCH: make_agent(SEARCH, case.spec, case.config)}
    try:
        agents["ppo-baseline"] = make_agent("ppo-baseline", case.spec, case.config)
    except ValueError:  # no baseline ships for this player count
        pass
    rules, seed = case.spec.rules, _seed(case)
    state = rules.init(case.config, keys)
    rows: dict[str, list] = {name: [] for name in agents}
    values = []
    for t, move in enumerate(played):
        if t in asked:
            for name, agent in agents.items():
                row, tried = _decide(agent, rules, state, seed + 13 * t + 1)
                rows[name].append(row)
                if tried is not None:
                    values.append(digest(tried))
        state, _ = rules.step(state, np.maximum(move, 0), active=move >= 0)
    out.update({name: np.array(r, dtype=np.int64) for name, r in rows.items()})
    out["values"] = np.concatenate(values).astype(np.uint32)
    return out


def record_case(case: Case) -> dict[str, np.ndarray]:
    keys = frng.keys_from_seed(_seed(case), GAMES)
    decisions, played = greedy_games(case, keys)
    return {"keys": keys, "played": played.astype(np.int16), "greedy": decisions.astype(np.int16)} | {
        name: value.astype(np.int16) if value.dtype == np.int64 and name != "asked_at" else value
        for name, value in other_agents(case, keys, played).items()
    }


def check_case(case: Case, record: dict) -> list[str]:
    """The differences between today's decisions and `record`'s, first one per agent."""
    played = record["played"].astype(np.int64)
    decisions, _ = greedy_games(case, record["keys"], played)
    now = {"greedy": decisions} | other_agents(case, record["keys"], played)
    problems = []
    for name, want in record.items():
        if name in ("keys", "played"):
            continue
        got = now.get(name)
        if got is None or got.shape != want.shape:
            problems.append(f"{name}: {None if got is None else got.shape} decisions, recorded {want.shape}")
        elif not np.array_equal(got, want.astype(got.dtype)):
            at = tuple(int(i[0]) for i in np.nonzero(got != want.astype(got.dtype)))
            what = "action values" if name == "values" else "decision"
            problems.append(f"{name}: {what} {at} is {got[at]}, recorded {want[at]}")
    return problems


def _file(folder: Path, game: str) -> Path:
    return Path(folder) / f"{game}.npz"


def record(folder, games: list[str] | None = None) -> list[Path]:
    """Write one `.npz` per game into `folder`."""
    return record_files(folder, games, record_case)


def check(folder, game: str, labels: list[str] | None = None) -> list[str]:
    """Replay the corpus of `game` (its cases named in `labels`, default all); the differences found."""
    spec = get_spec(game)
    path = _file(folder, spec.id)
    if not path.exists():
        return [f"no agent corpus for {game} at {path}; record it: python -m fruit_envs.agents.corpus record {folder}"]
    data = np.load(path)
    today = {case.label: case for case in cases(spec)}
    recorded = sorted({key.split("/")[0] for key in data.files})
    problems = [] if sorted(today) == recorded else [f"{game}: recorded cases {recorded}, today's {sorted(today)}"]
    for label in labels or sorted(today):
        if label not in recorded:
            continue
        record = {key.split("/", 1)[1]: data[key] for key in data.files if key.split("/")[0] == label}
        problems += [f"{game} {label} {p}" for p in check_case(today[label], record)]
    return problems


def main(argv: list[str] | None = None) -> int:
    reproduced = "every agent decision of the corpus is reproduced exactly"
    return command_line(argv, "fruit_envs.agents.corpus", record, check, reproduced)


if __name__ == "__main__":
    raise SystemExit(main())
