"""Inputs: config layers and their schema, YAML with locations, and the per-turn run facts."""
