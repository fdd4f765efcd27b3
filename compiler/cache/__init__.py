"""Prompt-cache economics: the stable part cut into cache tiers, the providers' pricing rules, a
simulator that replays a session trace against them, and the diff that says why a tier changed."""
