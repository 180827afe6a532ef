"""Quickity Pickity: the observation holds exactly what a seat knows (issue 14), and `redeal_hidden`
resamples exactly what it does not (the face-down tiles, the box, the pile, the others' choices).

What a seat knows is `fruit_envs.testing.canonical_knowledge` (the picture's `knowledge(view)`). Each
pair below differs in one thing a seat knows; both its knowledge and its observation must differ.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fruit_envs.core import rng
from fruit_envs.games.quickity_pickity import components as C
from fruit_envs.games.quickity_pickity import rules as R
from fruit_envs.testing import canonical_knowledge


def position(players: int = 2, options: dict | None = None, **fields) -> R.State:
    d = {"config": {"num_players": players, **(options or {})}}
    d.update(fields)
    return R.from_description(d)


def assert_told_apart(a: R.State, b: R.State, seats=None) -> None:
    """Every seat (or those given) knows a and b apart, and its observations differ."""
    for seat in range(a.config.num_players) if seats is None else seats:
        assert canonical_knowledge(a, 0, seat) != canonical_knowledge(b, 0, seat), f"seat {seat} knows no difference"
        assert not np.array_equal(R.observe(a, seat), R.observe(b, seat)), f"seat {seat} gets the same observation"


# --- the issue's examples -----------------------------------------------------------------------


def test_issue_example_three_players_sets_of_different_fruit():
    """Issue 14: 'With 3 players, a set {2x sweet red round, sweet yellow round} and a set {sweet red round, 2x sweet yellow round} give every seat the same observation, though a different fruit is still face down.'"""
    a = position(3, sets={"player_0": [["sweet red round", "sweet red round", "sweet yellow round"]]}, card=2)
    b = position(3, sets={"player_0": [["sweet red round", "sweet yellow round", "sweet yellow round"]]}, card=2)
    assert R.money(a)[0, 0] == R.money(b)[0, 0], "card 2 pays both sets alike (its bonus fruit is green bunch)"
    assert_told_apart(a, b)


def test_issue_example_two_players_broken_sets():
    """Issue 14: 'In the 2-player game, broken sets {sweet red round, sour yellow long} and {sweet red long, sour yellow round} also look the same.'"""
    a = position(2, sets={"player_1": [["sweet red round", "sour yellow long"]]}, card=2)
    b = position(2, sets={"player_1": [["sweet red long", "sour yellow round"]]}, card=2)
    assert R.money(a)[0].tolist() == R.money(b)[0].tolist() == [0, -10]
    assert_told_apart(a, b)


def test_rounds_to_win_and_the_cards_drawn_are_observed():
    """Issue 14: '`rounds_to_win` and the marketplace cards already drawn are not observed.' Now both are: the pile's next card is uniform over the cards of its shuffle not yet shown."""
    assert_told_apart(position(2, options={"rounds_to_win": 2}), position(2, options={"rounds_to_win": 3}))
    assert_told_apart(
        position(2, cards_drawn=[4, 9], cards_won={"player_0": 1}),
        position(2, cards_drawn=[5, 9], cards_won={"player_0": 1}),
    )
    layout = R.observation_layout(R.SPEC.make_config(2))["pile"]
    obs = R.observe(position(2, cards_drawn=[4, 9], cards_won={"player_0": 1}), 0)[0, layout]
    assert np.flatnonzero(obs[:16]).tolist() == [4, 9] and obs[16] == 0


# --- every block of the observation -------------------------------------------------------------

