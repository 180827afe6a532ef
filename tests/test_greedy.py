"""The greedy agents read the observation by name (issue 55): the blocks of `rules.observation_layout` and the
rules' named columns within a block's rows, turned into column indices once per agent."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import game_ids, game_player_params

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.agents import make_agent
from fruit_envs.agents.greedy import columns, own_part
from fruit_envs.core import rng as frng
from fruit_envs.core.spec import get_spec


def observations(game: str, players: int, seed: int = 0, games: int = 8, steps: int = 60):
    """`(obs, mask)` of the seat to move at a few positions along random games."""
    spec = get_spec(game)
    rules = spec.rules
    state = rules.init(spec.make_config(players), frng.keys_from_seed(seed, games))
    gen = np.random.default_rng(seed)
    out = []
    for t in range(steps):
        live = np.flatnonzero(~state.done)
        if not len(live):
            break
        if t % 7 == 2:
            part = state.take(live)
            out.append((rules.observe(part, part.to_move.astype(np.int64)), rules.legal_mask(part)))
        mask = rules.legal_mask(state) | state.done[:, None]
        state, _ = rules.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
    return out


def test_own_part_and_columns_name_observation_columns():
    """`own_part`: the observer's first share of a block over seats; `columns`: a part of a block, or of
    every row of a block of rows."""
    assert own_part(slice(10, 22), 3) == slice(10, 14)
    assert own_part(slice(4, 5), 1) == slice(4, 5)
    with pytest.raises(ValueError, match="a block over 3 seats has a multiple of 3 columns"):
        own_part(slice(10, 21), 3)
    block = slice(5, 17)  # three rows of four columns
    assert columns(block, slice(1, 3)) == slice(6, 8) and columns(block, 2) == 7
    assert columns(block, 1, 4).tolist() == [6, 10, 14]
    assert columns(block, slice(1, 3), 4).tolist() == [[6, 7], [10, 11], [14, 15]]


def test_quickity_pickity_row_columns_name_what_the_rules_write_there():
    """The named columns of the card, a hand and a set row hold what the rules' feature tables put there."""
    from fruit_envs.games.quickity_pickity import components as C
    from fruit_envs.games.quickity_pickity import rules as R

    card, held, sets = R.CARD_COLUMNS, R.HELD_COLUMNS, R.SET_COLUMNS
    assert max(c.stop for c in card.values()) == R.CARD_FEATURES
    assert max(c.stop for c in held.values()) == R.HELD_FEATURES
    assert max(c.stop for c in sets.values()) == R.SET_FEATURES
    assert np.array_equal(R.CARD_TABLE[:, card["card"]], np.eye(C.N_CARDS))
    assert np.allclose(R.CARD_TABLE[:, card["bonus"]][:, 0], C.CARD_BONUS / 3.0)
    kinds = np.arange(C.N_FRUIT_TYPES)
    fruit = R.HELD_TABLE[:, kinds]  # (16 cards, 32 kinds, 12): a fruit held on each card
    assert (fruit[..., held["holding"]] == 1).all()
    assert (fruit[..., held["expression"]].argmax(axis=2) == C.KIND_EXPRESSION[kinds]).all()
    assert (fruit[..., held["colour"]].argmax(axis=2) == C.KIND_COLOUR[kinds]).all()
    assert (fruit[..., held["shape"]].argmax(axis=2) == C.KIND_SHAPE[kinds]).all()
    assert np.array_equal(fruit[..., held["bonus"]][..., 0], C.IS_BONUS[:, : C.N_FRUIT_TYPES])
    for family, legal in [(False, C.SET_LEGAL), (True, C.SET_LEGAL_FAMILY)]:
        rows = R.SET_ROWS[family]
        assert np.array_equal(rows[:, sets["bits"]], R.BIT_TABLE)
        assert np.array_equal(rows[:, sets["broken"]][:, 0], ~legal)


def test_juicy_fruits_ship_columns_name_what_the_rules_write_there():
    from fruit_envs.games.juicy_fruits import components as C
    from fruit_envs.games.juicy_fruits import rules as R

    ship = R.SHIP_COLUMNS
    assert max(c.stop for c in ship.values()) == R.N_SHIP_FEATURES
    assert (R.SHIP_FEATURES[:, ship["present"]] == 1).all()
    assert np.allclose(R.SHIP_FEATURES[:, ship["cost"]] * 3, C.SHIP_COST)
    assert np.allclose(R.SHIP_FEATURES[:, ship["points"]][:, 0] * 4, C.SHIP_POINTS)


