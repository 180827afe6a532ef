"""Juicy Fruits v2's per-action hints (`rules.action_hints`): public arithmetic on what the seat sees,
checked on the rulebook's examples and against what the actions really do under random play."""

from __future__ import annotations

import numpy as np
import pytest
from juicy_fruits_helpers import position

from fruit_envs.core import rng
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import rules as R

FRUIT = {name: k for k, name in enumerate(C.FRUITS)}


def hints(state, name: str) -> dict:
    """The hints of one action (by name) for the seat to move, read back from the observation."""
    lay = R.observation_layout(state.config)
    seat = int(state.to_move[0])
    block = R.observe(state, seat)[0, lay["hints"]].reshape(R.NUM_ACTIONS, R.N_HINTS)
    row = block[R.string_to_action(state.config, name)]
    return {key: row[sl] if sl.stop - sl.start > 1 else float(row[sl][0]) for key, sl in R.HINT.items()}


def fruits(vector) -> dict:
    return {C.FRUITS[k]: round(float(v) * 5) for k, v in enumerate(vector) if round(float(v) * 5)}


def step(state, name):
    return R.step(state, np.array([R.string_to_action(state.config, name)]))[0]


def test_moving_the_banana_collector_two_spaces_shows_two_bananas():
    """Example: 'For moving your banana collector token 2 island spaces, you gain 2 bananas from the general supply.'"""
    state = position(players={"player_0": {"island": ". ~ ~ ~ .\n~ B . . ~\n~ . P L ~\n~ O . M ~\n. ~ ~ ~ ."}})
    choose = hints(state, "b2")
    assert fruits(choose["fruit_gained"]) == {"banana": 2} and choose["spaces"] == pytest.approx(2 / 4)
    state = step(state, "b2")
    to_d2, to_c2 = hints(state, "d2"), hints(state, "c2")
    assert fruits(to_d2["fruit_gained"]) == {"banana": 2} and fruits(to_c2["fruit_gained"]) == {"banana": 1}
    assert to_d2["legal"] == 1 and hints(state, "e2")["legal"] == 0, "a ship lies at e2"
    assert not hints(state, "e2")["fruit_gained"].any(), "an illegal action's hints are all zero"


def test_supply_example_shows_the_order_and_the_points():
    """Example: 'To supply a ship, you return 2 bananas and 1 orange from your reserve to the general supply. Then you remove the ship… and gain 2 points on the score track.'"""
    state = position(
        players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": {"banana": 2, "orange": 1, "lime": 4}}},
        phase="supply_or_claim",
    )
    supply = hints(state, "b1")
    assert fruits(supply["fruit_paid"]) == {"banana": 2, "orange": 1} and not supply["fruit_gained"].any()
    assert supply["points"] == pytest.approx(0.2)
    assert hints(state, "pass")["legal"] == 1 and hints(state, "pass")["points"] == 0


def test_claim_example_shows_the_rows_price_and_points():
    """Example: 'You want to claim the blue ice cream cart token and thus return 3 oranges and 3 bananas to the general supply. You gain 5 points on the score track ...'"""
    board = [["tower", "croc"], ["museum", "BL+"], ["chairs", "climbing"], ["diving", "info"], ["blue1", "green1"]]
    state = position(
        players={"player_0": {"fruit": {"orange": 3, "banana": 3, "lime": 1}}},
        business_board=board,
        phase="supply_or_claim",
    )
    claim = hints(state, "claim row 5 slot 1")
    assert fruits(claim["fruit_paid"]) == {"orange": 3, "banana": 3} and claim["points"] == pytest.approx(0.5)
    tower = hints(state, "claim row 1 slot 1")
    row_1 = int(C.ROW_POINTS[0]) + int(C.TOKEN_POINTS[C.TOKEN_CODES.index("tower")])
    assert tower["points"] == pytest.approx(row_1 / 10), "a small venue's own points come with the claim"


def test_advanced_collector_three_spaces_shows_four_fruits_of_either_type():
    """Example: 'For moving your advanced collector token 3 island spaces, you choose to gain 2 bananas and 2 limes. (You could just as well have chosen to collect 3 limes and 1 banana or 4 bananas etc.)'"""
    state = position(players={"player_0": {"island": ". ~ ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\nBL+ . . . ."}})
    state = step(state, "a5")
    assert fruits(hints(state, "d5")["fruit_gained"]) == {"banana": 4, "lime": 4}, "either type: both shown"
    state = step(state, "d5")
    assert fruits(hints(state, "split 2")["fruit_gained"]) == {"banana": 2, "lime": 2}
    assert fruits(hints(state, "split 1")["fruit_gained"]) == {"banana": 1, "lime": 3}
    assert fruits(hints(state, "split 4")["fruit_gained"]) == {"banana": 4}


