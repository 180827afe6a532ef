"""Fruit Picking rules, each test naming the rulebook sentence or example it checks.

Positions are built with `from_description`. The farm used by most tests follows the rulebook's
planting example: House, cherry, rain, grapes, strawberry, banana, pineapple (positions 0..6).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from fruit_envs.core import rng
from fruit_envs.games.fruit_picking import components as C
from fruit_envs.games.fruit_picking import picture as fpicture
from fruit_envs.games.fruit_picking import rules as R

FARM = ["house", "cherry", "rain", "grapes", "strawberry", "banana", "pineapple"]
HOUSE, CHERRY, RAIN, GRAPES, STRAWBERRY, BANANA, PINEAPPLE = range(7)


def farm(seeds, storage=None):
    """A player's farm: seeds on positions 0..6 and the rest of the 18 in storage."""
    return {"seeds": list(seeds), "storage": 18 - sum(seeds) if storage is None else storage}


def position(
    players=2, farms=None, market=("pineapple", "cherry", "banana", "grapes"), stack=None, bought=None, **extra
):
    """A hand-built position; unnamed farms hold the starting seeds, the stack defaults to one card of each kind."""
    farms = dict(farms or {})
    for k in range(players):
        farms.setdefault(f"player_{k}", farm([0, 2, 2, 2, 0, 0, 0]))
    d = {
        "config": {"num_players": players, **extra.pop("config", {})},
        "farm_order": FARM,
        "farms": farms,
        "market": list(market),
        "bought": bought or {},
        "hidden": {
            "stack": list(stack if stack is not None else ["grapes", "pineapple", "banana", "cherry", "strawberry"])
        },
    }
    d.update(extra)
    return R.from_description(d)


def play(state, *names):
    """Apply actions by readable name, checking each is legal for the player to move."""
    for name in names:
        action = R.string_to_action(state.config, name)
        assert R.legal_mask(state)[0, action], f"{name!r} is not legal in {R.describe(state)}"
        state, _ = R.step(state, np.array([action]))
    return state


def seeds(state, seat=0):
    return R.describe(state)["farms"][f"player_{seat}"]


def legal(state):
    return {R.action_to_string(state.config, a) for a in np.flatnonzero(R.legal_mask(state)[0])}


# --- Contents and preparation --------------------------------------------------------------------


def test_farm_cards():
    """'Each set contains 7 cards (house, rain, pineapple, grapes, cherry, banana, strawberry).'"""
    state = R.init(R.SPEC.make_config(4), rng.keys_from_seed(0, 200))
    assert (np.sort(state.farm_order, axis=1) == np.arange(7)).all()


def test_market_cards():
    """'30 Market cards. 6 of each kind (pineapple, grapes, cherry, banana, strawberry). Contains 1 card with an umbrella mark for each kind.'"""
    counts = C.deck_counts()
    assert counts.sum() == 30
    for kind in C.KINDS:
        assert counts[C.code(kind)] + counts[C.code(kind, True)] == 6 and counts[C.code(kind, True)] == 1


def test_farm_is_house_first_then_shuffled_and_shared():
    """'That player first puts his/her House card ... shuffles them, and lays each card in a circle clock-wise starting from the house card ... Each remaining player sets his/her cards exactly in the same way.'"""
    state = R.init(R.SPEC.make_config(3), rng.keys_from_seed(1, 300))
    assert (state.farm_order[:, 0] == C.HOUSE).all()
    assert len({tuple(row) for row in state.farm_order}) > 100, "the order is shuffled per game"
    assert state.farm_order.shape == (300, 7), "one order per game, shared by every player"


def test_seeds_and_storage_at_setup():
    """'Each player takes one bag of seeds [18] and puts all seeds in the center of his/her farm ... put 2 seeds in the first card, 2 in the second card, and 2 in the third card.'"""
    state = R.init(R.SPEC.make_config(4), rng.keys_from_seed(2, 10))
    assert (state.seeds == np.array([0, 2, 2, 2, 0, 0, 0])).all()
    assert (state.storage == 12).all()


def test_market_at_setup():
    """'Shuffle all the Market cards and place them face down making a stack ... Then, take 4 cards from the Market stack and place them in the slots.'"""
    state = R.init(R.SPEC.make_config(2), rng.keys_from_seed(3, 50))
    assert (state.market >= 0).all() and (state.stack_size == 26).all()
    assert not R.invariants(state)


# --- Planting ---------------------------------------------------------------------------------------


def test_initial_player_starts_and_turns_go_clockwise():
    """'The game starts with the initial player and then each turn proceeds clock-wise.'"""
    state = position(3)
    assert R.describe(state)["to_move"] == "player_0"
    state = play(state, "plant from position 1", "water")
    assert R.describe(state)["to_move"] == "player_1"
    state = play(state, "plant from position 1", "water")
    assert R.describe(state)["to_move"] == "player_2"
    state = play(state, "plant from position 1", "water")
    assert R.describe(state)["to_move"] == "player_0" and R.describe(state)["rounds"] == 1


def test_choose_a_card_with_seeds_but_never_the_house():
    """'A player selects one card from his/her farm that has at least one seed (the house card cannot be chosen).'"""
    state = position(farms={"player_0": farm([5, 0, 1, 0, 3, 0, 0])})
    assert legal(state) == {"plant from position 2", "plant from position 4"}


