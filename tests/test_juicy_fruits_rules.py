"""Juicy Fruits rules, each test quoting the rulebook sentence or example it checks.

Positions are built by hand with `from_description` (islands as ASCII pictures, see
`juicy_fruits_helpers.START`) and played with readable action names: a cell ("b2") is the token to
move, where it goes, the ship to supply or where a claimed token is placed, by phase.
"""

from __future__ import annotations

import numpy as np
import pytest
from juicy_fruits_helpers import (
    CLOGGED,
    START,
    clogged,
    describe,
    fruit,
    island,
    legal,
    phase,
    picture,
    play,
    points,
    position,
    score,
)

from fruit_envs.core import rng
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R

CELLS = set(G.CELL_NAMES)


def new_games(players: int, n: int = 200, seed: int = 3, **options):
    return R.init(R.SPEC.make_config(players, **options), rng.keys_from_seed(seed, n))


# --- Setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players, per_row", [(2, 2), (3, 3), (4, 4)])
def test_business_board_setup(players, per_row):
    """'In a 2-player game: place a token onto each of the 2 leftmost waiting spaces of each row (10 business tokens in total). In a 3-player game: ... the 3 leftmost ... (15 ...). In a 4-player game: place a token onto each waiting space (20 business tokens in total).'"""
    state = new_games(players)
    assert (state.board[:, :, :per_row] >= 0).all() and (state.board[:, :, per_row:] < 0).all()
    flat = state.board.reshape(len(state.board), -1)
    for row in flat:
        drawn = row[row >= 0]
        assert len(set(drawn.tolist())) == len(drawn) == 5 * per_row
    assert len({tuple(r) for r in flat}) > 150, "tokens are drawn at random"


def test_lemonade_stand_is_replaced_in_the_basic_game():
    """'The "lemonade stand" is only used in games with the juice factory. If it appears in the basic setup, just replace it with another random token.'"""
    state = new_games(4, n=500)
    assert not (state.board == C.LEMONADE).any()
    assert (state.board >= 0).sum(axis=(1, 2)).min() == 20, "the display is still full"


def test_ice_cream_and_milkshake_stacks():
    """'Sort the 13 ice cream markers and place each onto the ice cream space that matches its value, forming 5 small stacks. Place the 4 milkshake markers as a stack onto the milkshake space.'"""
    state = new_games(2, n=5)
    assert (state.stacks == [3, 3, 2, 2, 3, 4]).all()
    assert C.STACK_SIZE[: C.N_ICE_CREAM_STACKS].sum() == 13 and C.STACK_SIZE[C.MILKSHAKE] == 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_license_marker_starts_by_player_count_and_scores_at_zero(players):
    """'Place the license marker onto the space of the license track indicated by the player count' and 'put it on space 100/0 of the score track'."""
    state = new_games(players, n=5)
    assert (state.license_left == C.LICENSE_STEPS[players]).all()
    assert (R.final_scores(state) == 0).all() and (state.fruit == 0).all()


def test_collectors_shuffled_onto_the_ponds():
    """'Shuffle the 5 collector tokens whose backs match your postcard and place one face down onto each of your 5 island spaces with a pond.'"""
    state = new_games(4)
    ponds = state.island[:, :, G.POND_CELLS]  # (n, P, 5)
    assert (np.sort(ponds, axis=2) == R.COLLECTOR + np.arange(5)).all(), "one collector of each fruit per pond"
    assert len({tuple(x) for x in ponds.reshape(-1, 5)}) > 50, "shuffled per player"
    others = np.delete(state.island, np.concatenate([G.POND_CELLS, G.BEACH_CELLS]), axis=2)
    assert (others == R.EMPTY).all(), "corners and the remaining inner spaces are free"


def test_ships_from_the_two_bags():
    """'Take either of the bags. Draw a ship token and place it face up at the black-striped buoy ... (B to F). Afterwards, take the other bag. Then draw and place a ship token ... onto each of the 6 remaining island spaces on the beach ... (G to L).'"""
    state = new_games(4)
    assert state.ship_present.all() and (state.island[:, :, G.BEACH_CELLS] == R.SHIP).all()
    first = state.ships[:, :, list(C.FIRST_BAG_POSITIONS)]
    second = np.delete(state.ships, C.FIRST_BAG_POSITIONS, axis=2)
    green = len(C.GREEN_BAG)
    assert (
        (first < green).all(axis=2) & (second >= green).all(axis=2)
        | (first >= green).all(axis=2) & (second < green).all(axis=2)
    ).all(), "A-F from one bag, G-L from the other"
    assert (first < green).any() and (first >= green).any(), "either bag may come first"
    flat = np.sort(state.ships.reshape(len(state.ships), -1), axis=1)
    assert (flat[:, 1:] != flat[:, :-1]).all(), "every ship token is drawn once"


