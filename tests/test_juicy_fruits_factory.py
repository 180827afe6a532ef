"""Juicy Fruits juice factory (`score_board="juicy"`), each test quoting the rulebook sentence or example it checks.

The factory graph is our reconstruction (`components.FACTORY_NODES` / `FACTORY_ARROWS`, COMPONENTS.md
§4.8): S (start tank) -> A1 / A2 / A3 -> T1 (tank) -> B1 / B2 -> T2 (tank) -> C1 / C2 -> X1 / X2 (finals).
The rulebook's examples name circles in pictures we do not have, so each example is replayed on the
nearest situation of this graph (its fruits and points are the graph's). In step 3 the first 14
actions are the arrows: "arrow S-A1" is the same action as "a1".
"""

from __future__ import annotations

import numpy as np
import pytest
from juicy_fruits_helpers import describe, fruit, legal, phase, play, points, position, score

import fruit_envs
from fruit_envs.core import rng
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.testing import check_game

JUICY = {"score_board": "juicy"}


def factory(num_players: int = 2, players: dict | None = None, **top):
    """A juice-factory position (see `juicy_fruits_helpers.position`); discs default to the start tank."""
    config = {"num_players": num_players, **JUICY, **top.pop("config", {})}
    return position(num_players, players, config=config, **top)


def moves(state) -> set[str]:
    """Legal step-3 decisions by arrow name ("S-A1") and "pass"."""
    return {name.split(" / arrow ")[-1] for name in legal(state)}


def discs(state, seat: int = 0) -> list[str]:
    return describe(state)["players"][f"player_{seat}"]["factory_discs"]


def to_move(state) -> str:
    return describe(state)["to_move"]


# --- Setup ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_factory_discs_start_stacked_in_the_start_tank(players):
    """'Place the score board with its juicy side up.' ... 'place them both as a stack onto a free circle in the start tank of the juice factory. These are your "factory discs."'"""
    state = R.init(R.SPEC.make_config(players, **JUICY), rng.keys_from_seed(1, 20))
    assert (state.discs == C.START_NODE).all() and state.discs.shape == (20, players, 2)
    assert (state.arrows_paid == 0).all() and (state.circles_scored == 0).all()
    assert all(discs(state, k) == ["S", "S"] for k in range(players))
    assert C.NODE_IS_TANK[C.START_NODE] and C.TANK_CIRCLES >= players, "a circle each, stacks of two"


def test_the_basic_setup_is_the_default():
    """'For your first few games, we recommend using this basic setup without the juice factory.'"""
    state = position()
    assert state.config.score_board == "basic" and (state.discs == R.NO).all()
    assert "factory_discs" not in describe(state)["players"]["player_0"]
    assert "factory" not in points(state), "no factory score source in the basic game"


def test_lemonade_stand_is_in_play_with_the_factory():
    """'The "lemonade stand" is only used in games with the juice factory.' (the basic game replaces it)"""
    state = R.init(R.SPEC.make_config(4, **JUICY), rng.keys_from_seed(2, 400))
    on_board = (state.board == C.LEMONADE).any(axis=(1, 2))
    assert 0.7 < on_board.mean() < 0.9, "20 of the 24 tokens are drawn, the lemonade stand among them"
    assert ((state.board >= 0).sum(axis=(1, 2)) == 20).all()
    state = factory(
        players={"player_0": {"fruit": {"orange": 1, "lime": 1}}},
        business_board=[["lemonade"], [], [], [], []],
        phase="supply_or_claim",
    )
    state, _ = play(state, "claim row 1 slot 1", "c2")
    assert describe(state)["players"]["player_0"]["island"][1].split()[2] == "lemonade"


# --- Step 3 in the turn -----------------------------------------------------------------------------


def test_step_three_follows_steps_one_and_two():
    """'Each player's turn now includes a third step. After you are finished with steps 1 and 2, you may then carry out: Step 3) Advance your factory discs by up to 1 arrow each'"""
    state = factory(players={"player_0": {"fruit": {"banana": 1}}})
    state, _ = play(state, "c3", "c2")
    assert phase(state) == "supply_or_claim", "step 2 first"
    state, _ = play(state, "pass")
    assert phase(state) == "factory" and to_move(state) == "player_0", "then step 3, same player"
    assert moves(state) == {"S-A1", "pass"}
    state, _ = play(state, "pass")
    assert to_move(state) == "player_1" and phase(state) == "move_token"