def test_rulebook_planting_example():
    """Example: 'if a player chooses the cherry card with 3 seeds, he/she grabs all 3 seeds, and going clock-wise he/she puts 1 seed over the rain card, 1 seed over the grapes card, and 1 seed over the strawberry card.' ... 'the target card is the strawberry card.'"""
    state = position(farms={"player_0": farm([0, 3, 0, 0, 0, 0, 0])})
    state = play(state, "plant from position 1")
    assert seeds(state)["seeds"] == [0, 0, 1, 1, 1, 0, 0]
    assert R.describe(state)["target"] == STRAWBERRY and R.describe(state)["phase"] == "target"


def test_sowing_passes_the_house_and_comes_round():
    """'starting with the next card (clock-wise) he/she puts 1 seed on top of that, 1 seed on the next card following that, and so on, until no more seeds are left': seeds pass the House and come round to the card they left."""
    state = position(farms={"player_0": farm([0, 0, 0, 0, 0, 8, 0])})
    state = play(state, "plant from position 5")  # banana's 8 seeds: 6, 0, 1, 2, 3, 4, 5, 6
    assert seeds(state)["seeds"] == [1, 1, 1, 1, 1, 1, 2]
    assert R.describe(state)["target"] == PINEAPPLE


def test_house_target_plants_again():
    """'If the House card becomes the target, the player cannot do any of the two actions [a] or [b] and he/she must repeat his/her turn again by planting seeds. ... The player cannot pass his/her turn.'"""
    state = position(farms={"player_0": farm([0, 0, 0, 0, 0, 2, 4])})
    state = play(state, "plant from position 5")  # banana's 2 seeds: pineapple, then the House
    d = R.describe(state)
    assert d["phase"] == "plant" and d["to_move"] == "player_0" and d["target"] is None
    assert "water" not in legal(state) and legal(state) == {"plant from position 6"}
    state = play(state, "plant from position 6")  # pineapple's 5 seeds: House, cherry, rain, grapes, strawberry
    assert R.describe(state)["target"] == STRAWBERRY


def test_house_target_with_an_empty_farm_uses_the_no_seed_procedure():
    """ASSUMED: a repeated turn that finds no seeds on the farm cards starts with the 'no seeds' procedure."""
    state = position(farms={"player_0": farm([4, 0, 0, 0, 0, 0, 1])})
    state = play(state, "plant from position 6")
    assert legal(state) == {"no seeds: refill"}


# --- Target: water -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, count", [(CHERRY, 2), (RAIN, 2), (GRAPES, 1), (STRAWBERRY, 3), (BANANA, 2), (PINEAPPLE, 1)]
)
def test_water_takes_the_cards_count_from_storage(target, count):
    """'He/She takes a number of seeds from the storage equal to the number of fruits or raindrops depicted on the target card (3 for strawberry, 1 for pineapple and grapes, 2 for banana and cherry, and 2 for rain). He/She then puts those seeds over the target card.'"""
    start = [9, 0, 0, 0, 0, 0, 0]
    origin, sown = (target - 1, 1) if target >= 2 else (PINEAPPLE, 2)  # cherry is reached past the House
    start[origin] = sown
    state = position(farms={"player_0": farm(start)})
    state = play(state, f"plant from position {origin}")
    assert R.describe(state)["target"] == target
    state = play(state, "water")
    assert seeds(state)["seeds"][target] == 1 + count
    assert seeds(state)["storage"] == 18 - 9 - sown - count


def test_water_with_too_few_seeds_in_storage_takes_all_that_is_left():
    """'If the number of seeds in his/her storage are less than the number of fruits in the target card, the player takes all remaining seeds and adds them to the target anyway. Then a player ends his/her turn.'"""
    state = position(farms={"player_0": farm([15, 0, 0, 1, 0, 0, 0], storage=2)})
    state = play(state, "plant from position 3", "water")  # strawberry wants 3
    assert seeds(state) == {"seeds": [15, 0, 0, 0, 3, 0, 0], "storage": 0}
    assert R.describe(state)["to_move"] == "player_1"


def test_rain_target_can_only_be_watered():
    """'If the player cannot buy the card or the target is a Rain card, he/she cannot choose this action.'"""
    state = position(farms={"player_0": farm([9, 1, 0, 0, 0, 0, 0])})
    state = play(state, "plant from position 1")
    assert legal(state) == {"water"}


# --- Target: buy ---------------------------------------------------------------------------------


def test_buy_only_the_target_fruit_and_only_if_the_house_pays():
    """'He/She buys a card from the market of the same kind of fruit on the target card. If the player cannot buy the card ... he/she cannot choose this action.' 'The money to buy Market cards is the collection of seeds on the House card.'"""
    market = ("cherry", "strawberry", "cherry", "banana")  # cherries cost 2+3=5 (slot 0) and 2+1=3 (slot 2)
    state = position(farms={"player_0": farm([3, 0, 0, 0, 0, 0, 2])}, market=market)
    state = play(state, "plant from position 6")  # House (now 4 seeds), then cherry: the target
    assert R.describe(state)["target"] == CHERRY
    assert legal(state) == {"water", "buy slot 2"}, "not the 5-seed cherry, not the strawberry"
    poor = play(position(farms={"player_0": farm([1, 0, 0, 0, 0, 0, 2])}, market=market), "plant from position 6")
    assert legal(poor) == {"water"}, "2 House seeds buy no cherry"


def test_price_is_fruits_plus_slot_surcharge_rulebook_example():
    """Example: 'the price of the cherry card on the left is the number of fruits on the card (2) plus the added price (1). The total price is thus 3.' with added prices '+3, +2, +1, +0' from the stack."""
    state = position(market=("pineapple", "strawberry", "cherry", "banana"))
    assert R.prices(state)[0].tolist() == [1 + 3, 3 + 2, 2 + 1, 2 + 0]


