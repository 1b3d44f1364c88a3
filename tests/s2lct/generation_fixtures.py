"""Fixtures of the S2LCT generation tests: the configured capability specs and small search pools
(registered for the whole folder by ``conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lingtest.s2lct.predicates import Knowledge, SearchSentence
from lingtest.s2lct.seeds import Found
from lingtest.s2lct.spec import load_suites

ROOT = Path(__file__).resolve().parents[2]

# word sentiment of the hand-made sentences: (word, pos) -> sentiment
WORDS = {
    ("good", "adj"): "positive", ("great", "adj"): "positive", ("bad", "adj"): "negative",
    ("awful", "adj"): "negative", ("movie", "noun"): "neutral", ("film", "noun"): "neutral",
    ("plot", "noun"): "neutral", ("both", "adj"): "neutral", ("red", "adj"): "neutral",
    ("ways", "noun"): "neutral", ("things", "noun"): "neutral", ("people", "noun"): "neutral",
    ("women", "noun"): "neutral", ("hate", "verb"): "negative", ("love", "verb"): "positive",
    ("kind", "adj"): "positive", ("nice", "adj"): "positive", ("city", "noun"): "neutral",
    ("shirt", "noun"): "neutral", ("garbage", "noun"): "negative", ("joy", "noun"): "positive",
}


def word_sentiment(word: str, pos: str) -> str | None:
    return WORDS.get((word.lower(), pos))


def found(i: int, text: str, tags: str, label: str) -> Found:
    return Found(SearchSentence(text.split(), tags.split(), label, id=f"s{i}"))


SST_POOL = [
    ("a red movie .", "DT JJ NN .", "neutral"),
    ("the red film", "DT JJ NN", "neutral"),
    ("a good movie .", "DT JJ NN .", "positive"),
    ("a great film", "DT JJ NN", "positive"),
    ("a bad movie .", "DT JJ NN .", "negative"),
    ("an awful plot", "DT JJ NN", "negative"),
    ("This is a bad movie", "DT VBZ DT JJ NN", "negative"),
    ("This is a red shirt", "DT VBZ DT JJ NN", "neutral"),
    ("the plot moves on", "DT NN VBZ RP", "neutral"),
    ("it is n't a red film", "PRP VBZ RB DT JJ NN", "neutral"),
]

HS_POOL = [
    ("i hate those women so much", "PRP VBP DT NNS RB RB", "hate"),
    ("women are garbage", "NNS VBP NN", "hate"),
    ("you bitch", "PRP NN", "hate"),
    ("my bitch is my dog", "PRP$ NN VBZ PRP$ NN", "non-hate"),
    ("this shit is so good", "DT NN VBZ RB JJ", "non-hate"),
    ("fuck those people", "VB DT NNS", "hate"),
    ("women like the city", "NNS VBP DT NN", "non-hate"),
    ("kind women are nice", "JJ NNS VBP JJ", "non-hate"),
]


@pytest.fixture(scope="session")
def s2lct_conf() -> dict:
    return yaml.safe_load((ROOT / "conf" / "s2lct" / "default.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def specs(s2lct_conf):
    return load_suites(s2lct_conf["suites"])


@pytest.fixture()
def knowledge(s2lct_conf) -> Knowledge:
    lex = dict(s2lct_conf["lexicons"])
    lex["hatecheck_slur"] = ["bitch", "bitches", "fag"]
    lex["hatecheck_identity"] = ["women", "woman", "muslims", "trans people"]
    return Knowledge(lexicons=lex, sentiment=word_sentiment)


@pytest.fixture()
def sst_pool() -> list[Found]:
    return [found(i, *row) for i, row in enumerate(SST_POOL)]


@pytest.fixture()
def hs_pool() -> list[Found]:
    return [found(100 + i, *row) for i, row in enumerate(HS_POOL)]
