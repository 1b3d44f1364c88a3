"""Validity of an attacked ContraPro example: whether it keeps the gold of its original - the
antecedent, and a reference pronoun of the antecedent's gender among the same contrastive candidates -
decided from the original, the attacked example and the attack's record of what it changed.

What each attack may change (Stojanovski et al.; :mod:`lingtest.contrapro.attack`):

* **phrase** adds a phrase to a sentence (``It is true: ...``, ``... but he wasn't sure``): every
  changed text keeps all the words it had, in order and contiguous (``antecedent_edited`` otherwise);
* **possessive** extends the antecedent (``the wish`` -> ``the man's wish``): every changed text is the
  old one with the recorded phrase (``attack.phrase``, German or English by field) replaced by its
  extension, and the extension keeps the old phrase's head word (``antecedent_edited``);
* **synonym** replaces the German antecedent by a synonym of another gender and makes the candidate
  with that gender's pronoun the reference: the English side is unchanged, every German change is the
  recorded determiner phrase replaced (``antecedent_edited``), the candidates are the original's (after
  the antecedent edit) with the reference swapped for candidate ``reference.index``
  (``unrecorded_edit``), and the new reference's pronoun has the synonym's gender, the old one the
  replaced noun's (``reference_gender_mismatch``).

For every attack, each field that differs from the original must be a recorded change
(``unrecorded_edit``), and the pronoun slots - the words where the candidates differ - must be the
original's (swapped as above for synonym; ``pronoun_changed``), so the contrast is still only the
pronoun. Where the example carries the antecedent head (``ref ante head``, the official metadata),
the head must occur in the German sentence at the antecedent's distance (``antecedent_missing``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.contrapro.attack import example_texts
from lingtest.contrapro.german import GENDER_NAMES, pronoun_genders
from lingtest.data.model import ContrastiveExample
from lingtest.metrics.validity import UNRECORDED_EDIT, Validity

PRONOUN_CHANGED = "pronoun_changed"
CONTRAST_CHANGED = "contrast_changed"
REFERENCE_GENDER_MISMATCH = "reference_gender_mismatch"
ANTECEDENT_EDITED = "antecedent_edited"
ANTECEDENT_MISSING = "antecedent_missing"

ENGLISH_FIELDS = frozenset({"src", "src_context"})

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``."""
    return _WORD.findall(text.lower())


def candidate_slots(ex: ContrastiveExample) -> list[tuple[str, ...]] | None:
    """The words of each candidate (reference first) at the positions where the candidates differ;
    ``None`` when their word counts differ (the contrast is not word for word)."""
    ws = [words(c) for c in (ex.ref, *ex.contrastive)]
    if len({len(w) for w in ws}) != 1:
        return None
    pos = [i for i in range(len(ws[0])) if len({w[i] for w in ws}) > 1]
    return [tuple(w[i] for i in pos) for w in ws]


def slot_genders(slot: Sequence[str]) -> set[str]:
    """The genders (m/f/n) every pronoun among ``slot``'s words agrees with (empty: no pronoun)."""
    sets = [set(pronoun_genders(w)) for w in slot if pronoun_genders(w)]
    if not sets:
        return set()
    out = sets[0]
    for s in sets[1:]:
        out &= s
    return out


def keeps_words(old: str, new: str) -> bool:
    """Whether every word of ``old`` is in ``new``, in order and contiguous (something was added)."""
    a, b = words(old), words(new)
    return any(b[i:i + len(a)] == a for i in range(len(b) - len(a) + 1))


def replaced_once(old: str, new: str, before: str, after: str) -> bool:
    """Whether ``new`` is ``old`` with one whole-word occurrence of ``before`` replaced by ``after``
    (the case of the replaced text ignored: a sentence-initial phrase is capitalised)."""
    if not before:
        return False
    for m in re.finditer(r"(?<!\w)" + re.escape(before) + r"(?!\w)", old, flags=re.IGNORECASE):
        head, tail = old[:m.start()], old[m.end():]
        if new.startswith(head) and new.endswith(tail) and len(new) >= len(head) + len(tail) \
                and new[len(head):len(new) - len(tail)].lower() == after.lower():
            return True
    return False


def _distance(ex: ContrastiveExample, record: Mapping[str, Any]) -> int | None:
    d = ex.meta.get("ante distance", record.get("distance"))
    return d if isinstance(d, int) and not isinstance(d, bool) else None


def _recorded_edits(original: ContrastiveExample, attacked: ContrastiveExample,
                    changes: Mapping[str, Mapping[str, Any]], swapped: bool) -> list[str]:
    """Fields that differ without a matching recorded change (candidates skipped when ``swapped``:
    the synonym attack's candidates are checked as a whole)."""
    before, after = example_texts(original), example_texts(attacked)
    out = []
    for f, text in after.items():
        if swapped and f not in ("src", "src_context", "ref_context"):
            continue
        if text == before.get(f):
            continue
        c = changes.get(f)
        if c is None or c.get("new") != text or c.get("old") != before.get(f):
            out.append(UNRECORDED_EDIT)
    return out


