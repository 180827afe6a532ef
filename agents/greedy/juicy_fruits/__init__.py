"""Juicy Fruits greedy: chase the cheapest worthwhile purchase, collect what it lacks, spend at once.

Reads only the seat's observation (plus the game's fixed tables: costs, shapes, token values). Each
decision is scored on its own:

* a target is chosen among the own ships and the business rows with a claimable token, by value
  per missing fruit; fruit that the target lacks weighs most, other demanded fruit a little;
* step 1 moves the token whose best straight move gains most weighted fruit (an ice cream cart:
  the points it can produce and pay for), as far as it can go;
* step 2 takes the best of: supplying a ship (its points), claiming a token (row points plus a
  fixed estimate of the token's worth), passing (0), each less a small charge per fruit paid;
* ice cream: the most valuable marker it can pay for; milkshakes paid with the least needed fruit;
* placement: stationary tokens where they block the fewest own movers and lanes, mobile tokens
  where they have the longest free run;
* juice factory (step 3): the arrow whose circle points (none onto its own disc), a little progress
  and, with the lemonade stand, the better bottle beat the weighted fruit it costs; the lemonade
  stand is worth claiming like any stall.

The score attack (one player) reads the same observation and is played by the same rules of thumb.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy import KernelGreedy, columns, own_part
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R

# fixed worth of owning each token, beyond the claim's row points (venues: their points)
TOKEN_WORTH = np.array(
    [
        {
            C.SMALL_VENUE: C.TOKEN_POINTS[t] + 0.5 * C.TOKEN_STARS[t],
            C.PLACEHOLDER: C.TOKEN_POINTS[t] + 0.5 * C.TOKEN_STARS[t],
            C.STALL: 0.0 if C.TOKEN_STALL[t] == C.STALL_LEMONADE else 6.0,
            C.ADVANCED_COLLECTOR: 5.0,
            C.ICE_CREAM_CART: (12.0, 9.0, 6.0)[max(C.TOKEN_COLOUR[t], 0)],
        }[int(C.TOKEN_KIND[t])]
        for t in range(C.N_TOKENS)
    ]
)
FRUIT_CHARGE = 0.4  # points a fruit in the reserve is worth keeping
FACTORY_PROGRESS = 0.5  # worth of one arrow of progress in the factory (later circles score more)
LEMONADE_WORTH = 6.0  # the lemonade stand, when the factory is in play


def _channel_starts() -> dict[str, int]:
    out, k = {}, 0
    for name, size in R.CHANNELS:
        out[name] = k
        k += size
    return out


CH = _channel_starts()


def _indices(cols: slice | int | np.ndarray) -> np.int64 | np.ndarray:
    """Observation columns as the kernel takes them: one column an int64, several a C-contiguous int64 array."""
    if isinstance(cols, slice):
        return np.arange(cols.start, cols.stop, dtype=np.int64)
    if np.ndim(cols) == 0:
        return np.int64(cols)
    return np.ascontiguousarray(cols, dtype=np.int64)


class JuicyFruitsGreedy(KernelGreedy):
    def __init__(self, config):
        layout, p = R.observation_layout(config), config.num_players
        super().__init__(config, layout, R.NUM_ACTIONS)
        self.factory = R.has_factory(config)
        ships, width = own_part(layout["ships"], p), R.N_SHIP_FEATURES  # own ships: a row of features each
        island = own_part(layout["islands"], p)  # own island: channel-major planes of its cells
        planes = np.arange(island.start, island.stop).reshape(R.N_CHANNELS, G.N_CELLS)
        board = layout["board"]
        self.obs_columns = {  # what the heuristic reads, by name, in the order the kernel takes them
            "phase": layout["phase"],
            "final_round": layout["final_round"].start,
            "fruit": own_part(layout["fruit"], p),  # own reserve
            "empty": planes[CH["empty"]],  # (25,)
            "collector": planes[CH["collector"] : CH["collector"] + C.N_FRUITS],  # (5, 25) by fruit
            "advanced": planes[CH["advanced_collector"] : CH["advanced_collector"] + C.N_FRUITS],  # (5, 25)
            "cart": planes[CH["cart"] : CH["cart"] + len(C.COLOURS)],  # (3, 25) by colour
            "lemonade": planes[CH["stall"] + C.STALL_LEMONADE],  # (25,)
            "ship_present": columns(ships, R.SHIP_COLUMNS["present"].start, width),  # (12,)
            "ship_cost": columns(ships, R.SHIP_COLUMNS["cost"], width),  # (12, 5)
            "ship_points": columns(ships, R.SHIP_COLUMNS["points"].start, width),  # (12,)
            "board": columns(board, slice(0, C.N_TOKENS), C.N_TOKENS),  # (20, 24) one-hot token per slot
            "stacks": layout["stacks"],
            "pending_cell": layout["pending_cell"],
            "pending_token": layout["pending_token"],
            "pending_rotation": layout["pending_rotation"],
            "discs": own_part(layout["factory_discs"], p) if self.factory else slice(0, 0),  # own discs per node
            "pending_arrow": layout["pending_arrow"] if self.factory else slice(0, 0),
        }
        self.token_worth = TOKEN_WORTH.copy()
        if self.factory:
            self.token_worth[C.LEMONADE] = LEMONADE_WORTH
        indices = tuple(_indices(cols) for cols in self.obs_columns.values())
        self.kernel_args = (*indices, self.token_worth, self.factory)

    def rollout_constants(self, config):
        """`step`'s and `observe`'s constants, as `rules.step` and `rules.observe` pass them."""
        _, factory, solo, per_row, pay_scores, offsets, phases, steps = R.advance_constants(config)
        return (R.PHASE_ACTIONS, factory, solo, R.round_cap(config), per_row, pay_scores, offsets, phases, steps)


def make(config) -> JuicyFruitsGreedy:
    return JuicyFruitsGreedy(config)
