"""Quickity Pickity: a real-time flip-and-take race, modelled as simultaneous ticks."""
