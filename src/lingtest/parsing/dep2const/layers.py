"""Head-driven projection: the chain of phrases (*layers*) a word projects, bottom-up, and the layer
each of its dependents attaches at.

:func:`assign_layers` runs the steps in order; each step adds the layers of one Penn structure
and places the dependents that belong there:

1. the base phrase: ``NP``/``WHNP``/``QP`` (with an outer ``NP`` for post-modifiers) for nominals,
   else ``VP``, ``PP``/``WHPP``, ``ADJP``, ``ADVP``/``WHADVP``, ``INTJ``, ``CONJP``, ``FRAG``;
2. ``PP`` for a nominal with a UD ``case`` word, ``VP`` for a copula;
3. one ``VP`` per auxiliary;
4. ``S`` for a clause (``SQ`` when the subject and auxiliary are inverted);
5. ``SBAR`` for subordinators and fronted WH phrases (``SBARQ`` for WH questions);

with the coordination layer (``(XP (XP ...) (CC and) (XP ...))``) inserted where the conjuncts
share structure with the head (see :func:`coordination_site`). Layers without dependents are
dropped by the builder unless obligatory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lingtest.parsing.dep2const.deptree import DepTree
from lingtest.parsing.dep2const.relations import (
    AUX,
    BE_HAVE_DO,
    CLAUSAL,
    CLAUSE_LEVEL,
    CLAUSE_RELS,
    COORD,
    COP,
    FINITE_TAGS,
    MARK,
    NP_INTERNAL,
    RELATIVE,
    SPECIAL,
    SUBJ,
    WH_FRONTING_ROLES,
)

__all__ = ["Layer", "assign_layers"]


@dataclass(slots=True)
class Layer:
    """One phrase of a head's projection chain: its label, the dependents attached at it (in word
    order), whether it is built even without dependents, and whether it coordinates conjuncts."""

    label: str
    deps: list[int]
    obligatory: bool = False
    coord: bool = False


@dataclass(frozen=True, slots=True)
class HeadFacts:
    """What :func:`assign_layers` needs to know about head ``h`` in role ``role``: its category,
    its dependents by relation, and the derived facts that decide its layers."""

    h: int
    role: str
    allow_clause: bool
    cat: str
    rels: dict[int, str]  # dependent → relation, in word order
    subjects: list[int]
    cops: list[int]
    auxes: list[int]  # auxiliaries before the head, in word order
    conjs: list[int]
    marks: list[int]
    case_words: list[int]  # UD ``case`` dependents of a nominal (not the possessive ``'s``)
    verbal: bool  # projects a VP: a verb, a copular predicate, or a non-preposition with a subject
    subj_clause: bool  # conjuncts with their own subject: the coordination is of clauses
    shared_aux: bool  # no conjunct has an auxiliary of its own


@dataclass(slots=True)
class _Stack:
    """The layers built so far (bottom-up) and the layer index each dependent is assigned to."""

    layers: list[Layer] = field(default_factory=list)
    assign: dict[int, int] = field(default_factory=dict)

    def add(self, label: str, obligatory: bool = True, coord: bool = False) -> int:
        self.layers.append(Layer(label, [], obligatory, coord))
        return len(self.layers) - 1

    @property
    def top(self) -> int:
        return len(self.layers) - 1


def head_facts(t: DepTree, h: int, role: str, allow_clause: bool) -> HeadFacts:
    """Collect :class:`HeadFacts` for head ``h`` of tree ``t``."""
    cat = t.category(h)
    rels = {k: t.deps[k] for k in t.children[h]}
    subjects = [k for k, r in rels.items() if r in SUBJ]
    cops = [k for k, r in rels.items() if r in COP]
    conjs = [k for k, r in rels.items() if r == "conj"]
    verbal = cat == "V" or bool(cops) or (bool(subjects) and cat != "P")
    return HeadFacts(
        h=h, role=role, allow_clause=allow_clause, cat=cat, rels=rels, subjects=subjects, cops=cops,
        auxes=sorted(k for k, r in rels.items() if r in AUX and k < h), conjs=conjs,
        marks=[k for k, r in rels.items() if r in MARK],
        case_words=[k for k, r in rels.items() if r == "case" and t.tag(k) != "POS"] if cat == "N" else [],
        verbal=verbal,
        subj_clause=verbal and any(any(t.deps[k] in SUBJ for k in t.children[c]) for c in conjs),
        shared_aux=not any(t.deps[k] in AUX for c in conjs for k in t.children[c]))


def assign_layers(t: DepTree, h: int, role: str, allow_clause: bool) -> list[Layer]:
    """The layers head ``h`` projects in role ``role`` (its relation to its own head), bottom-up,
    each holding the dependents attached at it. ``allow_clause=False`` keeps a verbal head
    below ``S`` (a conjunct of a VP coordination)."""
    f = head_facts(t, h, role, allow_clause)
    st = _Stack()
    base = _project_nominal(t, f, st) if f.cat == "N" else _project_phrase(t, f, st)
    site = coordination_site(f)
    coord: int | None = None
    if site == "phrase":
        coord = st.add(st.layers[-1].label, coord=True)
    _add_case_or_copula(f, st, base)
    if site == "below-aux":
        coord = st.add(st.layers[-1].label, coord=True)
    aux_layer = _add_auxiliaries(f, st)
    if site == "above-aux":
        coord = st.add(st.layers[-1].label, coord=True)
    s_layer = _add_clause(t, f, st, base, aux_layer)
    if site == "clause":
        coord = st.add("S", coord=True)
    _add_sbar(t, f, st, s_layer)
    if coord is not None:
        _gather_coordination(f, st, coord)
    for k in f.rels:
        st.assign.setdefault(k, st.top)
    enforce_nesting(t.deps, h, st.assign)
    for k in sorted(st.assign):
        st.layers[st.assign[k]].deps.append(k)
    return st.layers


# ---- 1. the base phrase ---------------------------------------------------------------------
def nominal_label(t: DepTree, f: HeadFacts) -> str:
    """``NP``; ``WHNP`` for a WH nominal that is not a subject (GUM/PTB-converted trees label a WH
    subject of a relative clause NP); ``QP`` for a number with a quantifier modifier before it
    (*about 20*) and no determiner, adjective or compound."""
    label = "WHNP" if t.is_wh(f.h) and f.role not in SUBJ else "NP"
    if t.tag(f.h) == "CD" and any(r in ("quantmod", "advmod") and k < f.h for k, r in f.rels.items()) \
            and not any(r in ("det", "amod", "compound") for r in f.rels.values()):
        label = "QP"
    return label


def _project_nominal(t: DepTree, f: HeadFacts, st: _Stack) -> int:
    """The base ``NP`` with determiners and pre-modifiers, and an outer ``NP`` for post-modifiers
    (``(NP (NP the fish) (PP in the lake))``) and punctuation. Returns the base layer."""
    label = nominal_label(t, f)
    base = st.add(label)
    post = [k for k, r in f.rels.items() if k > f.h and r not in SPECIAL and r not in NP_INTERNAL]
    top = st.add(label) if post else base
    for k, r in f.rels.items():
        if r in SPECIAL or k in f.case_words:
            continue
        st.assign[k] = top if (k in post or r == "punct") else base
    return base


def phrase_label(t: DepTree, f: HeadFacts) -> str:
    """The base phrase of a non-nominal head: ``VP``, ``PP`` (``WHPP`` when its object starts with
    a WH word), ``ADJP``, ``ADVP`` (``WHADVP``), ``INTJ``, ``CONJP``; ``FRAG`` for anything else
    with dependents, ``X`` without."""
    cat = f.cat
    if cat == "V":
        return "VP"
    if cat == "P":
        return "WHPP" if any(t.subtree_is_wh(k) for k in f.rels if k > f.h) else "PP"
    if cat == "J":
        return "ADJP"
    if cat == "R":
        return "WHADVP" if t.tag(f.h) == "WRB" else "ADVP"
    if cat == "U":
        return "INTJ"
    if cat == "C":
        return "CONJP"
    return "FRAG" if f.rels else "X"


def _project_phrase(t: DepTree, f: HeadFacts, st: _Stack) -> int:
    """The base phrase (:func:`phrase_label`) holding every ordinary dependent; a conjunction,
    punctuation or unknown word without dependents projects nothing. Returns the base layer."""
    base = st.add(phrase_label(t, f), obligatory=f.cat not in ("C", "X", "PU") or bool(f.rels))
    for k, r in f.rels.items():
        if r not in SPECIAL:
            st.assign[k] = base
    return base


CoordinationSite = Literal["phrase", "below-aux", "above-aux", "clause"]


def coordination_site(f: HeadFacts) -> CoordinationSite | None:
    """Where the coordination layer goes, if the head has conjuncts: right above the base phrase
    (non-verbal heads); for verbs, below the auxiliaries when the conjuncts share them
    (``(VP will (VP (VP join) and (VP stay)))``), above them when a conjunct has its own; at
    ``S`` level when the conjuncts have their own subjects."""
    if not f.conjs:
        return None
    if f.subj_clause:
        return "clause"
    if f.cat != "V":
        return "phrase"
    return "below-aux" if f.shared_aux else "above-aux"


# ---- 2. PP for a case word, VP for a copula ---------------------------------------------------
def _add_case_or_copula(f: HeadFacts, st: _Stack, base: int) -> None:
    """A nominal with a UD ``case`` word projects a ``PP`` above its NP (UD ``obl``/``nmod``:
    ``(PP in (NP the lake))``); a predicate with a copula projects a ``VP`` holding the copula,
    and then the case word stays in the base phrase."""
    if f.case_words and not f.cops:
        pp = st.add("PP")
        for k in f.case_words:
            st.assign[k] = pp
    if f.cops:
        vp = st.add("VP")
        for k in f.cops:
            st.assign[k] = vp
        for k in f.case_words:
            st.assign[k] = base


# ---- 3. auxiliaries -------------------------------------------------------------------------
def _add_auxiliaries(f: HeadFacts, st: _Stack) -> dict[int, int]:
    """One ``VP`` per auxiliary before a verbal head, innermost first: ``(VP will (VP have (VP
    joined)))``. Returns the layer of each auxiliary."""
    aux_layer: dict[int, int] = {}
    if f.verbal:
        for a in reversed(f.auxes):  # innermost auxiliary first
            aux_layer[a] = st.add("VP")
            st.assign[a] = aux_layer[a]
    return aux_layer


# ---- 4. the clause --------------------------------------------------------------------------
def _is_clause(t: DepTree, f: HeadFacts) -> bool:
    """A verbal head projects ``S`` when allowed and it has a subject, a clausal role, a
    subordinator, or is an infinitival ``acl`` (*a chance to win*)."""
    return f.allow_clause and bool(f.subjects or f.role in CLAUSAL or f.marks
                                   or (f.role == "acl" and any(t.tag(a) == "TO" for a in f.auxes)))


def _add_clause(t: DepTree, f: HeadFacts, st: _Stack, base: int, aux_layer: dict[int, int]) -> int | None:
    """``S`` above a verbal head's VPs (:func:`_is_clause`), holding the subject, clause-level
    dependents and punctuation, and the dependents before the first verb; ``SQ`` under
    subject-auxiliary inversion. Returns the ``S`` layer, if any."""
    if not f.verbal:
        return None
    s_layer = st.add("S") if _is_clause(t, f) else None
    _place_clause_dependents(f, st, s_layer, aux_layer)
    if s_layer is not None and f.subjects and f.cat == "V":
        _invert(t, f, st, base, aux_layer, s_layer)
    return s_layer


def _place_clause_dependents(f: HeadFacts, st: _Stack, s_layer: int | None,
                             aux_layer: dict[int, int]) -> None:
    """Subjects go to ``S`` (else the top VP); clause-level relations and punctuation to ``S``;
    ordinary dependents before the first verb to ``S`` (else the top VP); those between two verbs
    to the ``VP`` of the auxiliary before them (``(VP has (VP never (VP been)))``)."""
    top_vp = st.top
    clause = s_layer if s_layer is not None else top_vp
    for k in f.subjects:
        st.assign[k] = clause
    verbs = sorted([*f.auxes, *f.cops, f.h]) if f.cat != "V" else [*f.auxes, f.h]
    first_v = verbs[0]
    for k, r in f.rels.items():
        if r in SPECIAL:
            continue
        if r in CLAUSE_LEVEL or r == "punct":
            if s_layer is not None:
                st.assign[k] = s_layer
            continue
        if k >= f.h:
            continue
        if k < first_v and (f.cat == "V" or f.cops or f.auxes or k < min(f.subjects, default=f.h)):
            st.assign[k] = clause
        elif f.auxes and k > f.auxes[0] and (f.cat == "V" or k < max(verbs[:-1])):
            owner = max(a for a in f.auxes if a < k)
            st.assign[k] = aux_layer[owner]


def _invert(t: DepTree, f: HeadFacts, st: _Stack, base: int, aux_layer: dict[int, int], s_layer: int) -> None:
    """Subject-auxiliary inversion (``Did he see it ?``, ``Is he sure ?``): the fronted verb
    sits directly under the clause, labelled ``SQ`` as in the PTB."""
    h, auxes = f.h, f.auxes
    first_v = auxes[0] if auxes else h
    if not any(s > first_v for s in f.subjects):
        return
    if auxes:
        if not any(first_v < s < h for s in f.subjects):
            return
        dissolved = aux_layer[first_v]
    else:
        if t.tokens[h].text.lower() not in BE_HAVE_DO:
            return
        dissolved = base
    st.layers[dissolved].obligatory = False
    for k, ly in list(st.assign.items()):
        if ly == dissolved:
            st.assign[k] = s_layer
    st.layers[s_layer].label = "SQ"


# ---- 5. SBAR --------------------------------------------------------------------------------
def fronted_wh(t: DepTree, f: HeadFacts) -> int | None:
    """The fronted WH phrase of a clause (*the man **who** left*, *I know **what** you did*,
    ***What** did you see ?*): its first dependent before the head (not a subordinator or
    punctuation, not itself a clause) when it starts with a WH word. In a main clause only in a
    question, and never the subject."""
    if not (f.verbal and f.role in WH_FRONTING_ROLES):
        return None
    rels = f.rels
    left = sorted(k for k in rels if k < f.h and rels[k] not in MARK | {"punct"})
    question = any(tok.text == "?" for tok in t.tokens)
    if left and rels[left[0]] not in CLAUSE_RELS and t.subtree_is_wh(left[0]) \
            and not (f.role == "ROOT" and (rels[left[0]] in SUBJ or not question)):
        return left[0]
    return None


def null_complementiser(t: DepTree, f: HeadFacts) -> bool:
    """A finite complement clause with a subject after its verb gets the PTB's null
    complementiser, ``(SBAR (S ...))``; small clauses (``let it go``) and fronted quotes stay S."""
    finite = t.tag(f.h) in FINITE_TAGS or any(t.tag(a) in FINITE_TAGS for a in f.auxes + f.cops)
    head = t.heads[f.h]
    return f.role in ("ccomp", "csubj") and bool(f.subjects) and finite and head != -1 \
        and head < f.h and t.category(head) == "V"


def _add_sbar(t: DepTree, f: HeadFacts, st: _Stack, s_layer: int | None) -> None:
    """``SBAR`` above ``S`` holding subordinators before the head and a fronted WH phrase, for
    relative clauses and complement clauses with a null complementiser too; a main-clause WH
    question is ``(SBARQ (WHNP What) (SQ did you see) ?)``. Other ``mark`` words stay at the
    top layer."""
    wh = fronted_wh(t, f)
    sbar_deps = [k for k in f.marks if k < f.h] + ([wh] if wh is not None else [])
    if s_layer is not None and (sbar_deps or f.role in RELATIVE or null_complementiser(t, f)):
        if f.role == "ROOT" and wh is not None:
            sbar = st.add("SBARQ")
            st.layers[s_layer].label = "SQ"
            for k, r in f.rels.items():
                if r == "punct" and st.assign.get(k) == s_layer and k > f.h:
                    st.assign[k] = sbar
        else:
            sbar = st.add("SBAR")
        for k in sbar_deps:
            st.assign[k] = sbar
    for k in f.marks:
        st.assign.setdefault(k, st.top)


# ---- coordination and nesting ---------------------------------------------------------------
def _gather_coordination(f: HeadFacts, st: _Stack, coord: int) -> None:
    """Conjuncts and conjunctions attach at the coordination layer, with the punctuation between
    the conjuncts and any dependent between them that sits higher."""
    lo, hi = min([f.h, *f.conjs]), max([f.h, *f.conjs])
    for k, r in f.rels.items():
        if r in COORD:
            st.assign[k] = coord
        elif lo < k < hi and (r == "punct" or st.assign.get(k, -1) > coord):
            st.assign[k] = coord


def enforce_nesting(deps: list[str], h: int, assign: dict[int, int]) -> None:
    """Layers must nest: on each side of the head, farther dependents sit at the same or a
    higher layer than closer ones. Punctuation is lowered to fit; other words are raised.
    Updates ``assign`` (dependent → layer) in place."""
    for side in (sorted((k for k in assign if k < h), reverse=True), sorted(k for k in assign if k > h)):
        # pass 1 (outside → in): punctuation no higher than the lowest farther non-punct word
        cap = None
        for k in reversed(side):
            if deps[k] == "punct":
                if cap is not None and assign[k] > cap:
                    assign[k] = cap
            else:
                cap = assign[k] if cap is None else min(cap, assign[k])
        # pass 2 (inside → out): raise farther words to at least the closer level
        level = -1
        for k in side:
            if assign[k] < level:
                assign[k] = level
            level = assign[k]
