"""Parsing backends (a registry). A parser takes pre-tokenised sentences and returns
:class:`~lingtest.data.Sentence` objects with POS, lemma, dependencies, NER and a constituency
tree filled in."""

from lingtest.registry import Registry

PARSERS: Registry = Registry("parser")
PARSERS.register_lazy("spacy", "lingtest.parsing.spacy_backend:SpacyParser")
PARSERS.register_lazy("stanza", "lingtest.parsing.stanza_backend:StanzaParser")


def get_parser(name: str, **options):
    """The parser registered as ``name`` built from its config options (``conf/parser``; a missing or
    unknown option is a :class:`~lingtest.errors.ConfigError`)."""
    return PARSERS.build(name, options, where=f"parser {name!r} (conf/parser)")


__all__ = ["PARSERS", "get_parser"]
