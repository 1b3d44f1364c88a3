"""Automatic grading of CREST issues against gold, with Kummerfeld & Klein (2013) error classes.

An issue is a **true positive** when the system is wrong on the source (its prediction differs
from gold) or on the follow-up (its prediction differs from gold mapped onto the follow-up).
Comparison ignores singleton clusters (systems do not output them).

Error classes: a simplified version of K&K's transformation-based analysis. The predicted
clustering is turned into the gold one by these operations, applied in this order, each counted:

1. **Span Error** - a predicted mention that is not a gold mention but overlaps a gold mention
   no prediction matches exactly is re-spanned to it (largest overlap, then leftmost).
2. **Extra Entity** - a predicted cluster without any gold mention is removed.
   **Extra Mention** - each remaining non-gold mention of a predicted cluster is removed.
3. **Missing Entity** - a gold cluster none of whose mentions is predicted is added.
   **Missing Mention** - each missing mention of a partly predicted gold cluster is added.
4. **Conflated Entities** - a predicted cluster holding mentions of k > 1 gold clusters is split
   (k - 1 operations). **Divided Entity** - a gold cluster whose mentions lie in k > 1 predicted
   clusters is merged (k - 1 operations).

K&K derive the classes from sequences of such operations on system output with mention-head
matching; we match spans exactly and do not model their "merge then split" interactions.

**Validity** (:func:`case_validity`, the automatic counterpart of the paper's Figure 4(B)): a follow-up
keeps its source's gold when the recorded replacement is the only edit, lies outside every gold mention
(Eq. 2 puts every token of every mention in the protected set N, head or not, so replacing any mention
token is outside the relation), no mention is lost or merged, and the follow-up's gold clusters are the
source's moved through the replacement. The dependency-linked tokens Eq. 2 also protects carry no gold
of their own and are not re-checked here (that is the generator's rule, not a property of the gold).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from lingtest.data.model import TestCase, non_singleton
from lingtest.errors import InputError
from lingtest.metrics.validity import UNRECORDED_EDIT, Validity, coref_edit_reasons

Span = tuple[int, int]
Clusters = Sequence[Sequence[Span]]

ERROR_TYPES = ("span_error", "missing_entity", "extra_entity", "missing_mention", "extra_mention",
               "conflated_entities", "divided_entity")


def same_clustering(a: Clusters, b: Clusters) -> bool:
    """Equal as sets of mention sets (singletons ignored)."""
    return non_singleton(a) == non_singleton(b)


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def classify_errors(gold: Clusters, pred: Clusters) -> Counter:
    """Counts of each error class needed to turn ``pred`` into ``gold`` (see module docstring)."""
    g = [set(c) for c in non_singleton(gold)]
    p = [set(c) for c in non_singleton(pred)]
    out: Counter = Counter()
    G = set().union(*g) if g else set()
    P = set().union(*p) if p else set()
    # 1. span errors
    free_gold = sorted(G - P)
    fix: dict[Span, Span] = {}
    for m in sorted(P - G):
        best = max(((_overlap(m, x), -x[0], x) for x in free_gold if _overlap(m, x) > 0), default=None)
        if best is not None:
            fix[m] = best[2]
            free_gold.remove(best[2])
            out["span_error"] += 1
    p = [{fix.get(m, m) for m in c} for c in p]
    # 2. extra entities / mentions
    kept = []
    for c in p:
        extra = c - G
        if extra == c:
            out["extra_entity"] += 1
            continue
        out["extra_mention"] += len(extra)
        kept.append(c - extra)
    p = kept
    # 3. missing entities / mentions
    P = set().union(*p) if p else set()
    for c in g:
        missing = c - P
        if missing == c:
            out["missing_entity"] += 1
        else:
            out["missing_mention"] += len(missing)
    # 4. conflated / divided
    gid = {m: k for k, c in enumerate(g) for m in c}
    pid = {m: k for k, c in enumerate(p) for m in c}
    for c in p:
        k = len({gid[m] for m in c if m in gid})
        if k > 1:
            out["conflated_entities"] += k - 1
    for c in g:
        k = len({pid[m] for m in c if m in pid})
        if k > 1:
            out["divided_entity"] += k - 1
    return +out


def grade_issue(gold_source: Clusters, pred_source: Clusters, gold_followup: Clusters,
                pred_followup: Clusters) -> tuple[bool, set[str]]:
    """(true positive?, error classes present on the wrong side(s))."""
    types: set[str] = set()
    src_ok = same_clustering(gold_source, pred_source)
    fu_ok = same_clustering(gold_followup, pred_followup)
    if not src_ok:
        types.update(classify_errors(gold_source, pred_source))
    if not fu_ok:
        types.update(classify_errors(gold_followup, pred_followup))
    return (not src_ok or not fu_ok), types


def document_words(payload: Any, where: str) -> list[str]:
    """The words of a document payload (``{"sentences": [{"tokens": [{"text": ...}, ...]}, ...]}``),
    sentence after sentence; ``where`` names it in the error on anything else."""
    try:
        return [str(t["text"]) for s in payload["sentences"] for t in s["tokens"]]
    except (KeyError, TypeError) as exc:
        raise InputError(f"not a document payload: {exc!r}", field=where) from None


def case_validity(case: TestCase) -> Validity:
    """Whether a CREST case's follow-up keeps its source's gold (see the module docstring). Reads the
    source and follow-up words and ``meta``: ``position``, ``n_new_tokens``, ``old_token``,
    ``new_token``, ``gold_clusters`` and ``followup_gold_clusters``."""
    m = case.meta
    try:
        position, n_new = int(m["position"]), int(m["n_new_tokens"])
        gold = m["gold_clusters"]
        fu_gold = m.get("followup_gold_clusters")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a CREST case: {exc}", field=f"{case.id}.meta") from None
    source = document_words(case.source, f"{case.id}.source")
    followup = document_words(case.followup, f"{case.id}.followup")
    reasons: list[str] = []
    old, new = m.get("old_token"), m.get("new_token")
    if isinstance(old, str) and 0 <= position < len(source) and source[position] != old:
        reasons.append(UNRECORDED_EDIT)
    new_words = {position: new.split()} if isinstance(new, str) and len(new.split()) == n_new else None
    try:
        reasons += coref_edit_reasons(source, followup, gold, fu_gold, {position: n_new}, scope="outside_mentions",
                                      new_words=new_words)
    except (ValueError, TypeError, IndexError) as exc:
        raise InputError(f"bad gold clusters: {exc}", field=f"{case.id}.meta.gold_clusters") from None
    return Validity.of(reasons)
