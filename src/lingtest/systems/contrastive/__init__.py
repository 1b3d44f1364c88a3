"""Contrastive MT scorers under test (source, context, candidates -> log-probabilities)."""