def test_more_random_ship_setup():
    """'After a few games, you might want to try a more random setup of the ships. For this, put all 50 ship tokens into one bag ... until all 12 spaces are filled.'"""
    state = new_games(4, ship_setup="mixed")
    green = state.ships < len(C.GREEN_BAG)
    mixed_halves = green[:, :, list(C.FIRST_BAG_POSITIONS)].any(axis=2) & ~green[:, :, list(C.FIRST_BAG_POSITIONS)].all(
        axis=2
    )
    assert mixed_halves.any(), "A-F may hold ships of both bags"
    assert not R.invariants(state)


def test_corners_option():
    """COMPONENTS.md §4.2: the outer corners are free spaces unless `corners_playable=False` makes them unusable."""
    assert (new_games(2, n=3).island[:, :, G.CORNER_CELLS] == R.EMPTY).all()
    blocked = new_games(2, n=3, corners_playable=False)
    assert (blocked.island[:, :, G.CORNER_CELLS] == R.BLOCKED).all()
    corners = {"num_players": 2, "corners_playable": False}
    pic = "# . ~ ~ #\nB . . L ~\n~ . P . ~\n~ O . M ~\n# ~ ~ ~ #"
    cornerless = {"island": "# ~ ~ ~ #\n~ B . L ~\n~ . P . ~\n~ O . M ~\n# ~ ~ ~ #"}
    state, _ = play(position(players={"player_0": {"island": pic}, "player_1": cornerless}, config=corners), "a2")
    assert legal(state) == {"b2", "c2"}, "the corner above is unusable"
    state, _ = play(position(players={"player_0": {"island": pic.replace("#", ".")}}), "a2")
    assert legal(state) == {"a1", "b2", "c2"}, "by default the corner is a free space"


def test_starting_player_and_clockwise_turns():
    """'In every round, each player takes one turn, beginning with the starting player and then going clockwise.' ... 'Then it's the player to your left's turn.'"""
    state = position(3)
    assert describe(state)["to_move"] == "player_0" and phase(state) == "move_token"
    for seat in (1, 2, 0):
        state, _ = play(state, *_a_turn(state))
        assert describe(state)["to_move"] == f"player_{seat}"
    assert describe(state)["rounds_completed"] == 1


def _a_turn(state) -> list[str]:
    """Move the pomegranate collector one space (north or back south) and pass."""
    d = describe(state)
    pic = d["players"][d["to_move"]]["island"]
    at = "c3" if pic[2].split()[2] == "P" else "c2"
    return [at, "c2" if at == "c3" else "c3", "pass"]


# --- Step 1: move a collector --------------------------------------------------------------------


def test_move_banana_collector_two_spaces_gains_two_bananas():
    """Example: 'For moving your banana collector token 2 island spaces, you gain 2 bananas from the general supply.'"""
    state = position(players={"player_0": {"island": ". ~ ~ ~ .\n~ B . . ~\n~ . P L ~\n~ O . M ~\n. ~ ~ ~ ."}})
    state, _ = play(state, "b2", "d2")
    assert fruit(state) == {"banana": 2}
    assert island(state)[1] == "~ . . B ~"
    assert phase(state) == "supply_or_claim", "step 2 follows"


def test_straight_orthogonal_lines_over_unblocked_spaces():
    """'Move one of the collector tokens on your island in a straight line through as many unblocked island spaces as you like.' ... 'You cannot move a token diagonally.'"""
    state = position()
    assert legal(state) == {"b2", "d2", "c3", "b4", "d4"}, "every collector with a free neighbour"
    state, _ = play(state, "c3")
    assert legal(state) == {"c2", "c4", "b3", "d3"}, "ships and other collectors block; no diagonal"
    wide = position(players={"player_0": {"island": ". . . . .\n. . . L ~\nB . P . ~\n~ O . M ~\n. ~ ~ ~ ."}})
    wide, _ = play(wide, "a3")
    assert legal(wide) == {"b3", "a1", "a2"}, "as far as the line is free, never over a token"
    wide, _ = play(wide, "a1")
    assert fruit(wide) == {"banana": 2}


def test_reserve_is_unlimited():
    """'Your reserve has unlimited capacity.' and 'The fruits in the general supply are considered unlimited.'"""
    state = position(players={"player_0": {"fruit": {"banana": 200}}})
    state, _ = play(state, "b2", "c2")
    assert fruit(state) == {"banana": 201}


def test_step_one_is_not_optional_when_a_token_can_move():
    """'Step 1) Either: Move 1 of your collector tokens ... OR Move 1 of your mobile business tokens': there is no pass in step 1."""
    assert "pass" not in legal(position())


def test_forfeit_step_one_when_nothing_can_move():
    """'If you are unable to move a token during step 1 of your turn, you must forfeit that step and cannot collect any fruits.'"""
    boxed = ". ~ ~ ~ .\n~ B tower L ~\n~ museum P observatory ~\n~ O chairs M ~\n. ~ ~ ~ ."
    state = position(players={"player_0": {"island": boxed}})
    assert phase(state) == "supply_or_claim" and not any(a.startswith("claim") for a in legal(state))
    state, _ = play(state, "pass")
    assert describe(state)["to_move"] == "player_1" and fruit(state) == {}


