"""Offline lexicon-based classifiers under test: VADER and TextBlob (sentiment) and
alt-profanity-check (offensive language, standing in for a hate-speech detector offline).

* :class:`VaderClassifier` (``vaderSentiment``): the compound score ``c`` in [-1, 1] as
  p(positive) = (c + 1)/2, three classes by VADER's own rule "c >= t positive, c <= -t negative,
  else neutral" (``neutral_compound`` = t; 0.05 in VADER's README), i.e. an exclusive neutral band
  of width t around ½ (:func:`~lingtest.systems.classification.labels.three_class`).
* :class:`TextBlobClassifier` (``textblob``, its default pattern analyser): the polarity in [-1, 1]
  the same way; ``neutral_polarity`` = t, an inclusive band (t = 0: exactly polarity 0 is neutral,
  the usual reading of TextBlob, whose polarity is 0 when no lexicon word is found).
* :class:`ProfanityClassifier` (``alt-profanity-check``, a linear SVM over a bag of words):
  ``{profane_label: p, clean_label: 1 - p}`` with p its calibrated probability of profanity.
"""

from __future__ import annotations

from typing import Any

from lingtest.errors import ConfigError, MissingResourceError
from lingtest.systems.classification.base import Classifier, Probabilities
from lingtest.systems.classification.labels import check_margin, three_class

__all__ = ["ProfanityClassifier", "TextBlobClassifier", "VaderClassifier", "polarity_probabilities"]


def polarity_probabilities(score: float, margin: float, inclusive: bool) -> Probabilities:
    """Three-class probabilities of a polarity score in [-1, 1] (clipped), as p(positive) = (s + 1)/2."""
    p = min(1.0, max(0.0, (float(score) + 1.0) / 2.0))
    return three_class(p, margin, inclusive)


class VaderClassifier(Classifier):
    """VADER (Hutto & Gilbert 2014). ``neutral_compound``: |compound| below it is neutral."""

    name = "vader"
    version = "1"

    def __init__(self, *, neutral_compound: float) -> None:
        # a band of compound half-width t is a band of width t in p = (c + 1)/2
        self.neutral_compound = check_margin(neutral_compound, False, "vader.neutral_compound")
        self._analyzer: Any = None

    def config(self) -> dict[str, Any]:
        from importlib.metadata import version

        return {"neutral_compound": self.neutral_compound, "vaderSentiment": version("vaderSentiment")}

    def predict(self, inputs: list[str]) -> list[Probabilities]:
        if self._analyzer is None:
            try:
                from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
            except ImportError as exc:
                raise MissingResourceError("VADER is not installed: pip install vaderSentiment") from exc
            self._analyzer = SentimentIntensityAnalyzer()
        return [polarity_probabilities(self._analyzer.polarity_scores(t)["compound"], self.neutral_compound,
                                       inclusive=False) for t in inputs]


class TextBlobClassifier(Classifier):
    """TextBlob's pattern sentiment analyser. ``neutral_polarity``: |polarity| up to it is neutral."""

    name = "textblob"
    version = "1"

    def __init__(self, *, neutral_polarity: float) -> None:
        self.neutral_polarity = check_margin(neutral_polarity, True, "textblob.neutral_polarity")

    def config(self) -> dict[str, Any]:
        from importlib.metadata import version

        return {"neutral_polarity": self.neutral_polarity, "textblob": version("textblob")}

    def predict(self, inputs: list[str]) -> list[Probabilities]:
        try:
            from textblob import TextBlob
        except ImportError as exc:
            raise MissingResourceError("TextBlob is not installed: pip install textblob") from exc
        return [polarity_probabilities(TextBlob(t).sentiment.polarity, self.neutral_polarity, inclusive=True)
                for t in inputs]


class ProfanityClassifier(Classifier):
    """alt-profanity-check. ``profane_label`` / ``clean_label``: the task labels of its two classes
    (for hate speech: ``hate`` / ``non-hate``)."""

    name = "profanity_check"
    version = "1"

    def __init__(self, *, profane_label: str, clean_label: str) -> None:
        if not profane_label or not clean_label or profane_label == clean_label:
            raise ConfigError(f"profanity_check: profane_label and clean_label must be two different labels, "
                              f"got {profane_label!r} and {clean_label!r}")
        self.profane_label = str(profane_label)
        self.clean_label = str(clean_label)

    def config(self) -> dict[str, Any]:
        from importlib.metadata import version

        return {"profane_label": self.profane_label, "clean_label": self.clean_label,
                "alt-profanity-check": version("alt-profanity-check")}

    def predict(self, inputs: list[str]) -> list[Probabilities]:
        if not inputs:
            return []
        try:
            from profanity_check import predict_prob
        except ImportError as exc:
            raise MissingResourceError("alt-profanity-check is not installed: pip install alt-profanity-check") \
                from exc
        probs = [min(1.0, max(0.0, float(p))) for p in predict_prob(list(inputs))]
        return [{self.profane_label: p, self.clean_label: 1.0 - p} for p in probs]
