"""The registry of readers: format name -> ``"module:function"``, imported on first use
(:data:`READERS`, re-exported by :mod:`lingtest.readers`, whose docstring says how to read a file)."""

from lingtest.registry import Registry

__all__ = ["READERS"]

READERS: Registry = Registry("reader")

# coreference formats
READERS.register_lazy("conll2012", "lingtest.readers.coref.conll2012:read_conll2012")
READERS.register_lazy("ontogum", "lingtest.readers.coref.ontogum:read_ontogum")
READERS.register_lazy("conll_coref", "lingtest.readers.coref.generic:read_conll_coref")
READERS.register_lazy("jsonlines", "lingtest.readers.coref.jsonlines:read_jsonlines")
# NER
READERS.register_lazy("conll2003", "lingtest.readers.conll2003:read_conll2003")
# sentiment
READERS.register_lazy("sst_ptb", "lingtest.readers.sst:read_sst_ptb")
READERS.register_lazy("sst_lines", "lingtest.readers.sst:read_sst_lines")
# hate speech
READERS.register_lazy("hatexplain_json", "lingtest.readers.hatexplain:read_hatexplain_json")
READERS.register_lazy("hatexplain_csv", "lingtest.readers.hatexplain:read_hatexplain_csv")
READERS.register_lazy("hatecheck", "lingtest.readers.hatecheck:read_hatecheck")
# translation
READERS.register_lazy("contrapro_json", "lingtest.readers.contrapro:read_contrapro_json")
READERS.register_lazy("contrapro_grouped", "lingtest.readers.contrapro:read_contrapro_grouped")
READERS.register_lazy("contracat", "lingtest.readers.contracat:read_contracat")
# capability suites
READERS.register_lazy("checklist", "lingtest.readers.checklist:read_checklist")
# treebanks
READERS.register_lazy("ptb", "lingtest.readers.treebank:read_ptb")
READERS.register_lazy("conllu", "lingtest.readers.conllu:read_conllu")
READERS.register_lazy("ptb_sample", "lingtest.readers.treebank:read_ptb_sample")


# canonical hub copies saved by the download stage (datasets.save_to_disk folders)
READERS.register_lazy("hf_conll2012", "lingtest.readers.hf:read_hf_conll2012")
READERS.register_lazy("hf_conll2003", "lingtest.readers.hf:read_hf_conll2003")
