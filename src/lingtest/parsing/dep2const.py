"""Dependency → constituency conversion by head-driven projection.

:func:`dependency_to_constituency` turns a dependency-parsed :class:`~lingtest.data.Sentence`
into a Penn-style constituency :class:`~lingtest.data.Tree`, in the spirit of Xia & Palmer (2001)
and of Collins' head rules read backwards: every word projects a short chain of phrases
(its *layers*) and each of its dependents attaches at one layer of that chain.

Why: the CREST technique needs constituency depths, but the backends we can run offline give
dependency parses. The conversion is deterministic, pure and cheap.

Layers per head (bottom-up, a layer is only built when it has dependents or is obligatory):

* nouns, pronouns, numbers-as-heads → ``NP`` (determiners, pre-modifiers), then an outer
  ``NP`` for post-modifiers (``(NP (NP the fish) (PP in the lake))``); a UD ``case`` dependent adds
  a ``PP`` above (UD ``obl``/``nmod``); WH determiners/pronouns make ``WHNP``;
* prepositions with an object → ``PP``; adjectives → ``ADJP``; adverbs → ``ADVP`` (``WHADVP``);
  cardinal numbers with quantifier modifiers → ``QP``; interjections → ``INTJ``;
* verbs → ``VP`` holding objects and complements, one more ``VP`` per auxiliary
  (``(VP will (VP join ...))``), ``S`` with the subject and clause-level modifiers, ``SBAR`` with
  ``mark`` words and fronted WH phrases of relative/complement clauses. Non-verbal predicates
  with a UD ``cop`` get a ``VP`` layer for the copula;
* coordination (``conj``/``cc``) wraps the coordinated layer: ``(VP (VP ...) (CC and) (VP ...))``;
  clauses with their own subject coordinate at ``S`` level.

* subject–auxiliary inversion gives ``SQ``; a fronted WH phrase in a question gives
  ``(SBARQ (WHNP What) (SQ did you see) ?)``; finite complement clauses after their verb get the
  PTB's null-complementiser ``(SBAR (S ...))``; bracketed dependents become ``PRN``.

Punctuation goes to the highest layer of its head that keeps every phrase contiguous (so a
sentence-final period sits under the top ``S``, even when the parser hung it on a conjunct);
punctuation at the edge of a dependent phrase is raised out of it (UD hangs ``,`` on the next
word) except matching brackets, which stay with (and are moved to) the phrase they enclose. Unary chains with a repeated label are
collapsed. Non-projective arcs are lifted to the head's head until the dependency tree is
projective, which is the lowest attachment that keeps the constituency tree projective.
Every token appears exactly once as a preterminal labelled with its PTB tag (``Token.tag``,
else the UPOS, else ``X``).

Agreement with GUM's gold trees (evalb, COLLINS.prm) on the GUM test split: labelled F1 0.813 from
spaCy ``en_core_web_sm`` parses, 0.846 from GUM's gold UD trees (``bench/bench_parse.py``).

Both spaCy/ClearNLP labels (``dobj``, ``pobj``, ``prep``, ``relcl``, ``acomp`` ...) and UD labels
(``obj``, ``obl``, ``case``, ``cop``, ``acl:relcl``, ``nsubj:pass`` ...) are understood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lingtest.data.model import Sentence, Tree

__all__ = ["dependency_to_constituency", "projectivize"]

SUBJ = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "nsubj:pass", "csubj:pass", "expl:pass",
        "nsubj:outer", "csubj:outer"}
AUX = {"aux", "auxpass", "aux:pass"}
COP = {"cop"}
MARK = {"mark"}
COORD = {"conj", "cc", "preconj", "cc:preconj"}
CLAUSE_LEVEL = {"intj", "discourse", "vocative", "parataxis", "dislocated", "list", "meta", "reparandum"}
# relations whose dependents are clauses (they get an S even without an overt subject)
CLAUSAL = {"ROOT", "root", "xcomp", "ccomp", "advcl", "csubj", "csubjpass", "csubj:pass", "relcl",
           "acl:relcl", "pcomp", "parataxis", "advcl:relcl", "list", "dislocated"}
# clausal dependents (never a fronted WH phrase, even when they start with a WH word)
CLAUSE_RELS = {"advcl", "ccomp", "xcomp", "csubj", "csubjpass", "csubj:pass", "parataxis", "relcl", "acl",
               "acl:relcl", "advcl:relcl", "conj", "list"}
RELATIVE = {"relcl", "acl:relcl", "advcl:relcl"}
# dependents attached without a phrase of their own when they have no dependents
BARE = {"det", "predet", "amod", "compound", "nummod", "poss", "case", "mark", "cc", "preconj",
        "cc:preconj", "aux", "auxpass", "aux:pass", "cop", "neg", "prt", "compound:prt", "punct",
        "quantmod", "nn", "nmod:poss", "det:poss", "det:predet", "fixed", "flat", "flat:name",
        "goeswith", "nummod:gov", "det:nummod", "number", "compound:svc"}
# subtrees flattened into their head's phrase (multi-word names, fixed expressions)
FLAT = {"compound", "flat", "flat:name", "fixed", "goeswith", "nn", "compound:prt"}
WH_TAGS = {"WDT", "WP", "WP$", "WRB"}
PUNCT_TAGS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "$", "#"}
NOUN_POS = {"NOUN", "PROPN", "PRON", "NUM", "SYM", "X"}
NOUN_TAGS_PREFIX = ("NN", "PRP", "EX", "WP", "FW")
# noun dependents that stay inside the base NP even when they follow the noun
NP_INTERNAL = {"case", "det", "compound", "nummod", "flat", "flat:name", "fixed", "punct", "nmod:poss", "poss",
               "goeswith", "quantmod", "nn"}


@dataclass(slots=True)
class _Layer:
    label: str
    deps: list[int]
    obligatory: bool = False
    coord: bool = False



def dep2const_version() -> str:
    """A short hash of this module's source: part of the parse-cache key, so that trees cached by
    an older version of the conversion are never reused."""
    import hashlib
    from pathlib import Path

    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]

def dependency_to_constituency(sentence: Sentence, *, root_label: str | None = None) -> Tree:
    """Derive a Penn-style constituency tree from the sentence's dependency annotation.

    ``Token.head`` (sentence-relative, ``-1`` root) and ``Token.dep`` must be filled; tokens with
    ``head is None`` are attached to the root. ``root_label`` (e.g. ``"ROOT"``) wraps the result
    in an extra top node; by default the top node is the root word's highest projection (``S``
    for a clause), matching how the CREST paper counts depths.
    """
    n = len(sentence.tokens)
    if n == 0:
        raise ValueError("cannot build a tree for an empty sentence")
    conv = _Converter(sentence)
    tree = conv.build_root()
    tree = _collapse_unaries(tree)
    if root_label:
        tree = Tree(root_label, [tree])
    return tree


# --------------------------------------------------------------------------------------------
# dependency preprocessing
# --------------------------------------------------------------------------------------------
def _clean_heads(sentence: Sentence) -> tuple[list[int], list[str]]:
    """Heads (-1 = root) and lower-cased relations; one root, no cycles, no out-of-range heads."""
    n = len(sentence.tokens)
    heads = [t.head if t.head is not None else -1 for t in sentence.tokens]
    deps = [(t.dep or "dep") for t in sentence.tokens]
    deps = [d if d == "ROOT" else d.lower() for d in deps]
    heads = [h if (h is not None and -1 <= h < n and h != i) else -1 for i, h in enumerate(heads)]
    # break cycles: a token whose head chain loops is attached to the root
    for i in range(n):
        seen = set()
        j = i
        while j != -1 and j not in seen:
            seen.add(j)
            j = heads[j]
        if j != -1:  # cycle through j
            heads[j] = -1
    roots = [i for i in range(n) if heads[i] == -1]
    main = roots[0]
    for i in roots:  # prefer the word labelled root
        if deps[i] in ("ROOT", "root"):
            main = i
            break
    for r in roots:
        if r != main:
            heads[r] = main
            if deps[r] in ("ROOT", "root"):
                deps[r] = "dep"
    deps[main] = "ROOT"
    for i, t in enumerate(sentence.tokens):
        if deps[i] == "mark" and t.tag == "TO":  # UD: infinitival "to" is a mark; PTB: (VP (TO to) (VP ...))
            deps[i] = "aux"
        elif deps[i] == "advmod" and t.text.lower() in ("not", "n't", "never") and t.tag in ("RB", None):
            deps[i] = "neg"  # PTB keeps negation bare inside the VP
    return heads, deps


def _attach_brackets(tokens: Sequence, heads: list[int], deps: list[str]) -> None:
    """Matching brackets around one phrase hang from that phrase's head (parsers often attach
    them to the clause), so the converter can build ``(PRN ( ... ))``."""
    n = len(heads)
    i = 0
    while i < n:
        if tokens[i].tag in OPEN_BRACKETS or tokens[i].text in ("(", "["):
            j = next((k for k in range(i + 1, n) if tokens[k].tag in CLOSE_BRACKETS or tokens[k].text in (")", "]")),
                     None)
            if j is None:
                break
            inner = [k for k in range(i + 1, j) if not (i < heads[k] < j)]
            if len(inner) == 1 and deps[i] == "punct" and deps[j] == "punct":
                heads[i] = heads[j] = inner[0]
            i = j + 1
        else:
            i += 1


def _raise_edge_punct(heads: list[int], deps: list[str], tags: Sequence[str | None] = ()) -> None:
    """Punctuation at the edge of a phrase belongs to the phrase above (UD hangs a comma on the
    following word: ``, in Dulwich``; the PTB puts it outside ``(PP in Dulwich)``)."""
    n = len(heads)
    spans = _subtree_spans(heads)
    for d in range(n):
        if deps[d] != "punct" or (d < len(tags) and tags[d] in OPEN_BRACKETS | CLOSE_BRACKETS):
            continue  # brackets stay with what they enclose (a PRN)
        for _ in range(n):
            h = heads[d]
            if h == -1 or heads[h] == -1:
                break
            lo, hi = spans[h]
            others = [k for k in range(lo, hi + 1) if k != d]
            if not others or not (d < min(others) or d > max(others)):
                break
            heads[d] = heads[h]
            spans = _subtree_spans(heads)


def _subtree_spans(heads: list[int]) -> list[tuple[int, int]]:
    n = len(heads)
    lo, hi = list(range(n)), list(range(n))
    for i in range(n):
        j, seen = heads[i], 0
        while j != -1 and seen <= n:
            lo[j], hi[j] = min(lo[j], i), max(hi[j], i)
            j, seen = heads[j], seen + 1
    return list(zip(lo, hi))


def _dominates(heads: Sequence[int], h: int, d: int) -> bool:
    while d != -1:
        if d == h:
            return True
        d = heads[d]
    return False


def break_cycles(heads: list[int]) -> list[int]:
    """Attach to the root one node of every head cycle (re-attaching a token that has dependents,
    e.g. punctuation that a parser gave children, can close a loop)."""
    heads = list(heads)
    n = len(heads)
    root = next((i for i in range(n) if heads[i] == -1), 0)
    heads[root] = -1
    for start in range(n):
        path: list[int] = []
        on_path: set[int] = set()
        j = start
        while j != -1 and j not in on_path:
            path.append(j)
            on_path.add(j)
            j = heads[j]
        if j != -1:  # j closes a cycle: cut it at j
            heads[j] = root if j != root else -1
    return heads


def projectivize(heads: list[int]) -> list[int]:
    """Lift non-projective arcs: reattach the dependent to its head's head until every arc is
    projective (all words between head and dependent are dominated by the head)."""
    heads = break_cycles(heads)
    n = len(heads)
    changed = True
    while changed:
        changed = False
        for d in range(n):
            h = heads[d]
            if h == -1:
                continue
            lo, hi = min(h, d), max(h, d)
            if any(not _dominates(heads, h, k) for k in range(lo + 1, hi)):
                heads[d] = heads[h] if heads[h] != -1 else h
                if heads[d] == h:  # h is the root: the root dominates everything
                    continue
                changed = True
    return heads


def _normalise_coordination(heads: list[int], deps: list[str]) -> None:
    """Make coordination flat (PTB style): chained conjuncts (spaCy ``A , B and C`` with C→B→A)
    and UD-style ``cc``/punctuation on later conjuncts all hang from the first conjunct."""
    n = len(heads)
    for c in range(n):
        if deps[c] != "conj":
            continue
        h = heads[c]
        while h != -1 and deps[h] == "conj" and heads[h] != -1:
            h = heads[h]
        heads[c] = h
    for c in range(n):
        if deps[c] != "conj":
            continue
        first = heads[c]
        if first == -1:
            continue
        for k in range(n):
            if heads[k] != c:
                continue
            if deps[k] in ("cc", "cc:preconj") and first < k < c:
                heads[k] = first
            elif deps[k] == "punct" and first < k < c:
                heads[k] = first
    # cc/punct left on an intermediate conjunct but lying after it: move to the first conjunct
    for k in range(n):
        h = heads[k]
        if h != -1 and deps[k] in ("cc", "punct") and deps[h] == "conj" and k > h:
            first = heads[h]
            later = [c for c in range(n) if deps[c] == "conj" and heads[c] == first and c > k]
            if first != -1 and later:
                heads[k] = first


BE_HAVE_DO = {"is", "are", "was", "were", "am", "be", "'s", "'re", "'m", "has", "have", "had", "does", "do",
              "did"}
FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}
FINAL_PUNCT = {".", "?", "!", "...", "…", "?!", "!?"}


def _final_punct_to_root(tokens: Sequence, heads: list[int], deps: list[str]) -> None:
    """Sentence-final punctuation (and closing quotes/brackets right after it) belongs to the
    top clause in the PTB; parsers often hang it on the last conjunct."""
    n = len(heads)
    root = next(i for i in range(n) if heads[i] == -1)
    k = n - 1
    while k > root and deps[k] == "punct":
        if tokens[k].text in FINAL_PUNCT or tokens[k].tag == ".":
            for j in range(k, n):
                if deps[j] == "punct" and heads[j] != -1:
                    heads[j] = root
            return
        k -= 1


# --------------------------------------------------------------------------------------------
# the converter
# --------------------------------------------------------------------------------------------
class _Converter:
    def __init__(self, sentence: Sentence) -> None:
        self.tokens = sentence.tokens
        heads, deps = _clean_heads(sentence)
        _normalise_coordination(heads, deps)
        _final_punct_to_root(sentence.tokens, heads, deps)
        _attach_brackets(sentence.tokens, heads, deps)
        heads = projectivize(heads)  # also breaks any cycle the re-attachments above closed
        _raise_edge_punct(heads, deps, [t.tag for t in sentence.tokens])
        self.heads = projectivize(heads)
        self.deps = deps
        n = len(self.tokens)
        self.children: list[list[int]] = [[] for _ in range(n)]
        self.root = next(i for i in range(n) if self.heads[i] == -1)
        for i, h in enumerate(self.heads):
            if h != -1:
                self.children[h].append(i)

    # ---- token classes ------------------------------------------------------------------
    def tag(self, i: int) -> str:
        t = self.tokens[i]
        return t.tag or t.pos or "X"

    def category(self, i: int) -> str:
        t = self.tokens[i]
        tag, pos = (t.tag or ""), (t.pos or "")
        if tag.startswith("VB") or tag == "MD" or (not tag and pos in ("VERB", "AUX")):
            return "V"
        if tag in ("WP", "WDT") or (tag == "WP$"):
            return "N"
        if tag == "WRB":
            return "R"
        if tag.startswith(NOUN_TAGS_PREFIX) or tag in ("CD", "DT", "PDT", "POS", "ADD", "NFP", "XX", "$", "SYM",
                                                      "LS", "GW", "AFX") or (not tag and pos in NOUN_POS | {"DET"}):
            return "N"
        if tag.startswith("JJ") or (not tag and pos == "ADJ"):
            return "J"
        if tag.startswith("RB") or (not tag and pos == "ADV"):
            return "R"
        if tag in ("IN", "TO", "RP") or (not tag and pos == "ADP"):
            return "P"
        if tag == "UH" or pos == "INTJ":
            return "U"
        if tag == "CC" or pos in ("CCONJ", "SCONJ"):
            return "C"
        if tag in PUNCT_TAGS or pos == "PUNCT":
            return "PU"
        if pos == "PART":
            return "R"
        return "N"

    def is_wh(self, i: int) -> bool:
        if self.tag(i) in WH_TAGS:
            return True
        return any(self.deps[c] in ("det", "poss", "nmod:poss", "det:poss") and self.tag(c) in WH_TAGS
                   for c in self.children[i])

    def subtree(self, i: int) -> list[int]:
        out = [i]
        for c in self.children[i]:
            out.extend(self.subtree(c))
        return sorted(out)

    # ---- building -------------------------------------------------------------------------
    def build_root(self) -> Tree:
        tree = self.build(self.root, role="ROOT", allow_clause=True)
        if tree.is_preterminal():  # a lone word that projects nothing (a symbol): still a phrase
            tree = Tree("FRAG", [tree])
        return tree

    def preterminal(self, i: int) -> Tree:
        return Tree(self.tag(i), token=i)

    def build_dep(self, d: int, head: int) -> list[Tree]:
        """Trees for dependent ``d`` (a flattened subtree gives several preterminals)."""
        rel = self.deps[d]
        kids = self.children[d]
        if rel in FLAT:
            sub = self.subtree(d)
            if sub == list(range(sub[0], sub[-1] + 1)) and all(
                    self.deps[k] in FLAT | {"punct", "det", "amod", "nummod", "case", "compound"}
                    for k in sub if k != d):
                return [self.preterminal(k) for k in sub]
        if not kids and rel in BARE:
            return [self.preterminal(d)]
        if not kids and rel in ("intj", "discourse") and self.category(head) == "U":
            return [self.preterminal(d)]  # (INTJ (UH oh) (UH well)), not nested INTJs
        if not kids and rel in ("advmod", "npadvmod", "obl:npmod") and self.category(head) in ("J", "R", "N", "P"):
            return [self.preterminal(d)]
        return [_parenthetical(self.build(d, role=rel, allow_clause=True))]

    def build(self, h: int, role: str, allow_clause: bool) -> Tree:
        layers = self.layers(h, role, allow_clause)
        node = self.preterminal(h)
        for li, layer in enumerate(layers):
            if not layer.deps and not layer.obligatory:
                continue
            if layer.coord:
                kids = [node]
                for d in layer.deps:
                    if self.deps[d] == "conj":
                        kids.append(self.build_conjunct(d, layers, li))
                    else:
                        kids.extend(self.build_dep(d, h))
                label = node.label if not node.is_preterminal() else layer.label
                node = Tree(label, sorted(kids, key=lambda t: t.span()[0]))
                continue
            kids = [node]
            for d in layer.deps:
                kids.extend(self.build_dep(d, h))
            kids.sort(key=lambda t: t.span()[0])
            node = Tree(layer.label, kids)
        return node

    def build_conjunct(self, c: int, head_layers: list[_Layer], coord_index: int) -> Tree:
        """A conjunct projected up to the same kind of layer as the first conjunct."""
        below = [ly for ly in head_layers[:coord_index] if ly.deps or ly.obligatory]
        target = below[-1].label if below else None
        has_subj = any(self.deps[k] in SUBJ for k in self.children[c])
        clause = target in ("S", "SBAR") or has_subj
        t = self.build(c, role="conj", allow_clause=clause)
        return t

    # ---- layer assignment -------------------------------------------------------------------
    def layers(self, h: int, role: str, allow_clause: bool) -> list[_Layer]:
        cat = self.category(h)
        kids = self.children[h]
        rels = {k: self.deps[k] for k in kids}
        subjects = [k for k, r in rels.items() if r in SUBJ]
        cops = [k for k, r in rels.items() if r in COP]
        auxes = sorted(k for k, r in rels.items() if r in AUX and k < h)
        conjs = [k for k, r in rels.items() if r == "conj"]
        marks = [k for k, r in rels.items() if r in MARK]
        verbal = cat == "V" or bool(cops) or (bool(subjects) and cat != "P")
        layers: list[_Layer] = []
        assign: dict[int, int] = {}

        def add(label: str, obligatory: bool = True, coord: bool = False) -> int:
            layers.append(_Layer(label, [], obligatory, coord))
            return len(layers) - 1

        special = SUBJ | AUX | COP | MARK | COORD
        # --- base projection ------------------------------------------------------------------
        case_words = [k for k, r in rels.items() if r == "case" and self.tag(k) != "POS"] if cat == "N" else []
        if cat == "N":
            # GUM/PTB-converted trees label a WH subject of a relative clause NP, other WH phrases WHNP
            label = "WHNP" if self.is_wh(h) and role not in SUBJ else "NP"
            if self.tag(h) == "CD" and any(r in ("quantmod", "advmod") and k < h for k, r in rels.items()) \
                    and not any(r in ("det", "amod", "compound") for r in rels.values()):
                label = "QP"
            base = add(label)
            post = [k for k, r in rels.items() if k > h and r not in special and r not in NP_INTERNAL]
            top = add(label) if post else base
            for k, r in rels.items():
                if r in special or k in case_words:
                    continue
                assign[k] = top if (k in post or r == "punct") else base
        else:
            if cat == "V":
                label = "VP"
            elif cat == "P":
                label = "WHPP" if any(self.subtree_is_wh(k) for k in kids if k > h) else "PP"
            elif cat == "J":
                label = "ADJP"
            elif cat == "R":
                label = "WHADVP" if self.tag(h) == "WRB" else "ADVP"
            elif cat == "U":
                label = "INTJ"
            elif cat == "C":
                label = "CONJP"
            else:
                label = "FRAG" if kids else "X"
            base = add(label, obligatory=cat not in ("C", "X", "PU") or bool(kids))
            for k, r in rels.items():
                if r not in special:
                    assign[k] = base

        subj_clause = verbal and any(any(self.deps[k] in SUBJ for k in self.children[c]) for c in conjs)
        coord_layer: int | None = None
        if conjs and cat != "V" and not subj_clause:
            coord_layer = add(layers[-1].label, coord=True)

        # --- copula / case / auxiliaries -----------------------------------------------------------
        if case_words and not cops:
            pp = add("PP")
            for k in case_words:
                assign[k] = pp
        if cops:
            vp = add("VP")
            for k in cops:
                assign[k] = vp
            for k in case_words:
                assign[k] = base
        shared_aux = not any(self.deps[k] in AUX for c in conjs for k in self.children[c])
        if conjs and cat == "V" and not subj_clause and shared_aux:
            coord_layer = add(layers[-1].label, coord=True)
        aux_layer: dict[int, int] = {}
        if verbal:
            for a in reversed(auxes):  # innermost auxiliary first
                aux_layer[a] = add("VP")
                assign[a] = aux_layer[a]
        if conjs and cat == "V" and not subj_clause and not shared_aux:
            coord_layer = add(layers[-1].label, coord=True)

        # --- clause ---------------------------------------------------------------------------
        s_layer: int | None = None
        if verbal and allow_clause and (subjects or role in CLAUSAL or marks
                                        or (role == "acl" and any(self.tag(a) == "TO" for a in auxes))):
            s_layer = add("S")
        if verbal:
            top_vp = len(layers) - 1
            for k in subjects:
                assign[k] = s_layer if s_layer is not None else top_vp
            verbs = sorted([*auxes, *cops, h]) if cat != "V" else [*auxes, h]
            first_v = verbs[0]
            for k, r in rels.items():
                if r in special:
                    continue
                if r in CLAUSE_LEVEL or r == "punct":
                    if s_layer is not None:
                        assign[k] = s_layer
                    continue
                if k >= h:
                    continue
                if k < first_v and (cat == "V" or cops or auxes or k < min(subjects, default=h)):
                    assign[k] = s_layer if s_layer is not None else top_vp
                elif auxes and k > auxes[0] and (cat == "V" or k < max(verbs[:-1])):
                    owner = max(a for a in auxes if a < k)
                    assign[k] = aux_layer[owner]
        if verbal and s_layer is not None and subjects and cat == "V":
            self._invert(h, auxes, subjects, base, aux_layer, s_layer, layers, assign)
        if subj_clause and conjs:
            coord_layer = add("S", coord=True)

        # --- SBAR: subordinators and fronted WH phrases -------------------------------------------
        sbar_deps = [k for k in marks if k < h]
        wh_front = False
        if verbal and role in RELATIVE | {"ccomp", "advcl", "csubj", "pcomp", "acl", "xcomp", "ROOT"}:
            left = sorted(k for k in kids if k < h and rels[k] not in MARK | {"punct"})
            question = any(t.text == "?" for t in self.tokens)
            if left and rels[left[0]] not in CLAUSE_RELS and self.subtree_is_wh(left[0]) \
                    and not (role == "ROOT" and (rels[left[0]] in SUBJ or not question)):
                sbar_deps.append(left[0])
                wh_front = True
        # a finite complement clause after its verb: (SBAR (S ...)) with the null complementiser;
        # small clauses (``let it go``) and fronted quotes stay S
        finite = self.tag(h) in FINITE_TAGS or any(self.tag(a) in FINITE_TAGS for a in auxes + cops)
        null_comp = role in ("ccomp", "csubj") and bool(subjects) and finite and self.heads[h] != -1 \
            and self.heads[h] < h and self.category(self.heads[h]) == "V"
        if s_layer is not None and (sbar_deps or role in RELATIVE or null_comp):
            if role == "ROOT" and wh_front:
                # a WH question: (SBARQ (WHNP What) (SQ did you see) ?)
                sbar = add("SBARQ")
                layers[s_layer].label = "SQ"
                for k, r in rels.items():
                    if r == "punct" and assign.get(k) == s_layer and k > h:
                        assign[k] = sbar
            else:
                sbar = add("SBAR")
            for k in sbar_deps:
                assign[k] = sbar
        for k in marks:
            assign.setdefault(k, len(layers) - 1)

        # --- coordination members ---------------------------------------------------------------
        if coord_layer is not None:
            lo, hi = min([h, *conjs]), max([h, *conjs])
            for k, r in rels.items():
                if r in COORD:
                    assign[k] = coord_layer
                elif lo < k < hi and (r == "punct" or assign.get(k, -1) > coord_layer):
                    assign[k] = coord_layer
        for k in rels:
            assign.setdefault(k, len(layers) - 1)

        self._enforce_nesting(h, assign)
        for k in sorted(assign):
            layers[assign[k]].deps.append(k)
        return layers

    def _invert(self, h: int, auxes: list[int], subjects: list[int], base: int, aux_layer: dict[int, int],
                s_layer: int, layers: list[_Layer], assign: dict[int, int]) -> None:
        """Subject-auxiliary inversion (``Did he see it ?``, ``Is he sure ?``): the fronted verb
        sits directly under the clause, labelled ``SQ`` as in the PTB."""
        first_v = auxes[0] if auxes else h
        if not any(s > first_v for s in subjects):
            return
        if auxes:
            if not any(first_v < s < h for s in subjects):
                return
            dissolved = aux_layer[first_v]
        else:
            if self.tokens[h].text.lower() not in BE_HAVE_DO:
                return
            dissolved = base
        layers[dissolved].obligatory = False
        for k, ly in list(assign.items()):
            if ly == dissolved:
                assign[k] = s_layer
        layers[s_layer].label = "SQ"

    def is_flat_role(self, role: str) -> bool:
        return role in FLAT

    def subtree_is_wh(self, k: int) -> bool:
        sub = self.subtree(k)
        return self.tag(sub[0]) in WH_TAGS or (self.tag(k) in ("IN", "TO") and len(sub) > 1
                                               and self.tag(sub[1]) in WH_TAGS)

    def _enforce_nesting(self, h: int, assign: dict[int, int]) -> None:
        """Layers must nest: on each side of the head, farther dependents sit at the same or a
        higher layer than closer ones. Punctuation is lowered to fit; other words are raised."""
        for side in (sorted((k for k in assign if k < h), reverse=True), sorted(k for k in assign if k > h)):
            # pass 1 (outside → in): punctuation no higher than the lowest farther non-punct word
            cap = None
            for k in reversed(side):
                if self.deps[k] == "punct":
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


OPEN_BRACKETS = {"-LRB-", "-LCB-", "-LSB-"}
CLOSE_BRACKETS = {"-RRB-", "-RCB-", "-RSB-"}


def _parenthetical(t: Tree) -> Tree:
    """A dependent phrase enclosed in brackets is a PRN: ``(PRN (-LRB- () (CD 17) (-RRB- )))``."""
    kids = t.children
    if len(kids) >= 3 and kids[0].is_preterminal() and kids[-1].is_preterminal() \
            and kids[0].label in OPEN_BRACKETS and kids[-1].label in CLOSE_BRACKETS:
        return Tree("PRN", kids)
    return t


def _collapse_unaries(t: Tree) -> Tree:
    """Collapse X → X unary chains (keeping one node) throughout the tree."""
    if t.is_preterminal():
        return t
    kids = [_collapse_unaries(c) for c in t.children]
    while len(kids) == 1 and not kids[0].is_preterminal() and kids[0].label == t.label:
        kids = kids[0].children
    return Tree(t.label, kids)
