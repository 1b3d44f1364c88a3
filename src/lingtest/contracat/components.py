"""ContraCAT's inputs built from the configuration (``cfg.contracat``, :class:`ContracatConfig`): the
vocabulary with the configured new nouns, the definitions of the configured templates, and the German
dictionaries' noun genders the examples are checked against. Only the generate stage builds them."""

from __future__ import annotations

import logging
from collections.abc import Callable

from lingtest.contracat.config import ContracatConfig
from lingtest.contracat.generate import TemplateDef
from lingtest.contracat.vocabulary import Vocabulary, load_vocabulary, nouns_from_ding, nouns_from_tsv, with_nouns
from lingtest.errors import ConfigError
from lingtest.paths import repo_path

log = logging.getLogger(__name__)


def build_vocabulary(config: ContracatConfig) -> Vocabulary:
    """The configured vocabulary (``contracat.vocabulary``) with ``extra_nouns`` added (a TSV list and/or
    English nouns looked up in the Ding dictionary)."""
    voc = load_vocabulary(repo_path(config.vocabulary))
    extra = config.extra_nouns
    cls = extra.noun_class
    if extra.tsv:
        voc = with_nouns(voc, cls, nouns_from_tsv(repo_path(extra.tsv)))
    if extra.ding_english:
        from lingtest.contrapro.lexicon import load_lexicon
        from lingtest.readers.textio import read_lines

        english = [ln.strip() for ln in read_lines(repo_path(extra.ding_english)) if ln.strip()]
        lexicon = load_lexicon(openthesaurus=None, ding=repo_path(extra.ding), german_nouns=False)
        found = nouns_from_ding(lexicon, english)
        log.info("Ding: %d of %d English nouns found with a German noun of one gender", len(found), len(english))
        voc = with_nouns(voc, cls, found)
    return voc


def template_defs(config: ContracatConfig) -> list[TemplateDef]:
    """The definitions of ``contracat.templates``, in that order: one of ``contracat.custom`` (it overrides
    a release template of that name) or one of the release's
    (:data:`lingtest.contracat.definitions.RELEASE`). An unknown name is a :class:`ConfigError`."""
    from lingtest.contracat.definitions import RELEASE

    custom = config.custom
    out = []
    for name in config.templates:
        if name in custom:
            out.append(TemplateDef.from_dict(name, custom[name]))
        elif name in RELEASE:
            out.append(TemplateDef.from_dict(name, RELEASE[name]))
        else:
            raise ConfigError(f"contracat.templates: unknown template {name!r}; release: {', '.join(RELEASE)}"
                              + (f"; custom: {', '.join(custom)}" if custom else ""))
    return out


def attested_genders(config: ContracatConfig) -> Callable[[str], frozenset[str]]:
    """German noun -> the genders the configured dictionaries give it (``contracat.validity``; empty for a
    noun they do not know): the check of :mod:`lingtest.contracat.validity`."""
    from lingtest.contrapro.lexicon import load_lexicon

    v = config.validity
    lexicon = load_lexicon(openthesaurus=None, ding=repo_path(v.ding), german_nouns=v.german_nouns)
    genders = {noun: frozenset(votes) for noun, votes in lexicon.genders.items()}
    return lambda noun: genders.get(noun, frozenset())
