"""The trained best response per seat at every player count (`--exploitability br[:STEPS]`, issue 60).

For every game and player count of the run with opponents, and every seat: a MaskablePPO trained for STEPS
decisions in that seat (`FruitSB3VecEnv(..., seat=s)`) against the frozen policy in every other seat, with the
protocol's `best_response:` training settings, from each of the run's warm starts in turn:

* `scratch`: a fresh network;
* `baseline`: the shipped PPO baseline of that game and player count (`fruit_envs.agents.ppo.load_baseline`);
* `candidate`: the policy itself, where it is a MaskablePPO model of that game and player count.

A start that does not apply (no baseline shipped, a policy that is not a PPO model, the policy's weights equal to
the baseline's) is skipped and the seat's row says why. Each trained response plays the policy (deterministic,
its argmax) on one set of deals, and the best start on those games is chosen; the chosen response then plays a
fresh set of deals (another deal-key label), beside the policy's own games in every seat over the same deals,
and only those games give the seat's gain (`exploitability.paired_gain`): choosing on the games that are
reported would bias the bound upward. Summed over the seats (`exploitability.group_bounds`), the gains bound
NashConv from below (outcome utility), as far as STEPS decisions of training can find a response.

`--best-response STEPS` (`best_response.py`, protocol v1's published measure: two players, one network, win
share) stays as it is; this is the per-seat bound beside `--exploitability lbr`.
"""

from __future__ import annotations

import time
import zlib
from typing import Any

import numpy as np

from fruit_envs.agents.arena import play_games
from fruit_envs.benchmarks.benchmark.best_response import response_model
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.exploitability import UTILITY, paired_gain, run_per_seat

STARTS = ("scratch", "baseline", "candidate")  # the warm starts, in the order they are trained and preferred
SELECTION_LABEL = "br-select"  # the deal-key label of the games that choose the start (never reported)
EVALUATION_LABEL = "br"  # the deal-key label of the games that give the seat's gain


def parse_starts(starts: Any) -> list[str]:
    """The warm starts to try, in `STARTS`' order: None (all of them: each one that applies), `"scratch,baseline"`
    or a list of names; anything else a `BenchmarkError` naming the starts allowed."""
    if starts is None:
        return list(STARTS)
    names = [s.strip() for s in starts.split(",")] if isinstance(starts, str) else list(starts)
    names = [name for name in names if name != ""]
    bad = [name for name in names if name not in STARTS]
    if bad or not names:
        raise BenchmarkError(
            f"best response starts {', '.join(map(repr, bad)) if bad else repr(starts)}: the starts are "
            f"{', '.join(STARTS)} (one or more, comma-separated)"
        )
    return [start for start in STARTS if start in names]


def ppo_policy(agent: Any) -> Any:
    """The MaskablePPO policy network an agent plays with (`PPOAgent`), or None for any other agent."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = getattr(getattr(agent, "model", None), "policy", None)
    return policy if isinstance(policy, MaskableActorCriticPolicy) else None


def start_source(start: str, spec, config, candidate: Any) -> tuple[Any, str | None]:
    """The network a warm start copies (None for `scratch`) and None, or None and why the start does not apply
    to this game and player count."""
    from fruit_envs.agents.ppo import load_baseline
    from fruit_envs.core.record import agent_label

    if start == "scratch":
        return None, None
    if start == "baseline":
        try:
            return load_baseline(spec, config).model.policy, None
        except ValueError as error:
            return None, f"no usable baseline: {error}"
    if start == "candidate":
        policy = ppo_policy(candidate)
        if policy is None:
            return None, (
                f"the policy ({agent_label(candidate)}) is not a MaskablePPO model of {spec.id} with "
                f"{config.num_players} players"
            )
        return policy, None
    raise BenchmarkError(f"best response start {start!r}: the starts are {', '.join(STARTS)}")


def check_starts(plan: list, starts: list[str]) -> None:
    """Before any game: a `BenchmarkError` where no start of `starts` applies to a group of the run (`plan`:
    `(spec, config, agent, refs)` rows), naming each start's reason."""
    for spec, config, agent, _ in plan:
        if config.num_players < 2:
            continue
        reasons = {start: start_source(start, spec, config, agent)[1] for start in starts}
        if all(reasons.values()):
            why = "; ".join(f"{start}: {reason}" for start, reason in reasons.items())
            raise BenchmarkError(
                f"--exploitability br: no warm start applies to {spec.id} with {config.num_players} players ({why}); "
                f"add scratch (--br-starts scratch,...)"
            )


