"""Coreference evaluation metrics, implemented from their published definitions.

* MUC (Vilain et al. 1995): links. Recall = sum over key entities K of (|K| - |p(K)|) over
  sum(|K| - 1), with p(K) the partition of K by the response (missing mentions are parts of
  their own); precision swaps the roles. Singleton entities have no links and count nowhere.
* B-cubed (Bagga & Baldwin 1998): per mention overlap of its key and response entities;
  recall = sum over (K, R) of |K & R|^2 / |K| over the number of key mentions.
* CEAF (Luo 2005): the best one-to-one alignment of key and response entities under
  phi3(K, R) = |K & R| (CEAFm, mention-based) or phi4(K, R) = 2|K & R| / (|K| + |R|) (CEAFe,
  entity-based); recall divides the aligned similarity by the key's self-similarity (number of
  key mentions / entities). The alignment is solved per connected component of the key/response
  overlap graph (entities in different components have similarity 0): tiny components exactly by
  enumeration, larger ones with :func:`scipy.optimize.linear_sum_assignment`.
* BLANC (Recasens & Hovy 2011) extended to predicted mentions (Luo, Pradhan, Recasens & Hovy
  2014): coreference links C and non-coreference links N of key and response, each scored with
  R/P/F; BLANC = the mean of the two. When the key has no coreference links only the
  non-coreference scores count, when it has no non-coreference links only the coreference
  scores count, and a key with neither scores 0 (as the reference scorer v8.01 does).
* LEA (Moosavi & Strube 2016): link-based entity-aware; every key entity K weighs |K| and is
  resolved by sum over R of link(K & R) / link(K), link(n) = n(n-1)/2; a singleton is resolved
  when the response has it as a singleton too.
* CoNLL F1 = mean of the MUC, B-cubed and CEAFe F1.

Conventions of the reference scorer (Pradhan et al. 2014): mentions match by exact token span;
key and response may have different mentions; a mention repeated in one clustering is reported
(:class:`DuplicateMentionWarning`) and its repeats dropped, the first occurrence kept; 0/0 is 0
with the counts still reported. Corpus scores sum numerators and denominators over documents and
divide at the end (:func:`aggregate`), never average per-document F1.

Clusters are plain ``Sequence[Sequence[tuple[int, int]]]`` token spans (exclusive end);
:class:`~lingtest.data.Cluster` objects and ``[start, end]`` lists are accepted too. Counting
uses the key x response overlap table, so no metric enumerates mention pairs.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from itertools import permutations
from typing import Any, Literal

from lingtest.errors import InputError

Span = tuple[int, int]
OnDuplicate = Literal["drop", "error"]

METRIC_NAMES: tuple[str, ...] = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
DEFAULT_METRICS: tuple[str, ...] = ("muc", "bcub", "ceafe", "ceafm", "blanc")
CONLL_METRICS: tuple[str, ...] = ("muc", "bcub", "ceafe")
_BRUTE_FORCE_LIMIT = 720  # largest number of one-to-one alignments enumerated without scipy

__all__ = [
    "BlancScore", "CONLL_METRICS", "DEFAULT_METRICS", "DuplicateMentionWarning", "METRIC_NAMES",
    "Score", "aggregate", "bcub", "blanc", "ceafe", "ceafm", "conll_f1", "conll_f1_from_scores",
    "lea", "mention_identification", "muc", "score_clusterings", "score_document_pairs",
    "score_documents",
]


class DuplicateMentionWarning(UserWarning):
    """A mention occurs more than once in one clustering; only its first occurrence is scored."""


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Score:
    """Recall, precision and F1 with the numerators and denominators they came from."""

    recall: float
    precision: float
    f1: float
    recall_num: float
    recall_den: float
    precision_num: float
    precision_den: float

    @classmethod
    def from_counts(cls, recall_num: float, recall_den: float, precision_num: float,
                    precision_den: float) -> Score:
        """Ratios from counts; a zero denominator gives 0 (never a division error)."""
        r = recall_num / recall_den if recall_den else 0.0
        p = precision_num / precision_den if precision_den else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return cls(r, p, f, recall_num, recall_den, precision_num, precision_den)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; counts that are whole numbers become ints."""
        return {f.name: getattr(self, f.name) if f.name in _RATIOS else _plain(getattr(self, f.name))
                for f in fields(self)}


