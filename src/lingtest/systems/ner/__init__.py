"""Named-entity recognition systems under test (token sentences -> entity spans in each system's own
label scheme; :mod:`.labels` maps schemes onto CoNLL-2003's for grading).

- :mod:`.spacy_ner`: spaCy ``en_core_web_sm`` / ``en_core_web_md`` (OntoNotes scheme), offline
- :mod:`.transformer`: any Hugging Face token-classification model, and ``minilm_ner``, the MiniLM
  fine-tuned on CoNLL-2003 by :mod:`lingtest.tin.train_ner` (CoNLL scheme), offline
- :mod:`.flair_adapter`: flair's large CoNLL and OntoNotes taggers (hub)
- :mod:`.azure`, :mod:`.aws`: Azure AI Language and Amazon Comprehend entity recognition (cloud)
- :mod:`.spans`, :mod:`.cloud`: the pure span conversions they share
"""

from lingtest.registry import Registry

TASK = "ner"

#: the ner systems (one line each; ``lingtest.systems.SYSTEMS`` reads this registry)
SYSTEMS: Registry = Registry("ner system")
SYSTEMS.register_lazy("spacy_ner", "lingtest.systems.ner.spacy_ner:SpacyNERSystem")
SYSTEMS.register_lazy("minilm_ner", "lingtest.systems.ner.transformer:MiniLMNERSystem")
SYSTEMS.register_lazy("hf_token_classification", "lingtest.systems.ner.transformer:HFTokenClassificationSystem")
SYSTEMS.register_lazy("flair", "lingtest.systems.ner.flair_adapter:FlairNERSystem")
SYSTEMS.register_lazy("azure_ner", "lingtest.systems.ner.azure:AzureNERSystem")
SYSTEMS.register_lazy("aws_comprehend", "lingtest.systems.ner.aws:AWSComprehendNERSystem")

__all__ = ["SYSTEMS", "TASK"]
