"""Juicy Fruits score attack: our own single-player mode on the Juicy Fruits rules (see `rules`)."""
