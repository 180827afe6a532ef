"""Fruit Picking: sow seeds round a farm of cards, water or buy market cards, complete a set."""