@pytest.mark.parametrize("game, players", game_player_params())
def test_greedy_reads_the_observation_where_the_layout_puts_it(game, players, monkeypatch):
    """Moved by a layout that puts every block 5 columns later, greedy reads the same observation there:
    its scores of observations padded with 5 junk columns in front are the scores of the plain ones."""
    spec = get_spec(game)
    config = spec.make_config(players)
    plain = make_agent("greedy", spec, config)
    # observed before the layout moves: the rules cache their own offsets, and must keep the true ones
    cases = observations(game, players)
    layout = spec.rules.observation_layout(config)
    later = {name: slice(block.start + 5, block.stop + 5) for name, block in layout.items()}
    defined_in = sys.modules[spec.rules.observation_layout.__module__]  # juicy_fruits_solo: Juicy Fruits' rules
    for rules in (spec.rules, defined_in):
        monkeypatch.setattr(rules, "observation_layout", lambda config: later)
    moved = make_agent("greedy", spec, config)
    junk = np.random.default_rng(1)
    for obs, mask in cases:
        padded = np.concatenate([junk.random((len(obs), 5)).astype(obs.dtype) * 9, obs], axis=1)
        assert np.array_equal(moved.scores(padded, mask), plain.scores(obs, mask))


def test_quickity_pickity_set_worth_is_public_and_documented():
    """`set_worth` (which the search agent's progress score uses): a broken set is worth -10 whatever its size,
    no set 0, a legal set its card's value for its size blended with a few fruit later."""
    from fruit_envs.agents.greedy.quickity_pickity import MAX_SIZE, QuickityPickityGreedy
    from fruit_envs.games.quickity_pickity import components as C

    spec = get_spec("quickity_pickity")
    greedy = QuickityPickityGreedy(spec.make_config(2))
    assert greedy.set_worth.__doc__
    broken = int(np.flatnonzero(~C.SET_LEGAL)[1])
    legal = int(C.KIND_BITS[0])  # one fruit: a legal set
    card, stage = np.array([3, 3, 3]), np.array([1, 1, 1])
    size = np.array([[4], [0], [2]])
    bits = np.array([[broken], [0], [legal]])
    worth = greedy.set_worth(card, stage, size, bits)
    assert worth.shape == (3, 1)
    assert worth[0, 0] == C.ILLEGAL_SET and worth[1, 0] == 0.0
    assert worth[2, 0] == greedy.worth[3, 1, min(2, MAX_SIZE - 1)]


@pytest.mark.parametrize("game", game_ids())
def test_greedy_refuses_observations_of_another_shape(game):
    """The compiled heuristic reads columns by index, unchecked: an observation of another width (another
    player count's) or a mask of another batch is refused by name instead of being read past its end."""
    spec = get_spec(game)
    config = spec.make_config(spec.player_counts[0])
    agent = make_agent("greedy", spec, config)
    (obs, mask), *_ = observations(game, config.num_players)
    gen = np.random.default_rng(0)
    for bad_obs, bad_mask in ((obs[:, :-1], mask), (obs, mask[:-1]), (obs[0], mask[0]), (obs, mask[:, :-1])):
        with pytest.raises(ValueError, match=rf"observations \(B, {obs.shape[1]}\) and a mask \(B, {mask.shape[1]}\)"):
            agent.act(bad_obs, bad_mask, gen)
    assert agent.act(obs, mask, gen).shape == (len(obs),)


@pytest.mark.parametrize("game", game_ids())
def test_greedy_pickles_and_copies(game):
    """An env holding a greedy opponent is copied and pickled (issue 19): the agent keeps no kernel module,
    it looks its kernels up, so a copy scores as the original does."""
    import copy
    import pickle

    spec = get_spec(game)
    agent = make_agent("greedy", spec, spec.make_config(spec.player_counts[0]))
    (obs, mask), *_ = observations(game, spec.player_counts[0])
    for clone in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert np.array_equal(clone.scores(obs, mask), agent.scores(obs, mask))


def test_a_subclass_defined_elsewhere_runs_its_games_kernel():
    """A user's tweak of a greedy agent, in its own module, still scores through the game's kernel."""
    from fruit_envs.agents.greedy.cherry_picking import CherryPickingGreedy

    class Cautious(CherryPickingGreedy):
        GIVE_AWAY = 0.0

    spec = get_spec("cherry_picking")
    config = spec.make_config(2)
    (obs, mask), *_ = observations("cherry_picking", 2)
    mine, theirs = Cautious(config).scores(obs, mask), make_agent("greedy", spec, config).scores(obs, mask)
    from fruit_envs.games.cherry_picking import components as C

    cards = np.arange(C.N_CARD_TYPES)
    assert np.allclose(mine[:, cards] - theirs[:, cards], 0.3 * C.CARD_VALUE[None, :])
