"""ContraPro example metadata: joining the official JSON's fields onto the grouped text examples (which
carry the context sentences), and reading the fields every other module needs.

Offline, the grouped files ``contrapro.{text,context}.{en,de}`` hold all 12,000 examples with their
contexts but no antecedent metadata; the mirror's ``contrapro_synonym_subset.json`` (ContraCAT's
release, 1,372 examples in the official JSON shape) holds the metadata but no contexts. Online the
official ``contrapro.json`` holds the metadata of all 12,000. :func:`join_metadata` pairs them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lingtest.contrapro.german import GENDER_NAMES, pronoun_genders
from lingtest.data.model import ContrastiveExample

log = logging.getLogger(__name__)

_WORDS = re.compile(r"\w+")


def match_key(text: str) -> str:
    """The words of ``text``, lower-cased: the grouped files and the JSON disagree on spacing and on
    where quotes go (``wahr! "`` / ``wahr!"``, ``9: 45`` / ``9:45``)."""
    return " ".join(_WORDS.findall(text.lower()))


@dataclass(frozen=True)
class JoinResult:
    """The grouped examples that matched a JSON record (in JSON order, JSON metadata merged into
    their ``meta``), and the JSON records that matched none."""

    examples: list[ContrastiveExample]
    unmatched: list[ContrastiveExample]


def join_metadata(grouped: Sequence[ContrastiveExample], records: Sequence[ContrastiveExample]) -> JoinResult:
    """Attach the metadata of ``records`` (read by ``read_contrapro_json``) to the ``grouped``
    examples with the same source and reference sentence (compared by :func:`match_key`). Both are
    in ContraPro order, so among equal sentences the first grouped example after the previous match
    is taken (a segment tested for two pronouns appears twice). The grouped example keeps its id,
    text and contexts; its ``meta`` gets the record's fields (the grouped reader's own keys win)."""
    index: dict[tuple[str, str], list[int]] = {}
    for i, ex in enumerate(grouped):
        index.setdefault((match_key(ex.src), match_key(ex.ref)), []).append(i)
    out: list[ContrastiveExample] = []
    unmatched: list[ContrastiveExample] = []
    last = -1
    for rec in records:
        cands = [i for i in index.get((match_key(rec.src), match_key(rec.ref)), []) if i > last]
        if not cands:
            unmatched.append(rec)
            continue
        last = cands[0]
        ex = grouped[last]
        out.append(replace(ex, meta={**rec.meta, **ex.meta, "json_id": rec.id}))
    return JoinResult(out, unmatched)


def with_metadata(
    grouped: Sequence[ContrastiveExample], records: Sequence[ContrastiveExample]
) -> tuple[list[ContrastiveExample], int]:
    """Every grouped example in order, those matched by a metadata record with its fields joined on
    (:func:`join_metadata`); the number matched."""
    joined = join_metadata(grouped, records)
    by_id = {ex.id: ex for ex in joined.examples}
    if joined.unmatched:
        log.warning("%d metadata records match no grouped example", len(joined.unmatched))
    return [by_id.get(ex.id, ex) for ex in grouped], len(by_id)


# -- fields ----------------------------------------------------------------------------------------
def ref_pronoun(ex: ContrastiveExample) -> str | None:
    """The reference pronoun, lower-cased (``ref pronoun`` of the JSON, else the grouped reader's
    ``ref_pronoun``)."""
    p = ex.meta.get("ref pronoun", ex.meta.get("ref_pronoun"))
    return p.lower() if isinstance(p, str) and p else None


def ante_distance(ex: ContrastiveExample) -> int | None:
    d = ex.meta.get("ante distance")
    return d if isinstance(d, int) and not isinstance(d, bool) else None


def distance_bucket(distance: int | None) -> str | None:
    """ContraPro's evaluate.py buckets: ``0``, ``1``, ``2``, ``3``, ``>3``."""
    if distance is None:
        return None
    return ">3" if distance > 3 else str(distance)


def intrasegmental(ex: ContrastiveExample) -> bool | None:
    v = ex.meta.get("intrasegmental")
    return v if isinstance(v, bool) else None


def ref_gender(ex: ContrastiveExample) -> str | None:
    """The gender (m/f/n) of the German antecedent head (``ref ante head gender``), else of the
    reference pronoun when it has one gender."""
    g = GENDER_NAMES.get(str(ex.meta.get("ref ante head gender")))
    if g:
        return g
    p = ref_pronoun(ex)
    gs = pronoun_genders(p) if p else ()
    return gs[0] if len(gs) == 1 else None


def candidate_genders(ex: ContrastiveExample) -> list[str | None]:
    """The gender each candidate's pronoun stands for, reference first: the reference's from
    :func:`ref_gender`, each variant's from the JSON ``errors[i]['replacement gender']``, else from
    its pronoun (the grouped reader's ``contrastive_pronouns``) when unambiguous."""
    out: list[str | None] = [ref_gender(ex)]
    errors = ex.meta.get("errors")
    words = ex.meta.get("contrastive_pronouns") or []
    for i in range(len(ex.contrastive)):
        g = None
        if isinstance(errors, list) and i < len(errors) and isinstance(errors[i], dict):
            g = GENDER_NAMES.get(str(errors[i].get("replacement gender")))
        if g is None and i < len(words) and isinstance(words[i], str):
            gs = pronoun_genders(words[i])
            g = gs[0] if len(gs) == 1 else None
        out.append(g)
    return out


def field_str(ex: ContrastiveExample, key: str) -> str | None:
    v: Any = ex.meta.get(key)
    return v if isinstance(v, str) and v.strip() else None