def same_weights(a: Any, b: Any) -> bool:
    """Whether two policy networks hold the same parameters (names, shapes and values)."""
    import torch

    first, second = a.state_dict(), b.state_dict()
    return first.keys() == second.keys() and all(
        first[k].shape == second[k].shape and torch.equal(first[k], second[k]) for k in first
    )


def responder_model(start: str, spec, config, candidate: Any, options: dict, env, seed: int) -> tuple[Any, str | None]:
    """An untrained MaskablePPO on `env` with the protocol's training `options`, holding the warm start's weights
    (a copied network keeps its own layer sizes and activation), and None; or None and why the start does not
    apply."""
    source, reason = start_source(start, spec, config, candidate)
    if reason is not None:
        return None, reason
    shape = None if source is None else {"net_arch": source.net_arch, "activation_fn": source.activation_fn}
    model = response_model(env, options, seed, shape)
    if source is not None:
        try:
            model.policy.load_state_dict(source.state_dict())
        except RuntimeError as error:
            return None, f"its network does not fit a MaskablePPO MlpPolicy: {error}"
    return model, None


def response_keys(seed: int, game: str, players: int, seat: int, games: int) -> dict[str, np.ndarray]:
    """A seat's deal keys `(games,) uint64`: `selection` (the games that choose the start) and `evaluation` (the
    fresh games that give its gain), from different labels so that no deal is in both."""
    from fruit_envs.benchmarks.benchmark.protocol import deal_keys

    return {
        "selection": deal_keys(seed, f"{game}/{SELECTION_LABEL}/{seat}", players, games),
        "evaluation": deal_keys(seed, f"{game}/{EVALUATION_LABEL}/{seat}", players, games),
    }


def _start_seed(seed: int, game: str, players: int, seat: int, start: str) -> int:
    """A training seed of its own for each start of each seat (the same whichever starts the run tries)."""
    words = [seed, zlib.crc32(game.encode()), players, seat, STARTS.index(start)]
    return int(np.random.SeedSequence(words).generate_state(1)[0] % 2**31)


def _outcomes(spec, config, responder: Any, candidate: Any, seat: int, keys: np.ndarray, seed: int) -> np.ndarray:
    """`(games,)` the outcomes in `seat` of `responder` there against `candidate` in every other seat; with
    `responder` None, of the candidate's own games in every seat (the same deals)."""
    games, players = len(keys), config.num_players
    seating = np.ones((games, players), dtype=np.int64)
    seating[:, seat] = 0
    if responder is None:
        agents, seating = [candidate], np.zeros_like(seating)
    else:
        agents = [responder, candidate]
    return play_games(spec, config, agents, seating, seed=seed, keys=keys).outcome(np.full(games, seat))


