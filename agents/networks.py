"""Network parts for PPO policies beyond SB3's flat MLP (need the train extra)."""

from __future__ import annotations

import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class RowEncoder(BaseFeaturesExtractor):
    """Blocks of rows in the observation (Quickity Pickity's set rows), each row through one network shared
    by the rows of its block: what is learned of one set holds for every set.

    Each block becomes its rows' mean and max (a summary that no reordering of rows changes) and a few
    features per row kept in place (so an action about row k still sees row k); an all-zero row is an
    absent one and adds nothing. The rest of the observation passes through unchanged. `blocks` lists
    `(start, stop, row_width)`, as `rules.observation_rows` declares them.
    """

    def __init__(self, observation_space, blocks, hidden: int = 64, per_row: int = 4):
        size = int(observation_space.shape[0])
        keep = np.ones(size, dtype=bool)
        dims = 0
        for start, stop, width in blocks:
            if not (0 <= start < stop <= size and (stop - start) % width == 0):
                raise ValueError(f"row block ({start}, {stop}) of width {width} does not fit an observation of {size}")
            keep[start:stop] = False
            dims += 2 * hidden + (stop - start) // width * per_row
        super().__init__(observation_space, features_dim=int(keep.sum()) + dims)
        self.blocks = [tuple(int(v) for v in block) for block in blocks]
        self.register_buffer("rest", torch.as_tensor(np.flatnonzero(keep), dtype=torch.long), persistent=False)
        self.rows = nn.ModuleList(
            nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            for _, _, width in self.blocks
        )
        self.heads = nn.ModuleList(nn.Linear(hidden, per_row) for _ in self.blocks)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        parts = [observations[:, self.rest]]
        for (start, stop, width), net, head in zip(self.blocks, self.rows, self.heads, strict=True):
            rows = observations[:, start:stop].reshape(len(observations), -1, width)
            present = (rows.abs().sum(dim=2, keepdim=True) > 0).to(rows.dtype)
            encoded = net(rows) * present  # ReLU outputs: an absent row's zeros never win the max
            parts += [
                encoded.sum(dim=1) / present.sum(dim=1).clamp(min=1.0),
                encoded.max(dim=1).values,
                (head(encoded) * present).flatten(1),
            ]
        return torch.cat(parts, dim=1)
