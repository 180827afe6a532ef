"""Exact best-response values (`benchmarks.benchmark.exact`) and the local best response's particle filter, checked
by hand on a toy game and against independent computations on the real games (issue 60)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pytest

from fruit_envs.agents import make_agent
from fruit_envs.agents.base import action_probabilities
from fruit_envs.benchmarks.benchmark.errors import BenchmarkError
from fruit_envs.benchmarks.benchmark.exact import analysis_position, exact_best_response
from fruit_envs.benchmarks.benchmark.exploitability import ParticleFilter
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec

# ---- the toy game: seat 1 holds High or Low (hidden), passes or bets; after a bet seat 0 folds or calls ----
# A pass is a showdown; a fold is a draw (both win: outcome 0); a call a showdown. At a showdown High wins for
# seat 1 and Low loses. Seat 1's policy: High always bets, Low bets half the time; seat 0's calls half the time.


@dataclass
class ToyState:
    card: np.ndarray  # 1 High, 0 Low
    bet: np.ndarray = None  # -1 not yet, 0 pass, 1 bet
    reply: np.ndarray = None  # -1 not yet, 0 fold, 1 call
    config: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(num_players=2))

    def __post_init__(self):
        n = len(self.card)
        self.bet = np.full(n, -1) if self.bet is None else self.bet
        self.reply = np.full(n, -1) if self.reply is None else self.reply

    @property
    def batch_size(self):
        return len(self.card)

    @property
    def to_move(self):
        return np.where(self.bet < 0, 1, 0)

    @property
    def done(self):
        return (self.bet == 0) | (self.reply >= 0)

    @property
    def truncated(self):
        return np.zeros(self.batch_size, dtype=bool)

    @property
    def step_count(self):
        return (self.bet >= 0).astype(int) + (self.reply >= 0)

    def take(self, index):
        return ToyState(self.card[index].copy(), self.bet[index].copy(), self.reply[index].copy())

    def copy(self):
        return self.take(np.arange(self.batch_size))

    def put(self, index, other):
        self.card[index], self.bet[index], self.reply[index] = other.card, other.bet, other.reply


class ToyRules:
    @staticmethod
    def observation_shape(config):
        return (4,)

    @staticmethod
    def observe(state, seat):
        seat = np.broadcast_to(np.asarray(seat), (state.batch_size,))
        mine = seat == 1
        return np.stack([mine, np.where(mine, state.card, 0), state.bet == 0, state.bet == 1], axis=1).astype(
            np.float32
        )

    @staticmethod
    def legal_mask(state, seat=None):
        return np.ones((state.batch_size, 2), dtype=bool)

    @staticmethod
    def step(state, actions, active=None):
        s = state.copy()
        first = s.bet < 0
        s.bet = np.where(first, actions, s.bet)
        s.reply = np.where(~first, actions, s.reply)
        return s, np.zeros((s.batch_size, 2), dtype=np.float32)

    @staticmethod
    def winners(state):
        fold = state.reply == 0
        high = state.card == 1
        return np.stack([fold | ~high, fold | high], axis=1)


class ToyPolicy:
    name = "toy"

    def probabilities(self, obs, mask):
        seat1, high = obs[:, 0] == 1, obs[:, 1] == 1
        bet = np.where(seat1, np.where(high, 1.0, 0.5), 0.5)
        return np.stack([1 - bet, bet], axis=1)


TOY = SimpleNamespace(id="toy", rules=ToyRules)


def test_toy_best_response_by_hand():
    """By hand: seat 0 decides only after a bet, where it holds High with weight 1/2 and Low with 1/4: calling
    is worth 1/2(-1) + 1/4(+1) = -1/4, folding 0, so it folds; it then wins only after Low passes (1/4). The policy
    (calling half the time) is worth 1/2(-1/2) + 1/4(+1/2) + 1/4(+1) = 1/8. A seat that saw the card would
    call Low's bets too (1/2): the exact value must not be that."""
    roots = ToyState(np.array([1, 0]))
    result = exact_best_response(TOY, roots, 0, ToyPolicy())
    assert result["value"] == pytest.approx(0.25)
    assert result["policy_value"] == pytest.approx(0.125)
    assert result["gain"] == pytest.approx(0.125)
    assert result["infosets"] == 1  # the seat decides once, not knowing the card
    # seen alone (each deal its own root), the seat would know the card: 1/2 (0 with High, +1 with Low)
    alone = [exact_best_response(TOY, ToyState(np.array([c])), 0, ToyPolicy())["value"] for c in (1, 0)]
    assert np.mean(alone) == pytest.approx(0.5)


