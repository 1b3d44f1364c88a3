"""CoNLL-2003 reader: IOB1/IOB2 input, documents, entities, HF records, malformed input."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.data.model import Entity
from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.conll2003 import detect_scheme, from_hf_conll2003, iob1_to_iob2, iob2_spans, read_lines
from lingtest.readers.options import configured

read_conll2003 = configured("conll2003")

EXPECTED_TAGS = [
    ["B-ORG", "O", "B-MISC", "O", "O"],
    ["B-PER", "I-PER"],
    ["B-LOC", "I-LOC", "B-ORG", "O", "B-ORG", "I-ORG", "I-ORG", "O"],
    ["B-ORG", "B-ORG", "O"],
]


@pytest.fixture()
def fx(fixtures_dir: Path) -> Path:
    return fixtures_dir / "readers"


def _tags(docs):
    return [[t.ent for t in s.tokens] for d in docs for s in d.sentences]


def test_iob2_file_documents_sentences_entities(fx: Path) -> None:
    docs = list(read_conll2003(fx / "conll2003_iob2.txt", split="train"))
    assert [d.id for d in docs] == ["conll2003_iob2-0000", "conll2003_iob2-0001"]
    assert [len(d.sentences) for d in docs] == [2, 2]
    assert _tags(docs) == EXPECTED_TAGS
    d0 = docs[0]
    assert d0.split == "train" and d0.meta["scheme_in"] == "iob2"
    assert d0.sentences[0].tokens[0].tag == "NNP"
    assert d0.sentences[0].meta["chunk"] == ["B-NP", "B-VP", "B-NP", "I-NP", "O"]
    # document-level spans: Peter Blackburn is tokens 5-6 of document 0
    assert d0.entities == [Entity(0, 1, "ORG"), Entity(2, 3, "MISC"), Entity(5, 7, "PER")]
    assert [d0.mention_text(e) for e in d0.entities] == ["EU", "German", "Peter Blackburn"]  # type: ignore[arg-type]
    assert docs[1].entities == [
        Entity(0, 2, "LOC"),
        Entity(2, 3, "ORG"),
        Entity(4, 7, "ORG"),
        Entity(8, 9, "ORG"),
        Entity(9, 10, "ORG"),
    ]


def test_iob1_input_is_converted_to_the_same_iob2(fx: Path) -> None:
    iob1 = list(read_conll2003(fx / "conll2003_iob1.txt"))
    iob2 = list(read_conll2003(fx / "conll2003_iob2.txt"))
    assert iob1[0].meta["scheme_in"] == "iob1"
    assert _tags(iob1) == _tags(iob2) == EXPECTED_TAGS
    assert [d.entities for d in iob1] == [d.entities for d in iob2]
    # declaring iob1 explicitly gives the same; declaring iob2 rejects the I- that opens "EU"
    assert _tags(read_conll2003(fx / "conll2003_iob1.txt", scheme="iob1")) == EXPECTED_TAGS
    with pytest.raises(InputError) as err:
        list(read_conll2003(fx / "conll2003_iob1.txt", scheme="iob2"))
    assert err.value.line == 3 and err.value.field == "ner"


def test_iob_helpers() -> None:
    assert iob1_to_iob2(["I-PER", "I-PER", "B-PER", "O", "I-LOC", "I-ORG"]) == [
        "B-PER",
        "I-PER",
        "B-PER",
        "O",
        "B-LOC",
        "B-ORG",
    ]
    assert iob1_to_iob2(["B-PER", "I-PER"]) == ["B-PER", "I-PER"]  # idempotent on IOB2
    assert detect_scheme([["O", "B-PER", "I-PER"]]) == "iob2"
    assert detect_scheme([["O"], ["I-PER"]]) == "iob1"
    assert iob2_spans(["B-PER", "I-PER", "B-PER", "O", "B-LOC"]) == [
        (0, 2, "PER"),
        (2, 3, "PER"),
        (4, 5, "LOC"),
    ]
    assert iob2_spans(["O", "O"]) == []


def test_registry_name_resolves(fx: Path) -> None:
    assert READERS.get("conll2003") is read_conll2003.func


def test_file_without_docstart_is_one_document(tmp_path: Path) -> None:
    p = tmp_path / "nodoc.txt"
    p.write_text("John B-PER\nruns O\n\nMary B-PER\n\n8\u00a01/2 O\n", encoding="utf-8")
    (doc,) = read_conll2003(p)
    assert doc.words == ["John", "runs", "Mary", "8\xa01/2"]  # a no-break space does not split a token
    assert doc.entities == [Entity(0, 1, "PER"), Entity(2, 3, "PER")]
    assert doc.sentences[0].tokens[0].tag is None


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("EU NNP B-NP B-ORG\nrejects VBZ B-VP\n", 2, None, "expected 4 columns"),
        ("EU NNP B-NP B-ORG\nrejects VBZ B-VP X-ORG\n", 2, "ner", "invalid NER tag"),
        ("-DOCSTART- -X- -X- O\n\nEU\n", 3, None, "at least 2 columns"),
        ("EU NNP B-NP B-ORG\nx\xff NN I-NP O\n", 2, None, "cannot decode"),
    ],
)
def test_malformed_input_names_file_and_line(
    tmp_path: Path, text: str, line: int, field: str | None, message: str
) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError, match=message) as err:
        list(read_conll2003(p))
    assert err.value.line == line and err.value.field == field and err.value.path == str(p)


def test_unknown_scheme_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="scheme"):
        list(read_conll2003(tmp_path / "x.txt", scheme="bilou"))
    with pytest.raises(InputError, match="not found"):
        read_lines(tmp_path / "missing.txt")


# ---- Hugging Face records, shaped like the ``conll2003`` dataset's rows ----
HF_RECORDS = [
    {
        "id": "0",
        "tokens": ["EU", "rejects", "German", "call", "to", "boycott", "British", "lamb", "."],
        "pos_tags": [22, 42, 16, 21, 35, 37, 16, 21, 7],
        "chunk_tags": [11, 21, 11, 12, 21, 22, 11, 12, 0],
        "ner_tags": [3, 0, 7, 0, 0, 0, 7, 0, 0],
    },
    {
        "id": "1",
        "tokens": ["Peter", "Blackburn"],
        "pos_tags": [22, 22],
        "chunk_tags": [11, 12],
        "ner_tags": [1, 2],
    },
]


def test_from_hf_conll2003_records() -> None:
    docs = list(from_hf_conll2003(HF_RECORDS, split="train"))
    assert [d.id for d in docs] == ["hf-0", "hf-1"]
    assert [t.ent for t in docs[0].tokens] == ["B-ORG", "O", "B-MISC", "O", "O", "O", "B-MISC", "O", "O"]
    assert docs[0].entities == [Entity(0, 1, "ORG"), Entity(2, 3, "MISC"), Entity(6, 7, "MISC")]
    assert docs[1].entities == [Entity(0, 2, "PER")]
    assert docs[0].tokens[0].tag == "22" and docs[0].split == "train"
    pos_names = [str(i) for i in range(40)] + ["VBN", "VBP", "VBZ", "WDT"]
    named = next(from_hf_conll2003(HF_RECORDS[:1], pos_names=pos_names))
    assert named.tokens[1].tag == "VBZ"


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"tokens": ["a"]}, "ner_tags"),
        ({"tokens": [], "ner_tags": []}, "tokens"),
        ({"tokens": ["a", "b"], "ner_tags": [0]}, "ner_tags"),
        ({"tokens": ["a"], "ner_tags": [42]}, "ner_tags"),
        ({"tokens": ["a"], "ner_tags": [0], "pos_tags": [1, 2]}, "pos_tags"),
    ],
)
def test_from_hf_conll2003_bad_records(record: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        list(from_hf_conll2003([HF_RECORDS[1], record]))
    assert err.value.field == field and err.value.line == 2


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_counts(mirror: Path) -> None:
    expected = {"train": (946, 14041, 23499), "valid": (216, 3250, 5942), "test": (231, 3453, 5648)}
    for split, (n_docs, n_sents, n_ents) in expected.items():
        docs = list(read_conll2003(mirror / "conll2003" / f"{split}.txt"))
        assert (len(docs), sum(len(d.sentences) for d in docs), sum(len(d.entities) for d in docs)) == (
            n_docs,
            n_sents,
            n_ents,
        )
        assert len({d.id for d in docs}) == n_docs
