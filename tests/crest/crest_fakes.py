"""Fakes for the CREST tests (imported by name: ``from crest_fakes import ...``): a deterministic
parser that counts its work, a rule-based coreference system, a scorer and a link-based BLANC stand-in."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

from lingtest.data.model import Cluster, Document, Mention, Sentence, Token, Tree
from lingtest.systems.coref.base import CorefSystem

# word -> (UPOS, PTB tag); anything else is tagged FW (and fails the constituent check)
LEXICON = {
    "john": ("PROPN", "NNP"), "mary": ("PROPN", "NNP"), "he": ("PRON", "PRP"), "his": ("PRON", "PRP$"),
    "him": ("PRON", "PRP"), "she": ("PRON", "PRP"), "said": ("VERB", "VBD"), "told": ("VERB", "VBD"),
    "stated": ("VERB", "VBD"), "saw": ("VERB", "VBD"), "the": ("DET", "DT"), "a": ("DET", "DT"),
    "dog": ("NOUN", "NN"), "cat": ("NOUN", "NN"), "hound": ("NOUN", "NN"), "big": ("ADJ", "JJ"),
    "large": ("ADJ", "JJ"), "huge": ("ADJ", "JJ"), "small": ("ADJ", "JJ"), "quickly": ("ADV", "RB"),
    "rapidly": ("ADV", "RB"), "slowly": ("ADV", "RB"), "liked": ("VERB", "VBD"), "loved": ("VERB", "VBD"),
    "deeply": ("ADV", "RB"), "that": ("SCONJ", "IN"), ".": ("PUNCT", "."), "ran": ("VERB", "VBD"),
    "barked": ("VERB", "VBD"), "hot": ("ADJ", "JJ"), "dog_": ("NOUN", "NN"),
}
PHRASE = {"NN": "NP", "NNS": "NP", "NNP": "NP", "PRP": "NP", "PRP$": "NP", "DT": "NP", "VBD": "VP",
          "JJ": "ADJP", "RB": "ADVP", "IN": "SBAR"}
NEST = {"deeply"}  # a word that makes the fake parser nest the whole sentence one level deeper


class FakeParser:
    """Flat trees (S (XP (TAG w)) ...), nested once more when a NEST word is present; the first
    verb is the root, nouns/pronouns before it are its nsubj, adjectives amod the next noun."""

    name = "fake"

    def __init__(self) -> None:
        self.calls = 0
        self.batches = 0
        self.seen: list[tuple[str, ...]] = []

    def parse(self, sentences: Sequence[Sequence[str]]) -> list[Sentence]:
        self.batches += 1
        out = []
        for words in sentences:
            self.calls += 1
            self.seen.append(tuple(words))
            out.append(self._parse(list(words)))
        return out

    def _parse(self, words: list[str]) -> Sentence:
        tags = [LEXICON.get(w.lower(), ("X", "FW")) for w in words]
        root = next((i for i, (u, _) in enumerate(tags) if u == "VERB"), 0)
        toks = []
        for i, (w, (u, t)) in enumerate(zip(words, tags, strict=True)):
            if i == root:
                head, dep = -1, "ROOT"
            elif u == "ADJ":
                nxt = next((j for j in range(i + 1, len(words)) if tags[j][0] in ("NOUN", "PROPN")), root)
                head, dep = nxt, "amod"
            elif u in ("NOUN", "PROPN", "PRON") and i < root:
                head, dep = root, "nsubj"
            else:
                head, dep = root, "dep"
            toks.append(Token(w, pos=u, tag=t, lemma=w.lower(), head=head, dep=dep))
        kids = [Tree(PHRASE.get(t, "X"), [Tree(t, token=i)]) for i, (_, t) in enumerate(tags)]
        tree = Tree("S", kids)
        if any(w.lower() in NEST for w in words):
            tree = Tree("S", [tree])
        return Sentence(toks, tree=tree)


class FakeSystem(CorefSystem):
    """Clusters John/he/him/his (single tokens) when >= 2 occur; predicts nothing when the sentence
    contains 'rapidly' (a planted bug the oracle must find)."""

    name = "fake"

    def __init__(self) -> None:
        self.seen = 0

    def predict(self, inputs: list[Document]) -> list[list[Cluster]]:
        docs = inputs
        out = []
        for d in docs:
            self.seen += 1
            words = [w.lower() for w in d.words]
            if "rapidly" in words:
                out.append([])
                continue
            ms = [Mention(i, i + 1) for i, w in enumerate(words) if w in ("john", "he", "him", "his")]
            out.append([Cluster(ms)] if len(ms) >= 2 else [])
        return out


class FakeScorer:
    """Log-probability = -(number of characters) / 4, so shorter candidates are likelier."""

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0

    def score(self, texts: Sequence[str]) -> list[float]:
        self.calls += 1
        self.texts += len(texts)
        return [-len(t) / 4 for t in texts]


def link_blanc(key, response):
    """Coreference-link P/R (a stand-in for BLANC in unit tests that must not depend on it)."""
    def links(cl):
        return {(a, b) for c in cl for a in c for b in c if a < b}

    k, r = links(key), links(response)
    common = len(k & r)
    return SimpleNamespace(precision=common / len(r) if r else (1.0 if not k else 0.0),
                           recall=common / len(k) if k else (1.0 if not r else 0.0))


class FakeProposer:
    """Proposes from a fixed table word -> [(text, source)]."""

    name = "fake"

    def __init__(self, table: dict[str, list[tuple[str, str]]]) -> None:
        self.table = table

    def propose(self, sentence, positions):
        from lingtest.resources.candidates import Candidate

        out = {}
        for i in positions:
            got = self.table.get(sentence.tokens[i].text.lower())
            if got:
                out[i] = [Candidate(t, s) for t, s in got]
        return out


TABLE = {
    "big": [("large", "wordnet_synonym"), ("small", "wordnet_antonym"), ("zzbig", "vectors"), ("huge", "vectors")],
    "said": [("stated", "wordnet_synonym"), ("told", "vectors")],
    "quickly": [("rapidly", "wordnet_synonym"), ("slowly", "wordnet_antonym"), ("deeply", "vectors")],
    "dog": [("hound", "wordnet_synonym"), ("hot dog_", "vectors"), ("cat", "vectors")],
}


def make_source(text: str, clusters: list[list[tuple[int, int]]], doc_id: str = "d:s0") -> Document:
    words = text.split()
    return Document(doc_id, sentences=[Sentence([Token(w) for w in words])],
                    clusters=[Cluster([Mention(s, e) for s, e in c]) for c in clusters])
