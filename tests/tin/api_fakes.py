"""Stand-ins chosen by configuration overrides (import paths in ``parser.name`` and ``resources.lm.kind``)
for the TIN API tests, and function NER systems a user could write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lingtest.data.model import Sentence, Token, Tree

#: constituency trees of the test sentences (any other sentence: a flat S over NN tags)
TREES = {
    "John met Mary in Rome .":
        "(S (NP (NNP John)) (VP (VBD met) (NP (NNP Mary)) (PP (IN in) (NP (NNP Rome)))) (. .))",
    "Paris and Berlin are big cities .":
        "(S (NP (NNP Paris) (CC and) (NNP Berlin)) (VP (VBP are) (NP (JJ big) (NNS cities))) (. .))",
    "Apple rose sharply .": "(S (NP (NNP Apple)) (VP (VBD rose) (ADVP (RB sharply))) (. .))",
    "The big dog saw Anna .": "(S (NP (DT The) (JJ big) (NN dog)) (VP (VBD saw) (NP (NNP Anna))) (. .))",
}
LEMMAS = {"met": "meet", "rose": "rise", "saw": "see", "are": "be"}
#: OntoNotes labels, as spaCy's pipelines tag
ONTONOTES = {"John": "PERSON", "Mary": "PERSON", "Anna": "PERSON", "Paris": "GPE", "Berlin": "GPE", "Rome": "GPE",
             "Apple": "ORG"}


class TreeParser:
    """A parser backend (``parser.name=tests.tin.api_fakes:TreeParser``): trees from :data:`TREES`; it takes
    and ignores the configured parser's options."""

    def __init__(self, **options: Any) -> None:
        self.options = options

    def parse(self, sentences: list[list[str]]) -> list[Sentence]:
        out = []
        for words in sentences:
            br = TREES.get(" ".join(words)) or "(S " + " ".join(f"(NN {w})" for w in words) + ")"
            tree, leaves = Tree.from_bracketed(br)
            assert leaves == list(words)
            tags = {n.token: n.label for n in tree.subtrees() if n.token is not None}
            out.append(Sentence([Token(w, tag=tags[i], lemma=LEMMAS.get(w, w.lower())) for i, w in enumerate(words)],
                                tree=tree))
        return out


@dataclass
class Scored:
    logprobs: list[float]


class ConstantScorer:
    """A language-model scorer (``resources.lm.kind=tests.tin.api_fakes:ConstantScorer``): every word has
    log-probability -0.1, so every mutant is as natural as its source."""

    def __init__(self, model: str, **options: Any) -> None:
        self.model = model
        self.texts: list[str] = []

    def token_logprobs(self, texts: list[str]) -> list[Scored]:
        self.texts.extend(texts)
        return [Scored([-0.1] * len(t.split())) for t in texts]


def ontonotes_tagger(batch: list[list[str]]) -> list[list[list[Any]]]:
    """A dictionary-lookup NER function in OntoNotes labels (a user's system: JSON in, JSON out)."""
    return [[[i, i + 1, ONTONOTES[w]] for i, w in enumerate(tokens) if w in ONTONOTES] for tokens in batch]


def silent_tagger(batch: list[list[str]]) -> list[list[list[Any]]]:
    """An NER function that finds nothing."""
    return [[] for _ in batch]


def overlong_tagger(batch: list[list[str]]) -> list[list[list[Any]]]:
    """An NER function whose entity ends after the sentence."""
    return [[[0, len(tokens) + 1, "PERSON"]] for tokens in batch]