@dataclass(frozen=True, slots=True)
class BlancScore(Score):
    """BLANC: ``recall``/``precision``/``f1`` combine the two link types (see the module notes);
    ``coref`` and ``noncoref`` hold each type's own score and link counts. The inherited
    ``*_num``/``*_den`` fields are the two types' counts pooled (for reporting only: BLANC's
    recall is the mean of the two recalls, not their pooled ratio)."""

    coref: Score
    noncoref: Score

    @classmethod
    def from_link_counts(cls, coref_correct: float, coref_key: float, coref_response: float,
                         non_correct: float, non_key: float, non_response: float) -> BlancScore:
        c = Score.from_counts(coref_correct, coref_key, coref_correct, coref_response)
        n = Score.from_counts(non_correct, non_key, non_correct, non_response)
        if not coref_key and not non_key:
            r = p = f = 0.0
        elif not coref_key:
            r, p, f = n.recall, n.precision, n.f1
        elif not non_key:
            r, p, f = c.recall, c.precision, c.f1
        else:
            r, p, f = (c.recall + n.recall) / 2, (c.precision + n.precision) / 2, (c.f1 + n.f1) / 2
        return cls(r, p, f, coref_correct + non_correct, coref_key + non_key,
                   coref_correct + non_correct, coref_response + non_response, c, n)


_RATIOS = frozenset({"recall", "precision", "f1"})


def _plain(v: Any) -> Any:
    if isinstance(v, Score):
        return v.to_dict()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def aggregate(scores: Iterable[Score]) -> Score:
    """Corpus-level score: sum the numerators and denominators, then divide (reference scorer)."""
    scores = list(scores)
    blancs = [s for s in scores if isinstance(s, BlancScore)]
    if scores and len(blancs) == len(scores):
        c = [sum(x) for x in zip(*((s.coref.recall_num, s.coref.recall_den, s.coref.precision_den,
                                    s.noncoref.recall_num, s.noncoref.recall_den,
                                    s.noncoref.precision_den) for s in blancs), strict=True)]
        return BlancScore.from_link_counts(*c)
    rn = sum(s.recall_num for s in scores)
    rd = sum(s.recall_den for s in scores)
    pn = sum(s.precision_num for s in scores)
    pd = sum(s.precision_den for s in scores)
    return Score.from_counts(rn, rd, pn, pd)


# --------------------------------------------------------------------------------------------
# The overlap table of one key/response pair
# --------------------------------------------------------------------------------------------
def _as_spans(clusters: Iterable[Any]) -> list[list[Span]]:
    """Normalise clusters (span lists, Cluster objects, Mention objects, [s, e] lists)."""
    out: list[list[Span]] = []
    for c in clusters:
        ms = getattr(c, "mentions", c)
        spans: list[Span] = []
        for m in ms:
            if type(m) is tuple and len(m) == 2 and type(m[0]) is int and type(m[1]) is int:
                spans.append(m)
                continue
            try:
                s, e = (m.start, m.end) if hasattr(m, "start") else m
                spans.append((_offset(s), _offset(e)))
            except (TypeError, ValueError):
                raise ValueError(f"a mention must be a (start, end) token span of integers, got {m!r}"[:200]
                                 ) from None
        for s, e in spans:
            if e <= s:
                raise ValueError(f"mention ({s}, {e}) is empty: spans are (start, exclusive end)")
        if spans:
            out.append(spans)
    return out


