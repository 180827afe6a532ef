"""Cherry Picking: simultaneous card choice, then harvest in rulebook order; three sets of rounds."""