def test_rulebook_buy_example_pays_the_house_and_returns_the_targets_seeds():
    """Example: 'He/She plants the last seed on the cherry card ... The player pays 3 seeds from his/her House card (step 4). After that, he/she returns all seeds over the cherry card on his/her farm to the storage (step 5). The player puts the acquired card next to him/her.'"""
    market = ("pineapple", "strawberry", "cherry", "banana")
    state = position(farms={"player_0": farm([4, 0, 0, 0, 0, 0, 2])}, market=market)
    state = play(state, "plant from position 6")  # pineapple's 2 seeds: House, cherry -> target cherry
    assert R.describe(state)["target"] == CHERRY and seeds(state)["seeds"][HOUSE] == 5
    state = play(state, "buy slot 2")
    assert seeds(state)["seeds"] == [5 - 3, 0, 0, 0, 0, 0, 0], "3 seeds paid from the House, cherry's seed returned"
    assert seeds(state)["storage"] == 18 - 2
    assert R.describe(state)["bought"]["player_0"] == ["cherry"]


def test_market_shifts_away_from_the_stack_and_the_top_card_fills_the_first_slot():
    """'After buying a card, shift all Market cards to the right to fill the empty slot. Then draw the top card from the stack and place it face-up in the leftmost empty slot.' Example: the rightmost cherry (2+1=3) is bought, the pineapple and cherry cards shift right, the strawberry from the stack fills the left slot."""
    state = position(
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "cherry", "banana"),
        stack=["strawberry", "grapes"],
    )
    state = play(state, "plant from position 6", "buy slot 2")
    assert R.describe(state)["market"] == ["strawberry", "pineapple", "cherry", "banana"]
    assert R.describe(state)["hidden"]["stack"] == ["grapes"]


def test_no_seeds_procedure():
    """'he/she takes 3 seeds from the House card and puts them back in his/her storage. If there are less than 3 seeds on the House card, he/she puts back all the remaining seeds ... Afterwards, he/she takes 3 seeds from the storage and ... puts 1 on the 1st farm card, 1 on the 2nd card, and 1 on the 3rd card. The player ends his/her turn.'"""
    state = position(farms={"player_0": farm([5, 0, 0, 0, 0, 0, 0], storage=13)})
    assert legal(state) == {"no seeds: refill"}
    state = play(state, "no seeds: refill")
    assert seeds(state) == {"seeds": [2, 1, 1, 1, 0, 0, 0], "storage": 13 + 3 - 3}
    assert R.describe(state)["to_move"] == "player_1"
    few = play(position(farms={"player_0": farm([2, 0, 0, 0, 0, 0, 0])}), "no seeds: refill")
    assert seeds(few) == {"seeds": [0, 1, 1, 1, 0, 0, 0], "storage": 15}


# --- End of the game -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "counts, sets",
    [
        ([1, 1, 1, 1, 1], {"variety"}),
        ([4, 0, 0, 0, 0], {"greedy"}),
        ([2, 2, 2, 0, 0], {"smiley"}),
        ([3, 2, 0, 0, 0], {"family"}),
        ([3, 3, 0, 0, 0], {"family"}),
        ([4, 2, 2, 0, 0], {"greedy", "smiley", "family"}),
        ([2, 2, 1, 1, 0], set()),
        ([3, 1, 1, 1, 0], set()),
        ([5, 0, 0, 0, 0], {"greedy"}),
    ],
)
def test_sets(counts, sets):
    """'Variety: Five kinds of fruits. Greedy: Four identical fruits. Smiley: Three distinct pairs. Family: A three of a kind and a pair.'"""
    done = C.completed_sets(np.array(counts))
    assert {name for name, hit in zip(C.SETS, done, strict=True) if hit} == sets


def test_completing_a_set_ends_the_game_after_the_round():
    """'The game ends when a player completes any of the sets above ... When this happens, complete the current round so that each player has played the same number of turns.'"""
    state = position(
        3,
        farms={"player_1": farm([9, 0, 0, 0, 0, 0, 2])},
        to_move="player_1",
        bought={"player_1": ["cherry", "cherry", "cherry", "banana"]},
        market=("pineapple", "cherry", "banana", "grapes"),
    )
    state = play(state, "plant from position 6", "buy slot 1")  # player_1 completes a Greedy
    d = R.describe(state)
    assert d["last_round"] and not d["done"] and d["to_move"] == "player_2"
    state, rewards = R.step(state, np.array([R.string_to_action(state.config, "plant from position 1")]))
    state, rewards = R.step(state, np.array([R.string_to_action(state.config, "water")]))
    assert state.done[0] and not state.truncated[0]
    assert rewards[0].tolist() == [-1.0, 1.0, -1.0], "the set completer wins"


def test_last_stack_card_ends_the_game_after_the_round():
    """'The game ends ... when the last card is drawn from the stack of Market cards. When this happens, complete the current round.'"""
    state = position(
        2,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry"],
    )
    state = play(state, "plant from position 6", "buy slot 1")
    assert R.describe(state)["last_round"] and R.describe(state)["stack_size"] == 0
    state = play(state, "plant from position 1", "water")
    assert state.done[0]


def test_several_completers_most_market_fruits_win():
    """'In the case where two or more players have completed a set, the player with the largest number of fruits on his/her Market cards wins.'"""
    state = position(
        2,
        bought={"player_0": ["strawberry"] * 4, "player_1": ["grapes"] * 4},
        last_round=True,
        to_move="player_1",
        market=("pineapple", "cherry", "banana", "banana"),
    )
    state = play(state, "plant from position 1", "water")
    assert state.done[0] and R.winners(state)[0].tolist() == [True, False]


