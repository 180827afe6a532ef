"""Juicy Fruits (Deep Print Games 2021, Christian Stöhr), basic game, as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import juicy_fruits_v0` |
| Gymnasium id | `fruit_envs/JuicyFruits-v0` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(66) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..4; `player_0` starts |
| Observation | Box(0, 100, (O,), float32); O = 551 + 692 n (1935 / 2627 / 3319 for 2 / 3 / 4 players) |
| Parallel API | no: turn-based |
| Information | full after setup (`hidden_information=False`); chance only at setup |

**Play.** Each player has a 5 x 5 island: five collectors (one per fruit) on the ponds, twelve
ships on the beach. A turn is step 1, move one collector in a straight orthogonal line over free
spaces and gain one fruit of its type per space (or move an advanced collector or an ice cream cart
you own and use it; with nothing able to move, step 1 is forfeited), then step 2, supply one ship
(pay its order, score it, free its space), claim one business token (pay its row, score the row,
move the license marker, place the token), or do nothing. When the license marker reaches X the
round is finished, stalls are scored, and the most points win, ties to the later seat.

**Decisions** (a turn is several decisions of the same player, each with its own mask; a decision
that does not exist is skipped, one with a single legal option is asked):

| phase | what is chosen | actions |
|---|---|---|
| `move_token` | the collector or mobile token to move (its cell) | cells |
| `move_to` | where it stops: direction and distance in one (a cell in line) | cells |
| `harvest_split` | advanced collector moved d spaces: d + 1 fruits, k of its first type | split k |
| `produce` | ice cream cart moved d spaces: one marker at a time, at most d, or stop | ice cream / milkshake / pass |
| `supply_or_claim` | a ship (its beach cell), a business token (row and slot), or nothing | cells / claim / pass |
| `rotate` | rotation of a large venue (only rotations that fit; none for the 2 x 2 venues) | rotate |
| `place` | where the claimed token goes: its cell, for a large venue its first cell in reading order | cells |
| `claim_fruit` | the fruit a newly claimed advanced collector gives | split 0 / split 1 |

Ice cream markers are named one by one (their order never matters), so a 4-space cart move is at
most 4 decisions instead of one of 10^4 combinations.

**Actions** (one flat Discrete(66); `rules.action_to_string` / `string_to_action` name them):
`0..24` cells `a1`..`e5` (columns a-e, rows 1-5 from the top; cell = 5 row + column), meaning by
phase the token to move, its destination, the ship to supply or the placement; `25..44` `claim row
r slot k` = 25 + 4 (r-1) + (k-1); `45` `pass` (nothing in step 2, stop producing); `46..49` `rotate
0/90/180/270` (clockwise); `50..55` `split k`: k fruits of the advanced collector's first type (as
listed in its name, e.g. banana for "BL+"), the rest of the second; `56..60` `ice cream green 8`,
`green 7`, `blue 6`, `blue 5`, `pink 4`; `61..65` `milkshake banana|lime|pomegranate|orange|mangosteen`
(the fruit paid twice).

**Observation** (named slices in `rules.observation_layout(config)`; blocks over players list the
observer first, then the others in turn order): phase (8, one-hot; zeros once over); seat to move,
relative (n); the observer's own seat (n: seat 0 starts, ties go to the later seat); rounds
completed / 40; license steps left / start; final round flag; markers left per stack / stack size
(6); business board, token one-hot per row and slot (20 x 24); the pending token's cell (25), the
pending business token (24), fruit to split or spaces left to produce / 5, chosen rotation (4);
fruit reserves / 10 (n x 5); scores / 100 (n); ships per beach position A G B H C I D J E K F L
(n x 12 x [waiting, fruit counts / 3, points / 4]); islands as channel-major planes of 25 cells
(n x 24 x 25): empty, unusable, ship, collector by fruit (5), small venue, large venue, stall by kind
(4), advanced collector by fruit (two-hot, 5), cart by colour (3), catering symbol, stars / 3.

**Action mask.** `action_mask` (int8) marks the legal actions of the phase; a player not to move
gets all zeros.

**Rewards.** `reward="terminal"` (default): +1 to the winner, -1 to every other player (there is
always exactly one winner: ties go to the player who took their turn last). `reward="score"`:
each step's score gain, per player (stalls at the end).

**Truncation.** After 40 rounds (`components.ROUND_CAP`) a game that has not ended is cut off
(an island can block itself so that nothing moves and nothing can be claimed): stalls are scored,
the winner decided as at a normal end, and `truncated=True`. Random play reaches the cap in most
2-player games (it rarely buys enough to end); greedy play rarely does.

**Options.**
- `ship_setup="bags"` (default): A-F from one bag (25 ships) and G-L from the other, bag chosen by a
  coin flip per player; `"mixed"`: the rulebook's more random setup, all 50 ships in one bag.
- `corners_playable=True` (default): the four outer corners are free island spaces; `False`: they are
  unusable.
- `reward="terminal"|"score"`.

**Assumptions** (all in `fruit_envs/games/juicy_fruits/components.py`, each constant marked FOUND or
ASSUMED, so an owner of the game corrects them in one place): ponds and buoys on the island; the
50 ship orders; the costs and points of business rows 1-4; the 24 tokens' split (3 small venues,
6 placeholders, 4 stalls, 5 advanced collectors, 6 carts), their shapes, points, stars, fruit pairs,
catering symbols and the third cart colour; ice cream stacks and costs other than green; the
license track lengths (8 / 10 / 12); movement over free spaces only, every token blocking; an
advanced collector yields exactly one fruit per space; markers produced during the cart's move, at
most one per space; a claim needs room for its token; seat 0 starts; the round cap.

**Not built yet** (issue 7): the juice factory (the juicy side of the score board, step 3, the
lemonade stand) and a single-player score-attack mode. The design leaves room: a third step phase
after `supply_or_claim`, a "factory" score source, the lemonade stand already in the token list.

**Illegal actions.** `raw_env()` raises `IllegalActionError` (naming the action, the legal ones and
the phase) and leaves the game unchanged; `env()` follows PettingZoo classic (the offender gets -1,
the game ends, a warning is logged).

**Version history.** v0: first release (basic game, 2-4 players).
"""

from __future__ import annotations

from fruit_envs.core.aec import FruitAECEnv, make_aec_env

GAME = "juicy_fruits"


def raw_env(num_players: int = 2, render_mode: str | None = None, **options) -> FruitAECEnv:
    """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
    return FruitAECEnv(GAME, num_players=num_players, render_mode=render_mode, **options)


def env(num_players: int = 2, render_mode: str | None = None, **options):
    """The AEC env wrapped like PettingZoo classic environments."""
    return make_aec_env(GAME, num_players=num_players, render_mode=render_mode, **options)