def _offset(value: Any) -> int:
    """A token offset: an integer (numpy's too), never a float or a boolean silently truncated."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a token offset")
    return operator.index(value)


def _index(clusters: list[list[Span]], side: str, on_duplicate: OnDuplicate
           ) -> tuple[dict[Span, int], list[int]]:
    """Map each mention to its cluster; repeated mentions are dropped (or raise)."""
    of: dict[Span, int] = {}
    sizes: list[int] = []
    dups: list[str] = []
    for ci, c in enumerate(clusters):
        size = 0
        for m in c:
            prev = of.get(m)
            if prev is not None:
                where = "the same cluster" if prev == ci else f"clusters {prev} and {ci}"
                dups.append(f"{m} (in {where})")
                continue
            of[m] = ci
            size += 1
        sizes.append(size)
    if dups:
        msg = (f"{len(dups)} duplicate mention(s) in the {side}: {', '.join(dups[:5])}"
               f"{' ...' if len(dups) > 5 else ''}")
        if on_duplicate == "error":
            raise ValueError(msg)
        warnings.warn(msg + "; only the first occurrence of each is scored", DuplicateMentionWarning,
                      stacklevel=4)
    return of, sizes


class _Overlap:
    """Key and response clusterings of one document and their overlap counts.

    ``cells[(k, r)]`` = number of mentions shared by key cluster ``k`` and response cluster
    ``r``; every metric is a function of these counts and the cluster sizes (CEAF adds an
    alignment over them).
    """

    __slots__ = ("key_sizes", "resp_sizes", "cells", "key_of", "resp_of")

    def __init__(self, key: Iterable[Any], response: Iterable[Any], on_duplicate: OnDuplicate = "drop",
                 normalized: bool = False) -> None:
        if not normalized:  # ``normalized``: already lists of (start, end) tuples (reader output)
            key, response = _as_spans(key), _as_spans(response)
        self.key_of, ks = _index(key, "key", on_duplicate)  # type: ignore[arg-type]
        self.resp_of, rs = _index(response, "response", on_duplicate)  # type: ignore[arg-type]
        # clusters emptied by duplicate removal disappear
        self.key_sizes = [s for s in ks if s]
        self.resp_sizes = [s for s in rs if s]
        if len(self.key_sizes) != len(ks):
            self.key_of = _renumber(self.key_of, ks)
        if len(self.resp_sizes) != len(rs):
            self.resp_of = _renumber(self.resp_of, rs)
        cells: dict[tuple[int, int], int] = {}
        key_of = self.key_of
        for m, r in self.resp_of.items():
            k = key_of.get(m)
            if k is not None:
                cells[(k, r)] = cells.get((k, r), 0) + 1
        self.cells = cells


def _renumber(of: dict[Span, int], sizes: list[int]) -> dict[Span, int]:
    new, n = [], 0
    for s in sizes:
        new.append(n)
        n += 1 if s else 0
    return {m: new[c] for m, c in of.items()}


# --------------------------------------------------------------------------------------------
# The metrics on an overlap table
# --------------------------------------------------------------------------------------------
def _muc(o: _Overlap) -> Score:
    correct = sum(n - 1 for n in o.cells.values())
    return Score.from_counts(correct, sum(s - 1 for s in o.key_sizes), correct,
                             sum(s - 1 for s in o.resp_sizes))


def _bcub(o: _Overlap) -> Score:
    ks, rs = o.key_sizes, o.resp_sizes
    rn = sum(n * n / ks[k] for (k, _), n in o.cells.items())
    pn = sum(n * n / rs[r] for (_, r), n in o.cells.items())
    return Score.from_counts(rn, sum(ks), pn, sum(rs))


def _ceaf(o: _Overlap, entity_based: bool) -> Score:
    ks, rs = o.key_sizes, o.resp_sizes
    if entity_based:
        sim = {kr: 2 * n / (ks[kr[0]] + rs[kr[1]]) for kr, n in o.cells.items()}
    else:
        sim = {kr: float(n) for kr, n in o.cells.items()}
    total = _best_alignment(sim)
    if entity_based:
        return Score.from_counts(total, len(ks), total, len(rs))
    return Score.from_counts(total, sum(ks), total, sum(rs))


def _best_alignment(sim: Mapping[tuple[int, int], float]) -> float:
    """Maximum total similarity of a one-to-one key/response alignment (sparse similarities)."""
    # an edge whose key and response touch nothing else is its own component (the usual case)
    kdeg: dict[int, int] = {}
    rdeg: dict[int, int] = {}
    for k, r in sim:
        kdeg[k] = kdeg.get(k, 0) + 1
        rdeg[r] = rdeg.get(r, 0) + 1
    total = 0.0
    rest: dict[tuple[int, int], float] = {}
    for kr, v in sim.items():
        if kdeg[kr[0]] == 1 and rdeg[kr[1]] == 1:
            total += v
        else:
            rest[kr] = v
    if rest:
        total += _components_alignment(rest)
    return total


def _components_alignment(sim: Mapping[tuple[int, int], float]) -> float:
    # connected components of the bipartite graph whose edges are the non-zero similarities
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for k, r in sim:
        a, b = ("k", k), ("r", r)
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    comps: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for kr in sim:
        comps.setdefault(find(("k", kr[0])), []).append(kr)
    total = 0.0
    for edges in comps.values():
        if len(edges) == 1:
            total += sim[edges[0]]
            continue
        keys = sorted({k for k, _ in edges})
        resps = sorted({r for _, r in edges})
        if len(keys) == 1 or len(resps) == 1:
            total += max(sim[e] for e in edges)
            continue
        total += _assign(keys, resps, sim)
    return total


def _assign(keys: list[int], resps: list[int], sim: Mapping[tuple[int, int], float]) -> float:
    """Optimal assignment inside one component: enumeration when tiny, else the Hungarian method."""
    rows, cols = (keys, resps) if len(keys) <= len(resps) else (resps, keys)
    swap = rows is resps
    matrix = [[sim.get((c, r) if swap else (r, c), 0.0) for c in cols] for r in rows]
    n, m = len(rows), len(cols)
    count = 1
    for i in range(n):
        count *= m - i
    if count <= _BRUTE_FORCE_LIMIT:
        return max(sum(matrix[i][p[i]] for i in range(n)) for p in permutations(range(m), n))
    from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped,unused-ignore]

    ri, ci = linear_sum_assignment(matrix, maximize=True)
    return float(sum(matrix[i][j] for i, j in zip(ri, ci, strict=True)))


def _lea_side(sizes: list[int], other_sizes: list[int], cells: Mapping[tuple[int, int], int],
              of: Mapping[Span, int], other_of: Mapping[Span, int], side: int) -> tuple[float, float]:
    common = [0.0] * len(sizes)
    for kr, n in cells.items():
        if n > 1:
            common[kr[side]] += n * (n - 1) / 2
    singletons = {c: m for m, c in of.items() if sizes[c] == 1}
    num = 0.0
    for c, size in enumerate(sizes):
        if size == 1:
            o = other_of.get(singletons[c])
            num += 1.0 if o is not None and other_sizes[o] == 1 else 0.0
        else:
            num += size * common[c] / (size * (size - 1) / 2)
    return num, float(sum(sizes))


def _lea(o: _Overlap) -> Score:
    rn, rd = _lea_side(o.key_sizes, o.resp_sizes, o.cells, o.key_of, o.resp_of, 0)
    pn, pd = _lea_side(o.resp_sizes, o.key_sizes, o.cells, o.resp_of, o.key_of, 1)
    return Score.from_counts(rn, rd, pn, pd)


def _blanc(o: _Overlap) -> BlancScore:
    def pairs(n: int) -> int:
        return n * (n - 1) // 2

    ck = sum(pairs(s) for s in o.key_sizes)
    cr = sum(pairs(s) for s in o.resp_sizes)
    cc = sum(pairs(n) for n in o.cells.values())
    nk = pairs(sum(o.key_sizes)) - ck
    nr = pairs(sum(o.resp_sizes)) - cr
    # non-coreference links in both: pairs of shared mentions in different key clusters and in
    # different response clusters (inclusion-exclusion over the shared mentions)
    shared_k = [0] * len(o.key_sizes)
    shared_r = [0] * len(o.resp_sizes)
    shared = 0
    for (k, r), n in o.cells.items():
        shared_k[k] += n
        shared_r[r] += n
        shared += n
    nc = pairs(shared) - sum(pairs(n) for n in shared_k) - sum(pairs(n) for n in shared_r) + cc
    return BlancScore.from_link_counts(cc, ck, cr, nc, nk, nr)


def _mentions(o: _Overlap) -> Score:
    shared = sum(o.cells.values())
    return Score.from_counts(shared, sum(o.key_sizes), shared, sum(o.resp_sizes))


_IMPL = {"muc": _muc, "bcub": _bcub, "ceafm": lambda o: _ceaf(o, False), "ceafe": lambda o: _ceaf(o, True),
         "blanc": _blanc, "lea": _lea, "mentions": _mentions}


# --------------------------------------------------------------------------------------------
# Public functions on plain clusterings
# --------------------------------------------------------------------------------------------
Clusters = Sequence[Sequence[Span]]


def muc(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """MUC link-based score (Vilain et al. 1995)."""
    return _muc(_Overlap(key, response, on_duplicate))


def bcub(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """B-cubed mention-based score (Bagga & Baldwin 1998)."""
    return _bcub(_Overlap(key, response, on_duplicate))


def ceafm(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """Mention-based CEAF, phi3 (Luo 2005)."""
    return _ceaf(_Overlap(key, response, on_duplicate), False)


def ceafe(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """Entity-based CEAF, phi4 (Luo 2005)."""
    return _ceaf(_Overlap(key, response, on_duplicate), True)


def blanc(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> BlancScore:
    """BLANC for predicted mentions (Luo et al. 2014)."""
    return _blanc(_Overlap(key, response, on_duplicate))


def lea(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """LEA link-based entity-aware score (Moosavi & Strube 2016)."""
    return _lea(_Overlap(key, response, on_duplicate))


def mention_identification(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> Score:
    """Exact-span mention detection recall/precision (the scorer's 'Identification of Mentions')."""
    return _mentions(_Overlap(key, response, on_duplicate))


def _check_metrics(metrics: Iterable[str]) -> list[str]:
    names = list(metrics)
    for name in names:
        if name not in _IMPL:
            raise ValueError(f"unknown coreference metric {name!r}; known: {', '.join(_IMPL)}")
    return names


def score_clusterings(key: Clusters, response: Clusters, metrics: Iterable[str] = DEFAULT_METRICS, *,
                      on_duplicate: OnDuplicate = "drop") -> dict[str, Score]:
    """Several metrics on one key/response pair (no file I/O); builds the overlap table once.

    ``metrics`` may include any of :data:`METRIC_NAMES` and ``"mentions"``.
    """
    names = _check_metrics(metrics)
    o = _Overlap(key, response, on_duplicate)
    return {name: _IMPL[name](o) for name in names}


def conll_f1_from_scores(scores: Mapping[str, Score]) -> float:
    """Mean of the MUC, B-cubed and CEAFe F1 (the CoNLL-2011/2012 official score)."""
    missing = [m for m in CONLL_METRICS if m not in scores]
    if missing:
        raise ValueError(f"CoNLL F1 needs {', '.join(missing)}")
    return sum(scores[m].f1 for m in CONLL_METRICS) / 3


def conll_f1(key: Clusters, response: Clusters, *, on_duplicate: OnDuplicate = "drop") -> float:
    """CoNLL F1 of one key/response pair."""
    return conll_f1_from_scores(score_clusterings(key, response, CONLL_METRICS, on_duplicate=on_duplicate))


# --------------------------------------------------------------------------------------------
# Documents and corpora
# --------------------------------------------------------------------------------------------
def _doc_spans(doc: Any) -> tuple[list[list[Span]], bool]:
    """A document's clusters as spans, and whether they are already normalised tuples."""
    spans = getattr(doc, "spans", None)
    if spans is not None:
        return spans, type(doc).__name__ == "CorefRecord"
    return [[(m.start, m.end) for m in c.mentions] for c in doc.clusters if c.mentions], True


def _doc_tokens(doc: Any) -> int:
    n = getattr(doc, "n_tokens", None)
    if n is not None:
        return int(n)
    return sum(len(s.tokens) for s in getattr(doc, "sentences", ()))


def _doc_where(doc: Any) -> str:
    path = getattr(doc, "path", "")
    return f" ({path})" if path else ""


def score_document_pairs(key_docs: Iterable[Any], response_docs: Iterable[Any],
                         metrics: Iterable[str] = DEFAULT_METRICS, *, allow_missing: bool = False,
                         check_tokens: bool = True, on_duplicate: OnDuplicate = "drop"
                         ) -> Iterator[tuple[str, dict[str, Score]]]:
    """Per-document scores, key documents in order, matched to the response by ``key``.

    Documents are :class:`~lingtest.data.Document` or
    :class:`~lingtest.readers.conll_coref.CorefRecord` objects. A document present on one side
    only is an :class:`InputError` naming it (``allow_missing`` scores a missing response as
    empty and ignores extra response documents). With ``check_tokens`` both versions of a
    document must have the same number of tokens (spans would not be comparable otherwise).
    """
    names = _check_metrics(metrics)
    responses: dict[str, Any] = {}
    for d in response_docs:
        if d.key in responses:
            raise InputError(f"document {d.key!r} occurs twice in the response{_doc_where(d)}")
        responses[d.key] = d
    seen: set[str] = set()
    pending: list[tuple[str, Any, Any]] = []
    for kd in key_docs:
        if kd.key in seen:
            raise InputError(f"document {kd.key!r} occurs twice in the key{_doc_where(kd)}")
        seen.add(kd.key)
        rd = responses.get(kd.key)
        if rd is None and not allow_missing:
            raise InputError(f"document {kd.key!r} is in the key{_doc_where(kd)} but not in the response")
        pending.append((kd.key, kd, rd))
    if not allow_missing:
        extra = [k for k in responses if k not in seen]
        if extra:
            raise InputError(f"document {extra[0]!r} is in the response{_doc_where(responses[extra[0]])} "
                             f"but not in the key ({len(extra)} such document(s))")
    for name, kd, rd in pending:
        if rd is not None and check_tokens:
            nk, nr = _doc_tokens(kd), _doc_tokens(rd)
            if nk and nr and nk != nr:
                raise InputError(f"document {name!r} has {nk} tokens in the key but {nr} in the "
                                 f"response{_doc_where(rd)}: the files do not hold the same text")
        ks, k_norm = _doc_spans(kd)
        rs, r_norm = _doc_spans(rd) if rd is not None else ([], True)
        o = _Overlap(ks, rs, on_duplicate, normalized=k_norm and r_norm)
        yield name, {m: _IMPL[m](o) for m in names}


def score_documents(key_docs: Iterable[Any], response_docs: Iterable[Any],
                    metrics: Iterable[str] = DEFAULT_METRICS, **options: Any) -> dict[str, Score]:
    """Corpus-level scores: per-document counts summed, then divided (like the reference scorer).

    Options are those of :func:`score_document_pairs`.
    """
    names = _check_metrics(metrics)
    per_metric: dict[str, list[Score]] = {m: [] for m in names}
    for _, scores in score_document_pairs(key_docs, response_docs, names, **options):
        for m, s in scores.items():
            per_metric[m].append(s)
    out: dict[str, Score] = {}
    for m in names:
        if per_metric[m]:
            out[m] = aggregate(per_metric[m])
        elif m == "blanc":
            out[m] = BlancScore.from_link_counts(0, 0, 0, 0, 0, 0)
        else:
            out[m] = Score.from_counts(0, 0, 0, 0)
    return out
