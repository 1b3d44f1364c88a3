"""Metrics (a registry): coreference scores, and the technique-level metrics added by each
technique (Self-BLEU, coverage, ...)."""

from lingtest.registry import Registry

METRICS: Registry = Registry("metric")
for _name in ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea"):
    METRICS.register_lazy(_name, f"lingtest.metrics.coref:{_name}")
METRICS.register_lazy("conll_f1", "lingtest.metrics.coref:conll_f1")
METRICS.register_lazy("ner", "lingtest.metrics.ner:score_ner")

__all__ = ["METRICS"]
