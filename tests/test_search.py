"""The search agent (issue 18): legal, batched, fair (blind to hidden information), deterministic, and
honoured by every caller (arena, tournaments, Gymnasium opponents, play)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from conftest import game_ids, game_player_params

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.agents import make_agent, split_agent_list
from fruit_envs.agents.arena import evaluate, play_games
from fruit_envs.agents.hooks import SearchHooks, search_hooks
from fruit_envs.agents.search import (
    DEFAULTS,
    SearchAgent,
    SearchOptions,
    default_options,
    guided_options,
    parse_options,
    resample,
)
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec

TINY = "search:rollouts=8,depth=4"  # cheap enough for every test in the default suite
GUIDED_TINY = "search:guided,rollouts=6,depth=3,value=ppo-baseline"  # guided by the shipped network
CHEAPEST = "search:rollouts=2,depth=1"  # for whole games played through the callers


def positions(game: str, players: int, seed: int = 0, games: int = 4, every: int = 11, limit: int = 6):
    """Live positions along random games (batches of `games`): up to `limit` states, one every `every` decisions."""
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(players), frng.keys_from_seed(seed, games))
    gen = np.random.default_rng(seed)
    out = []
    for t in range(spec.max_game_length(state.config)):
        if state.done.all() or len(out) == limit:
            break
        if t % every == 3:
            out.append(state.take(np.flatnonzero(~state.done)))
        mask = rules.legal_mask(state) | state.done[:, None]
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
    return out


def decide(agent, state, seed: int = 0) -> np.ndarray:
    return decide_with(agent, state, np.random.default_rng(seed))


def decide_with(agent, state, rng: np.random.Generator) -> np.ndarray:
    rules = agent.rules
    seats = state.to_move.astype(np.int64)
    return agent.act(rules.observe(state, seats), rules.legal_mask(state), rng, state, seats)


# --- options -----------------------------------------------------------------------------------------


def test_options_are_read_from_the_agent_name():
    text = "rollouts=128, depth=end,policy=random,select=uniform,determinizations=4,width=5,gate=1.5"
    options = parse_options(text, "cherry_picking")
    assert options == SearchOptions(128, None, "random", "uniform", determinizations=4, width=5, gate=1.5)
    assert parse_options("", "juicy_fruits") == DEFAULTS["juicy_fruits"]
    assert parse_options("depth=0", "fruit_picking").depth == 0
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    assert make_agent("search", spec, config).name == "search"
    labelled = make_agent("search:rollouts=16,policy=random", spec, config)
    assert isinstance(labelled, SearchAgent) and labelled.options.rollouts == 16
    assert labelled.name == "search:rollouts=16,depth=12,policy=random,select=halving,determinizations=0,width=0,gate=0"
    assert split_agent_list("greedy, search:rollouts=32,depth=8,random") == [
        "greedy",
        "search:rollouts=32,depth=8",
        "random",
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("rollouts=0", r"rollouts='0': an integer >= 1"),
        ("depth=deep", r"depth='deep': an integer >= 0 or 'end'"),
        ("policy=ppo", r"policy='ppo': choose one of \['greedy', 'random'\], ppo-baseline\[@N\] or ppo:PATH"),
        ("prior=greedy", r"prior='greedy': ppo-baseline\[@N\], ppo:PATH \(a MaskablePPO model\) or none"),
        ("value=ppo:", r"value='ppo:': ppo-baseline\[@N\], ppo:PATH"),
        ("rollouts=8,guided", r"'guided' comes first"),
        ("policy=ppo:/nowhere/model.zip", r"no PPO model at '/nowhere/model.zip'"),
        ("select=best", r"select='best': choose one of \['halving', 'uniform'\]"),
        ("gate=-1", r"gate='-1': a number >= 0"),
        ("width=2.5", r"width='2.5': an integer >= 0"),
        (
            "budget=5",
            r"key one of \['rollouts', 'depth', 'policy', 'select', 'determinizations', 'width', 'gate', 'prior', 'value'\]",
        ),
        ("rollouts", r"write key=value"),
        ("depth=4,depth=5", r"'depth' given twice"),
    ],
)
def test_bad_options_name_what_is_allowed(text, message):
    with pytest.raises(ValueError, match=message):
        make_agent(f"search:{text}", "cherry_picking")


def test_act_without_the_state_is_a_clear_error():
    spec = get_spec("cherry_picking")
    agent = make_agent(TINY, spec)
    state = spec.rules.init(spec.make_config(), frng.keys_from_seed(0, 2))
    obs, mask, gen = spec.rules.observe(state, 0), spec.rules.legal_mask(state), np.random.default_rng(0)
    with pytest.raises(ValueError, match="needs the games it decides"):
        agent.act(obs, mask, gen)
    with pytest.raises(ValueError, match="the seat to move"):
        agent.act(obs, mask, gen, state=state, seats=np.array([1, 1]))
    with pytest.raises(ValueError, match="a batch of 2 cherry_picking games"):
        agent.act(obs, mask, gen, state=state.take([0]), seats=np.array([0]))


# --- legal, batched, deterministic ---------------------------------------------------------------------


@pytest.mark.parametrize("game, players", game_player_params())
@pytest.mark.parametrize("name, limit", [(TINY, 3), (GUIDED_TINY, 2)], ids=["plain", "guided"])
def test_search_plays_legal_actions(game, players, name, limit):
    """Every position of a few random games, every seat to move (simultaneous phases included); guided
    too, wherever a baseline ships (every official player count)."""
    spec = get_spec(game)
    agent = make_agent(name, spec, spec.make_config(players))
    for state in positions(game, players, limit=limit):
        actions = decide(agent, state)
        assert actions.shape == (state.batch_size,) and actions.dtype == np.int64
        assert spec.rules.legal_mask(state)[np.arange(state.batch_size), actions].all()


@pytest.mark.parametrize("game", game_ids())
def test_one_call_decides_a_batch_without_a_loop_over_games(game, monkeypatch):
    """The rules are stepped the same number of times for 1 game and for 24 copies of it: the loop is
    over halving rounds and rollout steps, never over games."""
    spec = get_spec(game)
    rules = spec.rules
    agent = make_agent("search:rollouts=12,depth=3", spec)
    state = next(s for s in positions(game, spec.default_num_players, limit=6) if (rules.legal_mask(s).sum(1) > 1)[0])
    one = state.take([0])
    calls = {"step": 0, "redeal_hidden": 0}
    for name in calls:
        original = getattr(rules, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(rules, name, counted)
    decide(agent, one)
    single = dict(calls)
    calls.update(step=0, redeal_hidden=0)
    decide(agent, one.take(np.zeros(24, dtype=np.int64)))
    assert calls == single and single["step"] > 0


@pytest.mark.parametrize("game", game_ids())
def test_same_rng_same_decisions(game):
    spec = get_spec(game)
    agent = make_agent(TINY, spec)
    for state in positions(game, spec.default_num_players, limit=2):
        assert np.array_equal(decide(agent, state, seed=3), decide(agent, state, seed=3))


@pytest.mark.parametrize("game, players", game_player_params())
@pytest.mark.parametrize(
    "name", [TINY, "search:rollouts=6,depth=end,policy=random", "search:rollouts=8,depth=5,width=3,gate=1"]
)
def test_compiled_rollouts_play_exactly_what_the_step_by_step_loop_plays(game, players, name):
    """Issue 56: a rollout in one kernel call (the greedy agent's `rollout`) gives the same actions, action
    values and generator state afterwards as search's loop of observe, act and step."""
    spec = get_spec(game)
    config = spec.make_config(players)
    for state in positions(game, players, games=6, limit=3):
        results = []
        for compiled in (True, False):
            agent = make_agent(name, spec, config)
            agent.compiled_rollouts = compiled
            if compiled and make_agent("greedy", spec, config).compiled:  # every game's greedy has a rollout
                assert agent._roller() is not None
            elif not compiled:
                assert agent._roller() is None
            rng = np.random.default_rng(5)
            actions = decide_with(agent, state, rng)
            results.append((actions, agent.last_values, rng.random()))
        (a, values, after), (b, expected, expected_after) = results
        assert np.array_equal(a, b) and np.array_equal(values, expected, equal_nan=True) and after == expected_after


@pytest.mark.parametrize("game", game_ids())
def test_the_rollout_kernels_interpreted_twin_plays_as_the_compiled_kernel(game):
    """`core.lazy`'s one source, two tiers: the Python twin of a greedy agent's `rollout` leaves the same games
    and the same generator state as the compiled kernel."""
    import importlib

    from fruit_envs.core import lazy

    spec = get_spec(game)
    greedy = make_agent("greedy", spec)
    compiled = importlib.import_module(f"{type(greedy)._game_module()}.kernels")
    state = positions(game, spec.default_num_players, games=6, limit=1)[0]
    ends = []
    for module in (compiled, lazy.interpreted(compiled)):
        games, rng = state.copy(), np.random.default_rng(9)
        call = lazy.state_call(compiled.rollout, type(state).array_names(), lambda module=module: module)
        call(6, True, rng, games, *greedy.rollout_constants(greedy.config), *greedy.kernel_args, greedy._width)
        ends.append((games, rng.random()))
    (a, after), (b, expected) = ends
    assert after == expected
    for name in type(state).array_names():
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not np.array_equal(a.step_count, state.step_count)


def test_a_playout_that_changes_greedys_scores_is_played_step_by_step():
    """A greedy subclass with its own `scores` is not the kernel: search then runs its loop, which asks it."""
    spec = get_spec("cherry_picking")
    greedy = type(make_agent("greedy", spec))
    asked = []

    class Shy(greedy):
        def scores(self, obs, mask):
            asked.append(len(obs))
            return -super().scores(obs, mask)

    agent = make_agent(TINY, spec)
    agent.playout = Shy(agent.config)
    assert agent._roller() is None
    decide(agent, positions("cherry_picking", 2, limit=1)[0])
    assert asked


def test_a_forced_decision_costs_no_rollout(monkeypatch):
    spec = get_spec("cherry_picking")
    rules = spec.rules
    agent = make_agent(TINY, spec)
    state = rules.init(spec.make_config(), frng.keys_from_seed(0, 3))
    mask = np.zeros((3, spec.num_actions), dtype=bool)
    mask[np.arange(3), np.flatnonzero(rules.legal_mask(state)[0])[:3]] = True
    monkeypatch.setattr(rules, "step", lambda *a, **k: pytest.fail("a single legal action needs no search"))
    actions = agent.act(rules.observe(state, 0), mask, np.random.default_rng(0), state=state, seats=state.to_move)
    assert mask[np.arange(3), actions].all()


# --- fair by construction ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_sampled_positions_look_the_same_to_the_deciding_seat(game):
    """Determinization never changes what the deciding seat observes or may do, and keeps the game sound."""
    spec = get_spec(game)
    rules = spec.rules
    for players in spec.official_player_counts[:2]:
        for n, state in enumerate(positions(game, players, seed=1)):
            seats = state.to_move.astype(np.int64)
            keys = frng.keys_from_seed(100 + n, state.batch_size)
            sampled = resample(rules, state, seats, keys)
            assert np.array_equal(rules.observe(sampled, seats), rules.observe(state, seats))
            assert np.array_equal(rules.legal_mask(sampled, seats), rules.legal_mask(state, seats))
            assert rules.invariants(sampled) == []
            assert not np.isin(sampled.keys, state.keys).any(), "future chance must not be the true one"


@pytest.mark.parametrize("game", game_ids())
def test_resampling_depends_only_on_what_the_seat_knows(game):
    """The search's sampler resamples from the information state: re-dealing the true state first and
    then resampling with the same keys gives the same state (every seat, to move or not)."""
    spec = get_spec(game)
    rules = spec.rules
    for players in spec.official_player_counts[:2]:
        for n, state in enumerate(positions(game, players, seed=2)):
            for seat in range(players):
                seats = np.full(state.batch_size, seat)
                keys = frng.keys_from_seed(7 * n + seat, state.batch_size)
                other = rules.redeal_hidden(state, seat, frng.keys_from_seed(999 + n, state.batch_size))
                assert resample(rules, other, seats, keys).equals(resample(rules, state, seats, keys))
                if search_hooks(game).canonical is None:  # the game's own function reads only what the seat knows
                    assert rules.redeal_hidden(other, seat, keys).equals(rules.redeal_hidden(state, seat, keys))


@pytest.mark.parametrize("game", game_ids())
@pytest.mark.parametrize(
    "name, limit, least",
    [("search:rollouts=8,depth=12", 5, 8), ("search:guided,rollouts=8,depth=6,value=ppo-baseline", 3, 4)],
    ids=["plain", "guided"],
)
def test_decisions_do_not_change_when_hidden_information_is_redealt(game, name, limit, least):
    """Issue 18: the agent may use the true state only to re-sample what its seat cannot know, so its
    decisions (same rng) are the same whatever the hidden cards, tiles, choices and random key hold; and
    the same rng gives the same decisions. Guided (issue 34), the network reads only the seat's
    observation and positions the search sampled, so the same holds."""
    spec = get_spec(game)
    rules = spec.rules
    agent = make_agent(name, spec)
    compared = changed = 0
    for n, state in enumerate(positions(game, spec.default_num_players, seed=4, limit=limit)):
        seats = state.to_move.astype(np.int64)
        other = resample(rules, state, seats, frng.keys_from_seed(500 + n, state.batch_size))
        changed += not other.equals(state)
        actions = decide(agent, state, seed=n)
        values = agent.last_values
        assert np.array_equal(actions, decide(agent, state, seed=n)), "same rng, same decisions"
        assert np.array_equal(actions, decide(agent, other, seed=n))
        assert np.array_equal(values, agent.last_values, equal_nan=True), "every rollout value is the same too"
        compared += state.batch_size
    assert compared >= least and changed, "the test must compare positions whose hidden parts differ"


def test_cherry_picking_redeal_hides_earlier_commitments_and_deals_uniformly():
    """Rulebook: the cards are played face down and revealed together, so a seat that commits after
    another cannot know that card; the re-deal draws it (and the hands, and the card aside) uniformly
    from the cards the seat has not seen."""
    spec = get_spec("cherry_picking")
    rules = spec.rules
    state = rules.init(spec.make_config(3), frng.keys_from_seed(3, 1))
    state, _ = rules.step(state, np.array([np.flatnonzero(rules.legal_mask(state)[0])[0]]))  # seat 0 commits
    assert state.to_move[0] == 1
    many = state.take(np.zeros(6000, dtype=np.int64))
    sampled = rules.redeal_hidden(many, np.ones(6000, dtype=np.int64), frng.keys_from_seed(9, 6000))
    assert (sampled.hands[:, 1] == state.hands[0, 1]).all(), "the seat's own hand stays"
    assert (sampled.played[:, 1:] == state.played[0, 1:]).all()
    unseen = state.hands[0, 0].astype(np.int64) + state.hands[0, 2]
    unseen[state.played[0, 0]] += 1
    unseen[state.aside[0]] += 1 if state.aside[0] >= 0 else 0
    frequency = np.bincount(sampled.played[:, 0].astype(np.int64), minlength=rules.N_CARDS) / 6000
    expected = unseen / unseen.sum()
    assert np.abs(frequency - expected).max() < 0.02, "seat 0's hidden card is any unseen card, equally likely"
    seat_two = np.array_equal(sampled.hands[:, 2].sum(axis=1), np.full(6000, state.hands[0, 2].sum()))
    assert seat_two, "each hand keeps its size"


def test_juicy_fruits_resampling_changes_only_the_random_key():
    """Nothing is hidden after setup (ships and business tokens are face up): only the key is replaced."""
    spec = get_spec("juicy_fruits")
    rules = spec.rules
    state = positions("juicy_fruits", 2, limit=2)[-1]
    other = rules.redeal_hidden(state, 0, frng.keys_from_seed(1, state.batch_size))
    assert not np.isin(other.keys, state.keys).any()
    other.keys = state.keys
    assert other.equals(state)


# --- every caller passes the state -----------------------------------------------------------------------


def test_arena_and_tournament_pass_the_state():
    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    result = evaluate(spec, config, make_agent(TINY, spec, config), make_agent("random", spec, config), 4, seed=1)
    assert result["games"] == 4 and result["wins"] == 4, "search beats random (a wrong sign in its values would lose)"
    from fruit_envs.benchmarks.tournament import run

    summary = run("cherry_picking", ["random", CHEAPEST], 2, 1, seed=0, out=None, progress=False)
    assert summary["total_games"] == 2


def test_gymnasium_and_sb3_opponents_and_play_pass_the_state():
    import gymnasium

    env = gymnasium.make("fruit_envs/QuickityPickity-v2", opponent=CHEAPEST)
    obs, info = env.reset(seed=0)
    for _ in range(20):
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            break
    env.close()
    pytest.importorskip("stable_baselines3")
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    vec = FruitSB3VecEnv("cherry_picking", num_envs=3, opponent=CHEAPEST)
    vec.seed(0)
    vec.reset()
    for _ in range(12):  # search moves every other decision of every game
        masks = np.stack(vec.env_method("action_masks"))
        vec.step_async(np.argmax(masks, axis=1))
        vec.step_wait()
    vec.close()
    from fruit_envs import play

    out = io.StringIO()
    typed = io.StringIO("1\n" + "1\n" * 400)
    code = play.main(["--game", "cherry_picking", "--opponents", CHEAPEST, "--seed", "1", "--no-record"], typed, out)
    assert code == 0 and "game over" in out.getvalue()


def test_play_games_with_search_in_both_seats_is_reproducible():
    spec = get_spec("fruit_picking")
    config = spec.make_config(2)
    agent = make_agent(CHEAPEST, spec, config)
    seating = np.array([[0, 0]])
    first = play_games(spec, config, [agent], seating, seed=5, record=True)
    again = play_games(spec, config, [agent], seating, seed=5, record=True)
    assert all(np.array_equal(a, b) for a, b in zip(first.actions, again.actions, strict=True))


@pytest.mark.parametrize("game", ["quickity_pickity", "juicy_fruits"])
def test_width_and_gate_keep_to_greedys_choices(game):
    """`width=k` searches only the greedy playout's best k legal actions by its own scores; an
    unreachable `gate` keeps greedy's own choice every time."""
    spec = get_spec(game)
    rules = spec.rules
    greedy = make_agent("greedy", spec)
    narrow, gated = make_agent("search:rollouts=8,depth=4,width=2", spec), make_agent(f"{TINY},gate=1000", spec)
    for state in positions(game, 2, limit=4):
        seats = state.to_move.astype(np.int64)
        obs, mask = rules.observe(state, seats), rules.legal_mask(state)
        prefs = np.where(mask, greedy.scores(obs, mask), -np.inf)
        top = np.argsort(-prefs, axis=1, kind="stable")
        decide(narrow, state)
        tried = ~np.isnan(narrow.last_values)
        best_two = np.zeros(mask.shape, dtype=bool)
        np.put_along_axis(best_two, top[:, :2], True, axis=1)
        assert not (tried & ~best_two).any()
        several = (mask.sum(axis=1) > 1) & (tried.sum(axis=1) > 0)
        assert (tried.sum(axis=1)[several] == 2).all()
        assert np.array_equal(decide(gated, state)[mask.sum(axis=1) > 1], top[mask.sum(axis=1) > 1, 0])


@pytest.mark.slow
@pytest.mark.parametrize("game", [g for g in game_ids() if 2 in get_spec(g).player_counts])
def test_search_at_its_default_budget_beats_greedy(game):
    """Issue 18: search beats greedy in every 2-player game (the full 400-game measurement is
    `python -m fruit_envs.benchmarks.search_strength`; this is a shorter run of it)."""
    spec = get_spec(game)
    config = spec.make_config(2)
    result = evaluate(spec, config, make_agent("search", spec, config), make_agent("greedy", spec, config), 120)
    assert result["win_rate_low"] > 0.5, result


# --- guided by the trained network (issue 34) ------------------------------------------------------------


def test_guided_options_name_the_network():
    """`guided` is the game's guided budget (Quickity Pickity: the shipped network playing the rollouts and
    ranking the candidates, twice the default rollouts); options after it change it; any MaskablePPO file
    serves as `ppo:PATH`."""
    from fruit_envs.agents.ppo import baseline_files
    from fruit_envs.agents.search import GUIDED

    guided = parse_options("guided", "quickity_pickity")
    assert guided == GUIDED["quickity_pickity"]
    assert (guided.policy, guided.prior, guided.value) == ("ppo-baseline", "ppo-baseline", "")
    assert (guided.rollouts, guided.width, guided.gate) == (128, 6, 1.0), "twice the default rollouts, else the default"
    spec = get_spec("cherry_picking")
    config = spec.make_config(3)
    assert make_agent("search:guided", spec, config).name == "search:guided"
    path = baseline_files(spec, 3)[0]
    agent = make_agent(f"search:guided,value=ppo:{path}", spec, config)
    assert agent.name.endswith(f",prior=ppo-baseline,value=ppo:{path}")
    assert agent.value_net.path == str(path) and agent.value_net is not agent.prior, "the file as given"
    assert (agent.options.policy, agent.options.width) == ("greedy", 4), "Cherry Picking: greedy rollouts"
    both = make_agent("search:policy=ppo-baseline,prior=ppo-baseline", spec, config)
    assert both.playout is both.prior, "one network loaded once"
    assert parse_options("policy=greedy,prior=none", "cherry_picking") == DEFAULTS["cherry_picking"]


@pytest.mark.parametrize("game", game_ids())
def test_guided_search_asks_the_network_once_per_step_for_every_game(game, monkeypatch):
    """The network's forward passes (policy and value) are as many for 1 game as for 24 copies of it:
    one batch per rollout step for every rollout of every game."""
    from fruit_envs.agents.ppo import PPOAgent

    spec = get_spec(game)
    agent = make_agent(
        "search:policy=ppo-baseline,prior=ppo-baseline,value=ppo-baseline,rollouts=12,depth=3,width=3", spec
    )
    calls = {"scores": 0, "values": 0}
    for name in calls:
        original = getattr(PPOAgent, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(PPOAgent, name, counted)
    rules = spec.rules
    state = next(s for s in positions(game, spec.default_num_players, limit=6) if (rules.legal_mask(s).sum(1) > 2)[0])
    one = state.take([0])
    decide(agent, one)
    single = dict(calls)
    calls.update(scores=0, values=0)
    decide(agent, one.take(np.zeros(24, dtype=np.int64)))
    assert calls == single and single["scores"] > 1 and single["values"] > 0


def test_search_strength_plays_guided_against_plain_search(tmp_path, capsys):
    """`search_strength --agent search:guided --opponent search` (issue 34's measurement), in small."""
    import json

    from fruit_envs.benchmarks import search_strength

    argv = ["--games", "cherry_picking", "--agent", "search:guided,rollouts=2,depth=1"]
    argv += ["--opponent", "search:rollouts=2,depth=1", "--num-games", "4", "--strength-only", "--out", str(tmp_path)]
    assert search_strength.main(argv) == 0
    (saved,) = tmp_path.iterdir()
    row = json.loads(saved.read_text())
    assert row["strength"]["opponent"] == "search:rollouts=2,depth=1" and row["strength"]["games"] == 4
    assert "| `search:rollouts=2,depth=1` |" in capsys.readouterr().out


# --- what search knows of a game: the game's hooks (issue 55) --------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_each_game_supplies_what_search_knows_of_it_as_hooks(game):
    """The budgets, progress score, scale and canonical order come from the game's `agents/hooks/<id>.py`:
    `search` and `search:guided` mean its budgets, and the agent scores positions with its progress."""
    import importlib

    spec = get_spec(game)
    hooks = search_hooks(game)
    assert hooks is importlib.import_module(f"fruit_envs.agents.hooks.{game}").SEARCH
    agent = make_agent("search", spec)
    assert agent.hooks is hooks and agent.name == "search"
    assert agent.options == default_options(game) == parse_options("", game) == DEFAULTS[game]
    assert guided_options(game) == parse_options("guided", game) != default_options(game)
    state = positions(game, spec.default_num_players, limit=1)[0]
    progress = np.asarray(hooks.progress(state), dtype=np.float64)
    assert progress.shape == (state.batch_size, spec.default_num_players) and np.isfinite(progress).all()


def test_cherry_picking_search_scores_positions_with_the_shaping_potential():
    """Search's progress score for Cherry Picking is the rules' `potential`, the function reward shaping
    uses (search kept a copy of it): a live position's value is the squashed shaping margin."""
    from fruit_envs.core.shaping import score_margin

    spec = get_spec("cherry_picking")
    hooks = search_hooks("cherry_picking")
    assert hooks.progress is spec.rules.potential
    agent = make_agent(TINY, spec, spec.make_config(3))
    for state in positions("cherry_picking", 3, limit=3):
        seats = (state.to_move.astype(np.int64) + 1) % 3
        expected = np.tanh(score_margin(spec, state, seats) / hooks.scale)
        assert np.array_equal(agent._leaf(state, seats), expected)


def test_a_game_without_hooks_is_searched_with_defaults_that_fit_any_game(monkeypatch):
    """A game with no `agents/hooks/<id>.py` gets `SearchHooks()`: the generic budgets, the running score
    reward shaping uses as progress (`potential` where declared, else the final scores), its greedy agent
    for playouts and ranking; search plays it legally."""
    from fruit_envs.agents import search

    assert search_hooks("a_game_with_no_hooks") == SearchHooks()
    assert default_options("a_game_with_no_hooks") == SearchOptions()
    assert guided_options("a_game_with_no_hooks") == SearchOptions(policy="ppo-baseline", prior="ppo-baseline")
    monkeypatch.setattr(search, "search_hooks", lambda game: SearchHooks())
    for game, running in [("cherry_picking", "potential"), ("juicy_fruits", "final_scores")]:
        spec = get_spec(game)
        agent = make_agent("search:rollouts=8,depth=4,width=3,gate=1", spec)
        assert agent.hooks == SearchHooks()
        for state in positions(game, 2, limit=2):
            expected = getattr(spec.rules, running)(state)
            assert np.array_equal(agent.hooks.progress(state), expected)
            actions = decide(agent, state)
            assert spec.rules.legal_mask(state)[np.arange(state.batch_size), actions].all()


def test_no_agent_calls_another_agents_private_methods():
    """Search reads the greedy agents through their documented public methods (`scores`, `set_worth`): no
    module under agents/ calls a private attribute of anything but itself (`self`, `cls`)."""
    import ast
    from pathlib import Path

    import fruit_envs.agents

    offences = []
    for path in sorted(Path(fruit_envs.agents.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name, owner = node.func.attr, node.func.value
                private = name.startswith("_") and not name.startswith("__")
                if private and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    offences.append(f"{path.name}:{node.lineno} .{name}()")
    assert offences == []