TWO_UP = {"0": "monkey", "1": "monkey"}
TWO_ROUNDS_PLAYED = {"cards_drawn": [1, 2, 3], "cards_won": {"player_0": 2}}
SETS = {"player_0": [["sweet red round", "sweet red long"]], "player_1": [["sour green drop"]]}
PAIRS = {
    "card": ({"card": 3}, {"card": 4}),
    "pile: a card taken face down": (
        {"cards_drawn": [1, 2], "cards_won": {"player_0": 1}},
        {"cards_drawn": [1, "face down", 2], "cards_won": {"player_0": 1, "player_1": 1}},
    ),
    "face_up": ({"face_up": {"5": "sweet red round"}}, {"face_up": {"5": "sweet red long"}}),
    "taken": ({"sets": SETS}, {"sets": {**SETS, "player_1": [["sour green bunch"]]}}),
    "monkeys": ({"face_up": {"0": "monkey"}}, {"face_up": TWO_UP}),
    "face_down": ({"face_up": {"3": "sweet red round"}}, {"face_up": {"3": "sweet red round", "4": "sour red round"}}),
    "seen": (
        {"seen_in_play": {"sweet red round": {"most_in_one_round": 1, "rounds_with_one": 1}}, **TWO_ROUNDS_PLAYED},
        {"seen_in_play": {"sweet red round": {"most_in_one_round": 1, "rounds_with_one": 2}}, **TWO_ROUNDS_PLAYED},
    ),
    "phases": ({"seat_phases": {"player_1": "flip"}}, {"seat_phases": {"player_1": "take"}}),
    "held": ({"held": {"player_1": "sweet red round"}}, {"held": {"player_1": "sour red round"}}),
    "sets: size": ({"sets": SETS}, {"sets": {**SETS, "player_0": [["sweet red round"], ["sweet red long"]]}}),
    "sets: owner": ({"sets": SETS}, {"sets": {"player_0": SETS["player_1"], "player_1": SETS["player_0"]}}),
    "players: cards won": (
        {"cards_won": {"player_0": 1}, "cards_drawn": [1, 2]},
        {"cards_won": {"player_1": 1}, "cards_drawn": [1, 2]},
    ),
    "starter": ({"starter": "player_0"}, {"starter": "player_1"}),
    "choice": ({"hidden": {"committed": {"player_0": "flip"}}}, {}),
}


@pytest.mark.parametrize("what", list(PAIRS))
def test_each_thing_a_seat_knows_reaches_its_observation(what):
    """The contract: 'the observation of seat s is a function of what s may know under the rules ... nothing more, nothing less'; one pair of positions per block, differing only there."""
    a, b = (position(2, **fields) for fields in PAIRS[what])
    seats = [0] if what == "choice" else None  # only player_0 knows its own choice
    assert_told_apart(a, b, seats)
    if what == "choice":
        assert np.array_equal(R.observe(a, 1), R.observe(b, 1)), "player_1 cannot see player_0's choice"


@pytest.mark.parametrize(
    "a, b",
    [
        ({"family": False}, {"family": True}),
        ({"two_player_tiles": "random_half"}, {"two_player_tiles": "one_of_each"}),
    ],
)
def test_options_reach_the_observation(a, b):
    """The options are part of what a seat knows: the `options` block tells the rule variants apart."""
    layout_a = R.observation_layout(R.SPEC.make_config(2, **a))["options"]
    layout_b = R.observation_layout(R.SPEC.make_config(2, **b))["options"]
    obs_a = R.observe(position(2, options=a), 0)[0, layout_a]
    obs_b = R.observe(position(2, options=b), 0)[0, layout_b]
    assert not np.array_equal(obs_a, obs_b)


def test_where_a_tile_lies_and_the_tick_are_not_knowledge():
    """What no rule reads is left out: the slot a face-up tile lies in (a take names a type, face-down slots are exchangeable) and the tick number."""
    a = position(2, face_up={"5": "sweet red round"}, step_count=0)
    b = position(2, face_up={"9": "sweet red round"}, step_count=40)
    for seat in (0, 1):
        assert canonical_knowledge(a, 0, seat) == canonical_knowledge(b, 0, seat)
        assert np.array_equal(R.observe(a, seat), R.observe(b, seat))


