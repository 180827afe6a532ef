"""Cherry Picking rules, each test naming the rulebook sentence or example it checks.

Positions are built by hand with `from_description`, the referee's view, and played with readable
action names, so each test reads like the rulebook situation it covers.
"""

from __future__ import annotations

import numpy as np
import pytest

from fruit_envs.core import rng
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules as R

OTHER_PLANTS = {
    "pineapple": "pineapple 0",
    "pear": "pear 0",
    "banana": "banana 0",
    "cherry": "cherry 0",
    "orange": "orange 0",
    "grape": "grape 0",
}


def position(
    num_players: int, hands: dict, plants: dict | None = None, piles: dict | None = None, filler: bool = True, **extra
):
    """A hand-built position; `filler` gives every hand one spare card so the set does not end."""
    plants_all = dict(OTHER_PLANTS, **(plants or {}))
    hands = {seat: list(cards) for seat, cards in hands.items()}
    if filler:
        used = set(plants_all.values()) | {c for cards in hands.values() for c in cards}
        spare = (f"{s} {v}" for v in range(1, 5) for s in C.SORTS if f"{s} {v}" not in used)
        for k in range(num_players):
            hands.setdefault(f"player_{k}", []).append(next(spare))
    d = {
        "config": {"num_players": num_players},
        "phase": "commit",
        "to_move": "player_0",
        "plants": plants_all,
        "piles": piles or {},
        "hidden": {"hands": hands},
    }
    d.update(extra)
    return R.from_description(d)


def play(state, *names):
    """Apply actions by readable name, checking each is legal for the seat to move."""
    for name in names:
        action = R.string_to_action(state.config, name)
        assert R.legal_mask(state)[0, action], f"{name!r} is not legal: {R.describe(state)}"
        state, _ = R.step(state, np.array([action]))
    return state


def pile(state, seat):
    return sorted(R.describe(state)["piles"][f"player_{seat}"])


def plants(state):
    return R.describe(state)["plants"]


# --- Set-up -------------------------------------------------------------------------------------


def test_four_player_removal():
    """'In the four-player game, remove 1 ladder, 1 wildcard, all fruits with the value of 6, and the basket with the value of 9.'"""
    deck = C.deck_counts(4)
    assert deck[C.LADDER] == 10 and deck[C.WILDCARD] == 4
    assert all(deck[C.fruit_id(s, 6)] == 0 for s in C.SORTS)
    assert all(deck[C.fruit_id(s, v)] == 1 for s in C.SORTS for v in range(6))
    assert deck[C.basket_id(9)] == 0 and deck[C.basket_id(8)] == 1
    assert deck.sum() == 67 - 9


def test_three_player_removal():
    """'If there are only three players, remove 2 ladders, 2 wildcards, all fruit with the values of 5 and 6, as well as the baskets with the values of 8 and 9.'"""
    deck = C.deck_counts(3)
    assert deck[C.LADDER] == 9 and deck[C.WILDCARD] == 3
    assert all(deck[C.fruit_id(s, v)] == (v < 5) for s in C.SORTS for v in range(7))
    assert deck[C.basket_id(8)] == 0 and deck[C.basket_id(9)] == 0 and deck[C.basket_id(7)] == 1


def test_two_player_removal():
    """'In the two-player game, play without any ladders and, in addition, remove the same cards as in the three-player game.'"""
    deck = C.deck_counts(2)
    assert deck[C.LADDER] == 0 and deck[C.WILDCARD] == 3
    assert np.array_equal(deck[1:], C.deck_counts(3)[1:])
    state = R.init(R.SPEC.make_config(2), rng.keys_from_seed(1, 200))
    assert not (state.hands[:, :, C.LADDER] > 0).any() and not (state.plants == C.LADDER).any()


def test_materials_total_67():
    """Game materials: '67 harvest cards: 11 ladders, 5 wildcards, 42 pieces of fruit (... each from 0 to 6), 9 baskets (0 and 2 to 9)'."""
    assert C.deck_counts(5).sum() == 67
    assert C.BASKET_VALUES == (0, 2, 3, 4, 5, 6, 7, 8, 9)
    assert len(C.SORTS) * len(C.FRUIT_VALUES) == 42


