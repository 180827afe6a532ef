"""Training and demonstration scripts."""
