"""Four toy systems under test, one per task, in each task's JSON form: a batch of inputs in, one output per
input out. They show the shape a model of yours takes; run one from the repository root with
``lingtest run SUITE --system docs.examples.models:<function>`` or pass it to ``suite.run``."""

from __future__ import annotations

from typing import Any

PRONOUNS = {"he", "him", "his", "himself"}


def classify(texts: list[str]) -> list[dict[str, float]]:
    """Hate-speech classification: a text in, ``{label: probability}`` over the suite's labels out."""
    return [{"hate": 0.9, "non-hate": 0.1} if "hate" in text.lower() else {"hate": 0.1, "non-hate": 0.9}
            for text in texts]


HOSTILE = ("hate", "kill", "disgusting", "vermin", "scum", "animals", "go back")


def classify_lexicon(texts: list[str]) -> list[dict[str, float]]:
    """A second classifier for comparisons: hate when a text holds any word of a small hostile lexicon."""
    return [{"hate": 0.9, "non-hate": 0.1} if any(w in text.lower() for w in HOSTILE) else
            {"hate": 0.1, "non-hate": 0.9} for text in texts]


def tag(sentences: list[list[str]]) -> list[list[list[Any]]]:
    """NER: a token list in, ``[[start, end, label], ...]`` out (token offsets, end exclusive): every
    capitalised word after the first is a person."""
    return [[[i, i + 1, "PER"] for i, word in enumerate(tokens) if i > 0 and word.istitle()]
            for tokens in sentences]


def resolve(documents: list[dict[str, Any]]) -> list[list[list[list[int]]]]:
    """Coreference: ``{"id", "sentences": [[token, ...], ...]}`` in, clusters of ``[start, end]`` spans
    (document token offsets, end exclusive) out: every masculine pronoun in one cluster."""
    out = []
    for doc in documents:
        words = [w for sentence in doc["sentences"] for w in sentence]
        mentions = [[i, i + 1] for i, w in enumerate(words) if w.lower() in PRONOUNS]
        out.append([mentions] if len(mentions) > 1 else [])
    return out


def score(examples: list[dict[str, Any]]) -> list[list[float]]:
    """Contrastive scoring: ``{"source", "candidates", "source_context", "target_context"}`` in, one
    log-probability per candidate out: the shorter candidate is the likelier."""
    return [[-float(len(candidate)) for candidate in example["candidates"]] for example in examples]