@pytest.mark.parametrize("players, hand, aside", [(2, 17, 0), (3, 14, 1), (4, 13, 0), (5, 12, 1), (6, 10, 1)])
def test_deal(players, hand, aside):
    """'Lay out the six plant cards ... and place one (randomly drawn) harvest card below each of them. Shuffle the remaining harvest cards well and distribute them evenly among all players. ... If there is a harvest card left over, lay it aside unseen.'"""
    state = R.init(R.SPEC.make_config(players), rng.keys_from_seed(7, 50))
    assert (state.plants >= 0).all()
    assert (state.hands.sum(axis=2) == hand).all()
    assert ((state.aside >= 0) == bool(aside)).all()
    assert not R.invariants(state)
    assert len({tuple(row) for row in state.plants}) > 40, "plant cards are drawn at random per game"


# --- The game -----------------------------------------------------------------------------------


def test_commit_is_hidden_until_everyone_has_chosen():
    """'Each player chooses one hand card and puts it face down in front of him. Then all players reveal their cards at the same time.'"""
    hands = {"player_0": ["cherry 3", "pear 1"], "player_1": ["grape 2", "pear 2"], "player_2": ["grape 3", "pear 3"]}
    a = play(position(3, hands), "cherry 3")
    b = play(position(3, hands), "pear 1")
    for seat in (1, 2):
        assert np.array_equal(R.observe(a, seat), R.observe(b, seat)), "a face-down card must not show"
    assert not np.array_equal(R.observe(a, 0), R.observe(b, 0)), "a player knows his own face-down card"
    a = play(a, "grape 2")
    assert R.describe(a)["phase"] == "commit" and R.describe(a)["revealed"] == {}
    a = play(a, "grape 3")  # the last card: all are revealed together and resolved (all fruits here)
    assert pile(a, 0) == ["cherry 0"] and pile(a, 2) == ["grape 0"] and pile(a, 1) == ["grape 3"]


def test_commit_mask_is_the_hand():
    """'Each player chooses one hand card': exactly the card types in the hand are legal."""
    others = ["grape 2", "grape 3", "grape 4", "grape 5"]
    hands = {"player_0": ["wildcard", "ladder", "ladder", "banana 4"], "player_1": others}
    spare = {
        "player_2": ["pear 1", "pear 2", "pear 3", "pear 4"],
        "player_3": ["orange 1", "orange 2", "orange 3", "orange 4"],
    }
    state = position(4, {**hands, **spare}, filler=False)
    legal = {R.action_to_string(state.config, a) for a in np.flatnonzero(R.legal_mask(state)[0])}
    assert legal == {"play wildcard", "play ladder", "play banana 4"}


def test_harvest_pile_is_visible_to_its_owner():
    """'Each player forms a face-down harvest pile ... Note: You may look at your harvested cards anytime.'"""
    state = play(
        position(2, {"player_0": ["cherry 3"], "player_1": ["grape 2"]}, plants={"cherry": "basket 7"}),
        "cherry 3",
        "grape 2",
    )
    layout = R.observation_layout(state.config)
    own_pile = R.observe(state, 0)[0, layout["piles"]][: R.N_CARDS]
    assert own_pile[C.basket_id(7)] == 1


def test_lone_ladder_harvests_first_and_is_left_at_the_plant():
    """'If you are the only player who has played a ladder, you are the first to harvest. Choose any one plant and put the harvest card lying there on your harvest pile. Put the ladder you have played on the now-vacant place.'"""
    state = position(
        3,
        {"player_0": ["ladder"], "player_1": ["cherry 4"], "player_2": ["basket 7"]},
        plants={"cherry": "grape 4", "orange": "banana 2"},
    )
    state = play(state, "ladder", "cherry 4", "basket 7")
    assert R.describe(state)["phase"] == "choose" and R.describe(state)["to_move"] == "player_0"
    assert R.legal_mask(state)[0, R.CHOOSE_BASE : R.WAIT].all(), "any one plant may be chosen"
    state = play(state, "cherry")  # the ladder takes the grape 4 from the cherry plant first
    assert pile(state, 0) == ["grape 4"]
    assert pile(state, 1) == ["ladder"], "the cherry player then finds the ladder at his plant"
    assert R.describe(state)["to_move"] == "player_2"


def test_several_ladders_go_to_their_piles():
    """'If several players have played a ladder, they do not harvest; instead, each puts the ladder he has played directly on his harvest pile.'"""
    state = position(
        3, {"player_0": ["ladder"], "player_1": ["ladder"], "player_2": ["pear 3"]}, plants={"pear": "basket 5"}
    )
    state = play(state, "ladder", "ladder", "pear 3")
    assert pile(state, 0) == ["ladder"] and pile(state, 1) == ["ladder"]
    assert pile(state, 2) == ["basket 5"]
    assert plants(state)["pear"] == "pear 3" and "ladder" not in plants(state).values()