def test_toy_filter_weights_by_the_policy():
    """Bayes' rule on the toy: after a bet, High is twice as likely as Low (1/2 x 1 against 1/2 x 1/2)."""
    roots = ToyState(np.array([1, 0]))
    pf = ParticleFilter(TOY, ToyPolicy(), 0, size=2, propose=lambda state, rng: roots.copy())
    before = ToyState(np.array([0]))  # the truth is Low; the filter never reads it
    pf.start(before, np.random.default_rng(0))
    after, _ = ToyRules.step(before, np.array([1]))
    pf.update(before, np.array([1]), after, np.random.default_rng(0))
    assert pf.weights[0] == pytest.approx([2 / 3, 1 / 3])


def test_exact_is_between_the_policy_and_perfect_information():
    """Cherry Picking with three players against greedy play, ten decisions from the end: the best response is
    worth at least the policy, and no more than the average of each deal solved alone (a seat that saw the
    others' hands); here strictly less: the information sets keep the seat from reading hidden cards."""
    spec = get_spec("cherry_picking")
    config = spec.make_config(3)
    agent = make_agent("greedy", spec, config)
    roots = analysis_position(spec, config, 0, 10, 8, 3)
    assert len({spec.rules.observe(roots.take([k]), 1).tobytes() for k in range(8)}) > 1  # seat 1's hand varies
    result = exact_best_response(spec, roots, 0, agent)
    alone = np.mean([exact_best_response(spec, roots.take([k]), 0, agent)["value"] for k in range(8)])
    assert result["policy_value"] <= result["value"] < alone - 0.25


def test_last_decision_is_the_best_mean_over_the_deals():
    """Where seat 0 makes the game's last decision, its exact best response is the action with the best mean
    outcome over the deals (each computed here by stepping the rules directly)."""
    from fruit_envs.core.spec import game_winners, outcome_codes

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    agent = make_agent("greedy", spec, config)
    for seed in range(40):
        roots = analysis_position(spec, config, 0, 1, 6, seed)
        mask = spec.rules.legal_mask(roots)
        if roots.to_move[0] != 0 or mask.sum() < 6 * 2:
            continue
        means = []
        for action in np.flatnonzero(mask[0]):
            after, _ = spec.rules.step(roots, np.full(6, action))
            if not after.done.all():
                break
            means.append(outcome_codes(game_winners(spec.rules, after), np.zeros(6, dtype=int), after.truncated).mean())
        else:
            assert exact_best_response(spec, roots, 0, agent)["value"] == pytest.approx(max(means))
            return
    pytest.fail("no position among 40 seeds where seat 0 makes the last decision")


def test_too_big_a_tree_is_refused_by_name():
    spec = get_spec("fruit_picking")
    config = spec.make_config(2)
    roots = analysis_position(spec, config, 0, 30, 8, 0)
    with pytest.raises(BenchmarkError, match="histories .* closer to the end"):
        exact_best_response(spec, roots, 0, make_agent("random", spec, config), max_nodes=1000)


def test_action_probabilities_match_what_agents_play():
    """Every action an agent plays has positive probability, and probabilities sum to one over legal actions."""
    spec = get_spec("juicy_fruits")
    config = spec.make_config(2)
    state = spec.rules.init(config, frng.keys_from_seed(3, 32))
    gen = np.random.default_rng(0)
    for _ in range(5):
        state, _ = spec.rules.step(
            state, make_agent("random", spec, config).act(None, spec.rules.legal_mask(state), gen)
        )
    mask, mover = spec.rules.legal_mask(state), state.to_move.astype(np.int64)
    obs = spec.rules.observe(state, mover)
    for name in ("random", "greedy", "ppo-baseline"):
        agent = make_agent(name, spec, config)
        probs = action_probabilities(agent, obs, mask)
        assert np.allclose(probs.sum(axis=1), 1) and not (probs[~mask] > 0).any()
        for k in range(10):
            chosen = agent.act(obs, mask, np.random.default_rng(k))
            assert (probs[np.arange(32), chosen] > 0).all(), name
    with pytest.raises(ValueError, match="no action probabilities"):
        action_probabilities(make_agent("search", spec, config), obs, mask)