def test_step_three_also_follows_a_supply_and_a_claim():
    """Step 3 comes 'After you are finished with steps 1 and 2', whatever step 2 was (a ship, a claimed token placed)."""
    rich = {"banana": 3, "orange": 3, "lime": 1}
    state = factory(players={"player_0": {"ships": {"A": "OB/1"}, "fruit": rich}}, phase="supply_or_claim")
    after, _ = play(state, "b1")
    assert phase(after) == "factory" and to_move(after) == "player_0"
    state = factory(
        players={"player_0": {"fruit": rich}}, business_board=[["tower"], [], [], [], []], phase="supply_or_claim"
    )
    after, _ = play(state, "claim row 1 slot 1", "c2")
    assert phase(after) == "factory" and to_move(after) == "player_0"


def test_no_step_three_in_the_basic_game():
    """Overview: 'Step 3) If you are playing with the juice factory: Advance your factory discs by up to 1 arrow each'."""
    state = position(players={"player_0": {"fruit": {"banana": 5}}}, phase="supply_or_claim")
    state, _ = play(state, "pass")
    assert to_move(state) == "player_1"
    with pytest.raises(ValueError, match="no Juicy Fruits action"):
        R.string_to_action(state.config, "arrow S-A1")


# --- Arrows and their cost --------------------------------------------------------------------------


def test_an_arrow_costs_the_fruit_it_shows():
    """'Each arrow shows a fruit cost: to advance a disc along that arrow you must return the fruit(s) shown from your reserve to the general supply.'"""
    state = factory(players={"player_0": {"fruit": {"banana": 1, "lime": 2}}}, phase="factory")
    assert moves(state) == {"S-A1", "S-A2", "pass"}, "no orange for S-A3"
    state, _ = play(state, "arrow S-A2")
    assert fruit(state) == {"banana": 1, "lime": 1} and discs(state) == ["A2", "S"]
    assert describe(state)["players"]["player_0"]["factory_arrows_paid"] == {"S-A2": 1}
    two = factory(players={"player_0": {"factory_discs": ["T1", "T1"], "fruit": {"orange": 1}}}, phase="factory")
    assert moves(two) == {"pass"}, "T1-B2 needs an orange and a pomegranate"
    two = factory(
        players={"player_0": {"factory_discs": ["T1", "T1"], "fruit": {"orange": 1, "pomegranate": 1}}},
        phase="factory",
    )
    two, _ = play(two, "arrow T1-B2")
    assert fruit(two) == {} and points(two)["factory"] == 3


def test_step_three_is_skipped_when_no_disc_can_advance():
    """A step with nothing to decide is skipped: without the fruit of any arrow, the turn ends after step 2."""
    state = factory(players={"player_0": {"fruit": {"pomegranate": 3}}}, phase="supply_or_claim")
    state, _ = play(state, "pass")
    assert to_move(state) == "player_1"


def test_from_the_start_tank_example():
    """Example: 'From the start tank, a disc could move to any of the red marked circles.' (here A1, A2 and A3)"""
    state = factory(players={"player_0": {"fruit": {f: 1 for f in C.FRUITS}}}, phase="factory")
    assert moves(state) == {"S-A1", "S-A2", "S-A3", "pass"}


def test_single_circles_and_tanks_of_four_circles():
    """'There are single circles and tanks. Tanks comprise 4 circles each.' (the graph's tanks: S, T1, T2)"""
    assert [C.NODE_NAMES[k] for k in np.flatnonzero(C.NODE_IS_TANK)] == ["S", "T1", "T2"]
    assert C.TANK_CIRCLES == 4 and C.N_NODES == 12
    four = {f"player_{k}": {"factory_discs": ["T1", "T1"]} for k in range(4)}
    assert not R.invariants(factory(4, players=four)), "four colours fill a tank's four circles"