def test_tie_on_fruits_most_farm_seeds_win_else_shared():
    """'In case of a tie, the player with the most seeds on his/her farm cards (including the House card) wins. Otherwise, the tied players are declared winners.'"""
    bought = {"player_0": ["cherry"] * 4, "player_1": ["banana"] * 4}  # Greedy each, 8 fruits each
    market = ("pineapple", "grapes", "grapes", "strawberry")
    # player_1 sows cherry's 2 seeds onto rain and grapes and waters grapes: 7 seeds on the farm
    more = position(
        2,
        bought=bought,
        market=market,
        farms={"player_0": farm([6, 2, 2, 2, 0, 0, 0])},
        last_round=True,
        to_move="player_1",
    )
    more = play(more, "plant from position 1", "water")
    assert R.describe(more)["farms"]["player_1"] == {"seeds": [0, 0, 3, 4, 0, 0, 0], "storage": 11}
    assert R.winners(more)[0].tolist() == [True, False], "12 farm seeds beat 7"
    tie = position(
        2,
        bought=bought,
        market=market,
        farms={"player_0": farm([0, 0, 4, 3, 0, 0, 0])},
        last_round=True,
        to_move="player_1",
    )
    tie, _ = R.step(tie, np.array([R.PLANT_BASE]))
    tie, rewards = R.step(tie, np.array([R.WATER]))
    assert R.winners(tie)[0].tolist() == [True, True]
    assert rewards[0].tolist() == [0.0, 0.0], "everyone shares the win: a full draw"


def test_nobody_completed_a_set_tie_breaks_decide():
    """ASSUMED: if the stack ran out and nobody completed a set, the tie-breaks decide among all players."""
    state = position(
        2, bought={"player_0": ["strawberry"], "player_1": ["grapes"]}, last_round=True, to_move="player_1"
    )
    state = play(state, "plant from position 1", "water")
    assert R.winners(state)[0].tolist() == [True, False]


# --- Variants ------------------------------------------------------------------------------------


def test_umbrella_at_setup_adds_seeds_to_every_player():
    """Umbrella: 'When such a card is drawn (even during the setup of a game), all players immediately add as many seeds from their storage equal to the number of fruits on their corresponding farm card.'"""
    cfg = R.SPEC.make_config(3, umbrella=True)
    state = R.init(cfg, rng.keys_from_seed(5, 400))
    plain = R.init(R.SPEC.make_config(3), rng.keys_from_seed(5, 400))
    umbrellas = state.market >= len(C.KINDS)
    hit = umbrellas.any(axis=1)
    assert hit.any() and (~hit).any()
    assert np.array_equal(state.seeds[~hit], plain.seeds[~hit])
    g = int(np.flatnonzero(hit & (umbrellas.sum(axis=1) == 1))[0])
    kind = int(state.market[g][umbrellas[g]][0]) % len(C.KINDS)
    where = int(np.flatnonzero(state.farm_order[g] == 2 + kind)[0])
    count = int(C.FARM_COUNT[2 + kind])
    assert (state.seeds[g, :, where] == plain.seeds[g, :, where] + count).all()
    assert (state.storage[g] == 12 - count).all()


def test_umbrella_when_drawn_in_play_and_then_a_normal_card():
    """'When such a card is drawn ... all players immediately add ... After this, this card works normally as any other Market card.'"""
    state = position(
        2,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2]), "player_1": farm([17, 0, 0, 0, 0, 0, 0])},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry (umbrella)"],
        config={"umbrella": True},
    )
    state = play(state, "plant from position 6", "buy slot 1")
    assert seeds(state, 0)["seeds"][STRAWBERRY] == 3, "3 strawberries: 3 seeds from storage"
    assert seeds(state, 1)["seeds"][STRAWBERRY] == 1 and seeds(state, 1)["storage"] == 0, "only what storage holds"
    assert R.describe(state)["market"][0] == "strawberry (umbrella)"


def test_umbrella_off_by_default():
    state = position(2, farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])}, stack=["strawberry (umbrella)"])
    state = play(state, "plant from position 6", "buy slot 1")
    assert seeds(state, 1)["seeds"][STRAWBERRY] == 0


def test_market_operation_draw_two_keep_one_other_to_the_bottom():
    """Market Operation: 'When a player draws a Market card to fill an empty slot, that player can pay 1 seed to take 2 cards instead. He/She then chooses one of the two cards and puts one in the Market and the other at the bottom of the Market stack.'"""
    state = position(
        2,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry", "banana", "grapes"],
        config={"market_operation": True},
    )
    state = play(state, "plant from position 6", "buy slot 1")
    assert legal(state) == {"draw one card", "pay 1 seed, draw two"}
    state = play(state, "pay 1 seed, draw two")
    assert seeds(state)["seeds"][HOUSE] == 9 - 3 - 1, "1 seed paid from the House"
    assert R.describe(state)["hidden"]["drawn"] == ["strawberry", "banana"]
    layout = R.observation_layout(state.config)
    mine, theirs = R.observe(state, 0)[0], R.observe(state, 1)[0]
    assert mine[layout["drawn"]].sum() == 2 and theirs[layout["drawn"]].sum() == 0, "only the drawer sees them"
    state = play(state, "keep drawn card 1")
    d = R.describe(state)
    assert d["market"][0] == "banana" and d["hidden"]["stack"] == ["grapes", "strawberry"]
    assert d["stack_known_by"] == [[], ["player_0"]]
    assert R.observe(state, 0)[0, layout["under_cards"]].sum() == 1
    assert R.observe(state, 1)[0, layout["under_cards"]].sum() == 0
    assert d["to_move"] == "player_1"