def test_seats_are_observed_relative_to_the_observer():
    """`symmetric_seats`: no rule depends on a seat's number (ties go in seat order from the starting player, which is observed relative to the observer), so moving every seat on by one gives the moved observer the same observation."""
    d = {
        "config": {"num_players": 3},
        "sets": {"player_0": [["sweet red round"]], "player_2": [["sour green drop", "sour green long"]]},
        "held": {"player_1": "sweet yellow long"},
        "cards_won": {"player_2": 1},
        "cards_drawn": [3, 7],
        "starter": "player_2",
    }
    moved = {
        **d,
        "sets": {"player_1": d["sets"]["player_0"], "player_0": d["sets"]["player_2"]},
        "held": {"player_2": "sweet yellow long"},
        "cards_won": {"player_0": 1},
        "starter": "player_0",
    }
    a, b = R.from_description(d), R.from_description(moved)
    assert R.SPEC.symmetric_seats
    for seat in range(3):
        assert np.array_equal(R.observe(a, seat), R.observe(b, (seat + 1) % 3))


# --- redeal_hidden: the information state -------------------------------------------------------


def test_redeal_keeps_what_a_seat_knows_and_moves_the_rest():
    """`redeal_hidden` changes only hidden parts - the tiles face down, the box, the pile, the others' choices - and keeps every seat's knowledge; batched over games."""
    state = R.init(R.SPEC.make_config(2), rng.keys_from_seed(3, 256))
    gen = np.random.default_rng(3)
    for _ in range(61):  # mid-round, player_0 has chosen
        mask = R.legal_mask(state)
        mask[state.done, 0] = True
        state, _ = R.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
    assert (state.to_move == 1).all()
    other = R.redeal_hidden(state, 1, rng.keys_from_seed(4, 256))
    assert not R.invariants(other)
    assert (other.in_play != state.in_play).any(axis=1).mean() > 0.5, "the box is redrawn"
    assert (other.layout != state.layout).any(axis=1).mean() > 0.9, "the face-down tiles are redrawn"
    assert (other.deck != state.deck).any(axis=1).mean() > 0.9, "the pile is reshuffled"
    assert (other.committed[:, 0] != state.committed[:, 0]).any(), "player_0's choice is redrawn"
    public = other.location != R.FACE_DOWN
    assert (np.where(public, other.layout, -1) == np.where(public, state.layout, -1)).all()
    for i in range(4):
        assert canonical_knowledge(other, i, 1) == canonical_knowledge(state, i, 1)
    assert np.array_equal(R.observe(other, 1), R.observe(state, 1))
    assert np.array_equal(R.redeal_hidden(state, 1, rng.keys_from_seed(4, 256)).layout, other.layout), "seeded"


def posterior_both(rounds_seen_once: int) -> float:
    """P(both copies of a type in play | one copy seen in each of `rounds_seen_once` rounds), for a uniform
    32 of the 64 tiles: the other 31 types hold 30 or 31 tiles, C(62, 30) or C(62, 31) ways."""
    if rounds_seen_once == 0:
        return math.comb(62, 30) / math.comb(64, 32)
    both = 2**rounds_seen_once * math.comb(62, 30)
    return both / (both + 2 * math.comb(62, 31))


@pytest.mark.parametrize("earlier, now", [(0, 0), (0, 1), (2, 1), (3, 0)])
def test_redeal_draws_the_box_from_the_exact_posterior(earlier, now):
    """The box is drawn from the posterior given what everyone saw: the prior weighs c copies of a type by C(2, c); a round in which one copy is seen multiplies the weight by c (doubling the odds of both copies against one). Checked against the closed form over 4,000 draws."""
    fields = {"cards_drawn": list(range(earlier + 1)), "cards_won": {"player_0": earlier}}
    if earlier:
        fields["seen_in_play"] = {"sweet red round": {"most_in_one_round": 1, "rounds_with_one": earlier}}
    if now:
        fields["face_up"] = {"3": "sweet red round"}
    options = {"rounds_to_win": 5}
    state = position(2, options=options, **fields).take(np.zeros(4000, dtype=np.int64))
    drawn = R.redeal_hidden(state, 0, rng.keys_from_seed(earlier * 10 + now, 4000)).in_play[:, 0]
    rounds = earlier + now
    expected_both = posterior_both(rounds)
    assert (drawn == 2).mean() == pytest.approx(expected_both, abs=0.025)
    if rounds:
        assert (drawn >= 1).all(), "a type seen in play is in play"
    else:
        assert (drawn == 0).mean() == pytest.approx(expected_both, abs=0.025), "by symmetry"


