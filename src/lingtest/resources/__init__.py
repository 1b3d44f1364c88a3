"""Lexical and model resources (registries with offline defaults and hub alternatives):
WordNet and SentiWordNet through NLTK, sentence embedders, language-model scorers, devices."""

from lingtest.registry import Registry

EMBEDDERS: Registry = Registry("sentence embedder")
EMBEDDERS.register_lazy("sentence_transformers", "lingtest.resources.embeddings:SentenceTransformerEmbedder")

LM_SCORERS: Registry = Registry("language-model scorer")
LM_SCORERS.register_lazy("causal", "lingtest.resources.lm:CausalLMScorer")
LM_SCORERS.register_lazy("masked", "lingtest.resources.lm:MaskedLMScorer")

__all__ = ["EMBEDDERS", "LM_SCORERS"]