def test_market_operation_needs_two_cards_and_a_seed():
    """ASSUMED: the fee comes from the House; with fewer than two stack cards or no House seed the card is drawn as usual."""
    state = position(
        2,
        farms={"player_0": farm([3, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry", "banana"],
        config={"market_operation": True},
    )
    state = play(state, "plant from position 6", "buy slot 1")  # pays all 3 House seeds: no fee left
    assert R.describe(state)["to_move"] == "player_1" and R.describe(state)["market"][0] == "strawberry"


@pytest.mark.parametrize("trigger, keep, expected", [("drawn", 1, 3), ("placed", 1, 0), ("placed", 0, 3)])
def test_umbrella_trigger_option_with_market_operation(trigger, keep, expected):
    """Option umbrella_trigger: 'drawn' lets both cards of a two-card draw trigger their umbrella; 'placed' only the card put face up in the market."""
    state = position(
        2,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry (umbrella)", "grapes"],
        config={"market_operation": True, "umbrella": True, "umbrella_trigger": trigger},
    )
    state = play(state, "plant from position 6", "buy slot 1", "pay 1 seed, draw two", f"keep drawn card {keep}")
    assert seeds(state, 1)["seeds"][STRAWBERRY] == expected


def test_beginner_rules():
    """For Beginners: 'Use 3 Market cards instead of 4 and omit the added price when buying a card. The game ends when any player buys 5 cards.'"""
    cfg = R.SPEC.make_config(2, beginner=True)
    state = R.init(cfg, rng.keys_from_seed(0, 20))
    assert (state.market[:, 3] == -1).all() and (state.market[:, :3] >= 0).all() and (state.stack_size == 27).all()
    start = position(
        2,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        market=("pineapple", "cherry", "banana"),
        bought={"player_0": ["cherry", "banana", "grapes", "banana"]},
        config={"beginner": True},
    )
    assert R.prices(start)[0, :3].tolist() == [1, 2, 2]
    state = play(start, "plant from position 6", "buy slot 1")
    assert seeds(state)["seeds"][HOUSE] == 9 + 1 - 2, "sowing put a seed on the House; the cherry costs 2"
    assert R.describe(state)["last_round"], "5 cards end the game"


def test_round_cap_truncates():
    """Engine bound (documented option max_rounds): an unfinished game is truncated, with no winner reward."""
    state = position(
        2, farms={"player_1": farm([0, 1, 0, 0, 0, 0, 0])}, to_move="player_1", rounds=4, config={"max_rounds": 5}
    )
    state, rewards = R.step(state, np.array([0]))
    state, rewards = R.step(state, np.array([R.WATER]))
    assert state.done[0] and state.truncated[0] and (rewards == 0).all()


# --- Hidden information ----------------------------------------------------------------------------


def test_stack_order_is_hidden_its_composition_is_public():
    """The market stack lies face down: re-ordering it changes no observation; its composition is public knowledge."""
    a = position(2, stack=["strawberry", "banana", "grapes"])
    b = position(2, stack=["grapes", "strawberry", "banana"])
    for seat in (0, 1):
        assert np.array_equal(R.observe(a, seat), R.observe(b, seat))
    c = position(2, stack=["grapes", "grapes", "banana"])
    assert not np.array_equal(R.observe(a, 0), R.observe(c, 0))


def test_bought_cards_are_visible_to_all():
    """'A player who buys a card should put it next to him/her on the table so that it is visible to all players.'"""
    state = position(2, bought={"player_1": ["cherry"]})
    layout = R.observation_layout(state.config)
    bought = R.observe(state, 0)[0, layout["bought"]].reshape(2, 5)
    assert bought[1, C.KINDS.index("cherry")] == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_all_variants_together_run_clean(players):
    """Umbrella and market operation together (both trigger readings) and the beginner market pass the conformance check."""
    from fruit_envs.testing import check_game

    for options in (
        {"umbrella": True, "market_operation": True},
        {"umbrella": True, "market_operation": True, "umbrella_trigger": "placed"},
        {"beginner": True, "umbrella": True, "market_operation": True},
    ):
        report = check_game("fruit_picking", players, options, num_games=150)
        assert len(report.game_lengths) == 150


# --- What a seat knows: its observation (v1) ---------------------------------------------------------


def blocks_differing(a: np.ndarray, b: np.ndarray, config) -> set[str]:
    return {name for name, part in R.observation_layout(config).items() if not np.array_equal(a[part], b[part])}


def mirror(players_cards: dict, to_move: str):
    """The issue's mirror position: the mover can buy a 4th cherry; the other player can then buy a 4th
    strawberry from a full market whose next card is a strawberry."""
    mover, other = to_move, "player_1" if to_move == "player_0" else "player_0"
    return position(
        2,
        farms={mover: farm([9, 0, 0, 0, 0, 0, 2]), other: farm([9, 0, 2, 0, 0, 0, 0])},
        bought={mover: ["cherry"] * 3, other: ["strawberry"] * 3},
        market=("pineapple", "cherry", "banana", "grapes"),
        stack=["strawberry", "banana", "grapes"],
        to_move=to_move,
    )


def test_completing_a_set_as_the_last_seat_ends_the_game_at_once_mirror_positions_differ():
    """'When this happens, complete the current round so that each player has played the same number of
    turns.' Buying the 4th cherry ends the game at once for the last seat (player_1) and wins; the same
    purchase by the initial player hands the other a last turn, in which a 4th strawberry wins on fruits.
    So the mover's seat matters, and mirror positions give the mover different observations."""
    first, last = mirror({}, "player_0"), mirror({}, "player_1")
    obs_first, obs_last = R.observe(first, 0)[0], R.observe(last, 1)[0]
    assert blocks_differing(obs_first, obs_last, first.config) == {"seat", "turns_left"}

    ended = play(last, "plant from position 6", "buy slot 1")
    assert ended.done[0] and R.winners(ended)[0].tolist() == [False, True], "the round was complete: it ends now"

    state = play(first, "plant from position 6", "buy slot 1")
    d = R.describe(state)
    assert not d["done"] and d["last_round"] and d["to_move"] == "player_1", "player_1 still plays this round"
    assert d["market"][0] == "strawberry"
    state, rewards = R.step(state, np.array([R.string_to_action(state.config, "plant from position 2")]))
    state, rewards = R.step(state, np.array([R.string_to_action(state.config, "buy slot 0")]))
    assert state.done[0] and rewards[0].tolist() == [-1.0, 1.0], "two sets: 12 fruits beat 8"


def under_the_stack(players=3, config=None, stack=("strawberry", "banana", "grapes", "pineapple"), keep=1, **extra):
    """player_0 buys a cherry, pays for a two-card draw and keeps drawn card `keep`; the other goes under."""
    state = position(
        players,
        farms={"player_0": farm([9, 0, 0, 0, 0, 0, 2])},
        stack=list(stack),
        config={"market_operation": True, **(config or {})},
        **extra,
    )
    return play(state, "plant from position 6", "buy slot 1", "pay 1 seed, draw two", f"keep drawn card {keep}")


def under(state, seat):
    """What `seat` observes of the cards put under the stack: [(card name or None, knowers observer-first)]."""
    layout = R.observation_layout(state.config)
    p = state.config.num_players
    obs = R.observe(state, seat)[0]
    cards = obs[layout["under_cards"]].reshape(R.MAX_UNDER, C.N_CODES)
    knowers = obs[layout["under_knowers"]].reshape(R.MAX_UNDER, p)
    out = []
    for j in range(R.MAX_UNDER):
        if knowers[j].any():
            name = C.card_name(int(cards[j].argmax())) if cards[j].any() else None
            out.append((name, knowers[j].astype(int).tolist()))
        else:
            assert not cards[j].any()
    return out, obs[layout["under_depth"]][0] * R.DECK_SIZE


def test_a_card_put_under_the_stack_is_observed_at_its_depth_by_its_knower_only():
    """Market Operation: '...puts one in the Market and the other at the bottom of the Market stack.' Its
    place is public (it went under everything), its face is known to the drawer only; observers see who knows it."""
    state = under_the_stack(3)
    assert R.describe(state)["hidden"]["stack"] == ["grapes", "pineapple", "strawberry"]
    assert under(state, 0) == ([("strawberry", [1, 0, 0])], 2.0), "the drawer: strawberry, below 2 cards"
    assert under(state, 1) == ([(None, [0, 0, 1])], 2.0), "player_1: a face-down card player_0 knows"
    assert under(state, 2) == ([(None, [0, 1, 0])], 2.0)
    view = fpicture.view(state, 0, 1)
    assert view["stack"]["under"] == [{"card": "face down", "known_by": ["player_0"]}]
    assert fpicture.view(state, 0, 0)["stack"]["under"] == [{"card": "strawberry", "known_by": ["player_0"]}]


def test_a_second_knower_keeps_the_first_knowers_knowledge():
    """Perfect recall: player_0 put the strawberry under; player_1 draws it with the grapes player_2 put under.
    While player_1 chooses, player_0 knows the first drawn card and player_2 the second; whichever goes back
    under is known to both its knowers."""
    state = position(
        3,
        farms={"player_1": farm([9, 0, 0, 0, 0, 0, 2])},
        stack=["strawberry", "grapes"],
        stack_known_by=[["player_0"], ["player_2"]],
        to_move="player_1",
        config={"market_operation": True},
    )
    state = play(state, "plant from position 6", "buy slot 1", "pay 1 seed, draw two")
    assert R.describe(state)["drawn_known_by"] == [["player_0", "player_1"], ["player_1", "player_2"]]
    layout = R.observation_layout(state.config)
    drawn = {k: R.observe(state, k)[0, layout["drawn"]].reshape(2, C.N_CODES) for k in range(3)}
    assert drawn[0][0, C.code("strawberry")] == 1 and not drawn[0][1].any(), "player_0 knows only its own card"
    assert drawn[1][0, C.code("strawberry")] == 1 and drawn[1][1, C.code("grapes")] == 1, "the drawer knows both"
    assert not drawn[2][0].any() and drawn[2][1, C.code("grapes")] == 1
    state = play(state, "keep drawn card 1")
    assert R.describe(state)["stack_known_by"] == [["player_0", "player_1"]]
    assert under(state, 0)[0] == [("strawberry", [1, 1, 0])], "player_0 still knows it, and that player_1 does"
    assert under(state, 1)[0] == [("strawberry", [1, 0, 1])]
    assert under(state, 2)[0] == [(None, [0, 1, 1])]


@pytest.mark.parametrize("trigger, public", [("drawn", True), ("placed", False)])
def test_an_umbrella_shown_by_a_two_card_draw_is_known_to_everyone(trigger, public):
    """Umbrella: 'When such a card is drawn ... all players immediately add [seeds]': with umbrella_trigger
    'drawn' everyone sees which umbrella fired, so when it goes under the stack all know it; with 'placed'
    a card put under triggers nothing and only its drawer knows it."""
    state = under_the_stack(
        2, {"umbrella": True, "umbrella_trigger": trigger}, stack=("cherry (umbrella)", "banana", "grapes"), keep=1
    )
    assert R.describe(state)["hidden"]["stack"] == ["grapes", "cherry (umbrella)"]
    assert under(state, 0)[0] == [("cherry (umbrella)", [1, 1] if public else [1, 0])]
    assert under(state, 1)[0] == ([("cherry (umbrella)", [1, 1])] if public else [(None, [0, 1])])


def test_observation_says_the_seat_and_the_turns_left_in_the_round():
    """'The game starts with the initial player and then each turn proceeds clock-wise': the observer's
    seat counts from the initial player; turns left in the round follow from whose turn it is."""
    state = position(3, to_move="player_1")
    layout = R.observation_layout(state.config)
    for seat in range(3):
        obs = R.observe(state, seat)[0]
        assert obs[layout["seat"]].tolist() == np.eye(3)[seat].tolist()
        assert obs[layout["to_move"]].tolist() == np.eye(3)[(1 - seat) % 3].tolist(), "relative to the observer"
        assert obs[layout["turns_left"]].tolist() == [0, 1, 0], "player_2 plays after player_1 this round"


def random_states(options, players=3, games=48, steps=160, every=8, seed=0):
    """Positions of a batch of random games, every `every` steps."""
    config = R.SPEC.make_config(players, **options)
    state = R.init(config, rng.keys_from_seed(seed, games))
    gen = np.random.default_rng(seed)
    for t in range(steps):
        if t % every == 0:
            yield state
        mask = R.legal_mask(state) | state.done[:, None]
        state, _ = R.step(state, np.argmax(np.where(mask, gen.random(mask.shape), -1), axis=1))


def test_private_cards_are_neither_lost_nor_leaked():
    """No loss and no leak of what is private: exchanging two face-down cards (in the stack or a pending
    draw) changes a seat's observation exactly when it changes what the seat knows. (check_game edits
    public fields only; this edits the hidden ones.)"""
    from fruit_envs.testing import canonical_knowledge

    changed = 0
    for state in random_states({"market_operation": True, "umbrella": True, "umbrella_trigger": "placed"}):
        for i in np.flatnonzero((state.stack_knowers != 0).any(axis=1) & ~state.done)[:6]:
            game = state.take(i)
            places = np.concatenate([game.stack[0], game.drawn[0]])
            known = np.flatnonzero(np.concatenate([game.stack_knowers[0], game.drawn_knowers[0]]))
            a = int(known[-1])
            b = int(np.flatnonzero((places >= 0) & (places != places[a]))[0])
            swapped = np.concatenate([game.stack, game.drawn], axis=1)
            swapped[0, [a, b]] = swapped[0, [b, a]]
            other = game.copy()
            other.stack, other.drawn = swapped[:, : R.DECK_SIZE].copy(), swapped[:, R.DECK_SIZE :].copy()
            assert not R.invariants(other)
            for seat in range(3):
                knows_more = canonical_knowledge(game, 0, seat) != canonical_knowledge(other, 0, seat)
                differs = not np.array_equal(R.observe(game, seat), R.observe(other, seat))
                assert knows_more == differs, f"seat {seat}, exchanged places {a} and {b}: {R.describe(game)}"
                changed += knows_more
    assert changed > 20, "the exchanges reached cards some seat knows"


@pytest.mark.parametrize(
    "options", [{"market_operation": True, "umbrella": True}, {"market_operation": True, "beginner": True}]
)
def test_describe_round_trips_every_reachable_position(options):
    """`from_description` accepts every position play reaches (it refuses only impossible ones)."""
    for state in random_states(options, players=2, games=32, steps=240, every=12):
        for i in range(0, state.batch_size, 5):
            assert R.from_description(R.describe(state, i)).equals(state.take(i))


def description(**changes):
    d = R.describe(position(3, config={"market_operation": True}))
    d.update(changes)
    return d


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"phase": "target"}, "phase 'target' needs a target"),
        ({"phase": "keep", "target": 1, "market": ["empty", "cherry", "banana", "grapes"]}, "two drawn cards"),
        (
            {"hidden": {"stack": ["grapes"] * 5, "drawn": ["cherry", "banana"]}, "drawn_known_by": [["player_0"]] * 2},
            "hidden.drawn must be empty outside phase 'keep'",
        ),
        ({"phase": "target", "target": 0}, "the House is never a target"),
        ({"phase": "target", "target": 7}, "farm position 1..6"),
        ({"stack_known_by": [["player_0"], ["player_3"], [], [], []]}, "lists of distinct seats"),
        ({"stack_known_by": [["player_0", "player_0"], [], [], [], []]}, "lists of distinct seats"),
        ({"stack_known_by": [["player_0"], [], [], [], []]}, "below every card nobody knows"),
        ({"stack_known_by": [[], []]}, "stack_known_by must list the knowers of each of the 5 cards"),
        ({"phase": "plant", "target": 3}, "target must be None in phase 'plant'"),
        ({"stack_size": 4}, "stack_size must be 5"),
        ({"rounds": -1}, "rounds must be an integer in 0..max_rounds"),
        ({"phase": "over"}, "done must be true exactly in phase 'over'"),
        ({"phase": "everything"}, "phase must be one of"),
    ],
)
def test_from_description_refuses_positions_that_cannot_occur(changes, message):
    """A hand-built position no game can reach is refused, naming the field and what is allowed."""
    with pytest.raises(ValueError, match=re.escape(message)):
        R.from_description(description(**changes))