def seat_br_unit(
    policy, game: str, players: int, seat: int, steps: int, starts: list[str], options: dict, games: int, seed: int
) -> dict:
    """One seat's trained best response against the candidate (`policy`, a `PolicyTraveller`), in whatever process
    runs it: each start trained in turn, the best chosen on `games` selection games, its gain measured on `games`
    fresh ones beside the candidate's own over the same deals."""
    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.benchmarks.benchmark.play import built
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
    from fruit_envs.core.spec import get_spec

    spec = get_spec(game)
    config = spec.make_config(players)
    candidate = built(policy, spec, config)
    began = time.perf_counter()
    keys = response_keys(seed, spec.id, players, seat, games)
    tried: dict[str, dict] = {}
    responders: dict[str, Any] = {}
    for start in starts:
        clock = time.perf_counter()
        if start == "candidate" and "baseline" in responders:
            own, baseline = ppo_policy(candidate), start_source("baseline", spec, config, candidate)[0]
            if own is not None and baseline is not None and same_weights(own, baseline):
                tried[start] = {"skipped": "the policy's weights are the baseline's: the baseline start covers it"}
                continue
        train_seed = _start_seed(seed, spec.id, players, seat, start)
        env = FruitSB3VecEnv(spec.id, num_envs=int(options["num_envs"]), num_players=players, opponent=candidate,
                             seat=seat)  # fmt: skip
        env.seed(train_seed)
        model, reason = responder_model(start, spec, config, candidate, options, env, train_seed)
        if model is None:
            tried[start] = {"skipped": reason}
            continue
        model.learn(total_timesteps=int(steps), progress_bar=False)
        responders[start] = PPOAgent(model, spec, config, deterministic=True)
        tried[start] = {"steps": int(model.num_timesteps), "seconds": round(time.perf_counter() - clock, 2)}
    if not responders:
        why = "; ".join(f"{start}: {row['skipped']}" for start, row in tried.items())
        raise BenchmarkError(f"--exploitability br: no warm start applies to {spec.id} {players}p seat {seat} ({why})")
    play_seed = seed + 1 + seat
    if len(responders) > 1:  # choose on the selection games
        own = _outcomes(spec, config, None, candidate, seat, keys["selection"], play_seed)
        for start, responder in responders.items():
            against = _outcomes(spec, config, responder, candidate, seat, keys["selection"], play_seed)
            tried[start]["selection_gain"] = paired_gain(against, own)["gain"]
        chosen = max(responders, key=lambda s: tried[s]["selection_gain"])  # the first of equals: STARTS' order
    else:
        chosen = next(iter(responders))
        tried[chosen]["selection_gain"] = None  # one start: nothing to choose
    own = _outcomes(spec, config, None, candidate, seat, keys["evaluation"], play_seed)
    against = _outcomes(spec, config, responders[chosen], candidate, seat, keys["evaluation"], play_seed)
    gain = paired_gain(against, own)
    return {"game": spec.id, "players": players, "seat": seat, "games": games, **gain, "start": chosen,
            "starts": tried, "steps": tried[chosen]["steps"],
            "seconds": round(time.perf_counter() - began, 2)}  # fmt: skip


def run_seat_best_response(
    plan: list, label: str, steps: int, options: dict, seed: int, progress: bool, policy=None, runner=None,
    games_per_seat: int | None = None, starts: Any = None,
) -> dict:  # fmt: skip
    """The trained best response in every seat of every game and player count of the run with opponents (one unit
    of work per seat, `core.units`, each trying every start): per seat its gain over the candidate's own value
    there on fresh deals, per group their sum (a lower bound on NashConv, outcome utility). `options` are the
    protocol's `best_response:` settings; `games_per_seat` (default: theirs) the selection games and the
    evaluation games of each seat."""
    starts = parse_starts(starts)
    games = int(games_per_seat or options["games_per_seat"])

    def task(policy, game: str, p: int, seat: int) -> tuple:
        return (
            (policy, game, p, seat, int(steps), starts, options, games, seed),
            2 * games,
            float(steps) * len(starts) * p,
        )

    out = run_per_seat(plan, label, "br", seat_br_unit, task, "trained best response", progress, policy, runner)
    budget = {"steps": int(steps), "starts": starts, "games_per_seat": games}
    settings = {k: options[k] for k in sorted(options)}
    return {"method": "br", "budget": budget, "utility": UTILITY, "groups": out, "settings": settings}
