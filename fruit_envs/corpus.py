"""A recorded corpus of positions that any change to the rules' code must reproduce exactly.

For every game, player count and option value (one option changed from the defaults at a time), a
batch of seeded games is played by random and by greedy agents. At every decision the corpus keeps the
action and four digests per game: every seat's observation, every seat's legal mask, the step's
rewards, and the next state (every state array, plus `acting`, `potential`, `final_scores` and
`winners` where the game has them). `check` replays the recorded actions, batched and one game at a
time, and names the first position whose digest differs.

    python -m fruit_envs.corpus record tests/corpus        # after an intended change of behaviour only
    python -m fruit_envs.corpus check tests/corpus

The digests are a linear hash with odd weights over each row's bytes, so any single changed byte changes
them; they exist to prove that a rewrite (issue 33's compiled kernels) changes nothing observable.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.rules_api import game_rules
from fruit_envs.core.spec import Config, GameSpec, get_spec, registered_games

GAMES_PER_POLICY = 8
POLICIES = ("random", "greedy")
PARTS = ("obs", "mask", "rewards", "state")
_ODD = np.random.default_rng(20261203).integers(0, 2**63, size=1 << 16, dtype=np.uint64)
_WEIGHTS = _ODD * np.uint64(2) + np.uint64(1)  # odd: no single changed byte can vanish from the sum


def digest(rows: np.ndarray) -> np.ndarray:
    """`(n,)` uint32 digest of each row of `rows` (any shape with a leading batch axis, any dtype)."""
    data = np.ascontiguousarray(rows).reshape(len(rows), -1).view(np.uint8).astype(np.uint64)
    if data.shape[1] > len(_WEIGHTS):
        raise ValueError(f"rows of {data.shape[1]} bytes are longer than the digest's {len(_WEIGHTS)}")
    with np.errstate(over="ignore"):
        h = (data * _WEIGHTS[: data.shape[1]]).sum(axis=1, dtype=np.uint64) + np.uint64(data.shape[1])
    return ((h >> np.uint64(32)) ^ (h & np.uint64(0xFFFFFFFF))).astype(np.uint32)


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """Digests of several per-game arrays combined into one `(n,)` uint32 digest."""
    stacked = np.stack([digest(p) for p in parts], axis=1)
    return digest(stacked)


@dataclass(frozen=True)
class Case:
    """One game, player count and configuration of the corpus."""

    spec: GameSpec
    config: Config
    label: str  # e.g. "3p" or "2p-same_sort_bonus=once"


def cases(spec: GameSpec) -> list[Case]:
    """Every player count with default options, and at 2 (or the only) players each other option value."""
    out = [Case(spec, spec.make_config(n), f"{n}p") for n in spec.player_counts]
    n = spec.default_num_players
    for name, field in spec.config_cls.options().items():
        default = field.default
        choices = field.metadata.get("choices")
        if choices is None and field.metadata.get("kind") is int:
            choices = (max(1, int(default) // 4),)  # an int bound (e.g. max_rounds): a cap that truncates games
        for value in choices or ():
            if value != default:
                out.append(Case(spec, spec.make_config(n, **{name: value}), f"{n}p-{name}={value}"))
    return out


def _seed(case: Case, policy: str) -> int:
    return sum(map(ord, f"{case.spec.id}/{case.label}/{policy}"))


def _digests(rules, state, rewards: np.ndarray) -> np.ndarray:
    """`(4, n)` uint32: observation, mask, rewards and state digests of each game."""
    p = state.config.num_players
    obs = _join([rules.observe(state, k) for k in range(p)])
    mask = _join([rules.legal_mask(state, k) for k in range(p)])
    potential = game_rules(get_spec(state.GAME)).potential
    running = [] if potential is None else [potential(state)]
    extra = [rules.acting(state), *running, rules.final_scores(state), rules.winners(state)]
    state_digest = _join([*state.arrays().values(), *extra])
    return np.stack([obs, mask, digest(rewards), state_digest])


def _pick(policy, rules, state, gen: np.random.Generator, agent) -> np.ndarray:
    mask = rules.legal_mask(state)
    if policy == "random":
        scores = np.where(mask, gen.random(mask.shape), -1.0)
        actions = scores.argmax(axis=1)
    else:
        from fruit_envs.agents.base import state_kwargs

        mover = state.to_move.astype(np.int64)
        obs = rules.observe(state, mover)
        actions = np.asarray(agent.act(obs, mask, gen, **state_kwargs(agent, state, mover)), dtype=np.int64)
    return np.where(state.done, -1, actions)


def record_case(case: Case, policy: str) -> dict[str, np.ndarray]:
    """Play the case's seeded games with `policy`; returns keys `(G,)`, actions `(T, G)` and digests `(T+1, 4, G)`."""
    rules = case.spec.rules
    seed = _seed(case, policy)
    keys = frng.keys_from_seed(seed, GAMES_PER_POLICY)
    gen = np.random.default_rng(seed)
    agent = None
    if policy == "greedy":
        from fruit_envs.agents import make_agent

        agent = make_agent("greedy", case.spec, case.config)
    state = rules.init(case.config, keys)
    p = case.config.num_players
    digests = [_digests(rules, state, np.zeros((len(keys), p), dtype=np.float32))]
    actions = []
    for _ in range(case.spec.max_game_length(case.config) + 1):
        if state.done.all():
            break
        chosen = _pick(policy, rules, state, gen, agent)
        actions.append(chosen)
        state, rewards = rules.step(state, np.maximum(chosen, 0))
        digests.append(_digests(rules, state, rewards))
    return {
        "keys": keys,
        "actions": np.array(actions, dtype=np.int16).reshape(-1, len(keys)),
        "digests": np.stack(digests),
    }