def test_from_description_refuses_a_hidden_umbrella_that_a_draw_showed():
    """With umbrella_trigger 'drawn', an umbrella card that went through a two-card draw was shown to all."""
    d = R.describe(position(2, config={"market_operation": True, "umbrella": True}))
    d["hidden"]["stack"], d["stack_size"] = ["grapes", "cherry (umbrella)"], 2
    d["stack_known_by"] = [[], ["player_0"]]
    with pytest.raises(ValueError, match="shown to everyone"):
        R.from_description(d)
    d["stack_known_by"] = [[], ["player_0", "player_1"]]
    assert R.from_description(d).stack_knowers[0, 1] == 3


def test_from_description_refuses_another_version():
    """Positions, records and saved states carry their rules version; v0 ones are refused, naming v1."""
    d = R.describe(position(2))
    d["version"] = 0
    with pytest.raises(ValueError, match=r"fruit_picking v0, rules are v1 \(fruit_picking_v1\)"):
        R.from_description(d)


def test_redeal_hidden_resamples_what_the_seat_cannot_tell_apart():
    """`redeal_hidden` keeps all the seat knows (table, knowers, the cards it knows) and shuffles the rest."""
    from fruit_envs.testing import canonical_knowledge

    for state in random_states({"market_operation": True, "umbrella": True}, steps=120, every=30):
        for seat in range(3):
            other = R.redeal_hidden(state, seat, rng.keys_from_seed(seat, state.batch_size))
            assert not R.invariants(other)
            assert np.array_equal(R.observe(state, seat), R.observe(other, seat))
            assert np.array_equal(other.stack_knowers, state.stack_knowers)
            for i in range(0, state.batch_size, 7):
                assert canonical_knowledge(state, i, seat) == canonical_knowledge(other, i, seat)


