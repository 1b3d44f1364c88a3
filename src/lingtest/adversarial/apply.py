"""Document-level application of the perturbation schemes, with span bookkeeping and audit records.

Which words are attacked (Chai et al. 2021, Sec. 2.1): every token covered by at least one gold
mention, each *token* once (a word inside nested mentions is still one word and is modified at
most once). Each such token is attacked i.i.d. with probability ``p``; the scheme is fixed for a
single-scheme set, or drawn per word from ``schemes`` (with weights) for the mixed set. When the
drawn scheme cannot change the word (too short, no WordNet relative, ...) the word stays as is,
unless ``retry`` is set, in which case the remaining schemes are tried in random order.

Consistency across occurrences (``consistency``):

* ``"token"`` (default, the paper's setting): every occurrence is decided independently. The
  paper's Table 1 wants to break *both* the exact match between coreferent mentions inside a test
  document (``the Gulf war`` ... ``the Gulf war``) and the overlap with training mentions; perturbing
  all occurrences identically would keep the first kind of match intact, so independence is
  required by the argument.
* ``"document"``: the first decision for a word form (case-sensitive) in a document is reused
  for all its later mention occurrences (same replacement, or unchanged). This keeps in-document
  string matches and only removes train/test overlap -- useful as a control.

Randomness: one generator per (seed, set name, document key), derived by hashing, so results do
not depend on document order or on which other documents are processed.

Span bookkeeping (:func:`replace_tokens`): a replacement may have several tokens (multi-word
WordNet lemmas); every later index shifts. Mentions, clusters, entities, sentence token lists,
sentence-relative heads and constituency trees are all remapped; a span containing a replaced
token grows with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

import numpy as np

from lingtest.adversarial.perturbations import make_perturbation
from lingtest.adversarial.perturbations.base import Perturbation, WordContext
from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token, Tree


# --------------------------------------------------------------------------------------------
# audit records
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Change:
    """One modified word: where it was, what it became, and by which scheme."""

    doc: str  # Document.key
    token: int  # document-level index in the clean document
    new_token: int  # document-level index of its first replacement token in the perturbed one
    original: str
    new: tuple[str, ...]
    scheme: str
    sentence: int

    @property
    def new_text(self) -> str:
        return " ".join(self.new)

    def to_dict(self) -> dict[str, Any]:
        return {"doc": self.doc, "token": self.token, "new_token": self.new_token, "original": self.original,
                "new": list(self.new), "scheme": self.scheme, "sentence": self.sentence}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Change:
        return cls(doc=d["doc"], token=int(d["token"]), new_token=int(d["new_token"]), original=d["original"],
                   new=tuple(d["new"]), scheme=d["scheme"], sentence=int(d["sentence"]))


# --------------------------------------------------------------------------------------------
# seeds
# --------------------------------------------------------------------------------------------
def document_rng(seed: int, key: str, salt: str = "") -> np.random.Generator:
    """A generator that depends only on ``seed``, ``salt`` (the set name) and the document key."""
    digest = hashlib.sha256(f"{salt}\x1f{key}".encode()).digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng(np.random.SeedSequence([int(seed), *words]))


# --------------------------------------------------------------------------------------------
# span bookkeeping
# --------------------------------------------------------------------------------------------
def mention_token_indices(doc: Document) -> list[int]:
    """Sorted document-level indices of tokens covered by at least one gold mention."""
    idx: set[int] = set()
    for c in doc.clusters:
        for m in c.mentions:
            idx.update(range(m.start, m.end))
    return sorted(idx)


def offset_map(n_tokens: int, replacements: Mapping[int, Sequence[str]]) -> list[int]:
    """``out[i]`` = new index of old boundary ``i`` (0..n): old token ``i`` starts at ``out[i]``
    and old span ``[s, e)`` becomes ``[out[s], out[e])``."""
    out = [0] * (n_tokens + 1)
    shift = 0
    for i in range(n_tokens):
        out[i] = i + shift
        if i in replacements:
            shift += len(replacements[i]) - 1
    out[n_tokens] = n_tokens + shift
    return out


def _remap_tree(node: Tree, local: list[int], groups: Mapping[int, int]) -> list[Tree]:
    if node.token is not None:
        n = groups.get(node.token, 1)
        return [Tree(label=node.label, token=local[node.token] + j) for j in range(n)]
    children: list[Tree] = []
    for c in node.children:
        children.extend(_remap_tree(c, local, groups))
    return [Tree(label=node.label, children=children)]


def _new_head(h: int | None, head_of_group: Mapping[int, int], local: Sequence[int]) -> int | None:
    """Sentence-local head ``h`` after replacement: a replaced head points at its group's head."""
    if h is None or h < 0:
        return h
    return head_of_group.get(h, local[h])


