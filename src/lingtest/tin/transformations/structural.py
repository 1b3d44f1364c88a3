"""Structural transformation: a declarative sentence becomes a question (TIN section 3.2.2).

On the constituency tree, the first clause ``S -> NP VP`` met in breadth-first order is inverted by the first
child of its VP, which must be a verb. As in the public TIN code the search does not look inside ``SQ``,
``SBAR``, ``SBARQ`` or ``SINV``; lingtest takes the paper's ``S -> NP VP`` literally and additionally requires
(on real CoNLL-2003 parses the looser rule makes mostly ungrammatical questions, left to the naturalness
filter): the search does not enter a ``VP`` (a clause there is a complement: *saw [their luck desert them]*),
only adverbs, parentheticals and commas may stand between the subject NP and the VP (not *Result : Pakistan
won*), the clause starts the sentence (only quotes or brackets before it, or a fronted adverbial - a PP or
ADVP and a comma - which stays in front: *In Thursday's fighting, did French troops fire back ...?*) and ends
it (only punctuation after it: not the quoted clause of *"Our statistics are the highest," Hakme said.*, whose
question would end in *Hakme said?*), and the sentence ends with a period (a results line or a headline
without one, *Camilla Martin beat Wang Chen 11-0 12-10*, is not a sentence to ask):

1. a modal (``MD``) or a form of *be* with a complement (*am, is, are, was, were* and at least one
   more child in the VP) moves to the front of the clause: *Twitter was the obvious solution.* ->
   *Was twitter the obvious solution?*;
2. an auxiliary - *have/has/had* before a participle VP, *do/does/did* before a VP - moves to the
   front: *He has faced floods.* -> *Has he faced floods?*;
3. any other verb is lemmatised (the parse's lemma, else lemminflect) and *do* inserted at the
   front, inflected by the verb's tag: ``VBZ`` -> *does*, ``VBD``/``VBN`` -> *did*,
   ``VB``/``VBP``/``VBG`` -> *do* (the paper; the public TIN code writes *Did* for the last group):
   *He cried.* -> *Did he cry?*

Contractions (*'s*, *'re*, *'ve*, *'d*, *'ll*, a verb before *n't*) and a bare *be* without a complement give
no mutant. With the dependency parse (:func:`unaskable`), neither do: under do-support, a sentence with
another finite verb that has no subject of its own - coordinated, or an adverbial clause - which keeps its
tense while the inverted verb loses it (*Did Candiotti walk one, allowed five hits?*, *Did Newmont say ...,
though declined to detail the encounters?*); a clause coordinated with the inverted one (*Did Benes allow two
runs and Clayton had a single?*); a sentence that ends in a reporting clause (*..., the newspaper said?*); a
subject holding a dash or colon (*NOTE - Order book figures*); a headline's subject, a singular common noun
without determiner (*Did death toll of Algeria bomb put at seven?*).
At the start of the sentence the fronted word is capitalised and the subject's first word lowercased unless it
is *I*, a proper noun (``NNP``/``NNPS``), an acronym (all capitals, two letters or more) or inside a predicted
entity (a determiner or a number inside one is lowercased all the same: *Did the Canadian Wheat Board report
...?*, *Did three FBI agents say ...?*, not *Did The ...*, *Did Three ...*); the lowercased position is
recorded in ``Mutant.restore``.
Finally the sentence-final ``.`` (possibly followed by closing quotes or brackets) becomes ``?``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, ClassVar

from lingtest.data.model import Tree
from lingtest.tin.mutant import MR2, Mutant, TinSource
from lingtest.tin.spans import TokenMap, inside_any
from lingtest.tin.transformations.base import PROPER_NOUN_TAGS, TransformationConfig, base_label

BE_FORMS = frozenset({"am", "is", "are", "was", "were"})
#: tags of a predicted entity's first word that still lose their capital after the fronted verb (*Did the
#: Canadian Wheat Board ...*, *Did three FBI agents ...*)
LOWERED_IN_NAMES = frozenset({"DT", "CD"})
HAVE_FORMS = frozenset({"have", "has", "had"})
DO_FORMS = frozenset({"do", "does", "did"})
DO_BY_TAG = {"VBZ": "does", "VBD": "did", "VBN": "did", "VB": "do", "VBP": "do", "VBG": "do"}
NOT_SEARCHED = frozenset({"SQ", "SBAR", "SBARQ", "SINV", "VP"})
BETWEEN_SUBJECT_AND_VP = frozenset({"ADVP", "PRN", "RB", ","})
#: a fronted adverbial: one of these phrases and a comma before the subject (*In Thursday's fighting, ...*)
FRONTED = frozenset({"PP", "ADVP"})
CLOSERS = frozenset({'"', "''", "'", "”", "’", ")", "-RRB-", "]", "}"})


def find_clause(tree: Tree, tokens: Sequence[str]) -> tuple[Tree, Tree, Tree] | None:
    """``(S, its subject NP, its VP)`` of the first invertible clause in breadth-first order."""
    queue: deque[Tree] = deque([tree])
    while queue:
        node = queue.popleft()
        if node.token is not None:
            continue
        label = base_label(node.label)
        if label == "S":
            found = _clause_parts(node, tokens)
            if found is not None:
                return found
        if label in NOT_SEARCHED:
            continue
        queue.extend(node.children)
    return None


def _is_punct(node: Tree, tokens: Sequence[str]) -> bool:
    return node.token is not None and not any(ch.isalnum() for ch in tokens[node.token])


def _fronted(kids: Sequence[Tree], tokens: Sequence[str]) -> bool:
    """Whether a clause's children open with a fronted adverbial: a PP or ADVP, then a comma."""
    return (len(kids) >= 3 and kids[0].token is None and base_label(kids[0].label) in FRONTED
            and kids[1].token is not None and tokens[kids[1].token] == ",")


