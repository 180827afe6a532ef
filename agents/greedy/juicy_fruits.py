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

from fruit_envs.agents.base import argmax_legal
from fruit_envs.agents.greedy import columns, own_part
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
EDGE_DISTANCE = np.array([min(c // 5, c % 5, 4 - c // 5, 4 - c % 5) for c in range(G.N_CELLS)], dtype=np.float64)


def _channel_starts() -> dict[str, int]:
    out, k = {}, 0
    for name, size in R.CHANNELS:
        out[name] = k
        k += size
    return out


CH = _channel_starts()


class JuicyFruitsGreedy:
    name = "greedy"

    def __init__(self, config):
        self.config = config
        self.factory = R.has_factory(config)
        layout, p = R.observation_layout(config), config.num_players
        ships, width = own_part(layout["ships"], p), R.N_SHIP_FEATURES  # own ships: a row of features each
        blocks = ("phase", "board", "stacks", "pending_cell", "pending_token", "pending_rotation")
        self.obs_columns = {  # what the heuristic reads, by name: one column (int) or several
            **{name: layout[name] for name in blocks},
            "final_round": layout["final_round"].start,
            "pending_amount": layout["pending_amount"].start,
            "fruit": own_part(layout["fruit"], p),  # own reserve
            "island": own_part(layout["islands"], p),  # own island: channel-major planes of its cells
            "ship_present": columns(ships, R.SHIP_COLUMNS["present"].start, width),  # (12,)
            "ship_cost": columns(ships, R.SHIP_COLUMNS["cost"], width),  # (12, 5)
            "ship_points": columns(ships, R.SHIP_COLUMNS["points"].start, width),  # (12,)
        }
        self.token_worth = TOKEN_WORTH.copy()
        if self.factory:
            self.obs_columns["discs"] = own_part(layout["factory_discs"], p)  # own discs per factory node
            self.obs_columns["pending_arrow"] = layout["pending_arrow"]
            self.token_worth[C.LEMONADE] = LEMONADE_WORTH

    # -- reading the observation -------------------------------------------------------------------

    def _read(self, obs: np.ndarray) -> dict:
        col, b = self.obs_columns, len(obs)
        planes = obs[:, col["island"]].reshape(b, R.N_CHANNELS, G.N_CELLS)
        board = obs[:, col["board"]].reshape(b, R.N_SLOTS, C.N_TOKENS)
        return {
            "phase": obs[:, col["phase"]].argmax(axis=1),
            "final_round": obs[:, col["final_round"]] > 0.5,
            "fruit": np.rint(obs[:, col["fruit"]] * 10).astype(np.int64),
            "planes": planes,
            "free": planes[:, CH["empty"]] > 0.5,
            "ship_present": obs[:, col["ship_present"]] > 0.5,
            "ship_cost": np.rint(obs[:, col["ship_cost"]] * 3).astype(np.int64),
            "ship_points": obs[:, col["ship_points"]] * 4,
            "board_token": np.where(board.any(axis=2), board.argmax(axis=2), -1),  # (B, 20)
            "stacks": np.rint(obs[:, col["stacks"]] * C.STACK_SIZE).astype(np.int64),
            "pending_cell": np.where(
                obs[:, col["pending_cell"]].any(axis=1), obs[:, col["pending_cell"]].argmax(axis=1), 0
            ),
            "pending_token": np.where(
                obs[:, col["pending_token"]].any(axis=1), obs[:, col["pending_token"]].argmax(axis=1), 0
            ),
            "rotation": obs[:, col["pending_rotation"]].argmax(axis=1),
            "amount": np.rint(obs[:, col["pending_amount"]] * R.MAX_SPLIT).astype(np.int64),
        }

    def _fruit_weights(self, v: dict) -> np.ndarray:
        """`(B, 5)` worth of one more fruit of each type: what the best target lacks counts most."""
        have = v["fruit"][:, None, :]
        ship_cost = np.where(v["ship_present"][:, :, None], v["ship_cost"], 0)
        ship_value = np.where(v["ship_present"], v["ship_points"] + 0.5, 0)
        tokens = v["board_token"]
        room = G.shapes_fit(G.bits(v["free"]))  # (B, 5): shapes that still fit on the island
        fits = np.take_along_axis(room, C.TOKEN_SHAPE[np.maximum(tokens, 0)].astype(np.int64), axis=1)
        worth = np.where((tokens >= 0) & fits, self.token_worth[np.maximum(tokens, 0)], -np.inf)
        token_worth = worth.reshape(-1, C.N_ROWS, C.ROW_SLOTS).max(axis=2)
        row_value = np.where(np.isfinite(token_worth), np.maximum(C.ROW_POINTS + token_worth, 0.1), 0)  # (B, 5)
        row_cost = np.where((row_value > 0)[:, :, None], C.ROW_COST[None], 0)
        cost = np.concatenate([ship_cost, row_cost], axis=1)  # (B, 17, 5)
        value = np.concatenate([ship_value, row_value], axis=1)
        missing = np.maximum(cost - have, 0)
        rate = np.where(value > 0, value / (1.0 + missing.sum(axis=2)), -1.0)
        best = rate.argmax(axis=1)
        lacking = missing[np.arange(len(best)), best] > 0
        demand = (cost * (value > 0)[:, :, None]).sum(axis=1)
        share = np.maximum(demand - v["fruit"], 0) / (1.0 + np.maximum(demand - v["fruit"], 0).sum(1, keepdims=True))
        return 1.0 + 3.0 * lacking + 2.0 * share

    @staticmethod
    def _runs(free: np.ndarray) -> np.ndarray:
        """`(B, 25, 4)` free cells in a straight line from each cell in each direction."""
        pad = np.concatenate([free, np.zeros((len(free), 1), dtype=bool)], axis=1)
        run = pad[:, G.RAYS[:, :, 0]]  # still free after k steps (a running AND; accumulate is ~5x slower)
        total = run.astype(np.int8)
        for k in range(1, G.RAYS.shape[2]):
            run = run & pad[:, G.RAYS[:, :, k]]
            total += run
        return total

    def _cart_value(self, v: dict, colour: np.ndarray, spaces: np.ndarray) -> np.ndarray:
        """Points an ice cream cart of `colour (B, K)` could produce over `spaces (B, K)` with today's fruit."""
        fruit, stacks = v["fruit"], v["stacks"]
        ice_count = np.zeros((len(fruit), len(C.COLOURS)), dtype=np.int64)
        ice_value = np.zeros(len(C.COLOURS))
        for k in range(len(C.COLOURS)):
            stack = np.flatnonzero(C.STACK_COLOUR == k)
            cost = C.STACK_COST[stack[0]]
            payable = (fruit[:, cost > 0] // cost[cost > 0]).min(axis=1)
            ice_count[:, k] = np.minimum(payable, stacks[:, stack].sum(axis=1))
            ice_value[k] = C.STACK_VALUE[stack].mean()
        shakes = np.minimum((fruit // C.MILKSHAKE_FRUITS).sum(axis=1), stacks[:, C.MILKSHAKE])  # (B,)
        c = np.maximum(colour, 0)
        n_ice = np.minimum(spaces, np.take_along_axis(ice_count, c, axis=1))
        n_shake = np.minimum(spaces - n_ice, shakes[:, None])
        return n_ice * ice_value[c] + n_shake * 3.0 - FRUIT_CHARGE * 2 * (n_ice + n_shake)

    # -- decisions --------------------------------------------------------------------------------

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask, dtype=bool), rng)

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` the heuristic's worth of each action (higher is better; only legal entries count):
        `act` plays the best, ties broken at random; the search agent keeps the best few as candidates."""
        mask = np.asarray(mask, dtype=bool)
        v = self._read(np.asarray(obs, dtype=np.float32))
        b = len(obs)
        scores = np.zeros(mask.shape, dtype=np.float64)
        weights = self._fruit_weights(v)  # (B, 5)
        charge = np.where(v["final_round"], 0.0, FRUIT_CHARGE)[:, None]  # leftover fruit scores nothing
        runs = self._runs(v["free"])  # (B, 25, 4)
        longest = runs.max(axis=2)  # (B, 25)
        planes = v["planes"]
        rows = np.arange(b)

        # step 1, which token: collectors by weighted fruit, advanced collectors (d + 1) fruits, carts points
        collector = planes[:, CH["collector"] : CH["collector"] + C.N_FRUITS] > 0.5  # (B, 5, 25)
        gain = (collector * weights[:, :, None]).sum(axis=1) * longest
        adv = planes[:, CH["advanced_collector"] : CH["advanced_collector"] + C.N_FRUITS] > 0.5
        adv_weight = np.where(adv, weights[:, :, None], 0).max(axis=1)
        gain = gain + adv_weight * (longest + 1)
        cart = planes[:, CH["cart"] : CH["cart"] + len(C.COLOURS)] > 0.5  # (B, 3, 25)
        colour = np.where(cart.any(axis=1), cart.argmax(axis=1), -1)
        gain = np.where(colour >= 0, self._cart_value(v, colour, longest), gain)
        select = v["phase"] == R.MOVE_TOKEN
        scores[select, R.CELL : R.CLAIM] = gain[select]

        # step 1, where to: as far as possible
        moving = v["phase"] == R.MOVE_TO
        scores[moving, R.CELL : R.CLAIM] = G.DISTANCE[v["pending_cell"][moving]]

        # advanced collector fruit: all of the more useful type
        split = (v["phase"] == R.HARVEST_SPLIT) | (v["phase"] == R.CLAIM_FRUIT)
        pair = C.TOKEN_FRUITS[v["pending_token"]].astype(np.int64)  # (B, 2)
        first_better = weights[rows, pair[:, 0]] >= weights[rows, pair[:, 1]]
        k = np.arange(R.MAX_SPLIT + 1)[None, :]
        scores[split, R.SPLIT : R.PRODUCE] = np.where(first_better[:, None], k, -k)[split]

        # ice cream: the most valuable marker; milkshakes paid with the least useful fruit
        produce = v["phase"] == R.PRODUCE_PHASE
        scores[produce, R.PRODUCE : R.MILKSHAKE] = C.STACK_VALUE[: C.N_ICE_CREAM_STACKS]
        scores[produce, R.MILKSHAKE :] = C.STACK_VALUE[C.MILKSHAKE] - 0.1 * weights[produce]
        scores[produce, R.PASS] = 0.0

        # step 2: supply, claim or pass
        business = v["phase"] == R.SUPPLY_OR_CLAIM
        ship_gain = v["ship_points"] + 0.5 - charge * v["ship_cost"].sum(axis=2)  # (B, 12)
        scores[business[:, None] & (np.arange(R.NUM_ACTIONS) < R.CLAIM)[None, :]] = 0.0
        beach_scores = scores[:, R.CELL + G.BEACH_CELLS]
        beach_scores[business] = ship_gain[business]
        scores[:, R.CELL + G.BEACH_CELLS] = beach_scores
        tokens = v["board_token"]
        row_of_slot = np.arange(R.N_SLOTS) // C.ROW_SLOTS
        claim_gain = (
            C.ROW_POINTS[row_of_slot]
            + self.token_worth[np.maximum(tokens, 0)]
            - charge * C.ROW_COST.sum(axis=1)[row_of_slot]
        )
        scores[business, R.CLAIM : R.PASS] = claim_gain[business]
        scores[business, R.PASS] = 0.0

        # placement: stationary tokens out of the way, mobile ones on long free runs
        place = (v["phase"] == R.PLACE) | (v["phase"] == R.ROTATE_PHASE)
        if place.any():
            self._placement_scores(v, scores, place)

        # step 3: advance a factory disc when what it earns beats the fruit it costs
        if self.factory:
            factory = v["phase"] == R.FACTORY
            if factory.any():
                self._factory_scores(obs, v, weights, charge, scores, factory)
        return scores

    def _factory_scores(self, obs, v, weights, charge, scores, factory) -> None:
        col = self.obs_columns
        own = np.rint(obs[factory][:, col["discs"]] * C.FACTORY_DISCS)  # (m, 12)
        onto_own = own[:, C.ARROW_TO] > 0  # (m, 14)
        pending = obs[factory][:, col["pending_arrow"]] > 0.5  # the free ride, if any
        planes = v["planes"][factory]
        lemonade = planes[:, CH["stall"] + C.STALL_LEMONADE].any(axis=1)  # (m,)
        gain = np.where(onto_own, 0.0, C.NODE_POINTS[C.ARROW_TO]) + FACTORY_PROGRESS
        gain = gain + lemonade[:, None] * (C.NODE_BOTTLE[C.ARROW_TO] - C.NODE_BOTTLE[C.ARROW_FROM])
        cost = (C.ARROW_COST[None, :, :] * weights[factory][:, None, :]).sum(axis=2) * charge[factory]
        value = gain - np.where(pending, 0.0, cost)
        scores[factory, R.ARROW : R.ARROW + C.N_ARROWS] = value
        scores[factory, R.PASS] = 0.0

    def _placement_scores(self, v, scores, place) -> None:
        """Rotation and anchor scores: the placement that leaves the own movers the most room."""
        planes = v["planes"][place]
        m = len(planes)
        movers = planes[:, CH["collector"] : CH["collector"] + C.N_FRUITS].sum(axis=1) > 0.5
        movers |= planes[:, CH["advanced_collector"] : CH["cart"] + len(C.COLOURS)].sum(axis=1) > 0.5  # (m, 25)
        token = v["pending_token"][place]
        shape = C.TOKEN_SHAPE[token].astype(np.int64)
        table = G.PLACEMENT_BITS[shape].reshape(m, -1)  # (m, 100) every rotation and anchor
        free_bits = G.bits(v["free"][place])
        fits = (free_bits[:, None] & table) == table
        after = (free_bits[:, None] & ~table)[:, :, None] & G.CELL_BIT[None, None, :]  # (m, 100, 25)
        runs = self._runs((after != 0).reshape(-1, G.N_CELLS)).reshape(m, -1, G.N_CELLS, 4)
        longest = runs.max(axis=3)  # (m, 100, 25)
        room = (np.minimum(longest, 2) * movers[:, None, :]).sum(axis=2)  # movers that can still go somewhere
        room = room + 0.1 * (longest * movers[:, None, :]).sum(axis=2)
        anchor = np.tile(np.arange(G.N_CELLS), G.MAX_ROTATIONS)[None, :]
        own_run = np.take_along_axis(longest, anchor[:, :, None].repeat(m, axis=0), axis=2)[:, :, 0]
        value = room + np.where(C.IS_MOBILE[token][:, None], 0.5 * own_run, 0.0)
        value = np.where(fits, value, -1e9).reshape(m, G.MAX_ROTATIONS, G.N_CELLS)
        sub = scores[place]
        rotating = v["phase"][place] == R.ROTATE_PHASE
        sub[rotating, R.ROTATE : R.SPLIT] = value[rotating].max(axis=2)
        rotation = v["rotation"][place]
        sub[~rotating, R.CELL : R.CLAIM] = value[np.arange(m), rotation][~rotating]
        scores[place] = sub

    def __repr__(self) -> str:
        return f"JuicyFruitsGreedy(num_players={self.config.num_players})"


def make(config) -> JuicyFruitsGreedy:
    return JuicyFruitsGreedy(config)
