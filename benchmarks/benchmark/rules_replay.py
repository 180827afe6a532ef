"""Every game of a card cell replayed through the rules from its stored actions, without the policy: each action
legal, each outcome the card's, and each seat's moves checked as far as its agent can be without its draws.

A cell is one batch: its deals from the card's seed, the stored actions stepped together, one call of the
batched rules per step for every game (no loop over games). Where a seat's agent is known (a protocol
reference, or the policy rebuilt from what the card may name), its moves are checked move by move on the same
batches play gave it (the games where it is to move, in order), so a network sees the same rows:

* `exact`: an agent whose choice draws nothing (an argmax PPO policy): its action, to the bit;
* `ties`: greedy, whose draws only break ties: one of its best-scoring legal actions;
* `legal`: any legal action, for agents whose choices draw from the cell's generator (random, search, a sampled
  policy). Protocol v1 plays a cell with one generator shared by the policy and the references, in the order
  they are asked, so those draws cannot be reproduced without the policy: `verify --sample` replays them.

`check_card_games` does this for every cell of a card from its games file, the checks `verify` runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from fruit_envs.benchmarks.benchmark import result_card as rc
from fruit_envs.benchmarks.benchmark.card_policy import build_agent, card_source, replay_source
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.games_file import GAMES_FILE, read_games
from fruit_envs.benchmarks.benchmark.protocol import Protocol
from fruit_envs.core.spec import Config, GameSpec, game_winners

TIE_NOISE = 1e-6  # greedy's tie-break: argmax_legal adds a uniform draw times this to every score
SHOWN = 3  # games named per cell and kind of problem; the rest are counted
FLUSH_BYTES = 32 << 20  # observations gathered before an agent is asked about them
KINDS = {  # how a seat's moves were checked, as the summary says it
    "exact": "move by move (an agent that draws nothing)",
    "ties": "up to ties (a best-scoring move; greedy's draws only break ties)",
    "legal": "as legal moves only (its choices draw from the cell's generator, which the policy shares)",
}


@dataclass
class MoveCheck:
    """How one seat's moves are checked without its random draws: `kind` is `exact`, `ties` or `legal`."""

    name: str
    kind: str
    agent: Any = None
    checked: int = 0  # moves checked so far, beyond legality

    def wrong(self, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """`(B,)` bool: the moves the agent could not have made from these observations (legal moves each)."""
        self.checked += len(actions)
        if self.kind == "exact":
            return self.agent.act(obs, mask, np.random.default_rng(0)) != actions
        scores = np.asarray(self.agent.scores(obs, mask), dtype=np.float64)
        best = np.where(mask, scores, -np.inf).max(axis=1)
        chosen = scores[np.arange(len(actions)), actions]
        return chosen < best - TIE_NOISE - 1e-12 * np.maximum(1.0, np.abs(best))


def move_check(name: str, agent: Any) -> MoveCheck:
    """The check an agent's moves allow: `exact` for an argmax PPO policy, `ties` for greedy, else `legal`."""
    from fruit_envs.agents.greedy import KernelGreedy
    from fruit_envs.agents.ppo import PPOAgent

    if isinstance(agent, PPOAgent) and agent.deterministic and type(agent).act is PPOAgent.act:
        return MoveCheck(name, "exact", agent)
    if isinstance(agent, KernelGreedy) and type(agent).act is KernelGreedy.act:
        return MoveCheck(name, "ties", agent)
    return MoveCheck(name, "legal")


@dataclass
class CellReplay:
    """What replaying a cell's stored actions gave: its outcomes `(G, P)`, `(G, P)`, `(G,)` and, per game that
    went wrong, what did."""

    scores: np.ndarray
    winners: np.ndarray
    truncated: np.ndarray
    faults: dict[int, str] = field(default_factory=dict)


@dataclass
class CellGames:
    """One cell's games to replay: deal keys `(G,)`, the policy's seat `(G,)`, each game's actions, and the
    checks of the policy's and the reference's moves (None: no such seat, or legality only)."""

    keys: np.ndarray
    policy_seat: np.ndarray
    games: list[np.ndarray]
    policy: MoveCheck | None = None
    reference: MoveCheck | None = None


def replay_cells(spec: GameSpec, config: Config, cells: list[CellGames]) -> list[CellReplay]:
    """Step every game of cells of one game and player count through the rules together (one batch, one call of
    the rules per step). Each seat's moves are gathered over the steps and asked of its agent in large batches
    (`_Asked`). A game whose action is illegal or whose actions end early or run on gets a fault and is played on
    with its first legal action; one whose seat's move its agent could not have made gets a fault too; each
    game's earliest fault is kept."""
    rules = spec.rules
    which = np.concatenate([np.full(len(c.keys), k) for k, c in enumerate(cells)]).astype(np.int64)
    seats = np.concatenate([np.asarray(c.policy_seat, dtype=np.int64) for c in cells])
    games = [actions for c in cells for actions in c.games]
    n = len(games)
    lengths = np.array([len(a) for a in games], dtype=np.int64)
    table = np.zeros((n, int(lengths.max(initial=0)) + 1), dtype=np.int64)
    for g, actions in enumerate(games):
        table[g, : len(actions)] = actions
    state = rules.init(config, np.concatenate([np.asarray(c.keys, dtype=np.uint64) for c in cells]))
    taken = np.zeros(n, dtype=np.int64)
    broken = np.zeros(n, dtype=bool)
    faults: dict[int, tuple[int, str]] = {}
    rows = np.arange(n)
    asked: dict[int, _Asked] = {}  # one per agent, over every cell it plays in
    parts = []
    for k, c in enumerate(cells):
        for check, own in ((c.policy, True), (c.reference, False)):
            if check is not None and check.kind != "legal":
                parts.append((asked.setdefault(id(check), _Asked(check)), which == k, own))
    for _ in range(spec.max_game_length(config) + 1):
        live = ~state.done
        if not live.any():
            break
        mask = rules.legal_mask(state)
        mover = state.to_move.astype(np.int64)
        short = live & (taken >= lengths)
        _fault(faults, broken, short, taken, lambda g: f"its actions end after {taken[g]} moves, before the game does")
        actions = table[rows, np.minimum(taken, table.shape[1] - 1)]
        usable = actions < mask.shape[1]
        legal = usable & mask[rows, np.where(usable, actions, 0)]
        illegal = live & ~short & ~legal
        _fault(faults, broken, illegal, taken, lambda g: f"move {taken[g]}: action {table[g, taken[g]]} is not legal")
        own_seat = mover == seats
        batches = [(ask, np.flatnonzero(live & in_cell & (own_seat == own) & ~broken)) for ask, in_cell, own in parts]
        asked_rows = np.concatenate([batch for _, batch in batches]) if batches else rows[:0]
        if len(asked_rows):  # observed once for every agent asked this step, then split by batch
            position = np.empty(n, dtype=np.int64)
            position[asked_rows] = np.arange(len(asked_rows))
            observed = rules.observe(state.take(asked_rows), mover[asked_rows])
            for ask, batch in batches:
                if len(batch):
                    ask.add(observed[position[batch]], mask[batch], actions[batch], batch, taken[batch])
        actions = np.where(broken, mask.argmax(axis=1), actions)
        state, _ = rules.step(state, np.where(live, actions, 0))
        taken[live] += 1
    else:
        _fault(faults, broken, ~state.done, taken, lambda g: f"still going after {spec.max_game_length(config)} moves")
    _fault(faults, broken, taken < lengths, taken, lambda g: f"{lengths[g] - taken[g]} actions after the game ended")
    for ask in asked.values():
        for g, move in ask.finish():
            if g not in faults or move < faults[g][0]:
                faults[g] = (move, f"move {move}: {ask.check.name} would not play {table[g, move]} there")
    scores, winners, truncated = np.asarray(rules.final_scores(state)), game_winners(rules, state), state.truncated
    out, start = [], 0
    for c in cells:
        stop = start + len(c.keys)
        mine = {g - start: text for g, (_, text) in sorted(faults.items()) if start <= g < stop}
        out.append(CellReplay(scores[start:stop], winners[start:stop], truncated[start:stop].copy(), mine))
        start = stop
    return out


class _Asked:
    """One agent's moves to check, gathered step by step (each step's batch as play gave it: one cell's games
    where the agent is to move) and asked together once they fill `FLUSH_BYTES` of observations. An exact agent's
    disagreements are asked again on their own step's batch: a network's rounding can depend on the batch, and
    play's batch is the one its moves came from."""

    def __init__(self, check: MoveCheck):
        self.check, self.chunks, self.size, self.wrong = check, [], 0, []

    def add(self, obs, mask, played, games, moves) -> None:
        self.chunks.append((obs, mask, played, games, moves))
        self.size += obs.nbytes
        if self.size >= FLUSH_BYTES:
            self._flush()

    def finish(self) -> list[tuple[int, int]]:
        """Every move asked whose agent would have played otherwise, as `(game, move)`."""
        self._flush()
        return self.wrong

    def _flush(self) -> None:
        if not self.chunks:
            return
        obs, mask, played = (np.concatenate([chunk[i] for chunk in self.chunks]) for i in range(3))
        wrong = self.check.wrong(obs, mask, played)
        start = 0
        for chunk_obs, chunk_mask, chunk_played, games, moves in self.chunks:
            mine = wrong[start : start + len(games)]
            start += len(games)
            if mine.any() and self.check.kind == "exact" and len(self.chunks) > 1:
                mine = self.check.wrong(chunk_obs, chunk_mask, chunk_played)
            self.wrong += [(int(g), int(m)) for g, m in zip(games[mine], moves[mine], strict=True)]
        self.chunks, self.size = [], 0


def _fault(faults: dict, broken: np.ndarray, which: np.ndarray, taken: np.ndarray, say) -> None:
    """Each game of `which` not yet at fault gets the fault `say(game)` at its move `taken[game]`, and is marked
    `broken` (played on with its first legal action)."""
    if not which.any():
        return
    for g in np.flatnonzero(which & ~broken):
        faults[int(g)] = (int(taken[g]), say(int(g)))
    broken |= which


def cell_faults(cell_id: str, faults: dict[int, str]) -> list[str]:
    """A cell's faults as problem lines: the first few games named, the rest counted."""
    shown = [f"cell {cell_id}, game {g}: {faults[g]}" for g in sorted(faults)[:SHOWN]]
    if len(faults) > SHOWN:
        shown.append(f"cell {cell_id}: and {len(faults) - SHOWN} more games like these")
    return shown


def check_card_games(
    card: dict, folder: Path, proto: Protocol, outcomes: dict, policy: Any, problems: list, checked: list
) -> None:
    """Every game of the card's cells in `outcomes` (index: the cell's parsed keys, seats and outcomes) replayed
    through the rules from the card's games file; each difference into `problems`, what was checked into
    `checked`."""
    from fruit_envs.core.spec import get_spec

    cells = card["cells"]
    specs = [get_spec(c["game"]) for c in cells]
    longest = [s.max_game_length(s.make_config(c["players"])) + 1 for s, c in zip(specs, cells, strict=True)]
    try:
        games = read_games(folder, [len(c["digests"]) for c in cells], longest)
    except FileNotFoundError:
        problems.append(
            f"no {GAMES_FILE} beside the card: without its games' actions nothing shows that its outcomes follow "
            f"from the rules (outcomes unbound); a run writes it, and `fruit-envs-benchmark games CARD` adds it to "
            f"an older card by playing its cells again"
        )
        return
    except BenchmarkError as error:
        problems.append(str(error))
        return
    seats = SeatChecks(card, folder, proto, policy, problems)
    groups: dict[tuple[str, int], list[int]] = {}
    for index in sorted(outcomes):
        cell, actions = cells[index], games[index]
        unbound = [g for g, a in enumerate(actions) if rc.actions_digest(a) != cell["actions_sha256"][g]]
        problems += [
            f"cell {cell['id']}, game {g}: its actions in {GAMES_FILE} do not give its actions digest"
            for g in unbound[:SHOWN]
        ]
        if not unbound:
            groups.setdefault((cell["game"], cell["players"]), []).append(index)
    total = 0
    for (game, players), indices in groups.items():
        spec = get_spec(game)
        config = spec.make_config(players)
        batch = [
            CellGames(
                outcomes[i]["keys"],
                outcomes[i]["policy_seat"],
                games[i],
                seats.check("policy", spec, config),
                seats.check(cells[i].get("reference"), spec, config),
            )  # fmt: skip
            for i in indices
        ]
        for index, replay in zip(indices, replay_cells(spec, config, batch), strict=True):
            problems += cell_faults(cells[index]["id"], _outcome_faults(replay, outcomes[index]))
            total += len(games[index])
    checked.append(
        f"{total} games replayed through the rules from {GAMES_FILE}: each action legal, each outcome the card's"
    )
    checked += seats.summary()


def _outcome_faults(replay, raw: dict) -> dict[int, str]:
    """A replayed cell's faults, and each other game whose outcome is not the card's."""
    faults = dict(replay.faults)
    for g in range(len(raw["scores"])):
        same = (
            np.array_equal(replay.scores[g].astype(np.float64), raw["scores"][g])
            and np.array_equal(replay.winners[g], raw["winners"][g])
            and bool(replay.truncated[g]) == bool(raw["truncated"][g])
        )
        if g not in faults and not same:
            faults[g] = (
                f"its actions give scores {replay.scores[g].tolist()}, winners "
                f"{''.join('1' if w else '0' for w in replay.winners[g])}"
                f"{', truncated' if replay.truncated[g] else ''}, not the card's outcome"
            )
    return faults


class SeatChecks:
    """The move checks of a card's seats: each reference's protocol agent, and the policy where it is rebuilt
    without trusting the card (`card_policy`) or given with --policy."""

    def __init__(self, card: dict, folder: Path, proto: Protocol, policy: Any, problems: list):
        self.card, self.proto, self.checks, self.notes, self.problems = card, proto, {}, [], problems
        self.given, self.source = policy is not None, None
        try:
            self.source = (
                replay_source(card, folder, proto, policy) if policy is not None else card_source(card, folder, proto)
            )
        except BenchmarkError as error:
            if policy is not None:
                raise
            self.notes.append(f"the policy's moves as legal moves only: {error}")

    def check(self, role: str | None, spec, config):
        if role is None:
            return None
        key = (role, spec.id, config.num_players)
        if key not in self.checks:
            if role == "policy":
                agent = None if self.source is None else self._policy(spec, config)
                name = "the policy" if self.source is None else f"the policy {self.source.label}"
            else:
                name = self.proto.references[role][spec.id]
                agent = reference_agent(name, spec, config)
            self.checks[key] = move_check(name, agent)
        return self.checks[key]

    def _policy(self, spec, config) -> Any:
        """The policy's agent; one the card's folder holds that cannot be built is a difference of the card's
        (its moves then legal only), one given with --policy stops verify."""
        try:
            return build_agent(self.source, spec, config)
        except BenchmarkError as error:
            if self.given:
                raise
            self.problems.append(f"{spec.id} {config.num_players}p: {error}")
            return None

    def summary(self) -> list[str]:
        by_kind: dict[str, set] = {}
        for (role, _, _), check in self.checks.items():
            if role != "policy" or self.source is not None:
                by_kind.setdefault(check.kind, set()).add("the policy" if role == "policy" else role)
        lines = [
            f"moves of {', '.join(sorted(names))}: {KINDS[kind]}"
            for kind, names in sorted(by_kind.items(), key=lambda item: list(KINDS).index(item[0]))
        ]
        if self.source is None and any(role == "policy" for role, _, _ in self.checks):
            lines.append(
                "moves of the policy: as legal moves only (the card's own words may not build it; --sample with "
                "--policy plays it)"
            )
        return lines + self.notes


def reference_agent(name: str, spec, config) -> Any:
    """A protocol reference's agent (an agent name from the protocol file), as play builds it."""
    from fruit_envs.agents import make_agent

    try:
        return make_agent(name, spec, config)
    except Exception as error:  # a reference that cannot be built here: its moves are not checked
        raise BenchmarkError(f"reference {name} cannot be built for {spec.id}: {error}") from None