def _clause_parts(node: Tree, tokens: Sequence[str], lead: int | None = None) -> tuple[Tree, Tree, Tree] | None:
    """``(S, subject, VP)`` when ``node`` is an invertible clause; ``lead``: where the subject may start
    (after a fronted adverbial the search already passed; ``None``: the clause must start the sentence,
    after a fronted adverbial of its own if it has one)."""
    kids = list(node.children)
    while kids and _is_punct(kids[0], tokens):  # opening quotes or brackets
        kids.pop(0)
    if lead is None:
        lead = 0
        if _fronted(kids, tokens):
            if any(ch.isalnum() for w in tokens[:kids[0].span()[0]] for ch in w):
                return None
            lead = int(kids[1].token) + 1  # type: ignore[arg-type]
            kids = kids[2:]
            if kids and kids[0].token is None and base_label(kids[0].label) == "S":
                return _clause_parts(kids[0], tokens, lead)  # *In fact, [she was sad]*
    if not kids or kids[0].token is not None or base_label(kids[0].label) != "NP":
        return None
    start = kids[0].span()[0]
    if not any(ch.isalnum() for ch in tokens[start]):
        return None
    if any(ch.isalnum() for w in tokens[lead:start] for ch in w):
        return None  # the clause does not start the sentence (nor follow its fronted adverbial)
    if any(ch.isalnum() for w in tokens[node.span()[1]:] for ch in w):
        return None  # the clause does not end the sentence
    for c in kids[1:]:
        label = base_label(c.label)
        if c.token is None and label == "VP":
            return node, kids[0], c
        if label not in BETWEEN_SUBJECT_AND_VP:
            return None
    return None


def _first_preterminal(node: Tree) -> Tree | None:
    while node.token is None:
        if not node.children:
            return None
        node = node.children[0]
    return node


