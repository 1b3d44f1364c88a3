"""Text classifiers under test (texts -> label probabilities): sentiment, hate speech."""
