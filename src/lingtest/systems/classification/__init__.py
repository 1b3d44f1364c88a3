"""Text classifiers under test (texts -> label probabilities): sentiment, hate speech."""

from lingtest.registry import Registry

TASK = "classification"

#: the classification systems (one line each; ``lingtest.systems.SYSTEMS`` reads this registry)
SYSTEMS: Registry = Registry("classification system")
SYSTEMS.register_lazy("hf_text_classification", "lingtest.systems.classification.transformer:HFTextClassifier")
SYSTEMS.register_lazy("finetuned_classifier", "lingtest.systems.classification.transformer:FineTunedClassifier")
SYSTEMS.register_lazy("vader", "lingtest.systems.classification.lexicon:VaderClassifier")
SYSTEMS.register_lazy("textblob", "lingtest.systems.classification.lexicon:TextBlobClassifier")
SYSTEMS.register_lazy("profanity_check", "lingtest.systems.classification.lexicon:ProfanityClassifier")

__all__ = ["SYSTEMS", "TASK"]
