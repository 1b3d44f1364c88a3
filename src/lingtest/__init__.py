"""lingtest: testing NLP systems without labelled test sets."""

__version__ = "0.1.0"