def replay(case: Case, keys: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Digests `(T+1, 4, G)` of replaying `actions` `(T, G)` from `keys` in one batch."""
    rules = case.spec.rules
    state = rules.init(case.config, keys)
    p = case.config.num_players
    out = [_digests(rules, state, np.zeros((len(keys), p), dtype=np.float32))]
    for row in actions.astype(np.int64):
        state, rewards = rules.step(state, np.maximum(row, 0), active=row >= 0)
        out.append(_digests(rules, state, rewards))
    return np.stack(out)


def _file(folder: Path, spec: GameSpec) -> Path:
    return Path(folder) / f"{spec.id}.npz"


def record_files(folder, games: list[str] | None, arrays_of) -> list[Path]:
    """Write one `<game>.npz` per registered game (those in `games`, default all) into `folder`, holding
    `arrays_of(case)` of each of its cases under `<case label>/<name>` (this corpus and the agents' one)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in registered_games():
        if games and spec.id not in games:
            continue
        arrays = {f"{case.label}/{name}": value for case in cases(spec) for name, value in arrays_of(case).items()}
        path = _file(folder, spec)
        np.savez_compressed(path, **arrays)
        written.append(path)
    return written


def record(folder, games: list[str] | None = None) -> list[Path]:
    """Write one `.npz` per game into `folder`."""

    def arrays_of(case: Case) -> dict[str, np.ndarray]:
        return {f"{policy}/{name}": v for policy in POLICIES for name, v in record_case(case, policy).items()}

    return record_files(folder, games, arrays_of)


def check(folder, game: str, batch_one: int = 2, batched: int | None = None) -> list[str]:
    """Replay the corpus of `game`: every case batched (its first `batched` games only, when given), and
    its first `batch_one` games of each policy one at a time. Returns a list of differences (empty when
    everything is reproduced)."""
    spec = get_spec(game)
    path = _file(folder, spec)
    if not path.exists():
        return [f"no corpus for {game} at {path}; record it with python -m fruit_envs.corpus record {folder}"]
    data = np.load(path)
    problems = []
    labels = {case.label: case for case in cases(spec)}
    recorded = sorted({key.split("/")[0] for key in data.files})
    if sorted(labels) != recorded:
        problems.append(f"{game}: corpus cases {recorded} differ from today's {sorted(labels)}")
    for label, case in labels.items():
        for policy in POLICIES:
            if f"{label}/{policy}/keys" not in data.files:
                continue
            keys, actions, want = (data[f"{label}/{policy}/{k}"] for k in ("keys", "actions", "digests"))
            runs = [("batched", slice(batched))] + [(f"game {g} alone", slice(g, g + 1)) for g in range(batch_one)]
            for how, games in runs:
                sub = actions[:, games]
                live = (sub >= 0).any(axis=1)
                steps = int(np.flatnonzero(live)[-1]) + 1 if live.any() else 0
                got = replay(case, keys[games], sub[:steps])
                expected = want[: steps + 1, :, games]
                if got.shape != expected.shape or not np.array_equal(got, expected):
                    problems.append(f"{game} {label} {policy} {how}: {_first_difference(expected, got)}")
    return problems


def _first_difference(want: np.ndarray, got: np.ndarray) -> str:
    if want.shape != got.shape:
        return f"{len(got) - 1} steps replayed, {len(want) - 1} recorded"
    t, part, g = (int(i[0]) for i in np.nonzero(want != got))
    return f"{PARTS[part]} differs after decision {t} of game {g}"


def command_line(argv: list[str] | None, module: str, record, check, reproduced: str) -> int:
    """`python -m MODULE {record|check} FOLDER [GAME ...]` of a corpus: `record(folder, games)` writes its files;
    `check(folder, game)` lists differences, printed (exit 1), else `reproduced` is (exit 0)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or argv[0] not in ("record", "check"):
        print(f"usage: python -m {module} {{record|check}} FOLDER [GAME ...]", file=sys.stderr)
        return 2
    command, folder, games = argv[0], argv[1], argv[2:] or None
    if command == "record":
        for path in record(folder, games):
            print(f"wrote {path}")
        return 0
    problems = [p for spec in registered_games() if not games or spec.id in games for p in check(folder, spec.id)]
    print("\n".join(problems) or reproduced)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    return command_line(argv, "fruit_envs.corpus", record, check, "the corpus is reproduced exactly")


if __name__ == "__main__":
    raise SystemExit(main())