def _continuation_ent(ent: str | None) -> str | None:
    if ent and ent[:2] in ("B-", "I-"):
        return "I-" + ent[2:]
    return ent


def replace_tokens(doc: Document, replacements: Mapping[int, Sequence[str]]) -> tuple[Document, list[int]]:
    """A new Document with token ``i`` replaced by ``replacements[i]`` (one or more tokens).

    Returns the document and the boundary map of :func:`offset_map`. Replaced tokens keep their
    annotations except ``lemma`` (no longer valid); extra tokens of a multi-token replacement are
    attached to the group's head (the last token, the first for verbs) as ``compound``, and
    continue its NER tag. The input document is not modified.
    """
    n = sum(len(s.tokens) for s in doc.sentences)
    for i, new in replacements.items():
        if not 0 <= i < n:
            raise IndexError(f"replacement index {i} outside document {doc.key!r} of {n} tokens")
        if not new or any(not t or any(ch.isspace() for ch in t) for t in new):
            raise ValueError(f"replacement for token {i} must be non-empty tokens without spaces: {new!r}")
    omap = offset_map(n, replacements)
    sentences: list[Sentence] = []
    base = 0
    for sent in doc.sentences:
        m = len(sent.tokens)
        groups = {j: len(replacements[base + j]) for j in range(m) if base + j in replacements}
        local: list[int] = []
        shift = 0
        for j in range(m):
            local.append(j + shift)
            shift += groups.get(j, 1) - 1
        head_of_group = {}
        for j, k in groups.items():
            verbal = (sent.tokens[j].pos in ("VERB", "AUX")) or (sent.tokens[j].tag or "").startswith("VB")
            head_of_group[j] = local[j] + (0 if verbal else k - 1)

        toks: list[Token] = []
        for j, tok in enumerate(sent.tokens):
            head = _new_head(tok.head, head_of_group, local)
            if j not in groups:
                toks.append(Token(text=tok.text, ws=tok.ws, pos=tok.pos, tag=tok.tag, lemma=tok.lemma, head=head,
                                  dep=tok.dep, ent=tok.ent, morph=tok.morph))
                continue
            new = list(replacements[base + j])
            hpos = head_of_group[j] - local[j]
            for q, text in enumerate(new):
                last = q == len(new) - 1
                if q == hpos:
                    toks.append(Token(text=text, ws=tok.ws if last else " ", pos=tok.pos, tag=tok.tag, lemma=None,
                                      head=head, dep=tok.dep, ent=tok.ent if q == 0 else _continuation_ent(tok.ent),
                                      morph=tok.morph))
                else:
                    toks.append(Token(text=text, ws=tok.ws if last else " ", pos=tok.pos, tag=tok.tag, lemma=None,
                                      head=head_of_group[j] if tok.head is not None else None,
                                      dep="compound" if tok.dep is not None else None,
                                      ent=tok.ent if q == 0 else _continuation_ent(tok.ent), morph=None))
        tree = None
        if sent.tree is not None:
            roots = _remap_tree(sent.tree, local, groups)
            tree = roots[0]
        sentences.append(Sentence(tokens=toks, tree=tree, id=sent.id, label=sent.label, meta=dict(sent.meta)))
        base += m
    clusters = [Cluster(mentions=[Mention(omap[mm.start], omap[mm.end]) for mm in c.mentions], id=c.id)
                for c in doc.clusters]
    entities = [Entity(omap[e.start], omap[e.end], e.label) for e in doc.entities]
    out = Document(id=doc.id, sentences=sentences, clusters=clusters, entities=entities, part=doc.part,
                   split=doc.split, label=doc.label, meta=dict(doc.meta))
    return out, omap