def test_lone_wildcard_harvests_next():
    """'If you are the only one who has played a wildcard, you are the next one to harvest. Take any harvest card from a plant of your choice ... Put the wildcard you have played on the now-vacant place.'"""
    state = position(
        3,
        {"player_0": ["wildcard"], "player_1": ["ladder"], "player_2": ["basket 4"]},
        plants={"grape": "cherry 4", "pear": "orange 3"},
    )
    state = play(state, "wildcard", "ladder", "basket 4")
    assert R.describe(state)["to_move"] == "player_1", "the lone ladder is first"
    state = play(state, "grape")
    assert R.describe(state)["to_move"] == "player_0", "the lone wildcard is next"
    state = play(state, "grape")  # takes the ladder just placed there
    assert pile(state, 1) == ["cherry 4"] and pile(state, 0) == ["ladder"]
    assert plants(state)["grape"] == "wildcard"


def test_several_wildcards_go_to_their_piles():
    """'If several players have played a wildcard, they do not harvest; instead, each puts the wildcard he has played directly on his harvest pile.'"""
    state = play(position(2, {"player_0": ["wildcard"], "player_1": ["wildcard"]}), "wildcard", "wildcard")
    assert pile(state, 0) == ["wildcard"] and pile(state, 1) == ["wildcard"]
    assert R.describe(state)["phase"] == "commit"


def test_fruit_harvests_its_own_plant_even_without_that_fruit():
    """'Each of them takes the harvest card from the plant whose fruit he has played (e.g., from the cherry tree, if he has played a cherry - even if there is currently no cherry lying there); he puts ... the fruit he has played on the now-vacant place.'"""
    state = play(
        position(
            3,
            {"player_0": ["cherry 2"], "player_1": ["orange 1"], "player_2": ["pear 2"]},
            plants={"cherry": "basket 6", "orange": "ladder"},
        ),
        "cherry 2",
        "orange 1",
        "pear 2",
    )
    assert pile(state, 0) == ["basket 6"] and pile(state, 1) == ["ladder"]
    assert plants(state)["cherry"] == "cherry 2" and plants(state)["orange"] == "orange 1"


def test_same_sort_fruits_harvest_highest_first():
    """'If players have played fruits of the same sort, the one who has played the highest value is the first ... Then the other players follow in descending order of their card values.'"""
    state = position(
        4,
        {"player_0": ["banana 1"], "player_1": ["banana 5"], "player_2": ["banana 3"], "player_3": ["grape 2"]},
        plants={"banana": "wildcard"},
    )
    state = play(state, "banana 1", "banana 5", "banana 3", "grape 2")
    assert pile(state, 1) == ["wildcard"]  # highest takes what lay there
    assert pile(state, 2) == ["banana 5"]  # next takes the highest's card
    assert pile(state, 0) == ["banana 3"]
    assert plants(state)["banana"] == "banana 1"  # the lowest card stays


def test_lone_basket_harvests_last():
    """'If you are the only one who has played a basket, you are the last to harvest. Choose any one plant ... Then put the basket you have played on the now-vacant place.'"""
    state = position(2, {"player_0": ["basket 2"], "player_1": ["pear 4"]}, plants={"pear": "cherry 4"})
    state = play(state, "basket 2", "pear 4")
    assert pile(state, 1) == ["cherry 4"], "the fruit harvested before the basket"
    assert R.describe(state)["to_move"] == "player_0"
    state = play(state, "pear")
    assert pile(state, 0) == ["pear 4"] and plants(state)["pear"] == "basket 2"


def test_several_baskets_highest_first():
    """'If several players have played a basket, the one who has played the highest value is the first to harvest. Then the other players follow in descending order of their card values.'"""
    state = position(
        3, {"player_0": ["basket 3"], "player_1": ["basket 7"], "player_2": ["basket 0"]}, plants={"orange": "orange 4"}
    )
    state = play(state, "basket 3", "basket 7", "basket 0")
    assert R.describe(state)["to_move"] == "player_1"
    state = play(state, "orange")
    assert R.describe(state)["to_move"] == "player_0"
    state = play(state, "orange")
    assert R.describe(state)["to_move"] == "player_2"
    state = play(state, "orange")
    assert pile(state, 1) == ["orange 4"] and pile(state, 0) == ["basket 7"] and pile(state, 2) == ["basket 3"]
    assert plants(state)["orange"] == "basket 0"


