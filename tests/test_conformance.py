"""Conformance of every registered game: `check_game`, PettingZoo, Gymnasium and SB3 API checks."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from conftest import game_ids, game_player_params, option_params
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv, make_aec_env
from fruit_envs.core.spec import get_spec, registered_games
from fruit_envs.testing import ConformanceError, check_game


def _random_games_run_clean(game: str, players: int, games: int) -> None:
    report = check_game(game, players, num_games=games, single_games=4)
    config = get_spec(game).make_config(players)
    assert len(report.game_lengths) == games
    assert max(report.game_lengths) <= get_spec(game).max_game_length(config)
    if config.reward == "terminal":  # a one-player game pays points, not outcomes
        assert report.outcomes["decided"] + report.outcomes["full_draw"] + report.outcomes["truncated"] == games


def _default_counts() -> list[tuple[str, int]]:
    return [(spec.id, spec.default_num_players) for spec in registered_games()]


@pytest.mark.parametrize("game, players", _default_counts())
def test_thousand_random_games_run_clean(game, players):
    """Every game at its default player count: 1,000 random games pass `check_game`."""
    _random_games_run_clean(game, players, 1000)


@pytest.mark.parametrize("game, players", [gp for gp in game_player_params() if gp not in _default_counts()])
def test_random_games_run_clean_at_every_official_player_count(game, players):
    """The other official player counts: 300 games in the default suite (`-m slow`: 1,000)."""
    _random_games_run_clean(game, players, 300)


@pytest.mark.slow
@pytest.mark.parametrize("game, players", [gp for gp in game_player_params() if gp not in _default_counts()])
def test_thousand_random_games_run_clean_at_every_official_player_count(game, players):
    _random_games_run_clean(game, players, 1000)


@pytest.mark.parametrize("game, players", [gp for gp in game_player_params(True) if gp not in game_player_params()])
def test_other_player_counts_run_clean(game, players):
    report = check_game(game, players, num_games=200)
    assert len(report.game_lengths) == 200


@pytest.mark.parametrize("game, option, value", option_params())
def test_every_option_runs_clean(game, option, value):
    spec = get_spec(game)
    report = check_game(game, spec.default_num_players, {option: value}, num_games=100)
    assert report.config[option] == value


def test_check_game_catches_a_leak(monkeypatch):
    """The conformance check itself must fail on a game that shows hidden cards."""
    rules = get_spec("cherry_picking").rules
    honest = rules.observe

    def leaky(state, player):
        obs = honest(state, player)
        obs[:, 0] = state.hands[:, (np.asarray(player) + 1) % state.config.num_players].sum(axis=-1) > 5
        obs[:, 1] = state.aside >= 20
        return obs

    monkeypatch.setattr(rules, "observe", leaky)
    with pytest.raises(ConformanceError, match="re-dealt"):
        check_game("cherry_picking", 3, num_games=32)


def test_check_game_catches_a_dropped_field(monkeypatch):
    """No loss: an observation that drops a public field (the cards under the plants) fails the check."""
    rules = get_spec("cherry_picking").rules
    honest = rules.observe
    plants = rules.observation_layout(rules.SPEC.make_config(3))["plants"]

    def forgetful(state, player):
        obs = honest(state, player)
        obs[:, plants] = 0.0
        return obs

    monkeypatch.setattr(rules, "observe", forgetful)
    with pytest.raises(ConformanceError, match="no loss: .*plants"):
        check_game("cherry_picking", 3, num_games=8)


def test_check_game_catches_a_missing_seat(monkeypatch):
    """No loss: in a game whose rules depend on the seat (Juicy Fruits: ties go to the later player), an
    observation that does not say the observer's seat fails the check (mirror positions collide)."""
    rules = get_spec("juicy_fruits").rules
    honest = rules.observe
    seat = rules.observation_layout(rules.SPEC.make_config(2))["seat"]

    def seatless(state, player):
        obs = honest(state, player)
        obs[:, seat] = 0.0
        return obs

    monkeypatch.setattr(rules, "observe", seatless)
    with pytest.raises(ConformanceError, match="no loss"):
        check_game("juicy_fruits", 2, num_games=4)