def test_the_filter_never_reads_a_hidden_action():
    """Cherry Picking's card choices are hidden until revealed: the filter's particles and weights after another
    seat's hidden choice are the same whichever card it chose (it sees only its seat's observation). Three
    players: seat 1 chooses before seat 2, so its card stays hidden for a step."""
    spec = get_spec("cherry_picking")
    config = spec.make_config(3)
    rules = spec.rules
    state = rules.init(config, frng.keys_from_seed(5, 1))
    gen = np.random.default_rng(1)
    while not state.done[0]:
        if state.to_move[0] == 1:
            legal = np.flatnonzero(rules.legal_mask(state)[0])
            outcomes = {a: rules.step(state, np.array([a]))[0] for a in legal}
            seen = {a: rules.observe(s, 0).tobytes() for a, s in outcomes.items()}
            pairs = [(a, b) for a in legal for b in legal if a < b and seen[a] == seen[b]]
            if pairs:
                break
        state, _ = rules.step(state, np.array([gen.choice(np.flatnonzero(rules.legal_mask(state)[0]))]))
    else:
        pytest.fail("no hidden choice of seat 1 found")
    a, b = pairs[0]
    greedy = make_agent("greedy", spec, config)
    results = []
    for action in (a, b):
        pf = ParticleFilter(spec, greedy, 0, size=16)
        pf.start(state, np.random.default_rng(7))
        pf.update(state, np.array([action]), outcomes[action], np.random.default_rng(8))
        results.append((pf.weights.copy(), rules.observe(pf.states, 0), pf.states.hands.copy()))
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1]) and np.array_equal(results[0][2], results[1][2])


def test_the_check_runs_and_no_estimate_passes_the_exact_value(tmp_path):
    """The validation (`benchmarks.exploitability_check`, short budgets): every estimator's gain stays at or
    under the exact gain, within its interval."""
    from fruit_envs.benchmarks.exploitability_check import main

    assert main(["--games", "cherry_picking", "--policies", "random,greedy", "--quick", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "check.json").read_text())["rows"]
    assert len(rows) == 2 and (tmp_path / "check.png").stat().st_size > 1000
    for row in rows:
        assert row["found"] and row["offers_gain"] and row["gain"] >= 0.25
        for point in row["lbr"] + row["trained"]:
            assert point["gain_low"] <= row["gain"] + 1e-9, (row["policy"], point)


def test_training_and_play_start_from_given_positions():
    """The analysis deals reach the trained response (`FruitSB3VecEnv.set_start_positions`: every game, resets
    included, starts from one of them) and the arena (`play_games(start=)`); bad positions refused by name."""
    from fruit_envs.agents.arena import play_games
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    roots = analysis_position(spec, config, 0, 6, 4, 2)
    env = FruitSB3VecEnv("cherry_picking", num_envs=6, num_players=2, opponent="greedy", seat=0)
    env.set_start_positions(roots)
    env.seed(0)
    obs = env.reset()
    starts = {spec.rules.observe(roots.take([k]), 0).tobytes() for k in range(4)}
    if roots.to_move[0] == 0:  # the learner is to move at the start: it sees one of the positions
        assert all(row.tobytes() in starts for row in obs)
    for _ in range(40):  # games end and start again from the positions, never from a new deal
        masks = env.batch.action_masks()
        env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert (env.batch.state.step_count >= roots.step_count[0]).all()
    with pytest.raises(ValueError, match="live game"):
        env.set_start_positions(_finished(spec, config))
    with pytest.raises(ValueError, match="config"):
        env.set_start_positions(analysis_position(spec, spec.make_config(3), 0, 6, 2, 2))
    agent = make_agent("greedy", spec, config)
    result = play_games(spec, config, [agent], np.zeros((4, 2), dtype=np.int64), start=roots)
    assert result.final_state.done.all() and (result.lengths >= roots.step_count[0]).all()
    with pytest.raises(ValueError, match="start must be a batch of 3"):
        play_games(spec, config, [agent], np.zeros((3, 2), dtype=np.int64), start=roots)


def _finished(spec, config):
    state = spec.rules.init(config, frng.keys_from_seed(0, 1))
    gen = np.random.default_rng(0)
    while not state.done[0]:
        state, _ = spec.rules.step(state, np.array([gen.choice(np.flatnonzero(spec.rules.legal_mask(state)[0]))]))
    return state


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "nope"], "unknown game 'nope'"),
        (["--policies", "search", "--games", "cherry_picking"], "gives no action probabilities"),
        (["--particles", "0"], "must be positive"),
        (["--repeats", "1"], "at least 2"),
        (["--players", "1"], "at least 2"),
    ],
)
def test_the_check_refuses_bad_input_by_name_before_any_work(args, message, capsys, tmp_path):
    from fruit_envs.benchmarks.exploitability_check import main

    with pytest.raises(SystemExit) as stop:
        main([*args, "--out", str(tmp_path / "out")])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_check_writes_under_the_current_folder_by_default(tmp_path, monkeypatch):
    """Outside `--update-docs` the results go to ./results/exploitability_check, never into the package."""
    from fruit_envs.benchmarks.exploitability_check import main

    monkeypatch.chdir(tmp_path)
    args = ["--games", "juicy_fruits", "--policies", "greedy", "--quick", "--seeds", "1", "--steps", "512"]
    assert main(args) == 0
    assert sorted(p.name for p in (tmp_path / "results" / "exploitability_check").iterdir()) == [
        "check.json",
        "check.png",
    ]