def test_green_cart_markers_show_their_price_and_value():
    """Example: '... For the milkshake marker, you return 2 bananas ... For the 3 green ice cream markers, you return 3 limes and 3 oranges ... (3 + 8 + 8 + 7).'"""
    cart = "green1 . . . .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    state = position(players={"player_0": {"island": cart, "fruit": {"banana": 2, "lime": 3, "orange": 3}}})
    assert hints(state, "a1")["spaces"] == 1.0 and not hints(state, "a1")["fruit_gained"].any()
    state = step(step(state, "a1"), "e1")
    shake, green = hints(state, "milkshake banana"), hints(state, "ice cream green 8")
    assert fruits(shake["fruit_paid"]) == {"banana": 2} and shake["points"] == pytest.approx(0.3)
    assert fruits(green["fruit_paid"]) == {"lime": 1, "orange": 1} and green["points"] == pytest.approx(0.8)


def test_afterwards_entries_count_what_the_reserve_still_lacks():
    """The 'afterwards' entries: moving the banana collector 2 spaces completes the BBO order, 1 space leaves a banana missing."""
    state = position(
        players={
            "player_0": {
                "island": ". ~ ~ ~ .\n~ B . . ~\n~ . P L ~\n~ O . M ~\n. ~ ~ ~ .",
                "ships": {"A": "BBO/2"},
                "fruit": {"orange": 1},
            }
        }
    )
    state = step(state, "b2")
    far, near = hints(state, "d2"), hints(state, "c2")
    assert far["ship_missing"] == 0 and far["ships_ready"] == pytest.approx(1 / 4)
    assert near["ship_missing"] == pytest.approx(1 / 5) and near["ships_ready"] == 0


def test_placement_hints_count_the_movers_left_free():
    """Placing a claimed tower next to the banana collector's only free way leaves it stuck; elsewhere it can move."""
    stuck = ". ~ ~ ~ .\n~ B museum L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    board = [["tower"], [], [], [], []]
    state = position(
        players={"player_0": {"island": stuck, "fruit": {"orange": 1, "lime": 1}}},
        business_board=board,
        phase="supply_or_claim",
    )
    state = step(state, "claim row 1 slot 1")
    blocking, away = hints(state, "b3"), hints(state, "a1")
    assert away["movers_free"] > blocking["movers_free"], "the tower at b3 leaves the banana collector no way out"
    assert away["mover_room"] > blocking["mover_room"] and away["own_run"] == 0, "a venue has no run of its own"


@pytest.mark.parametrize("players", [2, 3])
def test_hints_match_what_the_actions_do_under_random_play(players):
    """Each taken action's fruit entries equal the change of the mover's reserve and its points entry the change
    of its score, wherever the effect is immediate; entries are zero off turn and for illegal actions."""
    config = R.SPEC.make_config(players)
    state = R.init(config, rng.keys_from_seed(7, 48))
    generator = np.random.default_rng(7)
    rows = np.arange(state.batch_size)
    checked = 0
    for _ in range(400):
        if state.done.all():
            break
        seat = state.to_move.astype(np.int64)
        mask = R.legal_mask(state)
        block = R.action_hints(state, seat)
        assert np.array_equal(block[..., R.HINT["legal"].start] > 0, mask)
        assert not block[~mask].any()
        other = R.action_hints(state, (seat + 1) % players)
        assert not other.any(), "not the observer's turn: all zero"
        action = np.array([generator.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        taken = block[rows, action]
        before_fruit, before_score = state.fruit[rows, seat].copy(), R.scores(state)[rows, seat]
        phase, live = state.phase.copy(), ~state.done
        state, _ = R.step(state, action)
        change = state.fruit[rows, seat] - before_fruit
        scored = R.scores(state)[rows, seat] - before_score
        immediate = live & np.isin(
            phase, [R.MOVE_TO, R.HARVEST_SPLIT, R.CLAIM_FRUIT, R.SUPPLY_OR_CLAIM, R.PRODUCE_PHASE]
        )
        immediate &= ~((phase == R.MOVE_TO) & np.isin(state.phase, [R.HARVEST_SPLIT, R.PRODUCE_PHASE]))
        settled = immediate & ~np.isin(state.phase, [R.PLACE, R.ROTATE_PHASE, R.CLAIM_FRUIT]) & ~state.done
        net = (taken[:, R.HINT["fruit_gained"]] - taken[:, R.HINT["fruit_paid"]]) * 5
        np.testing.assert_allclose(
            net[immediate & (state.phase != R.CLAIM_FRUIT)],
            change[immediate & (state.phase != R.CLAIM_FRUIT)],
            atol=1e-4,
        )
        np.testing.assert_allclose(taken[settled, R.HINT["points"].start] * 10, scored[settled], atol=1e-4)
        checked += int(immediate.sum())
    assert checked > 1000