def test_redeal_hidden_is_uniform_and_keeps_umbrellas_where_nobody_looked():
    """From player_0's seat: 4 cards nobody saw (one an umbrella) above a card player_1 put under. With
    umbrellas shown on drawing, player_1's card is no umbrella; every consistent arrangement is equally likely."""
    d = R.describe(position(2, config={"market_operation": True, "umbrella": True}))
    d["hidden"]["stack"] = ["grapes", "banana", "cherry (umbrella)", "strawberry", "pineapple"]
    d["stack_known_by"] = [[], [], [], [], ["player_1"]]
    n = 8000
    state = R.from_description(d).take(np.zeros(n, dtype=int))
    dealt = R.redeal_hidden(state, 0, rng.keys_from_seed(7, n))
    umbrella = dealt.stack[:, :5] == C.code("cherry", True)
    assert not umbrella[:, 4].any(), "player_1's card went through a draw without showing an umbrella"
    assert np.allclose(umbrella[:, :4].mean(axis=0), 0.25, atol=0.03)
    bottom = dealt.stack[:, 4]
    for kind in ("grapes", "banana", "strawberry", "pineapple"):
        assert abs((bottom == C.code(kind)).mean() - 0.25) < 0.03
    assert np.array_equal(R.redeal_hidden(state, 1, rng.keys_from_seed(7, n)).stack[:, 4], state.stack[:, 4])