def _phrase_reasons(changes: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return [ANTECEDENT_EDITED for c in changes.values() if not keeps_words(str(c["old"]), str(c["new"]))]


def _possessive_reasons(changes: Mapping[str, Mapping[str, Any]], record: Mapping[str, Any]) -> list[str]:
    phrase = record.get("phrase")
    if not isinstance(phrase, Mapping):
        return [ANTECEDENT_EDITED]
    out = []
    for where, c in changes.items():
        pair = phrase.get("en" if where in ENGLISH_FIELDS else "de")
        if not isinstance(pair, Sequence) or len(pair) != 2:
            out.append(ANTECEDENT_EDITED)
            continue
        old_phrase, new_phrase = str(pair[0]), str(pair[1])
        head = words(old_phrase)[-1:] if words(old_phrase) else []
        if not replaced_once(str(c["old"]), str(c["new"]), old_phrase, new_phrase) \
                or not set(head) <= set(words(new_phrase)):
            out.append(ANTECEDENT_EDITED)
    return out


def _synonym_reasons(original: ContrastiveExample, attacked: ContrastiveExample,
                     changes: Mapping[str, Mapping[str, Any]], record: Mapping[str, Any]) -> list[str]:
    out = []
    det, syn, ref = record.get("determiner"), record.get("synonym"), record.get("reference")
    if not (isinstance(det, Mapping) and isinstance(syn, Mapping) and isinstance(ref, Mapping)):
        return [ANTECEDENT_EDITED]
    for where, c in changes.items():
        if where in ENGLISH_FIELDS:
            out.append(UNRECORDED_EDIT)
        elif not replaced_once(str(c["old"]), str(c["new"]), str(det.get("old", "")), str(det.get("new", ""))):
            out.append(ANTECEDENT_EDITED)
    before = example_texts(original)
    cands = [str(changes.get(f, {}).get("new", before[f]))
             for f in ["ref", *(f"contrastive[{i}]" for i in range(len(original.contrastive)))]]
    j = ref.get("index")
    if not isinstance(j, int) or not 0 < j < len(cands):
        return [*out, UNRECORDED_EDIT]
    cands[0], cands[j] = cands[j], cands[0]
    if cands != [attacked.ref, *attacked.contrastive]:
        out.append(UNRECORDED_EDIT)
    so, sa = candidate_slots(original), candidate_slots(attacked)
    if so is None or sa is None or len(so) != len(sa):
        return [*out, CONTRAST_CHANGED]
    expect = list(so)
    expect[0], expect[j] = expect[j], expect[0]
    if sa != expect:
        out.append(PRONOUN_CHANGED)
    new_g, old_g = GENDER_NAMES.get(str(syn.get("new_gender"))), GENDER_NAMES.get(str(syn.get("old_gender")))
    if new_g is None or new_g not in slot_genders(sa[0]) or old_g is None or old_g not in slot_genders(so[0]):
        out.append(REFERENCE_GENDER_MISMATCH)
    return out


def _antecedent_reasons(attacked: ContrastiveExample, record: Mapping[str, Any]) -> list[str]:
    head = attacked.meta.get("ref ante head")
    d = _distance(attacked, record)
    if not isinstance(head, str) or not head.strip() or d not in (0, 1):
        return []
    text = attacked.ref_context if d == 1 else attacked.ref
    return [] if set(words(head)) <= set(words(text)) else [ANTECEDENT_MISSING]


def attack_validity(original: ContrastiveExample, attacked: ContrastiveExample, attack: str,
                    record: Mapping[str, Any]) -> Validity:
    """Whether ``attacked`` (made from ``original`` by ``attack``: ``phrase``, ``possessive``,
    ``synonym``, or another that only adds or edits text) keeps its original's gold; ``record``: the
    attack's record (``meta["attack"]`` of an attacked example, a case's ``provenance.params``) with
    its ``changes``. See the module docstring for the reasons."""
    changes = {str(c["where"]): c for c in record.get("changes", []) if isinstance(c, Mapping) and "where" in c}
    swapped = attack == "synonym"
    reasons = _recorded_edits(original, attacked, changes, swapped)
    if attack == "phrase":
        reasons += _phrase_reasons(changes)
    elif attack == "possessive":
        reasons += _possessive_reasons(changes, record)
    if swapped:
        reasons += _synonym_reasons(original, attacked, changes, record)
    else:
        so, sa = candidate_slots(original), candidate_slots(attacked)
        if so is not None and sa is None:
            reasons.append(CONTRAST_CHANGED)
        elif so != sa:
            reasons.append(PRONOUN_CHANGED)
    reasons += _antecedent_reasons(attacked, record)
    return Validity.of(reasons)
