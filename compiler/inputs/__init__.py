"""The input stages: config layers and their schema (YAML or JSON5, every value located), the
per-turn run facts, user variables and provider contributions."""