def _is_aux(word: str, vp: Tree) -> bool:
    """*have* before a participle VP, or *do* before a VP."""
    w = word.lower()
    if w not in HAVE_FORMS and w not in DO_FORMS:
        return False
    for c in vp.children[1:]:
        if c.token is None and base_label(c.label) == "VP":
            if w in DO_FORMS:
                return True
            head = _first_preterminal(c)
            return head is not None and head.label == "VBN"
    return False


def _capitalise(word: str) -> str:
    return word[:1].upper() + word[1:]


def _question_mark(words: list[str]) -> bool:
    """Turn the sentence-final period into a question mark (in place)."""
    j = len(words) - 1
    while j >= 0 and words[j] in CLOSERS:
        j -= 1
    if j >= 0 and words[j] == ".":
        words[j] = "?"
        return True
    return False


#: lemmas of verbs that report speech: ``..., X said.`` after the clause makes its question ungrammatical
REPORTING_LEMMAS = frozenset({"say", "tell", "add", "report", "announce", "state", "claim", "write", "quote",
                              "note", "explain", "insist", "warn"})
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP"})
#: a finite verb with one of these labels and no subject of its own shares a subject with another verb
COORDINATED_DEPS = frozenset({"conj", "dep", "advcl", "parataxis"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
#: dependents that let a singular common noun go without an article in running text (a determiner, a
#: possessor, a number, an adjective: *had ample evidence*)
LICENSING_DEPS = frozenset({"det", "poss", "nummod", "predet", "quantmod", "amod"})


def unaskable(source: TinSource, v: int, subject: Tree, rule: str) -> str | None:
    """Why the clause with verb ``v`` and ``subject`` makes no question by ``rule`` (see the module doc),
    read from the dependency parse; ``None`` when it does (or when there is no dependency parse)."""
    heads, deps, tags = source.heads, source.deps, source.tags
    if heads is None or deps is None or tags is None:
        return None
    tokens = source.tokens
    def subjectless(j: int) -> bool:
        return not any(heads[k] == j and deps[k] in SUBJECT_DEPS for k in range(len(tokens)))

    if rule == "do-support" and any(deps[j] in COORDINATED_DEPS and tags[j] in FINITE_TAGS and subjectless(j)
                                    for j in range(len(tokens)) if j != v):
        return "coordinated verb"
    if any(heads[j] == v and deps[j] == "conj" and tags[j] in FINITE_TAGS | {"MD"} for j in range(len(tokens))):
        return "coordinated clause"  # *Did Benes allow two runs and Clayton had a single?*
    last_comma = max((j for j, w in enumerate(tokens) if w == ","), default=-1)
    if last_comma > v:
        lemmas = source.lemmas or [None] * len(tokens)
        tail = range(last_comma + 1, len(tokens))
        if any(tags[j].startswith("VB") and (lemmas[j] or tokens[j]).lower() in REPORTING_LEMMAS for j in tail):
            return "reporting clause"
    a, b = subject.span()
    if any(w in ("-", "--", ":") for w in tokens[a:b]):
        return "dash in subject"
    def bare_singular(j: int) -> bool:
        return tags[j] == "NN" and not any(heads[k] == j and deps[k] in LICENSING_DEPS for k in range(len(tokens)))

    head = next((j for j in range(a, b) if heads[j] not in range(a, b)), None)
    if head is not None and bare_singular(head):
        return "bare singular subject"
    if any(heads[j] == v and deps[j] == "dobj" and bare_singular(j) for j in range(len(tokens))):
        return "bare singular object"  # a headline: *Does Honda RV exceed sales target?*
    return None


def lemmatize_verb(word: str) -> str:
    """lemminflect's verb lemma (:func:`lingtest.resources.candidates.inflect.lemmatize`), imported when needed."""
    from lingtest.resources.candidates.inflect import lemmatize

    return lemmatize(word, "VERB")


def _lemma(source: TinSource, v: int, tag: str) -> str:
    word = source.tokens[v]
    lemma = source.lemmas[v] if source.lemmas is not None else None
    if not lemma and tag in ("VB", "VBP"):
        lemma = word  # already the base form
    if not lemma:
        lemma = lemmatize_verb(word)
    lemma = lemma.lower()
    return lemma.upper() if len(word) > 1 and word.isupper() else lemma


def interrogative(source: TinSource) -> Mutant | None:
    """The question made from ``source`` (which needs a tree), or ``None`` when no rule applies."""
    if source.tree is None:
        return None
    tokens = source.tokens
    found = find_clause(source.tree, tokens)
    if found is None:
        return None
    clause, subject, vp = found
    verb = vp.children[0]
    if verb.token is None or not (verb.label.startswith("VB") or verb.label == "MD"):
        return None
    v = verb.token
    word = tokens[v]
    low = word.lower()
    if word.startswith("'") or low in ("n't", "ca", "wo") or tokens[v + 1:v + 2] == ["n't"]:
        return None  # a contraction: not "Do these peoplen't understand?"
    if verb.label == "MD":
        rule = "modal"
    elif low in BE_FORMS:
        if len(vp.children) < 2:
            return None
        rule = "be"
    elif _is_aux(word, vp):
        rule = "aux"
    elif verb.label in DO_BY_TAG and low not in BE_FORMS and low not in ("be", "been", "being"):
        rule = "do-support"
    else:
        return None
    if unaskable(source, v, subject, rule) is not None:
        return None

    s0 = subject.span()[0]
    order: list[int | None] = list(range(len(tokens)))
    words = list(tokens)
    aux = None
    if rule == "do-support":
        aux = DO_BY_TAG[verb.label]
        words[v] = _lemma(source, v, verb.label)
        order.insert(s0, None)
    else:
        order.remove(v)
        order.insert(s0, v)
    out = [words[i] if i is not None else str(aux) for i in order]

    restore: dict[int, str] = {}
    first = tokens[s0]
    j = order.index(s0)
    subject_tag = next((n.label for n in subject.subtrees() if n.token == s0), "")
    at_start = not any(ch.isalnum() for w in tokens[:s0] for ch in w)  # else after a fronted adverbial
    if at_start:
        out[s0] = _capitalise(out[s0])  # the fronted word
    keep = (not at_start or first == "I" or first.startswith("I'") or subject_tag in PROPER_NOUN_TAGS
            or (len(first) > 1 and first.isupper()) or not first[:1].isupper()
            or (inside_any(s0, source.entities) and subject_tag not in LOWERED_IN_NAMES))
    if not keep:
        out[j] = first[:1].lower() + first[1:]
        restore[j] = first
    if not _question_mark(out):
        return None  # no sentence-final period to make a question mark of
    return Mutant(
        seed_id=source.id, transformation=Structural.name, relation=MR2, source=list(tokens), tokens=out,
        alignment=TokenMap.from_order(len(tokens), order), restore=restore,
        params={"rule": rule, "verb": v, "old": word, **({"aux": aux, "lemma": words[v]} if aux else {}),
                "clause": list(clause.span())},
    )


class StructuralConfig(TransformationConfig):
    """``tin.transformations.structural``: the filters' keys only (the paper's three rules have no knobs)."""


class Structural:
    """Declarative -> interrogative (one mutant per sentence at most); checked with MR2."""

    name: ClassVar[str] = "structural"
    label: ClassVar[str] = "Structural"
    relation: ClassVar[str] = MR2
    Config: ClassVar[type[StructuralConfig]] = StructuralConfig

    @classmethod
    def from_config(cls, config: StructuralConfig, parts: Any) -> Structural:
        return cls()

    def generate(self, sources: Sequence[TinSource]) -> list[Mutant]:
        out = []
        for s in sources:
            m = interrogative(s)
            if m is not None:
                out.append(m)
        return out
