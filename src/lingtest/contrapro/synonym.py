"""Synonym replacement (attack 3): the German antecedent head is replaced by a German synonym of
another gender (``der Vorhang`` -> ``die Gardine``), the determiner before it re-declined for the new
gender in the same case and number, and the reference switched to the candidate whose pronoun has the
new gender (``Er geht hoch`` -> ``Sie geht hoch``). The English side is unchanged.

The paper maps the English head's first WordNet synset to GermaNet, which is not freely available.
Offline, lingtest draws synonyms from OpenThesaurus (synonym sets of the German head lemma) and/or the
Ding dictionary (German nouns translating the English head), genders from Ding and german-nouns
(:mod:`lingtest.contrapro.lexicon`); ``require_translation`` keeps only synonyms that Ding also gives
as a translation of the English head, the offline stand-in for the paper's sense mapping (the English
sentence stays a faithful source). Candidates that translate the English head come first.

As in the release (``scripts/adversarial_ContraPro/synonym_replacement.py``) the antecedent must be at
distance 0 or 1 with a noun head, and the word directly before the head must be a determiner (here also a
preposition-article contraction such as ``zum``, re-contracted for the new article: ``zur``). The case
comes from ``ref ante head morpho``; where it says ``_`` the determiner's own form decides, and an
ambiguous one (``die`` of a feminine noun becoming masculine: ``der`` or ``den``) is skipped rather
than guessed (the release guessed from a German dependency parse). The new noun is inflected for the
case and number (german-nouns' forms; else the lemma, ``-s`` in the masculine/neuter genitive).
Adjectives between determiner and head are not re-inflected: such examples are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lingtest.contrapro.attack import Skip, example_texts, finish, german_sides, splice, tokens, with_texts
from lingtest.contrapro.german import (
    GENDER_NAMES,
    Morph,
    decline_noun_default,
    join_contraction,
    parse_determiner,
    parse_morpho,
    redecline,
    split_contraction,
)
from lingtest.contrapro.lexicon import GermanLexicon, is_noun_word
from lingtest.contrapro.metadata import ante_distance, candidate_genders, field_str
from lingtest.data.model import ContrastiveExample
from lingtest.errors import ConfigError
from lingtest.readers.contrapro import pronoun_diff

ATTACK = "synonym"
VARIANT = "synonym"
SOURCES = ("openthesaurus", "ding")
GENDER_LONG = {"m": "Masc", "f": "Fem", "n": "Neut"}


@dataclass(frozen=True, slots=True)
class Synonym:
    noun: str
    gender: str
    source: str
    translates: bool


def synonym_candidates(
    lemma: str,
    en_head: str | None,
    old_gender: str,
    lexicon: GermanLexicon,
    *,
    sources: Sequence[str],
    require_translation: bool,
) -> list[Synonym]:
    """Replacement nouns for ``lemma``: from the ``sources`` in order, one capitalised word of a known
    gender other than ``old_gender``; those Ding gives as a translation of ``en_head`` first (only
    those with ``require_translation``)."""
    pool: list[tuple[str, str]] = []
    for src in sources:
        if src == "openthesaurus":
            found = lexicon.synonyms(lemma)
        elif src == "ding":
            found = lexicon.nouns_translating(en_head) if en_head else []
        else:
            raise ConfigError(f"unknown synonym source {src!r}; known: {', '.join(SOURCES)}")
        pool.extend((w, src) for w in found)
    out: list[Synonym] = []
    seen = {lemma.lower()}
    for w, src in pool:
        if w.lower() in seen or not is_noun_word(w):
            continue
        seen.add(w.lower())
        g = lexicon.gender(w)
        if g is None or g == old_gender:
            continue
        translates = bool(en_head) and en_head.lower() in lexicon.translations_of(w)  # type: ignore[union-attr]
        if require_translation and not translates:
            continue
        out.append(Synonym(w, g, src, translates))
    out.sort(key=lambda s: not s.translates)
    return out


def noun_form(
    lexicon: GermanLexicon, lemma: str, gender: str, cases: Sequence[str], number: str
) -> str | None:
    """The form of ``lemma`` for the case(s) (they must agree) and number."""
    forms = {
        lexicon.form(lemma, gender, c, number) or decline_noun_default(lemma, gender, c, number)
        for c in cases
    }
    return forms.pop() if len(forms) == 1 and None not in forms else None


def replace_head(
    text: str, head: str, morph: Morph, synonym: Synonym, lexicon: GermanLexicon
) -> tuple[str, dict[str, str]] | str:
    """``text`` with ``determiner head`` re-declined and replaced (first occurrence of ``head``), and
    what changed; a string is the reason it cannot be done."""
    toks = tokens(text)
    at = next((i for i, t in enumerate(toks) if t.text == head), None)
    if at is None:
        return f"head not found: {head}"
    if at == 0:
        return f"no determiner before the head: {head}"
    prev = toks[at - 1]
    contraction = split_contraction(prev.text)
    if contraction is not None:
        prep, article = contraction
        new_art, case = redecline(article, morph, synonym.gender)
        new_prev = join_contraction(prep, new_art, prev.text) if new_art is not None else None
    elif parse_determiner(prev.text):
        new_prev, case = redecline(prev.text, morph, synonym.gender)
    else:
        return f"no determiner directly before the head: {prev.text} {head}"
    if new_prev is None:
        return f"cannot re-decline the determiner: {case}"
    number = morph.number or "Sg"
    form = noun_form(lexicon, synonym.noun, synonym.gender, case.split("|"), number)
    if form is None:
        return f"no {number} form of the synonym for {case}: {synonym.noun}"
    new_text = splice(text, [(prev.start, prev.end, new_prev), (toks[at].start, toks[at].end, form)])
    return new_text, {"old": f"{prev.text} {head}", "new": f"{new_prev} {form}", "case": case, "form": form}


def _switch_meta(
    meta: dict[str, Any], j: int, old_ref: str, new_ref: str, old_gender: str, new_gender: str
) -> tuple[dict[str, Any], str | None, str | None]:
    """Metadata after candidate ``j`` (1-based among the candidates) became the reference."""
    meta = dict(meta)
    diff = pronoun_diff(old_ref, new_ref)
    old_p = meta.get("ref pronoun", meta.get("ref_pronoun", diff[0] if diff else None))
    new_p = diff[1] if diff else None
    errors = meta.get("errors")
    if isinstance(errors, list) and j - 1 < len(errors) and isinstance(errors[j - 1], dict):
        errors = [dict(e) for e in errors]
        new_p = errors[j - 1].get("replacement", new_p)
        errors[j - 1]["replacement"] = old_p
        errors[j - 1]["replacement gender"] = GENDER_LONG[old_gender]
        meta["errors"] = errors
    if "ref pronoun" in meta:
        meta["ref pronoun"] = new_p
    if "ref_pronoun" in meta:
        meta["ref_pronoun"] = new_p.lower() if isinstance(new_p, str) else None
    words = meta.get("contrastive_pronouns")
    if isinstance(words, list) and j - 1 < len(words):
        words = list(words)
        words[j - 1] = old_p.lower() if isinstance(old_p, str) else None
        meta["contrastive_pronouns"] = words
    meta["ref ante head gender"] = GENDER_LONG[new_gender]
    return meta, old_p, new_p


def synonym_replacement(
    ex: ContrastiveExample,
    lexicon: GermanLexicon,
    *,
    sources: Sequence[str],
    require_translation: bool,
    distances: Sequence[int],
) -> ContrastiveExample | Skip:
    """The attacked example (see the module docstring) or a :class:`Skip` saying why not."""
    dist = ante_distance(ex)
    if dist is None or dist not in distances:
        return Skip(ex.id, f"antecedent distance {dist}")
    pos = field_str(ex, "src ante head pos") or ""
    if not pos.startswith("NN"):
        return Skip(ex.id, f"English antecedent head is not a noun: {pos or '-'}")
    head = field_str(ex, "ref ante head")
    if head is None:
        return Skip(ex.id, "no German antecedent head")
    lemma = field_str(ex, "ref ante head lemma") or head
    morph = parse_morpho(field_str(ex, "ref ante head morpho"))
    gender = morph.gender or GENDER_NAMES.get(str(ex.meta.get("ref ante head gender")))
    if gender is None:
        return Skip(ex.id, "unknown gender of the German antecedent")
    if morph.number == "Pl":
        return Skip(ex.id, "plural antecedent: the pronoun does not show its gender")
    morph = Morph(gender, morph.case, morph.number)
    genders = candidate_genders(ex)
    if genders[0] != gender:
        return Skip(ex.id, f"reference pronoun does not agree with the antecedent: {genders[0]} vs {gender}")
    en_head = field_str(ex, "src ante head lemma") or field_str(ex, "src ante head")
    cands = synonym_candidates(
        lemma, en_head, gender, lexicon, sources=sources, require_translation=require_translation
    )
    if not cands:
        return Skip(ex.id, "no synonym of another gender")
    texts = example_texts(ex)
    reasons = []
    for syn in cands:
        if syn.gender not in genders[1:]:
            reasons.append(f"no candidate with a {syn.gender} pronoun")
            continue
        new_texts: dict[str, str] = {}
        detail: dict[str, str] = {}
        for f in german_sides(ex, dist):
            res = replace_head(texts[f], head, morph, syn, lexicon)
            if isinstance(res, str):
                reasons.append(res)
                break
            new_texts[f], detail = res
        else:
            edited, changes = with_texts(ex, new_texts)
            j = genders.index(syn.gender, 1)
            cand = [edited.ref, *edited.contrastive]
            cand[0], cand[j] = cand[j], cand[0]
            meta, old_p, new_p = _switch_meta(edited.meta, j, edited.ref, cand[0], gender, syn.gender)
            meta.update({"ref ante head": detail["form"], "ref ante head lemma": syn.noun})
            switched = replace(edited, ref=cand[0], contrastive=cand[1:], meta=meta)
            return finish(
                ex,
                switched,
                ATTACK,
                VARIANT,
                changes,
                synonym={
                    "old": lemma,
                    "new": syn.noun,
                    "old_gender": gender,
                    "new_gender": syn.gender,
                    "source": syn.source,
                    "translates": syn.translates,
                },
                determiner={"old": detail["old"], "new": detail["new"], "case": detail["case"]},
                reference={"old": old_p, "new": new_p, "index": j},
                distance=dist,
            )
    return Skip(ex.id, reasons[0] if reasons else "no usable synonym")
