"""Prompt-cache economics: the providers' pricing rules, a simulator that replays a session trace
against them, and the diff that says why a cache tier changed."""