def test_a_tank_takes_a_disc_on_any_free_circle():
    """'If a disc moves along an arrow that leads to a tank, any of that tank's free circles can take the disc.' (other colours in the tank do not block it)"""
    players = {
        "player_0": {"factory_discs": ["A1", "S"], "fruit": {"pomegranate": 1}},
        "player_1": {"factory_discs": ["T1", "T1"]},
        "player_2": {"factory_discs": ["T1", "S"]},
        "player_3": {"factory_discs": ["T1", "A2"]},
    }
    state = factory(4, players=players, phase="factory")
    assert moves(state) == {"A1-T1", "pass"}
    state, _ = play(state, "arrow A1-T1")
    assert discs(state) == ["T1", "S"] and points(state)["factory"] == int(C.NODE_POINTS[C.NODE_NAMES.index("T1")])


def test_from_a_tank_any_outgoing_arrow():
    """'If a disc moves from a tank, it can do so along any of its outgoing arrows.'"""
    rich = {f: 2 for f in C.FRUITS}
    state = factory(players={"player_0": {"factory_discs": ["T2", "C1"], "fruit": rich}}, phase="factory")
    assert moves(state) == {"T2-C1", "T2-C2", "C1-X1", "pass"}


def test_neither_one_or_both_discs_by_one_arrow_each():
    """'During this step, you may advance neither, one, or both of your factory discs by 1 arrow each.'"""
    rich = {"players": {"player_0": {"fruit": {f: 3 for f in C.FRUITS}}}, "phase": "factory"}
    neither, _ = play(factory(**rich), "pass")
    assert to_move(neither) == "player_1" and discs(neither) == ["S", "S"]
    one, _ = play(factory(**rich), "arrow S-A1")
    assert phase(one) == "factory" and moves(one) == {"S-A1", "S-A2", "S-A3", "pass"}, "the moved disc is done"
    one, _ = play(one, "pass")
    assert to_move(one) == "player_1" and sorted(discs(one)) == ["A1", "S"]
    both, _ = play(factory(**rich), "arrow S-A1", "arrow S-A3")
    assert to_move(both) == "player_1" and discs(both) == ["A1", "A3"], "two moves end step 3"
    assert points(both)["factory"] == 4


def test_a_free_circle_or_the_second_disc_other_colours_block():
    """'You can only use an arrow that leads to either a free circle or your second factory disc. Circles holding discs of other colors are blocked.'"""
    rich = {f: 3 for f in C.FRUITS}
    players = {"player_0": {"factory_discs": ["T1", "B2"], "fruit": rich}, "player_1": {"factory_discs": ["B1", "S"]}}
    state = factory(players=players, phase="factory")
    assert moves(state) == {"T1-B2", "B2-T2", "pass"}, "B1 holds the other colour; B2 holds the second disc"
    state, _ = play(state, "arrow T1-B2")
    assert discs(state) == ["B2", "B2"] and points(state)["factory"] == 0


def test_arriving_in_a_tank_with_the_other_disc_stacks_on_it():
    """'If you move your disc to a tank that contains your other disc, you must place your arriving disc on top of it. Otherwise, place it onto any free space in the tank.'"""
    stacked = factory(
        players={"player_0": {"factory_discs": ["A1", "T1"], "fruit": {"pomegranate": 1}}}, phase="factory"
    )
    stacked, _ = play(stacked, "arrow A1-T1")
    assert discs(stacked) == ["T1", "T1"] and points(stacked)["factory"] == 0, "on top of the other disc: no points"
    alone = factory(players={"player_0": {"factory_discs": ["A1", "S"], "fruit": {"pomegranate": 1}}}, phase="factory")
    alone, _ = play(alone, "arrow A1-T1")
    assert points(alone)["factory"] == 1, "a free circle of the tank: its points"


def test_points_for_covered_circles_not_for_landing_on_the_other_disc():
    """'Whenever you move to a free circle, gain any points you cover. You don't get points when you move your disc onto your other one.'"""
    state = factory(players={"player_0": {"fruit": {"banana": 2}}}, phase="factory")
    state, _ = play(state, "arrow S-A1")
    assert points(state)["factory"] == 2 and score(state) == 2
    state, _ = play(state, "pass")
    state, _ = play(state, "c3", "c2", "pass")  # player_1
    state, _ = play(state, "c3", "c4", "pass", "arrow S-A1")
    assert discs(state) == ["A1", "A1"] and points(state)["factory"] == 2, "onto the own disc: nothing more"
    assert describe(state)["players"]["player_0"]["factory_circles_scored"] == {"A1": 1}