def test_only_mobile_business_tokens_move():
    """'Instead of moving a collector token, you can move a mobile business token that you claimed on an earlier turn': stationary tokens stay where they are placed."""
    pic = ". ~ ~ ~ .\n~ B tower L ~\n~ green1 . P ~\n~ O chairs M ~\nBL+ . ~ ~ ."
    state = position(players={"player_0": {"island": pic}})
    movable = legal(state)
    assert {"b3", "a5"} <= movable, "the cart and the advanced collector can move"
    assert not {"c2", "c4"} & movable, "the venue and the stall cannot"
    assert movable == {"b3", "a5", "d3", "b4"}


# --- Step 2: supply a ship ------------------------------------------------------------------------


def test_supply_a_ship_example():
    """Example: 'To supply a ship, you return 2 bananas and 1 orange from your reserve to the general supply. Then you remove the ship… and gain 2 points on the score track.'"""
    state = position(
        players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": {"banana": 2, "orange": 1, "lime": 4}}},
        phase="supply_or_claim",
    )
    assert "b1" in legal(state), "ship A lies at b1"
    state, _ = play(state, "b1")
    assert fruit(state) == {"lime": 4} and score(state) == 2 and points(state)["ships"] == 2
    assert island(state)[0] == ". . ~ ~ .", "the ship is removed; its space is free"
    assert describe(state)["to_move"] == "player_1", "one ship, then the turn ends"


