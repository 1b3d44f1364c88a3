"""Named-entity recognition systems under test (token sentences -> entity spans)."""