def test_example_onto_disc_b_or_to_circle_c_and_disc_d_into_the_next_tank():
    """Example: 'For a fruit cost of 1 lime, disc A could either move onto disc B or to circle C (where it yields 3 points). Disc D could move to any free circle of the next tank for a fruit cost of 1 pomegranate.' (here: A in T1, B on B1 for 1 lime, C = B2 with 3 points; D on A1, into T1 for 1 pomegranate)"""
    players = {
        "player_0": {"factory_discs": ["T1", "B1"], "fruit": {"lime": 1, "orange": 1, "pomegranate": 1}},
        "player_1": {"factory_discs": ["A1", "S"], "fruit": {"pomegranate": 1}},
    }
    state = factory(players=players, phase="factory")
    assert {"T1-B1", "T1-B2"} <= moves(state)
    onto_b, _ = play(state, "arrow T1-B1")
    assert fruit(onto_b) == {"orange": 1, "pomegranate": 1} and points(onto_b)["factory"] == 0
    to_c, _ = play(state, "arrow T1-B2")
    assert points(to_c)["factory"] == 3
    d, _ = play(onto_b, "c3", "c2", "pass")  # player_1 (gains a pomegranate in step 1)
    assert moves(d) == {"A1-T1", "pass"}
    d, _ = play(d, "arrow A1-T1")
    assert fruit(d, 1) == {"pomegranate": 1} and points(d, 1)["factory"] == 1


def test_example_order_of_the_two_discs():
    """'If you advance both discs on your turn, do so one after the other (in any order) as described above.' Example: 'If disc B moves to circle C for a fruit cost of 1 orange first (and yields 3 points there), then disc A can move to circle D for a fruit cost of 1 pomegranate (and yield 2 points there).' (here: B leaves B1 for T2, then A moves from T1 onto the freed B1)"""
    start = {"player_0": {"factory_discs": ["T1", "B1"], "fruit": {"lime": 1, "mangosteen": 1}}}
    b_first, _ = play(factory(players=start, phase="factory"), "arrow B1-T2", "arrow T1-B1")
    assert sorted(discs(b_first)) == ["B1", "T2"] and points(b_first)["factory"] == 2 + 2
    a_first, _ = play(factory(players=start, phase="factory"), "arrow T1-B1", "arrow B1-T2")
    assert sorted(discs(a_first)) == ["B1", "T2"] and points(a_first)["factory"] == 0 + 2, "A landed on B"


def test_both_discs_along_the_same_arrow_pay_once():
    """'However, if both of your discs start the turn on the same circle and you decide to advance them along the same arrow, pay the fruit cost only once. (If there are any points on the circle they arrive on, you still only gain those points once.)'"""
    state = factory(
        players={"player_0": {"factory_discs": ["T1", "T1"], "fruit": {"lime": 1, "orange": 1, "pomegranate": 1}}},
        phase="factory",
    )
    once, _ = play(state, "arrow T1-B1")
    assert fruit(once) == {"orange": 1, "pomegranate": 1}
    assert moves(once) == {"T1-B1", "T1-B2", "pass"}, "the same arrow is free, even without a lime"
    once, _ = play(once, "arrow T1-B1")
    assert discs(once) == ["B1", "B1"] and fruit(once) == {"orange": 1, "pomegranate": 1}
    assert points(once)["factory"] == 2, "the circle's points once"
    assert describe(once)["players"]["player_0"]["factory_arrows_paid"] == {"T1-B1": 1}
    split, _ = play(state, "arrow T1-B1", "arrow T1-B2")
    assert fruit(split) == {} and points(split)["factory"] == 2 + 3, "different arrows: each paid"


def test_example_both_red_discs_for_one_banana():
    """Example: 'For a fruit cost of only 1 banana, both red discs can move to circle A (where they yield 4 points).' (here: S-A1 for 1 banana; A1 shows 2 points)"""
    state = factory(players={"player_0": {"fruit": {"banana": 1}}}, phase="factory")
    state, _ = play(state, "arrow S-A1", "arrow S-A1")
    assert discs(state) == ["A1", "A1"] and fruit(state) == {} and points(state)["factory"] == 2
    assert to_move(state) == "player_1"


