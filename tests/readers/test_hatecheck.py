"""HateCheck reader: one document per case, gold labels, functionality metadata, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.hatecheck import tokenize
from lingtest.readers.options import configured

read_hatecheck = configured("hatecheck")


@pytest.fixture()
def cases(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers" / "hatecheck_cases.csv"


def test_cases_become_documents(cases: Path) -> None:
    docs = list(read_hatecheck(cases))
    assert [d.id for d in docs] == ["hatecheck-1", "hatecheck-2", "hatecheck-3", "hatecheck-4"]
    assert [d.label for d in docs] == ["hateful", "hateful", "non-hateful", "non-hateful"]
    d0 = docs[0]
    assert d0.words == ["I", "hate", "women", "."] and d0.sentences[0].label == "hateful"
    assert d0.meta == {
        "functionality": "derog_neg_emote_h",
        "case_id": "1",
        "text": "I hate women. ",
        "target_ident": "women",
        "direction": "general",
        "focus_words": "hate",
        "focus_lemma": "hate",
        "templ_id": "1",
        "case_templ": "I hate [IDENTITY_P].",
    }
    assert docs[2].meta["ref_case_id"] == "1" and "direction" not in docs[2].meta
    # spaCy splits the contraction; the text (double space included) is given back exactly
    s1 = docs[1].sentences[0]
    assert s1.words[:4] == ["I", "do", "n't", "like"]
    assert s1.text == "I don't  like trans people, honestly." == docs[1].meta["text"]
    assert READERS.get("hatecheck") is read_hatecheck.func


def test_whitespace_tokenizer(cases: Path) -> None:
    d = list(read_hatecheck(cases, tokenizer="whitespace"))[1]
    assert d.words == ["I", "don't", "like", "trans", "people,", "honestly."]
    assert d.sentences[0].text == d.meta["text"]
    assert [t.text for t in tokenize("  a  b ", "whitespace")] == ["a", "b"]
    with pytest.raises(ValueError):
        tokenize("a", "nltk")


HEADER = "functionality,case_id,test_case,label_gold\n"


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("functionality,case_id,test_case\nf,1,hi\n", 1, "label_gold", "missing column"),
        (HEADER + "f,1,hi,hateful\nf,2,hi,toxic\n", 3, "label_gold", "unknown label"),
        (HEADER + "f,1,hi,hateful\nf,1,ho,hateful\n", 3, "case_id", "duplicate"),
        (HEADER + "f,1,hi,hateful\nf,2,hi\n", 3, None, "expected 4 columns"),
        (HEADER + "f,1,   ,hateful\n", 2, "test_case", "empty test case"),
        (HEADER + 'f,1,"a\nb",hateful\nf,,x,hateful\n', 4, "case_id", "empty case_id"),
    ],
)
def test_malformed(tmp_path: Path, text: str, line: int, field: str | None, message: str) -> None:
    p = tmp_path / "cases.csv"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        list(read_hatecheck(p, tokenizer="whitespace"))
    assert (err.value.line, err.value.field, err.value.path) == (line, field, str(p))


def test_bad_encoding_and_empty(tmp_path: Path) -> None:
    p = tmp_path / "cases.csv"
    p.write_bytes(HEADER.encode() + b"f,1,caf\xe9,hateful\n")
    with pytest.raises(InputError, match="decode") as err:
        list(read_hatecheck(p))
    assert err.value.line == 2
    p.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="header"):
        list(read_hatecheck(p))


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_counts(mirror: Path) -> None:
    docs = list(read_hatecheck(mirror / "hatecheck" / "test_suite_cases.csv"))
    assert len(docs) == 3728
    assert len({d.meta["functionality"] for d in docs}) == 29
    assert sum(d.label == "hateful" for d in docs) == 2563
    assert all(d.sentences[0].text == d.meta["text"].strip() for d in docs)
