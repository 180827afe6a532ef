"""Behaviour cloning warm start: a PPO policy first imitates a baseline agent on batched games.

The batched rules play thousands of games of the teacher (the greedy agent by default, or the search
agent, which also gets the states it re-samples from) against itself in one batch, or in one seat
against an opponent. Every decision of the teacher becomes a sample: the seat's observation and
legal mask, the teacher's action, the seat's return from that decision on and its score margin there
(the value target of a learner with potential-based shaping is the return less the shaped
potential). `pretrain` then fits the policy's
masked action distribution (cross-entropy) and its value head (mean squared error) before PPO starts,
so PPO refines a policy that already plays like the teacher. A slow teacher is played once and saved
(`python -m fruit_envs.training.bc ... --out FILE.npz`, then `train_ppo --bc-data FILE.npz`).
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.shaping import score_margin
from fruit_envs.core.spec import Config, GameSpec, get_spec, outcome_rewards


@dataclass
class Demonstrations:
    """Teacher decisions: `obs (N, O)`, `mask (N, A)` bool, `actions (N,)`, `returns (N,)` (the seat's
    return from the decision on) and `potential (N,)` (its score margin there, for shaped value targets);
    `values (N, A)`, where the teacher keeps them (search's `last_values`), its estimate of each action
    it weighed (NaN for the others, and on rows it did not weigh), for soft targets (`soft_targets`)."""

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    potential: np.ndarray
    meta: dict
    values: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.actions)

    def value_targets(self, shaping: float = 0.0) -> np.ndarray:
        """What a learner's value head estimates with gamma = 1 under potential-based shaping `shaping`."""
        return (self.returns - shaping * self.potential).astype(np.float32)

    def soft_targets(self, temperature: float, weight: float = 1.0) -> np.ndarray:
        """`(N, A)` float32 action distributions to imitate: on rows where the teacher weighed two or more
        actions, `weight` of a softmax of their values at `temperature` (the rest on the action it took);
        elsewhere all on the action taken. A softmax puts little mass on clearly worse actions and spreads
        it over near-equal ones, so imitation spends no effort on the coin flips of a noisy teacher."""
        if not (np.isfinite(temperature) and temperature > 0) or not 0.0 <= weight <= 1.0:
            raise ValueError(
                f"soft targets need a temperature > 0 and a weight in [0, 1], got {temperature} and {weight}"
            )
        n, a = self.mask.shape
        targets = np.zeros((n, a), dtype=np.float64)
        targets[np.arange(n), self.actions] = 1.0
        if self.values is None:
            return targets.astype(np.float32)
        weighed = np.isfinite(self.values) & self.mask
        rows = np.flatnonzero(weighed.sum(axis=1) >= 2)
        if len(rows):
            scaled = np.where(weighed[rows], self.values[rows] / temperature, -np.inf)
            soft = np.exp(scaled - scaled.max(axis=1, keepdims=True))
            soft /= soft.sum(axis=1, keepdims=True)
            targets[rows] = (1.0 - weight) * targets[rows] + weight * soft
        return targets.astype(np.float32)

    def save(self, path: str | Path) -> None:
        """One compressed `.npz` file, with what made it (game, rules version, config, teacher) as JSON."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(
            tmp,
            obs=self.obs,
            mask=self.mask,
            actions=self.actions,
            returns=self.returns,
            potential=self.potential,
            meta=np.array(json.dumps(self.meta)),
            **({} if self.values is None else {"values": self.values.astype(np.float32)}),
        )
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path, spec: GameSpec | None = None, config: Config | None = None) -> Demonstrations:
        """Read `save`'s file; with `spec` and `config`, refuse demonstrations of another game, rules
        version or observation size."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"--bc-data {path}: no such file")
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            values = data["values"] if "values" in data.files else None  # files from before values were kept
            demos = cls(data["obs"], data["mask"], data["actions"], data["returns"], data["potential"], meta, values)
        if spec is not None and config is not None:
            want = {
                "game": spec.id,
                "rules_version": spec.version,
                "observation_shape": list(spec.observation_shape(config)),
            }
            have = {key: meta.get(key) for key in want}
            if have != want:
                raise ValueError(f"demonstrations {path} are of {have}, but this run needs {want}")
        return demos

    @classmethod
    def merge(cls, parts: list[Demonstrations], sources: list[str], same_seed: bool = False) -> Demonstrations:
        """One set from several files of the same game, rules version, configuration and teacher (e.g.
        played in parallel processes with different seeds); anything else is refused, naming the file.
        `same_seed`: the parts are slices of one seed's games (units of `play_demonstrations`)."""
        same = ("game", "rules_version", "config", "observation_shape", "teacher", "opponent")
        first = parts[0].meta
        for part, source in zip(parts[1:], sources[1:], strict=True):
            differ = {key: part.meta.get(key) for key in same if part.meta.get(key) != first.get(key)}
            if differ:
                want = {key: first.get(key) for key in differ}
                raise ValueError(
                    f"{source} holds {differ}, but {sources[0]} holds {want}: only like demonstrations merge"
                )
        seeds = []  # a merged file keeps the list of its parts' seeds
        for part in parts:
            seed = part.meta.get("seed")
            seeds += seed if isinstance(seed, list) else [seed]
        if len(set(seeds)) < len(seeds) and not same_seed:
            raise ValueError(f"{sources} share a seed ({seeds}): the same games twice would count double")
        meta = {key: first.get(key) for key in (*same, "num_players")}
        meta["games"] = sum(part.meta.get("games", 0) for part in parts)
        meta["truncated_games"] = sum(part.meta.get("truncated_games", 0) for part in parts)
        meta["seed"] = seeds
        meta["seconds"] = round(sum(part.meta.get("seconds", 0.0) for part in parts), 1)
        meta["merged_from"] = list(sources)
        fields = ("obs", "mask", "actions", "returns", "potential")
        arrays = {name: np.concatenate([getattr(part, name) for part in parts]) for name in fields}
        kept = [part.values is not None for part in parts]
        if any(kept) and not all(kept):
            raise ValueError(
                f"{[s for s, k in zip(sources, kept, strict=True) if not k]} hold no teacher values and "
                f"{[s for s, k in zip(sources, kept, strict=True) if k]} do: only like demonstrations merge"
            )
        values = np.concatenate([part.values for part in parts]) if all(kept) else None
        return cls(**arrays, meta=meta, values=values)


def demonstrations(
    game: str | GameSpec,
    config: Config,
    teacher,
    games: int,
    seed: int = 0,
    opponent=None,
    first: int | None = None,
) -> Demonstrations:
    """Play `games` games with `teacher` in every seat, in one batch, and keep every decision.

    With `opponent`, the teacher plays one seat of each game (game k: seat k mod players, so seats
    rotate) against `opponent` in the others, and only the teacher's decisions are kept: the positions
    a learner trained against that opponent meets, decided by a stronger player than it.

    The return of a decision is the seat's terminal reward (`config.reward == "terminal"`) or the
    rewards it collects from then on (`"score"`). Games a cap cut off (truncated) are left out: play
    that reaches no result is nothing to imitate (two search agents stall many Juicy Fruits games);
    `meta["truncated_games"]` counts them.

    `first` plays games `first` to `first + games` of the set `seed` deals (their deals and seats, with a
    generator of their own): one unit of work of `play_demonstrations`."""
    spec = get_spec(game)
    rules = spec.rules
    start = 0 if first is None else first
    gen = np.random.default_rng(seed if first is None else [seed, first])
    state = rules.init(config, frng.keys_from_seed(seed, start + games)[start:])
    p = config.num_players
    teacher_seat = (start + np.arange(games)) % p
    obs_log, mask_log, action_log, game_log, seat_log, phi_log, collected_log = [], [], [], [], [], [], []
    values_log, keeps_values = [], hasattr(teacher, "last_values")  # search (or an agent handing to it) keeps them
    collected = np.zeros((games, p), dtype=np.float64)  # rewards paid to each seat so far
    for _ in range(spec.max_game_length(config) + 1):
        live = np.flatnonzero(~state.done)
        if len(live) == 0:
            break
        sub = state.take(live)
        seats = sub.to_move.astype(np.int64)
        obs = rules.observe(sub, seats)
        mask = rules.legal_mask(sub)
        taught = np.ones(len(live), dtype=bool) if opponent is None else seats == teacher_seat[live]
        actions = np.zeros(len(live), dtype=np.int64)
        values = np.full((int(taught.sum()), spec.num_actions), np.nan, dtype=np.float32)
        for agent, rows in ((teacher, np.flatnonzero(taught)), (opponent, np.flatnonzero(~taught))):
            if len(rows):
                part = sub.take(rows)
                extra = {"state": part, "seats": seats[rows]} if getattr(agent, "needs_state", False) else {}
                actions[rows] = agent.act(obs[rows], mask[rows], gen, **extra)
                if agent is teacher and keeps_values and teacher.last_values is not None:
                    values[:] = teacher.last_values
        values_log.append(values)
        obs_log.append(obs[taught].astype(np.float32))
        mask_log.append(mask[taught])
        action_log.append(actions[taught])
        game_log.append(live[taught])
        seat_log.append(seats[taught])
        phi_log.append(score_margin(spec, sub, seats)[taught])
        collected_log.append(collected[live, seats][taught])
        full = np.zeros(games, dtype=np.int64)
        full[live] = actions
        state, rewards = rules.step(state, full)
        collected += rewards
    else:
        raise RuntimeError("teacher games outlived the declared maximum length")
    g, k = np.concatenate(game_log), np.concatenate(seat_log)
    if config.reward == "terminal":
        returns = outcome_rewards(rules.winners(state)).astype(np.float64)[g, k]
    else:
        returns = collected[g, k] - np.concatenate(collected_log)
    # A game cut off by a cap shows play that reaches no result (stalling): it is not a demonstration.
    keep = ~state.truncated[g]
    meta = {
        "game": spec.id,
        "rules_version": spec.version,
        "num_players": p,
        "config": repr(config),
        "observation_shape": list(spec.observation_shape(config)),
        "teacher": getattr(teacher, "name", type(teacher).__name__),
        "opponent": None if opponent is None else getattr(opponent, "name", type(opponent).__name__),
        "games": games,
        "truncated_games": int(state.truncated.sum()),
        "seed": seed,
    }
    return Demonstrations(
        obs=np.concatenate(obs_log)[keep],
        mask=np.concatenate(mask_log)[keep],
        actions=np.concatenate(action_log)[keep],
        returns=returns[keep].astype(np.float32),
        potential=np.concatenate(phi_log)[keep].astype(np.float32),
        meta=meta,
        values=np.concatenate(values_log)[keep] if keeps_values else None,
    )


UNIT_GAMES = 50  # games per unit of work: the same slices, and so the same file, on any number of workers


def _demonstration_unit(
    game: str, config: Config, teacher: str, expert: str | None, decides: tuple, opponent: str | None, seed: int,
    first: int, games: int,
) -> Demonstrations:  # fmt: skip
    """Games `first` to `first + games` of a demonstrations job (`play_demonstrations`), in any process."""
    from fruit_envs.agents import make_agent

    spec = get_spec(game)
    key = (game, config, teacher, expert, decides, opponent)
    if _unit_agents.get("key") != key:  # built once per process and job
        _unit_agents.update(key=key, teacher=make_teacher(teacher, spec, config, expert, decides)[0])
        _unit_agents["opponent"] = None if opponent is None else make_agent(opponent, spec, config)
    return demonstrations(spec, config, _unit_agents["teacher"], games, seed, _unit_agents["opponent"], first=first)


_unit_agents: dict = {}


def play_demonstrations(
    game: str | GameSpec,
    config: Config,
    teacher: str,
    games: int,
    seed: int = 0,
    opponent: str | None = None,
    expert: str | None = None,
    decides: tuple = (),
    workers: int | None = 1,
    ray_address: str | None = None,
    folder: str | Path | None = None,
    progress: bool = False,
) -> Demonstrations:
    """`games` demonstration games of the agent named `teacher` (with `expert` deciding its `decides` kinds; the
    teacher in one rotating seat against `opponent` if named), played as units of `UNIT_GAMES` games on
    `workers` local processes or a Ray cluster (`fruit_envs.core.units`): the same file whatever runs them.
    With `folder`, finished units are saved there (and a stopped job goes on from them)."""
    from fruit_envs.core import units

    spec = get_spec(game)
    runner = units.backend(workers, ray_address)
    units.warm(runner, ("fruit_envs.training.bc",))  # local workers start while the teacher is checked
    make_teacher(teacher, spec, config, expert, tuple(decides))  # a bad name fails before any game
    if opponent is not None:
        from fruit_envs.agents import resolve_agent

        resolve_agent(opponent)
    jobs = [
        units.Unit(
            f"games-{first:07d}",
            _demonstration_unit,
            (spec.id, config, teacher, expert, tuple(decides), opponent, seed, first, min(UNIT_GAMES, games - first)),
            min(UNIT_GAMES, games - first),
        )
        for first in range(0, games, UNIT_GAMES)
    ]
    identity = {"job": "demonstrations", "game": spec.id, "config": repr(config), "teacher": teacher, "expert": expert}
    identity.update(decides=list(decides), opponent=opponent, games=games, seed=seed)
    parts = units.run_units(jobs, runner, folder, identity, progress, f"{spec.id} demonstrations")
    data = Demonstrations.merge(parts, [u.key for u in jobs], same_seed=True)
    data.meta.update(seed=seed, units=len(jobs), unit_games=UNIT_GAMES)
    data.meta.pop("merged_from")
    return data


def pretrain(
    policy,
    data: Demonstrations,
    epochs: int = 10,
    batch_size: int = 2048,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    shaping: float = 0.0,
    soft_temperature: float = 0.0,
    soft_weight: float = 1.0,
) -> list[dict]:
    """Fit a MaskableActorCriticPolicy to the demonstrations; returns per-epoch mean losses and accuracy
    (agreement with the teacher's choices). With `soft_temperature` > 0 the policy fits `soft_targets`
    (cross-entropy against a distribution) instead of the teacher's choices alone."""
    import torch

    gen = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data.obs)
    mask = torch.as_tensor(data.mask)
    actions = torch.as_tensor(data.actions)
    targets = torch.as_tensor(data.soft_targets(soft_temperature, soft_weight)) if soft_temperature > 0 else None
    returns = torch.as_tensor(data.value_targets(shaping))
    history = []
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = torch.as_tensor(gen.permutation(len(data)))
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        for start in range(0, len(data), batch_size):
            idx = order[start : start + batch_size]
            features = policy.extract_features(obs[idx])
            pi_features, vf_features = features if isinstance(features, tuple) else (features, features)
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
            logits = policy.action_net(latent_pi).masked_fill(~mask[idx], -1e8)
            values = policy.value_net(latent_vf).squeeze(-1)
            if targets is None:
                policy_loss = torch.nn.functional.cross_entropy(logits, actions[idx])
            else:  # masked logits are -1e8 where the target is 0: their terms vanish
                log_p = torch.log_softmax(logits, dim=1)
                policy_loss = -(targets[idx] * log_p).sum(dim=1).mean()
            value_loss = torch.nn.functional.mse_loss(values, returns[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            share = len(idx) / len(data)
            totals["policy_loss"] += policy_loss.item() * share
            totals["value_loss"] += value_loss.item() * share
            totals["accuracy"] += float((logits.argmax(dim=1) == actions[idx]).float().mean()) * share
        history.append({"epoch": epoch + 1, **{k: round(v, 5) for k, v in totals.items()}})
    policy.set_training_mode(False)
    return history


def make_teacher(name: str, spec: GameSpec, config: Config, expert: str | None = None, decides=()):
    """The teacher agent and its label: agent `name`, or, with `expert`, `name` whose decisions of the kinds
    `decides` the expert makes instead (`agents.base.Handed`): demonstrations on the positions `name`
    itself meets, improved only where the expert plays better."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.base import Handed

    teacher = make_agent(name, spec, config)
    if expert is None:
        if decides:
            raise ValueError(f"the expert's decisions {list(decides)} need an expert agent to make them")
        return teacher, name
    return Handed(teacher, make_agent(expert, spec, config), spec, config, tuple(decides)), (
        f"{name}+{expert}@{','.join(decides)}"
    )


def main(argv: list[str] | None = None) -> int:
    """Play and save demonstrations once, for `train_ppo --bc-data` (a slow teacher such as search)."""
    import argparse
    import time

    from fruit_envs._cli import integer, positive_int, prog, writable_file
    from fruit_envs.agents import make_agent
    from fruit_envs.core import units
    from fruit_envs.core.threads import limit_threads

    parser = argparse.ArgumentParser(prog=prog("fruit_envs.training.bc"), description=main.__doc__)
    parser.add_argument("--game", required=True)
    parser.add_argument("--num-players", type=positive_int, default=2)
    parser.add_argument("--teacher", default="greedy", help="an agent name (greedy, search, search:rollouts=64, ...)")
    parser.add_argument(
        "--opponent",
        default=None,
        help="the teacher plays one seat (rotated) against this agent, and only its decisions are kept "
        "(default: the teacher in every seat)",
    )
    parser.add_argument(
        "--expert",
        default=None,
        help="with --expert-decides: this agent makes the teacher's decisions of those kinds (e.g. search)",
    )
    parser.add_argument(
        "--expert-decides",
        nargs="+",
        default=(),
        metavar="KIND",
        help="kinds of action (first word of an action's name: take, flip, place, ...) decided by --expert",
    )
    parser.add_argument("--games", type=positive_int, default=1000)
    parser.add_argument("--seed", type=integer, default=0)
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"local worker processes playing the games, {UNIT_GAMES} at a time (default: every usable core)",
    )
    parser.add_argument(
        "--ray", default=None, metavar="ADDRESS", help="play them on a Ray cluster: auto, ray://HOST:PORT or local"
    )
    parser.add_argument("--out", type=writable_file, required=True, help="the .npz file to write")
    parser.add_argument(
        "--merge",
        nargs="+",
        default=None,
        metavar="FILE",
        help="instead of playing, join these demonstration files (the same game, configuration and teacher, "
        "different seeds: e.g. played in parallel processes) into --out",
    )
    args = parser.parse_args(argv)
    limit_threads()  # one torch thread per process unless told otherwise (fruit_envs.core.threads)
    if args.out.suffix != ".npz":
        parser.error(f"--out must name a .npz file, got {args.out}")
    if args.merge is not None:
        try:
            parts = [Demonstrations.load(path) for path in args.merge]
            data = Demonstrations.merge(parts, list(args.merge))
            if data.meta["game"] != get_spec(args.game).id:
                raise ValueError(f"the files hold {data.meta['game']} demonstrations, not {args.game}")
        except (ValueError, OSError, KeyError, zipfile.BadZipFile) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        data.save(args.out)
        print(f"{len(data):,} decisions of {data.meta['games']:,} games from {len(parts)} files -> {args.out}")
        return 0
    parts = args.out.parent / f"{args.out.name}.parts"  # finished units: a stopped job goes on from them
    try:  # a bad game, player count or teacher is reported before any game is played
        spec = get_spec(args.game)
        config = spec.make_config(args.num_players)
        teacher, label = make_teacher(args.teacher, spec, config, args.expert, tuple(args.expert_decides))
        if args.opponent is not None:
            make_agent(args.opponent, spec, config)
        started = time.time()
        data = play_demonstrations(
            spec, config, args.teacher, args.games, args.seed, args.opponent, args.expert, tuple(args.expert_decides),
            args.workers, args.ray, parts, progress=True,
        )  # fmt: skip
    except (ValueError, units.UnitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    data.meta["teacher"] = label
    data.meta["opponent"] = args.opponent
    data.meta["seconds"] = round(time.time() - started, 1)
    data.save(args.out)
    units.forget(parts)
    parts.rmdir()
    print(f"{len(data):,} decisions of {args.games:,} {label} games in {data.meta['seconds']} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