def test_a_ship_needs_its_whole_order():
    """'Return the fruits shown on it from your reserve': a ship whose order the reserve does not cover cannot be supplied."""
    state = position(players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": {"banana": 2}}}, phase="supply_or_claim")
    assert "b1" not in legal(state)


def test_freed_beach_space_can_be_used():
    """A supplied ship is removed, so 'the adjacent island space' it covered becomes a free island space."""
    state = position(players={"player_0": {"ships": {"G": "BBO/2"}, "fruit": {"banana": 2, "orange": 1}}})
    state, _ = play(state, "c3", "c2", "c1")  # supply ship G at c1
    state, _ = play(state, *_a_turn(state))
    assert "c1" in legal(play(state, "c2")[0]), "the collector can now move onto the beach space"


def test_skip_step_two():
    """'If you cannot or do not want to supply a ship or claim a business token, just skip step 2.'"""
    state = position(players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": {"banana": 2, "orange": 1}}})
    state, _ = play(state, "b2", "c2")
    assert {"pass", "b1"} <= legal(state)
    state, _ = play(state, "pass")
    assert describe(state)["to_move"] == "player_1" and fruit(state) == {"banana": 3, "orange": 1}


# --- Step 2: claim a business token ---------------------------------------------------------------

BOARD = [["tower", "croc"], ["museum", "BL+"], ["chairs", "climbing"], ["diving", "info"], ["blue1", "green1"]]


def test_claim_the_blue_ice_cream_cart_example():
    """Example: 'You want to claim the blue ice cream cart token and thus return 3 oranges and 3 bananas to the general supply. You gain 5 points on the score track and move the license marker 1 step down on the license track. Finally, you take the blue ice cream cart token from its space and place it onto your island board.'"""
    state = position(
        players={"player_0": {"fruit": {"orange": 3, "banana": 3, "lime": 1}}},
        business_board=BOARD,
        phase="supply_or_claim",
    )
    assert {"claim row 5 slot 1", "claim row 5 slot 2"} <= legal(state)
    state, _ = play(state, "claim row 5 slot 1")
    assert fruit(state) == {"lime": 1} and score(state) == 5 and points(state)["claims"] == 5
    assert describe(state)["license_steps_left"] == C.LICENSE_STEPS[2] - 1
    assert describe(state)["business_board"][4] == [None, "green1", None, None]
    assert phase(state) == "place" and legal(state) == {"a1", "e1", "c2", "b3", "d3", "c4", "a5", "e5"}
    state, _ = play(state, "c2")
    assert island(state)[1] == "~ B blue1 L ~" and describe(state)["to_move"] == "player_1"


def test_claim_needs_the_rows_fruit():
    """'Return the fruits depicted in front of its row from your reserve': without them the row's tokens cannot be claimed."""
    state = position(
        players={"player_0": {"fruit": {"orange": 3, "banana": 2}}}, business_board=BOARD, phase="supply_or_claim"
    )
    assert not {"claim row 5 slot 1", "claim row 5 slot 2"} & legal(state)
    assert {"claim row 1 slot 1", "claim row 1 slot 2"} & legal(state) == set(), "row 1 needs a lime too"


def test_supply_or_claim_not_both():
    """'Step 2) Then either: Supply 1 of your ships OR: Claim 1 business token, or do nothing'."""
    rich = {"orange": 9, "banana": 9, "lime": 9}
    state = position(
        players={"player_0": {"ships": {"A": "BBO/2"}, "fruit": rich}}, business_board=BOARD, phase="supply_or_claim"
    )
    after, _ = play(state, "b1")
    assert describe(after)["to_move"] == "player_1"
    after, _ = play(state, "claim row 1 slot 1", "c2")
    assert describe(after)["to_move"] == "player_1"


def test_small_venue_scores_on_placement():
    """'Small venue tokens. If you claim a small venue token, place it onto one of your free island spaces and gain the points printed on it.'"""
    state = position(
        players={"player_0": {"fruit": {"orange": 1, "lime": 1}}}, business_board=BOARD, phase="supply_or_claim"
    )
    state, _ = play(state, "claim row 1 slot 1")
    assert score(state) == 1, "the row's points first"
    state, _ = play(state, "a1")
    assert points(state) == {"ships": 0, "claims": 1, "venues": 3, "markers": 0, "stalls": 0}
    assert island(state)[0] == "tower ~ ~ ~ ."


def test_stationary_tokens_block_for_the_rest_of_the_game():
    """'Once claimed, stationary business tokens remain on the island spaces you initially place them on (thus blocking those spaces for the rest of the game).'"""
    state = position(players={"player_0": {"island": ". ~ ~ ~ .\n~ B museum . ~\n~ . P L ~\n~ O . M ~\n. ~ ~ ~ ."}})
    state, _ = play(state, "b2")
    assert legal(state) == {"b3"}, "the museum blocks the way east"
    assert "c2" not in legal(
        position(players={"player_0": {"island": ". ~ ~ ~ .\n~ B museum . ~\n~ . P L ~\n~ O . M ~\n. ~ ~ ~ ."}})
    )


CROC_ISLAND = ". ~ ~ ~ .\n~ . . B ~\n~ . . L ~\n~ O P M ~\n. ~ ~ ~ ."


def test_crocodile_farm_example():
    """Example: 'You claim the placeholder token of the Crocodile farm and return it to the box. Then you take the actual large venue token of the Crocodile farm and place it onto a free 2 by 2 area on your island board. Finally, you gain 12 points.'"""
    state = position(
        players={"player_0": {"island": CROC_ISLAND, "fruit": {"orange": 1, "lime": 1}}},
        business_board=BOARD,
        phase="supply_or_claim",
    )
    state, _ = play(state, "claim row 1 slot 2")
    assert phase(state) == "place", "a square has no rotation to choose"
    assert legal(state) == {"b2"}, "the only free 2 by 2 area"
    state, _ = play(state, "b2")
    assert island(state)[1:3] == ["~ croc croc B ~", "~ croc croc L ~"]
    assert points(state)["venues"] == 12 and score(state) == 13


def test_placeholder_cannot_be_claimed_without_room():
    """'If you cannot do so, you are not allowed to claim it.' (the large venue needs a free area of its shape)"""
    state = position(
        players={"player_0": {"fruit": {"orange": 1, "lime": 1}}}, business_board=BOARD, phase="supply_or_claim"
    )
    assert "claim row 1 slot 2" not in legal(state), "START has no free 2 by 2 area"
    assert "claim row 1 slot 1" in legal(state), "the 1-space tower still fits"


def test_one_space_token_needs_a_free_space():
    """A claimed token is placed 'onto one of your free island spaces': with none free, nothing can be claimed (COMPONENTS.md §4.10)."""
    full = "tower ~ ~ ~ museum\n~ B chairs L ~\n~ observatory P info ~\n~ O catering M ~\nBL+ ~ ~ ~ green1"
    board = [["LP+", "pink1"], [], [], [], []]
    state = position(players={"player_0": {"island": full, "fruit": {"orange": 9, "lime": 9}}}, business_board=board)
    assert phase(state) == "supply_or_claim" and not any(a.startswith("claim") for a in legal(state))


def test_large_venue_may_be_rotated():
    """'Then place that large token onto a free area on your island that matches its shape (you may rotate the token).'"""
    tall = ". ~ ~ ~ .\n~ B . L ~\n~ O . P ~\n~ M . catering ~\n. ~ ~ ~ ."
    state = position(
        players={"player_0": {"island": tall, "fruit": {"mangosteen": 2, "lime": 2}}},
        business_board=BOARD,
        phase="supply_or_claim",
    )
    state, _ = play(state, "claim row 3 slot 2")  # the climbing park, 1 x 3
    assert phase(state) == "rotate" and legal(state) == {"rotate 90"}, "only upright does it fit"
    state, _ = play(state, "rotate 90")
    assert legal(state) == {"c2"}
    state, _ = play(state, "c2")
    assert [row.split()[2] for row in island(state)[1:4]] == ["climbing"] * 3
    assert points(state)["venues"] == 8


def test_l_shaped_venue_rotations():
    """'(you may rotate the token)': the 3-space L of the diving school in its four rotations, anchored at its first cell in reading order."""
    open_island = ". . . . .\n. . . L .\n. B P . .\n. O . M .\n. . . . ."
    state = position(
        players={"player_0": {"island": open_island, "fruit": {"pomegranate": 2, "mangosteen": 2, "lime": 1}}},
        business_board=BOARD,
        phase="supply_or_claim",
    )
    state, _ = play(state, "claim row 4 slot 1")
    assert legal(state) == {"rotate 0", "rotate 90", "rotate 180", "rotate 270"}
    covered = {}
    for rotation in (0, 90, 180, 270):
        placed, _ = play(state, f"rotate {rotation}", "a1" if rotation != 270 else "b1")
        covered[rotation] = {
            G.CELL_NAMES[r * 5 + c]
            for r, row in enumerate(island(placed))
            for c, s in enumerate(row.split())
            if s == "diving"
        }
    assert covered == {0: {"a1", "a2", "b2"}, 90: {"a1", "b1", "a2"}, 180: {"a1", "b1", "b2"}, 270: {"b1", "a2", "b2"}}


def test_stall_is_placed_on_a_free_space():
    """'Stall tokens. If you claim a stall token, place it onto one of your free island spaces. Stall tokens pose tasks that are scored at the end of the game'."""
    state = position(
        players={"player_0": {"fruit": {"mangosteen": 2, "lime": 2}}}, business_board=BOARD, phase="supply_or_claim"
    )
    state, _ = play(state, "claim row 3 slot 1", "e5")
    assert island(state)[4] == ". ~ ~ ~ chairs" and points(state)["stalls"] == 0 and score(state) == 3


# --- Advanced collectors ---------------------------------------------------------------------------


def test_advanced_collector_claim_gives_one_fruit_of_either_type():
    """'If you claim an advanced collector token, place it onto one of your free island spaces and immediately gain 1 fruit of either type shown on it.'"""
    state = position(
        players={"player_0": {"fruit": {"pomegranate": 2, "banana": 1}}}, business_board=BOARD, phase="supply_or_claim"
    )
    state, _ = play(state, "claim row 2 slot 2", "a1")  # BL+: banana / lime
    assert phase(state) == "claim_fruit" and legal(state) == {"split 0", "split 1"}
    banana, _ = play(state, "split 1")
    lime, _ = play(state, "split 0")
    assert fruit(banana) == {"banana": 1} and fruit(lime) == {"lime": 1}
    assert describe(lime)["to_move"] == "player_1"


ADV_ISLAND = ". ~ ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\nBL+ . . . ."


@pytest.mark.parametrize(
    "split, gained", [(2, {"banana": 2, "lime": 2}), (1, {"banana": 1, "lime": 3}), (4, {"banana": 4})]
)
def test_advanced_collector_three_spaces_gives_four_fruits_in_any_split(split, gained):
    """Example: 'For moving your advanced collector token 3 island spaces, you choose to gain 2 bananas and 2 limes. (You could just as well have chosen to collect 3 limes and 1 banana or 4 bananas etc.)'"""
    state = position(players={"player_0": {"island": ADV_ISLAND}})
    state, _ = play(state, "a5", "d5")
    assert phase(state) == "harvest_split"
    assert legal(state) == {"split 0", "split 1", "split 2", "split 3", "split 4"}, "3 spaces + 1 more = 4 fruits"
    state, _ = play(state, f"split {split}")
    assert fruit(state) == gained and phase(state) == "supply_or_claim"


def test_advanced_collector_moves_like_a_collector():
    """'When you move it, do so as you would a normal collector token': straight, orthogonal, over free spaces only."""
    state = position(players={"player_0": {"island": ADV_ISLAND}})
    state, _ = play(state, "a5")
    assert legal(state) == {"b5", "c5", "d5", "e5"}


# --- Ice cream carts -------------------------------------------------------------------------------

CART_ISLAND = "green1 . . . .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."


def test_green_cart_example_milkshake_and_three_ice_creams_for_26():
    """Example: 'For moving your green ice cream cart token 4 island spaces, you decide to produce 1 milkshake marker and 3 green ice cream markers. For the milkshake marker, you return 2 bananas ... For the 3 green ice cream markers, you return 3 limes and 3 oranges ... and decide to take two of value 8 and one of value 7 (because you don't want the license marker to move, which would happen if you took the last ice cream marker of value 8 from its stack). Finally, you gain a total of 26 points (3 + 8 + 8 + 7).'"""
    state = position(players={"player_0": {"island": CART_ISLAND, "fruit": {"banana": 2, "lime": 3, "orange": 3}}})
    before, license_before = score(state), describe(state)["license_steps_left"]
    state, _ = play(state, "a1", "e1")
    assert phase(state) == "produce"
    assert legal(state) == {
        "pass",
        "ice cream green 8",
        "ice cream green 7",
        "milkshake banana",
        "milkshake lime",
        "milkshake orange",
    }
    state, _ = play(state, "milkshake banana", "ice cream green 8", "ice cream green 8", "ice cream green 7")
    assert score(state) - before == 26 and points(state)["markers"] == 26
    assert fruit(state) == {} and phase(state) == "supply_or_claim", "4 spaces, 4 markers: production is over"
    assert describe(state)["stacks"]["green 8"] == 1 and describe(state)["license_steps_left"] == license_before


def test_taking_the_last_marker_moves_the_license_marker():
    """'If you take the last marker from its space, a license icon is revealed. This means that you must move the license marker 1 step down on the license track.'"""
    state = position(players={"player_0": {"island": CART_ISLAND, "fruit": {"lime": 3, "orange": 3}}})
    license_before = describe(state)["license_steps_left"]
    state, _ = play(state, "a1", "e1", "ice cream green 8", "ice cream green 8", "ice cream green 8")
    assert describe(state)["stacks"]["green 8"] == 0
    assert describe(state)["license_steps_left"] == license_before - 1


def test_produce_fewer_markers_than_spaces():
    """'You may produce fewer ice cream/milkshake markers than spaces moved.'"""
    state = position(players={"player_0": {"island": CART_ISLAND, "fruit": {"lime": 3, "orange": 3}}})
    state, _ = play(state, "a1", "e1", "ice cream green 7", "pass")
    assert phase(state) == "supply_or_claim" and fruit(state) == {"lime": 2, "orange": 2}


def test_at_most_one_marker_per_space_moved():
    """'For each space moved, you may produce either 1 ice cream marker of the cart's type or 1 milkshake marker.'"""
    state = position(players={"player_0": {"island": CART_ISLAND, "fruit": {"lime": 9, "orange": 9}}})
    state, _ = play(state, "a1", "c1", "ice cream green 8", "ice cream green 8")
    assert phase(state) == "supply_or_claim", "2 spaces, 2 markers"


def test_marker_comes_from_either_stack_of_its_type_and_only_its_colour():
    """'Each ice cream marker you produce may come from either stack of its type (if there are more than one).' A cart produces 'ice cream marker[s] of the cart's type'."""
    pic = "blue1 . . . .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    state = position(
        players={"player_0": {"island": pic, "fruit": {"banana": 1, "mangosteen": 1, "lime": 1, "orange": 1}}}
    )
    state, _ = play(state, "a1", "b1")
    assert legal(state) == {"pass", "ice cream blue 6", "ice cream blue 5"}


def test_empty_stack_cannot_be_produced():
    """'If all markers of a type are gone from the business board, that type cannot be produced.'"""
    stacks = {"green 8": 0, "green 7": 3, "blue 6": 2, "blue 5": 2, "pink 4": 3, "milkshake": 0}
    state = position(
        players={
            "player_0": {"island": CART_ISLAND, "fruit": {"lime": 3, "orange": 3, "banana": 2}},
            "player_1": {"markers": {"green 8": 3, "milkshake": 4}},
        },
        stacks=stacks,
    )
    state, _ = play(state, "a1", "e1")
    assert legal(state) == {"pass", "ice cream green 7"}


def test_no_production_possible_skips_to_step_two():
    """Producing needs the marker's fruit ('return the fruits shown from your reserve'): with none, the cart just moves."""
    state = position(players={"player_0": {"island": CART_ISLAND, "fruit": {"lime": 1}}})
    state, _ = play(state, "a1", "e1")
    assert phase(state) == "supply_or_claim" and points(state)["markers"] == 0


def test_milkshake_needs_two_fruits_of_one_type():
    """'(milkshake markers require 2 fruits of one type)'."""
    state = position(
        players={"player_0": {"island": CART_ISLAND, "fruit": {"banana": 1, "pomegranate": 1, "mangosteen": 2}}}
    )
    state, _ = play(state, "a1", "e1")
    assert legal(state) == {"pass", "milkshake mangosteen"}
    state, _ = play(state, "milkshake mangosteen")
    assert points(state)["markers"] == 3 and fruit(state) == {"banana": 1, "pomegranate": 1}


# --- End of the game -------------------------------------------------------------------------------


ALL_MARKERS = {"green 8": 3, "green 7": 3, "blue 6": 2, "blue 5": 2, "pink 4": 3, "milkshake": 4}
CLAIMED_3 = "observatory ~ ~ ~ LP+\n~ B . L ~\n~ . P . ~\n~ O . M ~\nPO+ ~ ~ ~ ."


def test_game_ends_at_the_end_of_the_round_the_license_marker_reaches_x():
    """'When the license marker moves to the X on the license track, finish the current round (so that each player has the same number of turns in total). Then the game ends.'"""
    history = {"player_1": {"island": CLAIMED_3}, "player_2": {"markers": ALL_MARKERS}}  # 3 claims + 6 empty stacks
    state = position(3, players={"player_0": {"fruit": {"orange": 1, "lime": 1}}, **history}, business_board=BOARD)
    assert describe(state)["license_steps_left"] == 1
    state, _ = play(state, "c3", "c2", "claim row 1 slot 1", "a1")
    assert describe(state)["license_steps_left"] == 0 and not describe(state)["done"]
    state, _ = play(state, *_a_turn(state))
    assert describe(state)["to_move"] == "player_2" and not describe(state)["done"]
    state, rewards = play(state, *_a_turn(state))
    assert describe(state)["done"] and not describe(state)["truncated"] and describe(state)["rounds_completed"] == 1
    assert rewards.tolist() == [-1.0, -1.0, 1.0], "all the markers win"


def test_further_license_movement_is_ignored():
    """'Any further movement of the license marker is ignored.'"""
    rich = {"orange": 1, "lime": 1}
    history = {"island": "observatory ~ ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ .", "fruit": rich}
    state = position(
        players={"player_0": {"fruit": rich, "markers": ALL_MARKERS}, "player_1": history},
        business_board=[["tower", "museum"], [], [], [], []],
    )
    assert describe(state)["license_steps_left"] == 1
    state, _ = play(state, "c3", "c2", "claim row 1 slot 1", "a1", "c3", "c2", "claim row 1 slot 2")
    assert describe(state)["license_steps_left"] == 0 and not describe(state)["done"], "player_1 still places"
    state, _ = play(state, "e1")
    assert describe(state)["done"] and describe(state)["license_steps_left"] == 0


def test_no_points_for_leftover_fruit_and_ties_go_to_the_later_player():
    """'There are no points for leftover fruits. Afterwards, the player with the most points wins. Ties are broken in favor of the player who took their turn last.'"""
    blue = {"blue 6": 1, "blue 5": 1}  # each empties one of the two blue stacks: 2 license steps
    p0 = {"island": "LP+ ~ ~ ~ OM+\n~ B . L ~\n~ . P . ~\n~ O . M ~\ngreen2 ~ ~ ~ .", "markers": blue}
    p1 = {"island": "blue2 ~ ~ ~ pink2\n~ B . L ~\n~ . P . ~\n~ O . M ~\nMB+ ~ ~ ~ .", "markers": blue}
    p0["fruit"] = {"banana": 50}
    state = position(players={"player_0": p0, "player_1": p1}, to_move="player_1")
    assert describe(state)["license_steps_left"] == 0, "3 + 3 claims and two empty stacks: the last round"
    state, rewards = play(state, *_a_turn(state))
    assert describe(state)["done"] and score(state, 0) == score(state, 1) == 14
    assert rewards.tolist() == [-1.0, 1.0] and R.winners(state)[0].tolist() == [False, True]


def test_tie_break_among_three():
    """'Ties are broken in favor of the player who took their turn last.': of two tied leaders the later seat wins, whatever the others."""
    supplied = ". . ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\n. ~ ~ ~ ."
    state = position(
        3,
        players={
            "player_0": {"island": supplied, "ships": {"A": "BBLL/3"}},
            "player_1": {"island": supplied, "ships": {"A": "BBPP/3"}},
            "player_2": {"island": supplied, "ships": {"A": "BP/1"}},
        },
    )
    assert R.final_scores(state)[0].tolist() == [3, 3, 1]
    assert R.winners(state)[0].tolist() == [False, True, False]


def test_round_cap_truncates_without_outcome():
    """Engine safety net (components.ROUND_CAP), not a rule: a game the license marker has not ended after the cap is cut off, flagged truncated, pays no outcome and scores no stalls (the end-of-game scoring belongs to the rules' end)."""
    pic = ". ~ ~ ~ .\n~ B . L ~\n~ . P . ~\n~ O . M ~\ninfo ~ ~ ~ tower"
    state = position(players={"player_1": {"island": pic}}, to_move="player_1", rounds_completed=C.ROUND_CAP - 1)
    state, rewards = play(state, *_a_turn(state))
    d = describe(state)
    assert d["done"] and d["truncated"] and d["license_steps_left"] > 0 and d["rounds_completed"] == C.ROUND_CAP
    assert points(state, 1)["stalls"] == 0, "the info booth's star is not scored at a cut-off"
    assert rewards.tolist() == [0.0, 0.0], "player_1 leads 5-0 (tower 3 + claim 2... ) but a cut-off pays no outcome"
    assert score(state, 1) > score(state, 0)


def test_frozen_game_is_cut_off_at_the_end_of_the_round():
    """Issue 16: 'The game ends at the end of the round in which the license marker arrives at the X', and nothing forces anyone to move it. Both islands clogged (a 2 x 2 venue and packed collectors), no fruit, an empty board: every turn is a forced pass and nothing can change, so at the end of the round the game is cut off (truncated), 13-13, with no outcome."""
    state = clogged()
    assert legal(state) == {"pass"} and describe(state)["license_steps_left"] == 6
    state, rewards = play(state, "pass")
    assert not describe(state)["done"], "the round is not over"
    assert legal(state) == {"pass"}
    state, more = play(state, "pass")
    d = describe(state)
    assert d["done"] and d["truncated"] and d["rounds_completed"] == 1
    assert (rewards + more).tolist() == [0.0, 0.0] and score(state, 0) == score(state, 1) == 13
    assert "truncated: no winner" in R.render(state, 0) and "leading: player_1 with 13 points" in R.render(state, 0)


def test_frozen_detection_is_exact():
    """A game is cut off only when no seat can do anything but pass: one seat able to supply a ship, claim a token, move a token or (juice factory) advance a disc keeps it going; in the last round (marker at X) the rules end it instead."""
    assert R.frozen(clogged(), np.array([0])).tolist() == [True]
    ship = describe(clogged())["players"]["player_1"]["ships"]["A"]
    cost = C.SHIP_COST[C.SHIP_NAMES.index(ship)]
    can_supply = clogged(players_fruit={"player_1": dict(zip(C.FRUITS, cost.tolist(), strict=True))})
    assert R.frozen(can_supply, np.array([0])).tolist() == [False]
    can_claim = clogged(
        business_board=[["tower"], [], [], [], []], players_fruit={"player_0": {"orange": 1, "lime": 1}}
    )
    assert R.frozen(can_claim, np.array([0])).tolist() == [False]
    can_claim_no_fruit = clogged(business_board=[["tower"], [], [], [], []])
    assert R.frozen(can_claim_no_fruit, np.array([0])).tolist() == [True]
    can_move = clogged(islands={"player_0": CLOGGED.replace("~  B", ".  B", 1)})  # a2 free: B can move
    assert R.frozen(can_move, np.array([0])).tolist() == [False]
    juicy = {"num_players": 2, "score_board": "juicy"}
    assert R.frozen(clogged(config=juicy), np.array([0])).tolist() == [True]
    first_arrow = dict(zip(C.FRUITS, C.ARROW_COST[0].tolist(), strict=True))  # S-A1, from the start tank
    can_advance = clogged(config=juicy, players_fruit={"player_1": first_arrow})
    assert R.frozen(can_advance, np.array([0])).tolist() == [False]
    state, rewards = play(clogged(last_round=True), "pass", "pass")
    assert describe(state)["done"] and not describe(state)["truncated"] and rewards.tolist() == [1.0, -1.0]


def test_start_picture_helper_matches_a_real_setup():
    """The tests' START island is a real setup: ships on the beach, collectors on the ponds, corners free."""
    assert picture(START)[1].split()[1] == "B"
    state = new_games(2, n=1)
    assert sorted(island(state)[0].split()) == sorted(picture(START)[0].split())


# --- Components and the rulebook's notes ------------------------------------------------------------


def test_components_list():
    """Components: '24 business tokens', '6 large venue tokens', '50 ship tokens ... (25 with orange boats, 25 with green boats)', '13 ice cream markers (3, 3, 2, 2, and 3 of five values)', '4 milkshake markers', and 'Ice cream cart tokens — 2 of each of three colors (6 in total).'"""
    assert C.N_TOKENS == 24 and (C.TOKEN_KIND == C.PLACEHOLDER).sum() == 6
    assert len(C.GREEN_BAG) == len(C.ORANGE_BAG) == 25 and len({order for order, _ in C.SHIPS}) == 50
    assert C.STACK_SIZE.tolist() == [3, 3, 2, 2, 3, 4]
    carts = C.TOKEN_COLOUR[C.TOKEN_KIND == C.ICE_CREAM_CART]
    assert sorted(carts.tolist()) == [0, 0, 1, 1, 2, 2]
    assert all(len(set(order)) == 2 for order, _ in C.SHIPS), "every order asks for two fruit types (COMPONENTS.md)"


def test_license_marker_can_be_recounted():
    """'If you forget to move the license marker, you can figure out where it should be by counting how many business tokens have been removed, how many ice cream and milkshake spaces are empty'."""
    from fruit_envs.agents import make_agent

    state = new_games(3, n=32, seed=9)
    greedy, gen = make_agent("greedy", R.SPEC, state.config), np.random.default_rng(0)
    for _ in range(120):
        state, _ = R.step(state, greedy.act(R.observe(state, state.to_move), R.legal_mask(state), gen), ~state.done)
    removed = (state.board < 0).sum(axis=(1, 2)) - (C.ROW_SLOTS - 3) * C.N_ROWS
    empty = (state.stacks == 0).sum(axis=1)
    assert removed.max() > 0
    assert (state.license_left == np.maximum(C.LICENSE_STEPS[3] - removed - empty, 0)).all()


def test_cart_moves_straight_like_a_collector():
    """Ice cream cart: 'When you move it, do so in a straight line through as many unblocked island spaces as you like.' ... 'You cannot move the token diagonally.'"""
    state = position(players={"player_0": {"island": CART_ISLAND}})
    state, _ = play(state, "a1")
    assert legal(state) == {"b1", "c1", "d1", "e1"}, "a2 below is a ship; no diagonal"
