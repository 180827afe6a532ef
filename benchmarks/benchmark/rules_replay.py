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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fruit_envs.core.spec import Config, GameSpec, game_winners

TIE_NOISE = 1e-6  # greedy's tie-break: argmax_legal adds a uniform draw times this to every score
SHOWN = 3  # games named per cell and kind of problem; the rest are counted
FLUSH_BYTES = 32 << 20  # observations gathered before an agent is asked about them


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
