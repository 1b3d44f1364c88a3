"""The configured attacks (``contrapro.attacks`` and their blocks): every variant as an
example -> attacked example (or :class:`~lingtest.contrapro.attack.Skip`) function, built once
(:func:`attack_functions`: the spaCy tagger and the German lexicon only when an attack needs them), and
run over the examples: here over all of them (:func:`run_attacks`), or per run of examples by a worker
(:func:`attack_worker`, what ``ctx.map`` builds locally and on each Ray generator actor). Every example
is attacked on its own, so any partition into runs gives the same outcomes once merged
(:func:`~lingtest.contrapro.attack.merge_outcomes`)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from lingtest.contrapro.attack import AttackOutcome, run_attack
from lingtest.contrapro.config import ContraproConfig
from lingtest.data.model import ContrastiveExample
from lingtest.progress import progress

if TYPE_CHECKING:
    from lingtest.contrapro.lexicon import GermanLexicon

log = logging.getLogger(__name__)

AttackFunction = tuple[str, str, Callable[[ContrastiveExample], Any]]


def attack_functions(
    config: ContraproConfig,
    *,
    tagger: Callable[[str], list[tuple[str, str]]] | None = None,
    lexicon: GermanLexicon | None = None,
) -> list[AttackFunction]:
    """(attack, variant, example -> attacked example or Skip) for every configured variant, in
    config order. ``tagger``/``lexicon`` replace the configured spaCy tagger and German lexicon
    (tests); they are built only when an attack that needs them is configured."""
    from lingtest.contrapro import phrase, possessive, synonym

    out: list[AttackFunction] = []
    enabled = list(config.attacks)
    pc = config.phrase
    variants = phrase.resolve_variants(list(pc.variants), pc.custom) if "phrase" in enabled else []
    for v in variants:
        out.append((phrase.ATTACK, v.name, functools.partial(phrase.phrase_addition, variant=v)))
    sc = config.possessive
    possessors = possessive.resolve_possessors(list(sc.possessors), sc.custom) if "possessive" in enabled else []
    if possessors:
        if tagger is None:
            tagger = possessive.spacy_tagger(sc.tagger.model)  # sc.tagger.parser: spacy (the only one)
        patterns = possessive.parse_patterns(list(sc.pos_patterns))
        distances = list(sc.distances)
        for p in possessors:
            out.append((
                possessive.ATTACK,
                p.name,
                functools.partial(possessive.possessive_extension, possessor=p, tagger=tagger, patterns=patterns,
                                  distances=distances),
            ))
    yc = config.synonym
    if "synonym" in enabled:
        if lexicon is None:
            from lingtest.contrapro.lexicon import load_lexicon

            lx = yc.lexicon
            lexicon = load_lexicon(openthesaurus=lx.openthesaurus, ding=lx.ding, german_nouns=lx.german_nouns)
        out.append((
            synonym.ATTACK,
            synonym.VARIANT,
            functools.partial(synonym.synonym_replacement, lexicon=lexicon, sources=list(yc.sources),
                              require_translation=yc.require_translation, distances=list(yc.distances)),
        ))
    return out


def run_attacks(examples: Sequence[ContrastiveExample], functions: Iterable[AttackFunction]) -> list[AttackOutcome]:
    """Every attack variant over every example, one variant after the other: one outcome per variant."""
    out = []
    for attack, variant, fn in functions:
        out.append(run_attack(progress(examples, f"{attack}/{variant}"), attack, variant, fn))
    return out


# cfg: Any (not ContraproConfig): ctx.map hands every builder the whole composed config, plain dicts on a Ray actor
def attack_worker(cfg: Any) -> Callable[[list[ContrastiveExample]], list[AttackOutcome]]:
    """Every configured attack variant, built once (spaCy tagger, German lexicon): a run of examples -> one
    outcome per variant. The ``ctx.map`` builder of the generate stage: ``cfg`` is the whole composed config
    as ``ctx.map`` hands it to every builder (plain dicts on a Ray actor), hence ``Any``; its ``contrapro``
    section is validated here."""
    from lingtest.execution.ray_generate import as_config

    functions = attack_functions(ContraproConfig.from_config(as_config(cfg)))
    return lambda examples: run_attacks(examples, functions)


def attack_runs(examples: Sequence[ContrastiveExample], executor: dict[str, Any],
                workers: int = 1) -> list[list[ContrastiveExample]]:
    """The runs of examples the attacks go over: one consecutive run per forked worker here
    (``executor=local``, ``contrapro.workers``), one per generator actor on Ray (``executor.generation``).
    Their outcomes merged (:func:`~lingtest.contrapro.attack.merge_outcomes`) are those of one run."""
    from lingtest.execution.ray_generate import pool_actors, split_evenly

    if executor["name"] != "ray":
        return split_evenly(examples, workers)
    return split_evenly(examples, pool_actors(executor, "generation"))


def log_outcomes(outcomes: Iterable[AttackOutcome]) -> None:
    for res in outcomes:
        log.info("%s/%s: %d attacked, %d skipped", res.attack, res.variant, len(res.examples), len(res.skipped))