def test_rulebook_harvest_example():
    """Rulebook example: Tina (ladder) takes the cherries at the banana tree and leaves her ladder there; Robin (pineapple) takes the basket at the pineapple plant; Nina's cherry is higher than Tobias's, so she harvests the pear at the cherry tree and Tobias then harvests Nina's card."""
    tina, robin, nina, tobias = 0, 1, 2, 3
    state = position(
        4,
        {"player_0": ["ladder"], "player_1": ["pineapple 3"], "player_2": ["cherry 5"], "player_3": ["cherry 1"]},
        plants={"banana": "cherry 2", "pineapple": "basket 4", "cherry": "pear 2"},
    )
    state = play(state, "ladder", "pineapple 3", "cherry 5", "cherry 1")
    assert R.describe(state)["to_move"] == "player_0", "Tina begins harvesting where she wants"
    state = play(state, "banana")
    assert pile(state, tina) == ["cherry 2"] and plants(state)["banana"] == "ladder"
    assert pile(state, robin) == ["basket 4"] and plants(state)["pineapple"] == "pineapple 3"
    assert pile(state, nina) == ["pear 2"]
    assert pile(state, tobias) == ["cherry 5"], "Tobias harvests Nina's card at the cherry tree"
    assert plants(state)["cherry"] == "cherry 1"
    assert R.describe(state)["phase"] == "commit", "nobody played a basket: the trick is over"


def test_set_ends_when_hands_are_empty_and_is_scored():
    """'You keep playing until you have no hand cards left. Then you figure out how many points you get for the cards you have harvested.' and 'Then play a second and a third set of rounds.'"""
    state = position(
        2,
        {"player_0": ["cherry 3"], "player_1": ["grape 2"]},
        plants={"cherry": "basket 7", "grape": "pear 4"},
        filler=False,
    )
    state, rewards = R.step(state, np.array([C.fruit_id("cherry", 3)]))
    state, rewards = R.step(state, np.array([C.fruit_id("grape", 2)]))
    d = R.describe(state)
    assert d["set_scores"][0] == [7, 4] and d["scores"] == {"player_0": 7, "player_1": 4}
    assert d["set"] == 2 and d["phase"] == "commit", "a second set is dealt"
    assert all(len(h) == C.hand_size(2) for h in d["hidden"]["hands"].values())
    assert d["piles"] == {"player_0": [], "player_1": []}
    assert not R.invariants(state), "every card is reshuffled into the new set"


def test_game_ends_after_three_sets_and_most_points_win():
    """'After three sets of rounds, you all add up your three results. The player who was able to collect the most points overall wins.'"""
    state = position(
        2,
        {"player_0": ["cherry 3"], "player_1": ["grape 2"]},
        plants={"cherry": "basket 7", "grape": "pear 4"},
        set=3,
        filler=False,
        set_scores=[[10, 30], [10, 0], [0, 0]],
        scores={"player_0": 20, "player_1": 30},
    )
    state = play(state, "cherry 3")
    state, rewards = R.step(state, np.array([C.fruit_id("grape", 2)]))
    assert state.done[0] and R.describe(state)["scores"] == {"player_0": 27, "player_1": 34}
    assert rewards[0].tolist() == [-1.0, 1.0]
    assert not R.legal_mask(state).any()


def test_tied_totals_share_the_win():
    """Ties (our reading, the rulebook names none): every player with the most points wins; a full draw gives 0."""
    assert R.terminal_rewards(np.array([[30, 30, 10]])).tolist() == [[1.0, 1.0, -1.0]]
    assert R.terminal_rewards(np.array([[30, 30]])).tolist() == [[0.0, 0.0]]


def test_score_reward_option_pays_set_scores():
    """Option reward='score': each set's score is paid when the set ends (shaping)."""
    d = {
        "config": {"num_players": 2, "reward": "score"},
        "plants": dict(OTHER_PLANTS, cherry="basket 7"),
        "hidden": {"hands": {"player_0": ["cherry 3"], "player_1": ["grape 2"]}},
    }
    state = R.from_description(d)
    state, _ = R.step(state, np.array([C.fruit_id("cherry", 3)]))
    state, rewards = R.step(state, np.array([C.fruit_id("grape", 2)]))
    assert rewards[0].tolist() == [7.0, 0.0]


def test_ladder_and_wildcard_counts_are_public_piles():
    """Harvests are made face up, so every pile is known to a player with perfect memory: observations show all piles."""
    state = play(
        position(
            3, {"player_0": ["cherry 3"], "player_1": ["grape 2"], "player_2": ["pear 2"]}, plants={"grape": "ladder"}
        ),
        "cherry 3",
        "grape 2",
        "pear 2",
    )
    layout = R.observation_layout(state.config)
    piles = R.observe(state, 0)[0, layout["piles"]].reshape(3, R.N_CARDS)
    assert piles[1, C.LADDER] == 1