def strip_annotations(doc: Document) -> Document:
    """A copy with only token text/whitespace, NER tags and gold clusters/entities kept, so that
    systems re-analyse the perturbed text themselves (the paper re-extracts features with spaCy)."""
    sents = [Sentence(tokens=[Token(text=t.text, ws=t.ws, ent=t.ent) for t in s.tokens], id=s.id, label=s.label,
                      meta=dict(s.meta)) for s in doc.sentences]
    return Document(id=doc.id, sentences=sents,
                    clusters=[Cluster(mentions=list(c.mentions), id=c.id) for c in doc.clusters],
                    entities=list(doc.entities), part=doc.part, split=doc.split, label=doc.label, meta=dict(doc.meta))


# --------------------------------------------------------------------------------------------
# the perturber
# --------------------------------------------------------------------------------------------
@dataclass
class DocumentPerturber:
    """Attack the mention words of documents with one scheme or a weighted mix of schemes.

    ``schemes``: a scheme name, a list (uniform mix) or a name -> weight mapping.
    ``options``: per-scheme constructor options (``{"synonym": {"window": 2, ...}}``;
    :meth:`~lingtest.adversarial.config.AdversarialConfig.scheme_options`).
    ``name``: the set name; it salts the per-document seeds so each set is drawn independently
    (None: the scheme's name, ``mixed`` for several). ``p``, ``seed``, ``consistency`` and ``retry`` come
    from config (``adversarial``, :func:`~lingtest.adversarial.sets.build_perturber`). ``perturbations``:
    scheme instances to use instead of building them from ``options``.
    """

    schemes: str | Sequence[str] | Mapping[str, float]
    _: KW_ONLY
    p: float
    seed: int
    name: str | None
    consistency: str
    retry: bool
    options: Mapping[str, Mapping[str, Any]]
    perturbations: Mapping[str, Perturbation] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.schemes, str):
            names, weights = [self.schemes], [1.0]
        elif isinstance(self.schemes, Mapping):
            names, weights = list(self.schemes), [float(w) for w in self.schemes.values()]
        else:
            names = list(self.schemes)
            weights = [1.0] * len(names)
        if not names:
            raise ValueError("at least one perturbation scheme is needed")
        if not 0.0 <= self.p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {self.p}")
        if self.consistency not in ("token", "document"):
            raise ValueError(f"consistency must be 'token' or 'document', got {self.consistency!r}")
        total = sum(weights)
        if total <= 0 or any(w < 0 for w in weights):
            raise ValueError(f"scheme weights must be non-negative with a positive sum: {weights}")
        self.names = names
        self.weights = np.asarray(weights) / total
        given = dict(self.perturbations or {})
        self._impl: dict[str, Perturbation] = {
            n: given[n] if n in given else make_perturbation(n, **dict(self.options.get(n, {}))) for n in names
        }
        if self.name is None:
            self.name = names[0] if len(names) == 1 else "mixed"

    def _draw_scheme(self, rng: np.random.Generator) -> str:
        if len(self.names) == 1:
            return self.names[0]
        return self.names[int(rng.choice(len(self.names), p=self.weights))]

    def _attack(self, word: str, rng: np.random.Generator, ctx: WordContext) -> tuple[str, list[str] | None]:
        scheme = self._draw_scheme(rng)
        new = self._impl[scheme].perturb(word, rng, ctx)
        if new is None and self.retry and len(self.names) > 1:
            for k in rng.permutation(len(self.names)):
                other = self.names[int(k)]
                if other == scheme:
                    continue
                new = self._impl[other].perturb(word, rng, ctx)
                if new is not None:
                    return other, new
        return scheme, new

    def __call__(self, doc: Document) -> tuple[Document, list[Change]]:
        """Perturb one document: returns the new document and the change records (in token order)."""
        rng = document_rng(self.seed, doc.key, self.name or "")
        offsets = doc.sentence_offsets()
        sent_of: list[int] = []
        for si, s in enumerate(doc.sentences):
            sent_of.extend([si] * len(s.tokens))
        contexts: dict[int, WordContext] = {}
        decisions: dict[int, tuple[str, list[str]]] = {}
        memo: dict[str, tuple[str, list[str]] | None] = {}
        targets = mention_token_indices(doc)
        if targets and (targets[0] < 0 or targets[-1] >= len(sent_of)):
            raise ValueError(f"document {doc.key!r} has a mention outside its {len(sent_of)} tokens")
        for t in targets:
            si = sent_of[t]
            sent = doc.sentences[si]
            word = sent.tokens[t - offsets[si]].text
            if self.consistency == "document" and word in memo:
                if memo[word] is not None:
                    decisions[t] = memo[word]  # type: ignore[assignment]
                continue
            if rng.random() >= self.p:
                if self.consistency == "document":
                    memo[word] = None
                continue
            if si not in contexts:
                contexts[si] = WordContext(words=tuple(sent.words), index=0,
                                           pos=tuple(tk.pos for tk in sent.tokens),
                                           tags=tuple(tk.tag for tk in sent.tokens))
            c = contexts[si]
            ctx = WordContext(words=c.words, index=t - offsets[si], pos=c.pos, tags=c.tags)
            scheme, new = self._attack(word, rng, ctx)
            result = (scheme, new) if new is not None else None
            if self.consistency == "document":
                memo[word] = result
            if result is not None:
                decisions[t] = result  # type: ignore[assignment]
        replacements = {t: new for t, (_, new) in decisions.items()}
        new_doc, omap = replace_tokens(doc, replacements)
        words = doc.words
        changes = [Change(doc=doc.key, token=t, new_token=omap[t], original=words[t], new=tuple(new), scheme=scheme,
                          sentence=sent_of[t]) for t, (scheme, new) in sorted(decisions.items())]
        new_doc.meta["adversarial"] = {"set": self.name, "schemes": list(self.names), "p": self.p, "seed": self.seed,
                                       "consistency": self.consistency, "changes": len(changes)}
        return new_doc, changes

    def perturb_corpus(self, docs: Iterable[Document]) -> tuple[list[Document], list[Change]]:
        out_docs: list[Document] = []
        out_changes: list[Change] = []
        for d in docs:
            nd, ch = self(d)
            out_docs.append(nd)
            out_changes.extend(ch)
        return out_docs, out_changes


def adversarial_training_set(clean: Sequence[Document], perturbed: Sequence[Document], ratio: float,
                             seed: int) -> list[Document]:
    """The paper's adversarial training set: ``ratio`` of the documents *replaced* (not added) by
    their perturbed versions; the rest stay clean. Which documents are replaced depends only on
    ``seed`` and the document keys (the lowest-hash ``round(ratio * n)`` keys). Both from config
    (``adversarial.overlap.adversarial_train_ratio`` and ``adversarial.seed``)."""
    if not 0.0 <= ratio <= 1.0:
        raise ValueError(f"ratio must be in [0, 1], got {ratio}")
    by_key = {d.key: d for d in perturbed}
    missing = [d.key for d in clean if d.key not in by_key]
    if missing:
        raise ValueError(f"perturbed set lacks documents {missing[:5]}")
    ranked = sorted(clean, key=lambda d: hashlib.sha256(f"{seed}\x1f{d.key}".encode()).hexdigest())
    chosen = {d.key for d in ranked[: round(ratio * len(clean))]}
    return [by_key[d.key] if d.key in chosen else d for d in clean]
