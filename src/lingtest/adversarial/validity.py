"""Validity of an adversarial case (Chai et al. 2021): whether the perturbed document keeps the clean
document's gold coreference, decided from the case alone.

The attacks change words *inside* gold mentions on purpose (modifiers and heads alike: the paper's
point is that a resolver must still link a mention whose words are noisy or swapped for a WordNet
relative), so an edit inside a mention is the relation, not a fault. A case keeps its gold when:

* the edits are the recorded ones (every other token is unchanged, each changed token is the recorded
  original and its replacement the recorded words), every one of them inside a gold mention, no mention
  lost or merged, and the follow-up's clusters are the clean ones moved through the replacements
  (:func:`lingtest.metrics.validity.coref_edit_reasons`);
* every orthographic change keeps the paper's constraints that make noise imperceptible to a reader
  (Sec. 2.1): a word of at least ``min_length`` characters (``adversarial.orthographic.min_length``,
  4), first and last characters kept, and exactly one change - two adjacent interior letters swapped,
  one interior letter deleted, or one interior letter replaced by a character whose Unicode name spells
  the same letter (``orthographic_constraint``);
* no lexical change (synonym, hyponym, hypernym) replaces a word of a *name* - a token the document's
  gold entity tags put in a named entity of a name type (person, organisation, place, ...) - by words
  that do not keep it: a name designates its referent, and a WordNet relative of one of its words
  (*State* -> *Attribute* in an organisation's name) names something else, so the mention's cluster no
  longer holds (``name_changed``). Specialisations that keep the word (*party* -> *political party*)
  pass.

What no gold decides - whether a WordNet relative fits its context (*mother* -> *yeast*) - is left
to a reader.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.metrics.validity import UNRECORDED_EDIT, Validity, coref_edit_reasons

ORTHOGRAPHIC = frozenset({"swap", "delete", "visual"})
LEXICAL = frozenset({"synonym", "hyponym", "hypernym"})
#: named-entity types whose tokens form a name (OntoNotes and CoNLL labels)
NAME_TYPES = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                        "LANGUAGE", "PER", "MISC"})

ORTHOGRAPHIC_CONSTRAINT = "orthographic_constraint"
NAME_CHANGED = "name_changed"

_LETTER_NAME = re.compile(r"\b(SMALL|CAPITAL) (?:LETTER )?([A-Z])(?: WITH .+)?$")


def letter_named(ch: str) -> str | None:
    """The ASCII letter (case kept) whose name ``ch``'s Unicode name spells (``ň`` -> ``n``, Cyrillic
    ``а`` -> ``a``), or ``None``."""
    if len(ch) != 1 or unicodedata.category(ch) not in ("Ll", "Lu"):
        return None
    m = _LETTER_NAME.search(unicodedata.name(ch, ""))
    if not m:
        return None
    return m.group(2).lower() if m.group(1) == "SMALL" else m.group(2)


def orthographic_change_ok(scheme: str, original: str, new: Sequence[str], min_length: int = 4) -> bool:
    """Whether ``original`` -> ``new`` is one change the paper allows for ``scheme`` (see the module
    docstring); a scheme that is not orthographic passes."""
    if scheme not in ORTHOGRAPHIC:
        return True
    if len(new) != 1:
        return False
    w, o = new[0], original
    if len(o) < min_length or w == o or not w or w[0] != o[0] or w[-1] != o[-1]:
        return False
    if scheme == "delete":
        return len(w) == len(o) - 1 and any(o[:i] + o[i + 1:] == w for i in range(1, len(o) - 1))
    if len(w) != len(o):
        return False
    diff = [i for i in range(len(o)) if w[i] != o[i]]
    if scheme == "swap":
        return (len(diff) == 2 and diff[1] == diff[0] + 1 and w[diff[0]] == o[diff[1]]
                and w[diff[1]] == o[diff[0]])
    return len(diff) == 1 and letter_named(w[diff[0]]) == o[diff[0]]  # visual


def _entity_type(tag: str | None) -> str | None:
    if not tag or tag == "O" or "-" not in tag:
        return None
    return tag.split("-", 1)[1]


def name_kept(scheme: str, original: str, new: Sequence[str], entity_tag: str | None) -> bool:
    """Whether a change leaves a name alone: not a lexical change of a word inside a named entity of a
    name type (``entity_tag``: the token's IOB tag), or one whose new words keep the word."""
    if scheme not in LEXICAL or _entity_type(entity_tag) not in NAME_TYPES:
        return True
    return original.lower() in (w.lower() for w in new)


def _payload(case: TestCase, side: str) -> dict[str, Any]:
    d = case.source if side == "source" else case.followup
    if not isinstance(d, Mapping) or not isinstance(d.get("sentences"), list):
        raise InputError("not a document payload", field=f"{case.id}.{side}")
    return dict(d)


def _tokens(doc: Mapping[str, Any], where: str) -> list[Mapping[str, Any]]:
    try:
        return [t for s in doc["sentences"] for t in s["tokens"]]
    except (KeyError, TypeError) as exc:
        raise InputError(f"not a document payload: {exc!r}", field=where) from None


def _clusters(doc: Mapping[str, Any], where: str) -> list[list[tuple[int, int]]]:
    try:
        return [[(int(m[0]), int(m[1])) for m in c["mentions"]] for c in doc.get("clusters", [])]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise InputError(f"bad clusters: {exc!r}", field=where) from None


def case_validity(case: TestCase, *, min_length: int = 4) -> Validity:
    """Whether an adversarial case's perturbed document keeps the clean one's gold (see the module
    docstring). Reads both documents, ``meta.changes`` and ``expected.alignment.replacements``."""
    src_doc, fu_doc = _payload(case, "source"), _payload(case, "followup")
    src_toks, fu_toks = _tokens(src_doc, f"{case.id}.source"), _tokens(fu_doc, f"{case.id}.followup")
    source = [str(t["text"]) for t in src_toks]
    followup = [str(t["text"]) for t in fu_toks]
    try:
        changes = [(int(c["token"]), str(c["original"]), [str(w) for w in c["new"]], str(c["scheme"]))
                   for c in case.meta.get("changes", [])]
        expected = case.expected if isinstance(case.expected, Mapping) else {}
        recorded = {int(t): int(k) for t, k in expected.get("alignment", {}).get("replacements", [])}
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not an adversarial case: {exc!r}", field=f"{case.id}.meta.changes") from None
    replaced = {t: len(new) for t, _, new, _ in changes}
    reasons: list[str] = []
    if recorded != replaced:
        reasons.append(UNRECORDED_EDIT)
    src_clusters = _clusters(src_doc, f"{case.id}.source.clusters")
    fu_clusters = _clusters(fu_doc, f"{case.id}.followup.clusters")
    try:
        reasons += coref_edit_reasons(source, followup, src_clusters, fu_clusters, replaced,
                                      scope="inside_mentions", new_words={t: new for t, _, new, _ in changes})
    except ValueError as exc:
        raise InputError(str(exc), field=f"{case.id}.source.clusters") from None
    for t, original, new, scheme in changes:
        if 0 <= t < len(source) and source[t] != original:
            reasons.append(UNRECORDED_EDIT)
        if not orthographic_change_ok(scheme, original, new, min_length):
            reasons.append(ORTHOGRAPHIC_CONSTRAINT)
        tag = src_toks[t].get("ent") if 0 <= t < len(src_toks) else None
        if not name_kept(scheme, original, new, tag if isinstance(tag, str) else None):
            reasons.append(NAME_CHANGED)
    return Validity.of(reasons)
