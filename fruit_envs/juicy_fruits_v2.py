"""Juicy Fruits (Deep Print Games 2021, Christian Stöhr) as PettingZoo, Gymnasium and batched environments.

Basic game, the juice factory (an option), and the score attack (our own single-player mode).

| | |
|---|---|
| Import | `from fruit_envs import juicy_fruits_v2` (score attack: `juicy_fruits_solo_v1`) |
| Gymnasium id | `fruit_envs/JuicyFruits-v2` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Score attack | `fruit_envs/JuicyFruitsSolo-v1`, `juicy_fruits_solo_v1`: one player, reward = points |
| Actions | Discrete(66), every option and mode |
| Agents | `player_0` ... `player_{n-1}`, n = 2..4; `player_0` starts (score attack: `player_0` alone) |
| Observation | Box(0, 100, (O,), float32); O = 1871 + 692 n (3255 / 3947 / 4639 for 2 / 3 / 4 players) |
| ... factory | O = 1888 + 705 n (3298 / 4003 / 4708); score attack 2592, with the factory 2622 |
| Parallel API | no: turn-based |
| Information | full after setup (`hidden_information=False`); chance at setup (and the score attack's refills) |

**Play.** Each player has a 5 x 5 island: five collectors (one per fruit) on the ponds, twelve
ships on the beach. A turn is step 1, move one collector in a straight orthogonal line over free
spaces and gain one fruit of its type per space (or move an advanced collector or an ice cream cart
you own and use it; with nothing able to move, step 1 is forfeited), then step 2, supply one ship
(pay its order, score it, free its space), claim one business token (pay its row, score the row,
move the license marker, place the token), or do nothing. When the license marker reaches X the
round is finished, stalls are scored, and the most points win, ties to the later seat.

**Juice factory** (`score_board="juicy"`, the juicy side of the score board). Each player's two
factory discs start stacked in the start tank; the 24th business token, the lemonade stand, is in
play. Every turn gets a step 3: advance neither, one or both discs by one arrow each, paying the
arrow's fruit. An arrow may lead into a tank (any free circle; a tank never blocks, and a disc
joining its other disc in a tank stacks on it), to a free single circle, or onto the player's other
disc; circles with other colours block. A disc covering a free circle scores its points (none when
it lands on its own disc). When both discs start on the same circle and take the same arrow, the
second one rides free (and scores nothing: it lands on the first). Reaching one of the two final
circles scores it and moves the license marker a step; that circle is blocked for the rest of the
game, for everybody. The lemonade stand scores, at the end, the bottles beneath its owner's discs.
The graph (S tank -> A1/A2/A3 -> T1 tank -> B1/B2 -> T2 tank -> C1/C2 -> X1/X2) is our
reconstruction, kept as data in `components.FACTORY_NODES` / `FACTORY_ARROWS`.

**Score attack** (game `juicy_fruits_solo`, Gymnasium `fruit_envs/JuicyFruitsSolo-v1`): OUR OWN
single-player mode for single-agent RL, NOT the official solo mode (that lives on a supplementary
sheet we do not have, with solo boards and solo boats). One island; the business display of a
2-player game (2 tokens per row), the rest of the tokens in a face-down pile whose contents are
public; the license marker on the 2-player space (8 steps). At the end of every round a rival
returns the leftmost token of row 1, 2, 3, 4, 5, 1, ... in turn to the box (no license step), then
the display's empty spaces are refilled from the pile (row 1 first, left to right) while it lasts.
The game ends when the license marker reaches X or after `rounds` rounds (default 15; not a
truncation); stalls are scored as usual. Reward = points: per-step score deltas (`reward="score"`
is its only reward). The juice factory option works here too. It is a separate registered game (its
own `GameSpec` and state class over these same rules), so every adapter, the vector envs and
`python -m fruit_envs.training.train_ppo --game juicy_fruits_solo` treat it as a one-seat game.

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
| `factory` | juice factory, step 3: an arrow to advance a disc along, or stop (twice at most) | arrows / pass |

Ice cream markers are named one by one (their order never matters), so a 4-space cart move is at
most 4 decisions instead of one of 10^4 combinations. Step 3 names an arrow, not a disc: the disc is
the one (not yet moved this turn) standing where the arrow starts; stacked discs are alike. After a
first advance the step asks again for the other disc (unless it cannot move), so "neither, one or
both" is pass / arrow + pass / arrow + arrow.

**Actions** (one flat Discrete(66); `rules.action_to_string` / `string_to_action` name them):
`0..24` cells `a1`..`e5` (columns a-e, rows 1-5 from the top; cell = 5 row + column), meaning by
phase the token to move, its destination, the ship to supply or the placement; `25..44` `claim row
r slot k` = 25 + 4 (r-1) + (k-1); `45` `pass` (nothing in step 2, stop producing); `46..49` `rotate
0/90/180/270` (clockwise); `50..55` `split k`: k fruits of the advanced collector's first type (as
listed in its name, e.g. banana for "BL+"), the rest of the second; `56..60` `ice cream green 8`,
`green 7`, `blue 6`, `blue 5`, `pink 4`; `61..65` `milkshake banana|lime|pomegranate|orange|mangosteen`
(the fruit paid twice). Juice factory: in phase `factory` the first 14 actions are the arrows of
`components.FACTORY_ARROWS` (`0..13` = `arrow S-A1`, `S-A2`, `S-A3`, `A1-T1`, `A2-T1`, `A3-T1`,
`T1-B1`, `T1-B2`, `B1-T2`, `B2-T2`, `T2-C1`, `T2-C2`, `C1-X1`, `C2-X2`), named `a1 / arrow S-A1` ...
when the option is on (`string_to_action` takes `a1`, `arrow S-A1` or both), and `45` `pass` stops;
the phases never overlap, so the action space stays Discrete(66) for every option (an owner's
graph may have up to 45 arrows).

**Observation** (named slices in `rules.observation_layout(config)`; blocks over players list the
observer first, then the others in turn order): phase (8, one-hot; zeros once over); seat to move,
relative (n); the observer's own seat (n: seat 0 starts, ties go to the later seat); rounds
completed / 100 (the round cap); license steps left / start; final round flag; markers left per
stack / stack size (6); business board, token one-hot per row and slot (20 x 24); the pending token's cell (25), the
pending business token (24), fruit to split or spaces left to produce / 5, chosen rotation (4);
fruit reserves / 10 (n x 5); scores / 100 (n); ships per beach position A G B H C I D J E K F L
(n x 12 x [waiting, fruit counts / 3, points / 4]); islands as channel-major planes of 25 cells
(n x 24 x 25): empty, unusable, ship, collector by fruit (5), small venue, large venue, stall by kind
(4), advanced collector by fruit (two-hot, 5), cart by colour (3), catering symbol, stars / 3.
Then the hints (66 x 20, action-major), `rules.action_hints`: for each action, what taking it would
do now, worked out from what the seat already sees (public arithmetic a player does at the table,
like Fruit Picking's `plant_targets`): legal (the action mask); fruit gained of each type / 5 (a
collector's longest free run or the chosen move; an advanced collector's move counts its spaces + 1
for both its types, the split names the real ones; a split names each type's share); fruit paid of
each type / 5 (a ship's order, a row's price, a marker's cost, an arrow's cost); points scored at
once / 10 (a ship, a claimed row plus a venue's own points, a marker, a factory circle); spaces the
token moves / 4; afterwards, the fruit the cheapest waiting ship still lacks / 5 and the number of
waiting ships the reserve then pays for / 4, and the same for the rows with a token that fits (/ 5,
/ 5); for a placement (an anchor, or a rotation at its best anchor), the own movable tokens that can
still move / 5, their longest free runs summed / 20, and a mobile token's own run from there / 4.
Every entry is zero for an illegal action and when it is not the observer's turn.
These blocks keep their size and place under every option. With the juice factory the phase one-hot
has 9 entries (`factory` last) and four blocks follow the islands: factory discs per player and node
(n x 12, discs / 2; nodes S A1 A2 A3 T1 B1 B2 T2 C1 C2 X1 X2), final circles reached (2), bottles
beneath each player's discs / 12 (n, the lemonade stand's worth), and the arrow the first disc took
this turn (14, one-hot: the second disc may take it free). The score attack adds the tokens in the
face-down pile (24) and the row the rival empties a slot of at the end of this round (5, one-hot);
its rounds are counted against `rounds`, and its final round flag is also set in the last round.

**Action mask.** `action_mask` (int8) marks the legal actions of the phase; a player not to move
gets all zeros.

**Rewards.** `reward="terminal"` (default): when the rules end the game, +1 to the winner, -1 to
every other player (there is always exactly one winner: ties go to the player who took their turn
last); nothing when the game is truncated. `reward="score"`: each step's score gain, per player
(stalls when the rules end the game; nothing extra at a cut-off). The score attack only has
`"score"`: its return is the game's points.

**Truncation** (the contract of every game: `fruit_envs.core.spec.outcome_rewards`). The game ends
only "at the end of the round in which the license marker arrives at the X", and nothing forces
anyone to move the marker: players may shuttle collectors for ever, and an island can clog itself so
that nothing moves and nothing can be claimed. The engine cuts such a game off, as a safety net and
not as a rule: at the end of round 100 (`components.ROUND_CAP`), or at the end of a round in which the
game is *frozen* (`rules.frozen`): no seat can do anything on its turn but pass (no token can move on
its island, no waiting ship's order is covered by its reserve, no waiting business token is both paid
for and has room on its island, and with the juice factory no disc can advance). A pass changes
nothing, so a frozen game could only have reached the cap. A cut-off game is `truncated=True`,
`terminated=False` in every API (the final observation is still given), pays no outcome (0 to every
seat), does not score stalls and has no winner; evaluations count it as unfinished. Measured share of
games that reach a cap, 1,000 games per row, every seat the same agent
(`python -m fruit_envs.benchmarks.truncation --game juicy_fruits --games 1000`):

| players | random: truncated (share) | greedy: truncated (share) | mean decisions random / greedy |
|---|---|---|---|
| 2 | 0 (0.000) | 16 (0.016), all at the round cap | 299 / 145 |
| 3 | 0 (0.000) | 0 (0.000) | 352 / 158 |
| 4 | 0 (0.000) | 0 (0.000) | 399 / 183 |

No random or greedy game froze. In the 16 greedy games the greedy players shuttle one or two
collectors back and forth, piling up hundreds of fruits of one or two kinds but never the mix a ship's
order or a business row asks for (in 6 of them the other island had clogged itself): a loop only the
cap ends. With v0's cap of 40 rounds, 78%
of random 2-player games were cut off (they end by the rules around round 47, 99% by round 68).

The score attack's round limit is its own end (a rule of our mode, terminated, stalls scored), never
a truncation.

**Options.**
- `ship_setup="bags"` (default): A-F from one bag (25 ships) and G-L from the other, bag chosen by a
  coin flip per player; `"mixed"`: the rulebook's more random setup, all 50 ships in one bag.
- `corners_playable=True` (default): the four outer corners are free island spaces; `False`: they are
  unusable.
- `score_board="basic"` (default): the basic side of the score board; `"juicy"`: the juicy side with
  the juice factory (step 3, the lemonade stand in play, the final license circles).
- `reward="terminal"|"score"`.

Score attack (`juicy_fruits_solo`): `rounds=15` (default; 10, 20 or 30), `score_board`,
`ship_setup`, `corners_playable`; `reward="score"` only.

**Assumptions** (all in `fruit_envs/games/juicy_fruits/components.py`, each constant marked FOUND or
ASSUMED, so an owner of the game corrects them in one place): ponds and buoys on the island; the
50 ship orders; the costs and points of business rows 1-4; the 24 tokens' split (3 small venues,
6 placeholders, 4 stalls, 5 advanced collectors, 6 carts), their shapes, points, stars, fruit pairs,
catering symbols and the third cart colour; ice cream stacks and costs other than green; the
license track lengths (8 / 10 / 12); movement over free spaces only, every token blocking; an
advanced collector yields exactly one fruit per space; markers produced during the cart's move, at
most one per space; a claim needs room for its token; seat 0 starts; the round cap. Juice factory:
the whole graph (nodes, arrows, costs, points, bottles; every circle of a tank alike); tanks modelled
without circle positions (a tank never fills: own discs stack in it); a reached final circle blocks
the reaching player's other disc too; the free ride is the second disc taking the first one's arrow;
the juicy side's license track as long as the basic side's. Score attack: all of it (see above).

**Global state** (PettingZoo's `state()` and `state_space`, for centralized critics such as
MAPPO's): `Box(n x O + S)` float32: every seat's observation, seat 0 first, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice). Nothing is hidden after setup, so it holds what the seats see together (the draws still
to come are not in it: they come from the random key). Each agent's `info["action_mask"]` repeats
its observation's mask (AgileRL reads it there). With `mask_in_observation=False` (any constructor)
the observation is the array alone and the mask is only in the info, as AgileRL's multi-agent
algorithms want.

**Parallel env.** `parallel_env()` serves clients that take parallel envs only (AgileRL, BenchMARL):
each step the seat to move makes one decision; every other seat sends the wait action this env adds,
action 66 (one past the game's last), the only one its mask allows, so its spaces have 67 actions.

**Illegal actions.** `raw_env()` raises `IllegalActionError` (naming the action, the legal ones and
the phase) and leaves the game unchanged; `env()` follows PettingZoo classic (the offender gets -1,
the game ends, a warning is logged).

**Version history.** v0: first release (basic game, 2-4 players); then, without changing the basic
game's behaviour, the juice factory option and the score attack (issue 7). v1 (issue 16): a game cut
off by the engine's cap is truncated with no outcome (v0 paid the leader +1 and scored stalls, as at a
normal end); the cap is 100 rounds instead of 40 (random 2-player games end by the rules around round
47, so 40 cut off three in four of them; the observation's round entry is rounds / 100); a frozen game
is cut off at the end of the round instead of passing to the cap. The score attack is unchanged
(`juicy_fruits_solo_v0`). v2 (issue 17): the observation gains the per-action hints block (66 x 20)
so that a policy network need not learn ship and row arithmetic per ship and row; rules, actions and
rewards are unchanged (the score attack, which shares the observation, becomes `juicy_fruits_solo_v1`).
"""

from __future__ import annotations

from fruit_envs.core.aec import pettingzoo_constructors

GAME = "juicy_fruits"

raw_env, env, parallel_env = pettingzoo_constructors(
    __name__,
    GAME,
    num_players=2,
    parallel_doc="One decision per step: the seat to move acts, every other seat sends the added wait action.",
)
