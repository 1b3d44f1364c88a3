"""A baseline's follow-ups as CREST's generated records (``paths.crest.generated`` with ``full=True``), so that
CREST's evaluation (:mod:`lingtest.crest.evaluate`: the suite runner with the BLANC oracle, gold grading,
validity) reads them unchanged.

A record holds what CREST's holds: the parsed source and follow-up documents (the follow-up carrying its
gold, :func:`~lingtest.crest.baselines.edits.followup_gold`), ``expected``
(:func:`~lingtest.crest.baselines.edits.edit_expectation`), the provenance ``<baseline>:<recipe>`` and the
meta keys CREST writes (``position``, ``old_token``, ``new_token``, ``n_new_tokens``, ``candidate_source``
(the recipe), ``lm_prob`` (the perturbation's score), ``order``, ``selected`` (always true: a baseline tests
everything it generates), ``gold_clusters``, ``followup_gold_clusters``, ``source_text``,
``followup_text``), plus ``baseline`` and, for a follow-up of several edits, ``edits``.
"""

from __future__ import annotations

from collections.abc import Sequence

from lingtest.crest.baselines.edits import (
    Perturbation,
    apply_edits,
    edit_expectation,
    edits_meta,
    followup_gold,
)
from lingtest.crest.generate import Source
from lingtest.crest.suite import RELATION, TECHNIQUE
from lingtest.data.model import Cluster, Document, Mention, Provenance, Sentence, TestCase, Token


def followup_words(source: Source, perturbation: Perturbation) -> tuple[list[str], list[str]]:
    """The follow-up's words and whitespace."""
    sent = source.sentence
    return apply_edits(sent.words, [t.ws for t in sent.tokens], perturbation.edits)


def followup_sentence(parsed: Sentence, ws: Sequence[str], sentence_id: str) -> Sentence:
    """A copy of the follow-up's parse with the follow-up's own whitespace and id (parses may be shared)."""
    tokens = [Token.from_dict(t.to_dict()) for t in parsed.tokens]
    if len(tokens) != len(ws):
        raise ValueError(f"parse of {len(tokens)} tokens for a follow-up of {len(ws)}")
    for t, w in zip(tokens, ws, strict=True):
        t.ws = w
    return Sentence(tokens, tree=parsed.tree, id=sentence_id)


def make_case(baseline: str, source: Source, order: int, perturbation: Perturbation,
              parsed: Sentence) -> TestCase:
    """The record of follow-up ``order`` of ``source`` (``parsed``: the parse of its words)."""
    sent = source.sentence
    words = sent.words
    edits = perturbation.ordered
    _, ws = followup_words(source, perturbation)
    fid = f"{source.id}#{order}"
    fsent = followup_sentence(parsed, ws, fid)
    gold_fu = followup_gold(source.gold, len(words), edits)
    fdoc = Document(id=fid, sentences=[fsent], clusters=[Cluster([Mention(s, e) for s, e in c]) for c in gold_fu],
                    meta={"source": source.id})
    first = edits[0]
    meta = {
        "position": first.position,
        "old_token": words[first.position],
        "new_token": first.text,
        "n_new_tokens": first.n_new,
        "candidate_source": perturbation.recipe,
        "lm_prob": None if perturbation.score is None else round(float(perturbation.score), 6),
        "order": order,
        "selected": True,
        "gold_clusters": [[list(m) for m in c] for c in source.gold],
        "followup_gold_clusters": [[list(m) for m in c] for c in gold_fu],
        "source_text": sent.text,
        "followup_text": fsent.text,
        "baseline": baseline,
    }
    params = {"position": first.position, "old": words[first.position], "new": first.text}
    if len(edits) > 1:
        meta["edits"] = edits_meta(words, edits)
        params["edits"] = meta["edits"]
    return TestCase(
        technique=TECHNIQUE,
        relation=RELATION,
        source=source.doc.to_dict(),
        followup=fdoc.to_dict(),
        expected=edit_expectation(edits, len(words)),
        provenance=Provenance(seed_id=source.id, transformation=f"{baseline}:{perturbation.recipe}", params=params),
        meta=meta,
    )