def test_hints_show_an_arrows_price_its_circle_and_the_free_ride():
    """The observation's hints for the same example: S-A1 costs 1 banana and scores A1's 2 points; the second
    disc rides free and, landing on the first one, scores nothing ('You don't get points when you move your disc onto your other one.')."""
    state = factory(players={"player_0": {"fruit": {"banana": 1}}}, phase="factory")
    lay = R.observation_layout(state.config)
    arrow = R.string_to_action(state.config, "arrow S-A1")

    def hint(s, name):
        return R.observe(s, 0)[0, lay["hints"]].reshape(R.NUM_ACTIONS, R.N_HINTS)[arrow, R.HINT[name]]

    assert hint(state, "fruit_paid").tolist() == pytest.approx([0.2, 0, 0, 0, 0]) and hint(state, "points")[
        0
    ] == pytest.approx(0.2)
    state, _ = play(state, "arrow S-A1")
    assert not hint(state, "fruit_paid").any() and hint(state, "points")[0] == 0 and hint(state, "legal")[0] == 1


def test_a_disc_that_started_elsewhere_never_rides_free():
    """The free ride is for 'both of your discs start[ing] the turn on the same circle': a disc that joins the other one pays."""
    state = factory(
        players={"player_0": {"factory_discs": ["A1", "T1"], "fruit": {"pomegranate": 1, "lime": 1}}}, phase="factory"
    )
    state, _ = play(state, "arrow A1-T1")
    assert moves(state) == {"T1-B1", "pass"}, "T1-B1 is another arrow: paid with the lime"
    state, _ = play(state, "arrow T1-B1")
    assert fruit(state) == {}


# --- Final circles and the license marker -----------------------------------------------------------


def test_final_circle_scores_moves_the_license_marker_and_blocks():
    """'The two final circles show a license icon. If your disc arrives on such a free circle, gain its points and then move the license marker 1 step down on the license track. For the rest of the game, that circle is blocked.'"""
    players = {
        "player_0": {"factory_discs": ["C1", "T2"], "fruit": {"orange": 2, "banana": 2, "pomegranate": 1}},
        "player_1": {"factory_discs": ["T2", "S"]},
    }
    state = factory(players=players, phase="factory")
    before = describe(state)["license_steps_left"]
    state, _ = play(state, "arrow C1-X1")
    assert points(state)["factory"] == 5 and describe(state)["license_steps_left"] == before - 1
    assert moves(state) == {"T2-C1", "pass"}
    state, _ = play(state, "arrow T2-C1")
    blocked = factory(
        players={
            "player_0": {"factory_discs": ["X1", "C1"], "fruit": {"orange": 2, "banana": 2}},
            "player_1": {"factory_discs": ["C2", "S"], "fruit": {"pomegranate": 1, "orange": 1}},
        },
        phase="factory",
    )
    assert moves(blocked) == {"pass"}, "X1 is blocked, for the own second disc too (ASSUMED)"
    blocked, _ = play(blocked, "pass", "c3", "c2", "pass")
    assert "C2-X2" in moves(blocked), "the other final circle is still free"


EMPTIED_STACKS = {"green 8": 3, "green 7": 3, "blue 6": 2, "blue 5": 2, "pink 4": 3, "milkshake": 4}  # 6 steps


def test_reaching_a_final_circle_can_end_the_game():
    """'The game ends at the end of the round in which the license marker arrives at the X of the license track.' (a final circle's step counts)"""
    history = {"island": "tower ~ ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ .", "markers": EMPTIED_STACKS}
    players = {
        "player_0": {"factory_discs": ["C2", "S"], "fruit": {"pomegranate": 1, "orange": 1}},
        "player_1": history,
    }
    state = factory(players=players, phase="factory")
    assert describe(state)["license_steps_left"] == 1, "a claim and six emptied stacks"
    state, _ = play(state, "arrow C2-X2")
    assert describe(state)["license_steps_left"] == 0 and not describe(state)["done"]
    state, _ = play(state, "c3", "c2", "pass")
    assert describe(state)["done"] and points(state)["factory"] == 7


