"""Text classifiers under test (texts -> label probabilities): sentiment, hate speech."""

from lingtest.registry import Registry

TASK = "classification"

#: the classification systems (one line each; ``lingtest.systems.SYSTEMS`` reads this registry)
SYSTEMS: Registry = Registry("classification system")

__all__ = ["SYSTEMS", "TASK"]