def test_redeal_keeps_a_type_seen_twice_in_play_twice():
    state = position(
        2,
        seen_in_play={"sour purple drop": {"most_in_one_round": 2, "rounds_with_one": 0}},
        cards_drawn=[0, 1],
        cards_won={"player_1": 1},
    ).take(np.zeros(200, dtype=np.int64))
    drawn = R.redeal_hidden(state, 1, rng.keys_from_seed(1, 200))
    assert (drawn.in_play[:, C.tile_from_name("sour purple drop")] == 2).all()
    assert (drawn.in_play[:, : C.N_FRUIT_TYPES].sum(axis=1) == 32).all()


def test_tied_winners_extra_cards_are_taken_face_down():
    """'After the 1st tied player, the remaining tied players take a card from the pile.' (ASSUMED face down, unseen by everyone): the observation shows how many, not which; a redeal may swap them with the pile."""
    state = position(
        3,
        face_up=TWO_UP,
        hidden={"face_down": {"2": "monkey"}},
        sets={"player_0": [["sweet red long"]], "player_1": [["sweet red round"]], "player_2": [["sour red long"]]},
        cards_drawn=[3],
    )
    for name in ("flip", "flip", "flip"):
        state, _ = R.step(state, np.array([R.string_to_action(state.config, name)]))
    d = R.describe(state)
    assert d["cards_drawn"][:3] == [3, "face down", "face down"] and len(d["hidden"]["face_down_cards"]) == 2
    pile = R.observation_layout(state.config)["pile"]
    obs = R.observe(state, 0)[0, pile]
    assert obs[16] == 2 and obs[3] == 1 and obs[:16].sum() == 2, "card 3 and the new round's card shown"
    redealt = R.redeal_hidden(state.take(np.zeros(64, dtype=np.int64)), 0, rng.keys_from_seed(2, 64))
    assert len({tuple(row) for row in redealt.deck[:, 1:3].tolist()}) > 10, "which cards were taken is unknown"
    assert (redealt.deck[:, [0, 3]] == state.deck[0, [0, 3]]).all(), "shown cards stay"


# --- the gains block: public arithmetic per action (v2) ------------------------------------------


def gains_of(state: R.State, seat: int = 0) -> np.ndarray:
    obs = R.observe(state, seat)
    return obs[0, R.observation_layout(state.config)["gains"]].reshape(R.NUM_ACTIONS, R.GAIN_FEATURES)


def kind_of(name: str) -> int:
    expression, colour, shape = name.split()
    return 16 * C.EXPRESSIONS.index(expression) + 4 * C.COLOURS.index(colour) + C.SHAPES.index(shape)