def test_the_license_marker_recount_includes_the_final_circles():
    """'you can figure out where it should be by counting how many business tokens have been removed, how many ice cream and milkshake spaces are empty, and — if you are playing with the juice factory — how many of the two final circles are occupied.'"""
    state = factory(players={"player_0": {"factory_discs": ["X1", "X2"]}})
    assert describe(state)["license_steps_left"] == C.LICENSE_STEPS[2] - 2
    with pytest.raises(ValueError, match="license marker misplaced"):
        factory(players={"player_0": {"factory_discs": ["X1", "S"]}}, license_steps_left=C.LICENSE_STEPS[2])


# --- Lemonade stand ---------------------------------------------------------------------------------


def test_lemonade_stand_scores_the_bottles_beneath_the_own_discs():
    """'Lemonade stand (use only if you are playing with the juice factory) — At the end of the game, gain the points shown on the bottle beneath each of your factory discs.' and 'The bottles on the conveyor belt are only relevant for the "Lemonade stand" stall token'."""
    island = ". ~ ~ ~ .\n~ B lemonade L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    players = {
        "player_0": {"island": island, "factory_discs": ["B1", "X2"]},
        "player_1": {"factory_discs": ["C1", "C2"], "markers": EMPTIED_STACKS},
    }
    state = factory(players=players)
    bottles = C.NODE_BOTTLE[C.NODE_NAMES.index("B1")] + C.NODE_BOTTLE[C.NODE_NAMES.index("X2")]
    assert R.stall_points(state.island, state.ship_present, state.discs)[0].tolist() == [bottles, 0]
    assert points(state)["stalls"] == 0, "only at the end of the game"
    last = factory(players=players, to_move="player_1")
    assert describe(last)["license_steps_left"] == 0, "the final round"
    last, _ = play(last, "c3", "c2", "pass")
    assert describe(last)["done"] and points(last)["stalls"] == bottles == 9
    assert points(last, 1)["stalls"] == 0, "bottles score only with the stall"


# --- Accounting, views, conformance -----------------------------------------------------------------


def test_factory_points_and_fruit_are_accounted():
    """Every factory point is traced to a covered circle and every fruit paid to an arrow (issue 7)."""
    from fruit_envs.agents import make_agent

    state = R.init(R.SPEC.make_config(3, **JUICY), rng.keys_from_seed(21, 64))
    greedy = make_agent("greedy", R.SPEC, state.config)
    gen = np.random.default_rng(0)
    while not state.done.all():
        state, _ = R.step(state, greedy.act(R.observe(state, state.to_move), R.legal_mask(state), gen))
    assert not R.invariants(state)
    assert (R.traced_points(state) == state.points).all()
    assert (state.points[..., R.FACTORY_PTS] > 0).mean() > 0.5, "greedy play uses the factory"
    assert (state.arrows_paid > 0).any() and (state.discs != C.START_NODE).any()
    bad = state.copy()
    bad.points[0, 0, R.FACTORY_PTS] += 1
    assert any("points not traced" in p for p in R.invariants(bad))
    bad = state.copy()
    bad.arrows_paid[0, 0, 0] += 1
    assert any("fruit not accounted" in p for p in R.invariants(bad))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_check_game_clean_with_the_factory(players):
    report = check_game("juicy_fruits", players, JUICY, num_games=150, single_games=3)
    assert len(report.game_lengths) == 150


def test_describe_round_trips_with_the_factory():
    state = R.init(R.SPEC.make_config(3, **JUICY), rng.keys_from_seed(8, 6))
    gen = np.random.default_rng(2)
    for _ in range(150):
        mask = R.legal_mask(state)
        state, _ = R.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))
        for i in range(0, 6, 2):
            assert R.from_description(R.describe(state, i)).equals(state.take(i))
    assert (state.discs != C.START_NODE).any()


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"players": {"player_0": {"factory_discs": ["S", "Z9"]}}},
            r"field 'players.player_0.factory_discs\[1\]': must be one of",
        ),
        ({"players": {"player_0": {"factory_discs": ["S"]}}}, "factory_discs': must hold 2 entries"),
        ({"players": {"player_0": {"factory_arrows_paid": {"S-X1": 1}}}}, "factory_arrows_paid.S-X1': unknown field"),
        (
            {"players": {"player_0": {"factory_discs": ["B1", "S"]}, "player_1": {"factory_discs": ["B1", "S"]}}},
            "two colours on one single circle",
        ),
        ({"players": {"player_0": {"factory_discs": ["X1", "X1"]}}}, "second disc on a final circle"),
        ({"players": {"player_0": {"factory_arrows_paid": {"S-A1": 1}}}}, "paid for moves never made"),
    ],
)
def test_bad_factory_descriptions_say_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        factory(**change)