def test_check_game_catches_lost_cards(monkeypatch):
    rules = get_spec("cherry_picking").rules
    honest = rules.step

    def lossy(state, actions, active=None, in_place=False):
        nxt, rewards = honest(state, actions, active, in_place=in_place)
        nxt.plants[:, 0] = 0  # a plant card turns into a ladder
        return nxt, rewards

    monkeypatch.setattr(rules, "step", lossy)
    with pytest.raises(ConformanceError, match="not conserved"):
        check_game("cherry_picking", 4, num_games=16)


@pytest.mark.parametrize("game, players", game_player_params())
def test_pettingzoo_api(game, players):
    api_test(make_aec_env(game, num_players=players), num_cycles=1000)


@pytest.mark.parametrize("game, players", game_player_params())
def test_pettingzoo_parallel_api(game, players):
    """Every game has a parallel env (issue 29: the turn-based ones too), also with the mask in info only."""
    parallel_api_test(FruitParallelEnv(game, num_players=players), num_cycles=1000)
    parallel_api_test(FruitParallelEnv(game, num_players=players, mask_in_observation=False), num_cycles=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unmasked random actions are illegal and end the game: expected
        parallel_seed_test(lambda: FruitParallelEnv(game, num_players=players))


@pytest.mark.parametrize("game, players", game_player_params())
def test_pettingzoo_seed(game, players):
    seed_test(lambda: make_aec_env(game, num_players=players), num_cycles=500)


@pytest.mark.parametrize("game", game_ids())
def test_raw_env_is_the_bare_aec_env(game):
    env = FruitAECEnv(game)
    assert env.metadata["name"] == get_spec(game).pettingzoo_name
    assert set(env.metadata["render_modes"]) >= {"ansi", "human"}


@pytest.mark.parametrize("game, players", game_player_params())
def test_gymnasium_check_env(game, players):
    for opponent in ("random", "greedy"):
        env = gymnasium.make(get_spec(game).gym_id, num_players=players, opponent=opponent)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # check_env steps unmasked random actions: illegal -> loss
            gym_check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("game, players", game_player_params())
def test_sb3_check_env(game, players):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        sb3_check_env(gymnasium.make(get_spec(game).gym_id, num_players=players).unwrapped)


@pytest.mark.parametrize("game, options", [("fruit_picking", {"max_rounds": 30}), ("juicy_fruits", {})])
def test_truncated_games_pay_no_outcome(game, options, monkeypatch):
    """The truncation contract (core.spec.outcome_rewards) on games that reach their cap: short caps
    (Fruit Picking's max_rounds option, Juicy Fruits' ROUND_CAP patched to 40 rounds, its v0 cap) cut
    off many random games; check_game finds no outcome in their returns and the winners' outcome in
    the others'."""
    if game == "juicy_fruits":
        from fruit_envs.games.juicy_fruits import components as C

        monkeypatch.setattr(C, "ROUND_CAP", 40)
    report = check_game(game, 2, options, num_games=64, loss_games=0)
    assert report.outcomes["truncated"] > 0 and report.outcomes["decided"] + report.outcomes["full_draw"] > 0


def test_check_game_catches_an_outcome_paid_at_a_cut_off(monkeypatch):
    """A game that pays the leader at its cap (Juicy Fruits v0 did) fails the check."""
    rules = get_spec("fruit_picking").rules
    honest = rules.step

    def pays_at_cap(state, actions, active=None, in_place=False):
        live = ~state.done  # before the step: in place, `state` is the next state
        nxt, rewards = honest(state, actions, active, in_place=in_place)
        cut = nxt.truncated & live
        rewards[cut] = np.where(rules.winners(nxt)[cut], 1.0, -1.0)
        return nxt, rewards

    monkeypatch.setattr(rules, "step", pays_at_cap)
    with pytest.raises(ConformanceError, match="truncated game .* paid an outcome"):
        check_game("fruit_picking", 2, {"max_rounds": 3}, num_games=16, loss_games=0)


def test_check_game_catches_an_undeclared_truncation(monkeypatch):
    """A game whose spec declares no cap (truncation=None) must never truncate."""
    import dataclasses

    from fruit_envs.core import spec as fspec

    spec = get_spec("fruit_picking")
    monkeypatch.setitem(fspec._REGISTRY, "fruit_picking", dataclasses.replace(spec, truncation=None))
    with pytest.raises(ConformanceError, match="declares no cap"):
        check_game("fruit_picking", 2, {"max_rounds": 3}, num_games=16, loss_games=0)


@pytest.mark.parametrize("broken", ["mask", "observation"])
def test_check_game_catches_an_advance_that_differs(monkeypatch, broken):
    """`rules.advance` (step, mask and observation in one kernel call, the AEC env's step) must give what
    `step`, `legal_mask` and `observe` give; one that drifts fails the check."""
    rules = get_spec("juicy_fruits").rules
    honest = rules.advance

    def drifting(state, action):
        rewards, masks, obs = honest(state, action)
        if broken == "mask":
            masks = masks.copy()
            masks[:, rules.PASS] = ~masks[:, rules.PASS]
        else:
            obs = obs.copy()
            obs[-1] += 1.0
        return rewards, masks, obs

    monkeypatch.setattr(rules, "advance", drifting)
    with pytest.raises(ConformanceError, match=f"advance's {broken}"):
        check_game("juicy_fruits", 2, num_games=4, loss_games=0)


# -- the rules contract (fruit_envs.core.rules_api) ----------------------------------------------


def _fake_rules(monkeypatch, game: str, drop: tuple[str, ...] = (), **spec_changes):
    """A copy of `game`'s rules module without `drop`, under a spec changed by `spec_changes`."""
    import dataclasses
    import types

    from fruit_envs.core import spec as fspec

    real = get_spec(game).rules
    fake = types.ModuleType("fake_rules")
    fake.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__") and k not in drop})
    fake.SPEC = dataclasses.replace(real.SPEC, rules_module="fake_rules", **spec_changes)
    monkeypatch.setitem(fspec._RULES, "fake_rules", fake)
    return fake.SPEC


@pytest.mark.parametrize("game", game_ids())
def test_every_game_satisfies_the_rules_contract(game):
    """Every registered game has every required part and exactly the optional ones its spec declares."""
    from fruit_envs.core.rules_api import CAPABILITIES, REQUIRED, contract_problems, game_rules

    spec = get_spec(game)
    assert contract_problems(spec) == []
    rules, optional = spec.rules, game_rules(spec)
    assert all(hasattr(rules, name) for name in REQUIRED)
    for name in CAPABILITIES:
        assert (getattr(optional, name.lower()) is not None) == (name in spec.capabilities) == hasattr(rules, name)


def test_check_game_names_missing_required_functions(monkeypatch):
    """A rules module lacking required parts fails the conformance check before any game, naming each."""
    spec = _fake_rules(monkeypatch, "cherry_picking", drop=("observe", "winners"))
    with pytest.raises(ConformanceError, match="lacks the required observe, winners"):
        check_game(spec, 2, num_games=4)


def test_check_game_names_a_declared_capability_the_rules_lack(monkeypatch):
    """A spec declaring a capability its module does not implement fails, naming it; so does a module with a
    capability its spec leaves undeclared (nothing would ever call it)."""
    declared = get_spec("fruit_picking").capabilities
    spec = _fake_rules(monkeypatch, "fruit_picking", capabilities=(*declared, "legal_masks"))
    with pytest.raises(ConformanceError, match="declares legal_masks, which fake_rules does not have"):
        check_game(spec, 2, num_games=4)
    spec = _fake_rules(monkeypatch, "fruit_picking", capabilities=tuple(c for c in declared if c != "advance"))
    with pytest.raises(ConformanceError, match="has advance, which SPEC.capabilities does not declare"):
        check_game(spec, 2, num_games=4)


def test_game_spec_rejects_an_unknown_capability():
    import dataclasses

    spec = get_spec("cherry_picking")
    with pytest.raises(ValueError, match=r"unknown \['teleport'\].*'advance'"):
        dataclasses.replace(spec, capabilities=("advance", "teleport"))
    with pytest.raises(ValueError, match="repeated"):
        dataclasses.replace(spec, capabilities=("advance", "advance"))


def test_check_game_holds_declared_capabilities_to_their_promises(monkeypatch):
    """`truncation_causes` gives each truncated game exactly one cause; `potential` is public (unchanged when
    what a seat cannot see is re-dealt)."""
    fruit = get_spec("fruit_picking").rules
    monkeypatch.setattr(fruit, "truncation_causes", lambda state: {"round cap": state.truncated, "again": state.done})
    with pytest.raises(ConformanceError, match="truncation_causes gives it 2 causes"):
        check_game("fruit_picking", 2, {"max_rounds": 3}, num_games=8, loss_games=0)
    cherry = get_spec("cherry_picking").rules
    hand_values = np.arange(cherry.N_CARDS)  # what is in each hand: hidden from the other seats
    monkeypatch.setattr(cherry, "potential", lambda state: (state.hands * hand_values).sum(axis=2))
    with pytest.raises(ConformanceError, match="potential changed"):
        check_game("cherry_picking", 2, num_games=8, loss_games=0)


def test_games_readme_documents_the_whole_contract():
    """fruit_envs/games/README.md's contract table has a row for every required and optional part."""
    from pathlib import Path

    from fruit_envs.core.rules_api import CAPABILITIES, REQUIRED

    readme = (Path(__file__).resolve().parents[1] / "fruit_envs" / "games" / "README.md").read_text()
    named = {line.split("|")[1].strip().strip("`") for line in readme.splitlines() if line.startswith("| `")}
    assert set(REQUIRED) - named == set() and set(CAPABILITIES) - named == set()


def test_no_rules_module_is_probed_outside_the_rules_interface():
    """`hasattr`/`getattr` on a rules module only in `fruit_envs/core/rules_api.py`: everything else reads
    the capabilities a game declares."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    probes = []
    for folder in ("fruit_envs", "training", "benchmarks", "agents"):
        for path in sorted((root / folder).rglob("*.py")):
            if path.name == "rules_api.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("hasattr", "getattr"):
                    target = ast.unparse(node.args[0]) if node.args else ""
                    if target == "R" or target.split(".")[-1] == "rules":
                        probes.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    assert probes == []


@pytest.mark.parametrize("players", get_spec("cherry_picking").player_counts)
def test_cherry_picking_kernel_offsets_follow_the_observation_layout(players):
    """Cherry Picking's observe kernel writes its blocks at offsets it computes by hand: each block read by
    its name in `observation_layout` holds what the name says, at every player count."""
    from fruit_envs.core import rng as frng

    rules = get_spec("cherry_picking").rules
    config = rules.SPEC.make_config(players)
    state, gen = rules.init(config, frng.keys_from_seed(players, 16)), np.random.default_rng(players)
    while not state.done.all():
        for seat in range(players):
            assert np.array_equal(rules.observe(state, seat), _cherry_observation_by_name(state, seat))
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
    assert np.array_equal(rules.observe(state, 0), _cherry_observation_by_name(state, 0))


def _cherry_observation_by_name(state, seat: int) -> np.ndarray:
    """Cherry Picking's observation of `seat`, each block written where `observation_layout` names it."""
    from fruit_envs.games.cherry_picking import components as C

    rules = get_spec("cherry_picking").rules
    p, n, cards = state.config.num_players, state.batch_size, rules.N_CARDS
    at = {name: block.start for name, block in rules.observation_layout(state.config).items()}
    obs = np.zeros((n, *rules.observation_shape(state.config)), dtype=np.float32)
    rows, live = np.arange(n), ~state.done
    commit, choose = (state.phase == rules.PHASE_NAMES.index(name) for name in ("commit", "choose"))
    obs[:, at["hand"] : at["hand"] + cards] = state.hands[:, seat]
    own = state.played[:, seat].astype(np.int64)
    obs[rows[own >= 0], at["committed"] + own[own >= 0]] = 1.0
    for k in range(C.N_PLANTS):
        card = state.plants[:, k].astype(np.int64)
        obs[rows[card >= 0], at["plants"] + k * cards + card[card >= 0]] = 1.0
    for r in range(p):
        a = (seat + r) % p
        obs[:, at["piles"] + r * cards : at["piles"] + (r + 1) * cards] = state.piles[:, a]
        card = state.played[:, a].astype(np.int64)
        shown = choose & (card >= 0)
        obs[rows[shown], at["revealed"] + r * cards + card[shown]] = 1.0
        obs[:, at["chooser"] + r] = live & choose & (state.to_move == a)
        obs[:, at["scores"] + r] = state.scores[:, a] / 100.0
    obs[:, at["phase"]], obs[:, at["phase"] + 1] = live & commit, live & choose
    obs[rows, at["set"] + np.minimum(state.set_index.astype(np.int64), C.SETS_PER_GAME - 1)] = 1.0
    obs[:, at["tricks_left"]] = (state.hands[:, seat].sum(axis=1) + (own >= 0)) / C.hand_size(p)
    return obs