def test_check_game_catches_the_v0_observation_without_seat():
    """check_game's no-loss part fails an observation without the observer's seat and turns (v0's)."""
    from fruit_envs.testing import ConformanceError, check_game

    honest = R.observe

    def seatless(state, player):
        obs = honest(state, player)
        lay = R.observation_layout(state.config)
        obs[:, lay["seat"]] = obs[:, lay["turns_left"]] = 0.0
        return obs

    R.observe = seatless
    try:
        with pytest.raises(ConformanceError, match="no loss: .*every seat moved on"):
            check_game("fruit_picking", 2, num_games=4)
    finally:
        R.observe = honest


# --- Versions ----------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*out of date:DeprecationWarning")
def test_fruit_picking_v0_is_retired_naming_v1():
    """The observation changed in v1: the old module and Gymnasium id fail, naming the new ones."""
    import importlib
    import sys

    import gymnasium

    import fruit_envs

    sys.modules.pop("fruit_envs.fruit_picking_v0", None)
    with pytest.raises(ImportError, match=r"fruit_picking_v0 is retired: .*fruit_envs\.fruit_picking_v1"):
        importlib.import_module("fruit_envs.fruit_picking_v0")
    with pytest.raises(gymnasium.error.DeprecatedEnv, match=r"fruit_envs/FruitPicking-v1"):
        gymnasium.make("fruit_envs/FruitPicking-v0")
    assert fruit_envs.all_environments["fruit/fruit_picking_v1"].__doc__.startswith("Fruit Picking")
    assert R.SPEC.gym_id == "fruit_envs/FruitPicking-v1"


def test_v0_records_and_saved_states_are_refused(tmp_path):
    """Records and saved states carry their rules version; v0 ones are refused with a clear message."""
    import io
    import json

    from fruit_envs.core import record as frecord
    from fruit_envs.core import state as fstate

    buffer = io.BytesIO()
    fstate.save(position(2), buffer)
    saved = dict(np.load(io.BytesIO(buffer.getvalue())))
    meta = json.loads(str(saved["__meta__"]))
    saved["__meta__"] = np.array(json.dumps({**meta, "version": 0}))
    np.savez(tmp_path / "v0.npz", **saved)
    with pytest.raises(ValueError, match="fruit_picking v0, but the installed rules are v1"):
        fstate.load(tmp_path / "v0.npz")
    record = frecord.GameRecord(game="fruit_picking", rules_version=0, config={"num_players": 2}, actions=[], key=0)
    with pytest.raises(frecord.RecordError, match=r"rules v0 \(fruit_picking_v0\), but this fruit_envs has v1"):
        frecord.replay(record)