def test_factory_fields_need_the_juicy_side():
    with pytest.raises(ValueError, match="needs the juice factory"):
        position(players={"player_0": {"factory_discs": ["S", "S"]}})
    with pytest.raises(ValueError, match="step 3 in a basic game"):
        position(phase="factory")


def test_observation_adds_the_factory_only_with_the_option():
    """The basic observation keeps its shape and places; the factory's blocks follow it with the option."""
    for players in (2, 3, 4):
        basic, juicy = R.SPEC.make_config(players), R.SPEC.make_config(players, **JUICY)
        assert R.observation_shape(basic) == (551 + R.NUM_ACTIONS * R.N_HINTS + 692 * players,)
        extra = 1 + players * C.N_NODES + len(C.FACTORY_FINALS) + players + C.N_ARROWS
        assert R.observation_shape(juicy) == (R.observation_shape(basic)[0] + extra,)
    players = {
        "player_0": {"factory_discs": ["X1", "B1"], "fruit": {"orange": 1, "pomegranate": 1}},
        "player_1": {"factory_discs": ["T1", "T1"]},
    }
    state = factory(players=players, phase="factory")
    lay = R.observation_layout(state.config)
    theirs = R.observe(state, 1)[0]
    own_first = theirs[lay["factory_discs"]].reshape(2, C.N_NODES) * 2
    assert own_first[0, C.NODE_NAMES.index("T1")] == 2, "the observer's discs first"
    assert own_first[1, C.NODE_NAMES.index("X1")] == 1 and own_first[1, C.NODE_NAMES.index("B1")] == 1
    assert theirs[lay["finals_taken"]].tolist() == [1, 0]
    assert np.allclose(theirs[lay["bottles"]] * R.MAX_BOTTLES, [4, 9])
    assert theirs[lay["phase"]].argmax() == R.FACTORY and len(theirs[lay["phase"]]) == R.N_LIVE_PHASES
    mine = R.observe(state, 0)[0]
    assert mine[lay["pending_arrow"]].sum() == 0
    moved, _ = play(factory(players={"player_0": {"fruit": {"banana": 1, "lime": 1}}}, phase="factory"), "arrow S-A1")
    assert R.observe(moved, 0)[0][lay["pending_arrow"]].argmax() == C.ARROW_NAMES.index("S-A1")


def test_arrow_actions_have_names():
    """Step 3 reuses the first 14 actions: the action space stays Discrete(66)."""
    cfg = R.SPEC.make_config(2, **JUICY)
    names = [R.action_to_string(cfg, a) for a in range(R.NUM_ACTIONS)]
    assert names[0] == "a1 / arrow S-A1" and names[13] == "d3 / arrow C2-X2" and names[14] == "e3"
    assert all(R.string_to_action(cfg, n) == a for a, n in enumerate(names))
    assert R.string_to_action(cfg, "arrow T1-B2") == R.string_to_action(cfg, "c2") == 7
    assert R.action_to_string(R.SPEC.make_config(2), 0) == "a1", "the basic game's names are unchanged"
    assert fruit_envs.get_spec("juicy_fruits").num_actions == 66


def test_score_reward_pays_factory_points():
    """`reward="score"`: a covered circle's points are paid as they come."""
    state = factory(players={"player_0": {"fruit": {"orange": 1}}}, config={"reward": "score"}, phase="factory")
    _, rewards = play(state, "arrow S-A3")
    assert rewards.tolist() == [2.0, 0.0]


def test_greedy_beats_random_with_the_factory():
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate

    spec = fruit_envs.get_spec("juicy_fruits")
    cfg = spec.make_config(2, **JUICY)
    result = evaluate(spec, cfg, make_agent("greedy", spec, cfg), make_agent("random", spec, cfg), 60, seed=4)
    assert result["win_rate"] > 0.65