def test_gains_follow_the_marketplace_card_and_the_minus_ten_rule():
    """'Following the values shown on the marketplace card, all players calculate the total value of the
    sets in their own zone.' and 'If a set contains even 1 fruit of the wrong color, shape, or facial
    expression, that set's value is -10.' On the rulebook's example card (-2, -1, 1, 1, 2, 2, 4; bonus +1
    per red round fruit), each action's `gains` row is the money it adds or loses right now."""
    state = position(
        card=0,
        sets={"player_0": [["sweet yellow long", "sweet green long"], ["sour purple drop"]]},
        held={"player_0": "sweet purple long"},
    )
    gains = gains_of(state)
    np.testing.assert_allclose(gains[R.PLACE_BASE + 0], [0.2, 0.0, 1.0])  # 2 -> 3 sweet long fruit: -1 -> 1
    np.testing.assert_allclose(gains[R.PLACE_BASE + 1], [0.0, 0.8, 0.0])  # sweet on sour: -2 -> -10
    np.testing.assert_allclose(gains[R.NEW_SET], [0.0, 0.2, 1.0])  # a set of 1: -2
    assert not gains[R.PLACE_BASE + 2 : R.NEW_SET].any()  # no set 2 yet
    # taking: the fruit's best placement; a bonus fruit (red round) earns +1 anywhere, best alone: -2 + 1
    np.testing.assert_allclose(gains[R.TAKE_BASE + kind_of("sweet yellow long")], [0.2, 0.0, 1.0])
    np.testing.assert_allclose(gains[R.TAKE_BASE + kind_of("sweet red round")], [0.0, 0.1, 0.0])
    assert not gains[R.FLIP_ACTION].any() and not gains[R.WAIT].any()
    # the other seat's gains are about its own (empty) zone and empty hand
    other = gains_of(state, 1)
    assert not other[R.PLACE_BASE : R.NEW_SET + 1].any()
    np.testing.assert_allclose(other[R.TAKE_BASE + kind_of("sweet red round")], [0.0, 0.1, 0.0])  # fits no set


@pytest.mark.parametrize("players", [2, 3])
def test_place_gains_equal_the_money_change_of_the_placement(players):
    """Under random play, every place action's gain equals the change of `money` once the held fruit
    lies in that set (its size, attributes and bonus fruit updated by hand)."""
    config = R.SPEC.make_config(players)
    state = R.init(config, rng.keys_from_seed(5, 32))
    play = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        seat = R.acting(state).argmax(axis=1)
        obs = R.observe(state, seat)
        gains = obs[:, R.observation_layout(config)["gains"]].reshape(len(seat), R.NUM_ACTIONS, R.GAIN_FEATURES)
        for g in np.flatnonzero(~state.done & (state.held[np.arange(len(seat)), seat] >= 0))[::4]:
            s = int(seat[g])
            kind = int(state.layout[g, state.held[g, s]])
            start = int(R.zone_start(state.num_sets)[g, s])
            for j in range(int(state.num_sets[g, s])):
                trial = state.copy()
                trial.set_size[g, start + j] += 1
                trial.set_bits[g, start + j] |= C.KIND_BITS[kind]
                trial.set_bonus[g, start + j] += C.IS_BONUS[state.card[g], kind]
                change = R.money(trial)[g, s] - R.money(state)[g, s]
                hint = gains[g, R.PLACE_BASE + j]
                assert math.isclose((hint[0] - hint[1]) * 10, change, abs_tol=1e-5)
                assert hint[2] == R.set_is_legal(trial.set_bits[g, start + j])
                checked += 1
        mask = R.legal_mask(state, seat).astype(bool)
        actions = np.array([play.choice(np.flatnonzero(row)) if row.any() else R.WAIT for row in mask])
        state, _ = R.step(state, actions)
    assert checked > 200


def test_potential_counts_cards_and_this_rounds_money():
    """Reward shaping's running score (`rules.potential`): 10 per marketplace card won plus the money the
    sets would earn now ('The player who earned the most money becomes the round winner.')."""
    state = position(
        cards_drawn=[3, 4, 5, 0],
        card=0,
        cards_won={"player_0": 1, "player_1": 2},
        sets={
            "player_0": [["sweet yellow long", "sweet green long", "sweet purple long"]],
            "player_1": [["sour red drop"]],
        },
    )
    np.testing.assert_array_equal(R.money(state), [[1, -2]])  # a set of 3 pays 1, a set of 1 pays -2
    np.testing.assert_array_equal(R.potential(state), [[10 * 1 + 1, 10 * 2 - 2]])
