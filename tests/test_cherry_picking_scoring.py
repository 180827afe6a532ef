"""Cherry Picking scoring ('Points'), each test naming the rulebook line it checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking.rules import score_breakdown, score_piles


def pile(*names: str) -> np.ndarray:
    counts = np.zeros(C.N_CARD_TYPES, dtype=np.int64)
    for name in names:
        counts[C.card_from_name(name)] += 1
    return counts


def score(*names: str, mode: str = "repeat") -> int:
    return int(score_piles(pile(*names), mode))


def test_card_values_add_up_ladders_and_wildcards_count_zero():
    """'Add up all card values (ladders and wildcards have no card value, so they count \"0\").'"""
    assert score("cherry 3", "basket 7", "pear 0") == 10
    assert score("wildcard") == 0


@pytest.mark.parametrize("ladders, points", [(1, 1), (2, 4), (3, 9), (5, 25)])
def test_ladders_squared(ladders, points):
    """'Square the number of the ladders you have collected: ... 1 x 1 = 1 point; 2 ladders: 2 x 2 = 4 points; 3 ladders: 3 x 3 = 9 points; and so on.'"""
    assert score(*["ladder"] * ladders) == points


def test_fruit_salad_bonus():
    """'If you have collected a fruit of each sort, you obtain 10 bonus points.'"""
    six = [f"{s} 0" for s in C.SORTS]
    assert score(*six) == 10
    assert score(*six[:5]) == 0


def test_same_sort_bonus_four_and_five():
    """'If you have collected four fruits of the same sort, you get 10 bonus points. If you have collected five fruits of the same sort, you get 20 bonus points.'"""
    assert score("cherry 0", "cherry 1", "cherry 2") == 3
    assert score("cherry 0", "cherry 1", "cherry 2", "cherry 3") == 6 + 10
    assert score("cherry 0", "cherry 1", "cherry 2", "cherry 3", "cherry 4") == 10 + 20


def test_bonus_more_than_once_with_different_cards():
    """'If you manage to fulfill the conditions for a bonus more than once (with different cards), you also get the respective bonus points more than once (e.g. 4 cherries + 5 bananas = 30 bonus points).'"""
    cherries = [f"cherry {v}" for v in range(4)]
    bananas = [f"banana {v}" for v in range(5)]
    values = sum(range(4)) + sum(range(5))
    assert score(*cherries, *bananas) == values + 30
    two_salads = [f"{s} {v}" for s in C.SORTS for v in (0, 1)]
    assert score(*two_salads) == 6 + 2 * 10


def test_card_counts_for_both_bonuses():
    """'You can use a card to earn both kinds of bonus: fruit salad bonus and same-sort bonus.'"""
    names = [f"banana {v}" for v in range(4)] + [f"{s} 0" for s in C.SORTS if s != "banana"]
    assert score(*names) == 6 + 10 + 10


def test_wildcard_stands_for_one_fruit_of_any_sort():
    """'You may use any wildcard you have collected as exactly one fruit of any sort in order to get bonus points.'"""
    assert score("cherry 0", "cherry 1", "cherry 2", "wildcard") == 3 + 10
    assert score(*[f"{s} 0" for s in C.SORTS[:5]], "wildcard") == 10


def test_wildcard_never_stands_for_two_fruits():
    """'Attention! A wildcard can never stand for two different fruits at the same time.'"""
    five_sorts_three_cherries = [f"{s} 0" for s in C.SORTS[:5] if s != "cherry"] + ["cherry 0", "cherry 1", "cherry 2"]
    # the wildcard completes either the salad (grape) or the four cherries, not both
    assert score(*five_sorts_three_cherries, "wildcard") == 3 + 10


def test_wildcards_are_assigned_to_maximise_the_score():
    """Each wildcard is placed where it pays most: here one completes the salad and one a fifth cherry (30), not two cherries (20)."""
    names = [f"cherry {v}" for v in range(4)] + ["pineapple 0", "pear 0", "banana 0", "orange 0"]
    assert score(*names, "wildcard", "wildcard") == 6 + 10 + 20


def test_rulebook_tally_of_47():
    """Rulebook example: ladders 2 x 2 = 4; fruits 0+1+2+2+1+1+1+4+0+3 = 15; baskets 8; same-sort bonus 4 bananas = 10; fruit salad 10; total 47."""
    names = [
        "ladder",
        "ladder",
        "banana 0",
        "banana 1",
        "banana 2",
        "banana 4",
        "pineapple 2",
        "pear 1",
        "cherry 1",
        "orange 0",
        "grape 3",
        "grape 1",
        "basket 8",
    ]
    assert sum(C.CARD_VALUE[C.card_from_name(n)] for n in names if not n.startswith(("ladder", "basket"))) == 15
    assert score_breakdown(pile(*names)) == {"card_values": 23, "ladders_squared": 4, "bonuses": 20, "total": 47}


def test_same_sort_once_option():
    """Option same_sort_bonus='once' (the narrower reading): one same-sort bonus per sort at most."""
    nine_cherries = [f"cherry {v}" for v in range(7)] + ["wildcard", "wildcard"]
    assert score(*nine_cherries, mode="repeat") == 21 + 30  # 5 + 4
    assert score(*nine_cherries, mode="once") == 21 + 20


def test_scoring_is_batched_over_any_leading_shape():
    piles = np.stack([pile("ladder", "ladder"), pile("cherry 3"), pile()])
    assert score_piles(piles).tolist() == [4, 3, 0]
    assert score_piles(piles.reshape(3, 1, -1)).shape == (3, 1)


def test_scoring_rejects_bad_piles():
    with pytest.raises(ValueError, match="53 card counts"):
        score_piles(np.zeros(10))
    with pytest.raises(ValueError, match="non-negative"):
        score_piles(-pile("cherry 1"))
    with pytest.raises(ValueError, match="at most 127"):
        score_piles(200 * pile("ladder"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, C.N_CARD_TYPES - 1), max_size=25), st.integers(0, C.N_CARD_TYPES - 1))
def test_score_never_drops_when_a_card_is_added(cards, extra):
    """Every line of the tally only grows with cards, so adding a card never lowers a score."""
    counts = np.bincount(np.array(cards, dtype=np.int64), minlength=C.N_CARD_TYPES)
    more = counts.copy()
    more[extra] += 1
    assert score_piles(more) >= score_piles(counts)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["wildcard"] + [f"{s} {v}" for s in C.SORTS for v in range(7)]), max_size=14))
def test_wildcard_optimum_matches_brute_force(names):
    """The batched optimum equals trying every assignment of wildcards one by one."""
    counts = pile(*names)
    wild = int(counts[C.WILDCARD])
    fruit = counts[C.FRUIT_BASE : C.BASKET_BASE].reshape(6, 7).sum(axis=1)
    best = 0
    import itertools

    for combo in itertools.product(range(6), repeat=wild):
        c = fruit.copy()
        for sort in combo:
            c[sort] += 1
        same = sum(max(10 * a + 20 * b for b in range(n // 5 + 1) for a in range((n - 5 * b) // 4 + 1)) for n in c)
        best = max(best, 10 * c.min() + same)
    assert score_piles(counts) == counts @ C.CARD_VALUE + best


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=6, max_size=6),
    st.integers(0, C.N_WILDCARDS - 1),
    st.sampled_from(["repeat", "once"]),
)
def test_one_pass_bonuses_equal_each_pile_scored_alone(fruit, wild, mode):
    """`pile_bonuses` (what greedy prices every plant's card with) gives exactly the rules' bonus of the pile and
    of the pile with one more fruit of each sort; one more wildcard is worth the best of those (a wildcard
    "stands for exactly one fruit of any sort")."""
    from fruit_envs.core.lazy import interpreted
    from fruit_envs.games.cherry_picking import kernels
    from fruit_envs.games.cherry_picking.rules import score_tables

    twin, tables = interpreted(kernels), score_tables(mode)  # `inner` kernels are called from kernels only
    counts, more = np.array(fruit, dtype=np.int64), np.zeros(6, dtype=np.int64)
    assert twin.pile_bonuses(counts, wild, *tables, more) == twin.pile_bonus(counts, wild, *tables)
    for sort in range(6):
        one_more = counts.copy()
        one_more[sort] += 1
        assert more[sort] == twin.pile_bonus(one_more, wild, *tables)
    assert more.max() == twin.pile_bonus(counts, wild + 1, *tables)
