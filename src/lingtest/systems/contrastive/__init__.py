"""Contrastive MT scorers under test (source, context, candidates -> log-probabilities)."""

from lingtest.registry import Registry

TASK = "contrastive"

#: the contrastive systems (one line each; ``lingtest.systems.SYSTEMS`` reads this registry)
SYSTEMS: Registry = Registry("contrastive system")
SYSTEMS.register_lazy("hf_seq2seq", "lingtest.systems.contrastive.hf_seq2seq:HFSeq2SeqScorer")
SYSTEMS.register_lazy("causal_lm", "lingtest.systems.contrastive.causal_lm:CausalLMContrastiveScorer")
SYSTEMS.register_lazy("scores_file", "lingtest.systems.contrastive.scores_file:ScoresFile")

__all__ = ["SYSTEMS", "TASK"]
