"""``bench/eval_ner_system.py``: the whole-split NER score (the README's test F1 of the NER systems
under test) on hand-computed cases, with a fake system and the real OntoNotes -> CoNLL label map."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from lingtest.data.model import Document, Entity, Sentence, Token
from lingtest.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("eval_ner_system", ROOT / "bench" / "eval_ner_system.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _doc(doc_id: str, *sentences: list[tuple[str, str | None]]) -> Document:
    return Document(doc_id, [Sentence([Token(w, ent=t) for w, t in s]) for s in sentences])


class FixedSystem:
    """Returns the given entities per sentence, in its own (OntoNotes) labels."""

    def __init__(self, outputs: dict[tuple[str, ...], list[Entity]]) -> None:
        self.outputs = outputs
        self.seen: list[list[str]] = []

    def predict(self, batch: list[list[str]]) -> list[list[Entity]]:
        self.seen.extend(batch)
        return [self.outputs[tuple(words)] for words in batch]


def test_whole_split_scores_with_mapped_labels():
    from lingtest.config import compose
    from lingtest.systems.ner.labels import LabelMaps
    from lingtest.tin.grading import SchemeMapper

    ev = _module()
    docs = [_doc("d1", [("-DOCSTART-", "O")],
                 [("Anna", "B-PER"), ("visited", "O"), ("Paris", "B-LOC"), ("today", "O")],
                 [("IBM", "B-ORG"), ("hired", "O"), ("John", "B-PER"), ("Smith", "I-PER")])]
    sentences = ev.gold_sentences(docs)
    assert [w for w, _ in sentences] == [["Anna", "visited", "Paris", "today"], ["IBM", "hired", "John", "Smith"]]
    system = FixedSystem({
        # PERSON right, GPE -> LOC right, DATE dropped by the map
        ("Anna", "visited", "Paris", "today"): [Entity(0, 1, "PERSON"), Entity(2, 3, "GPE"), Entity(3, 4, "DATE")],
        # ORG typed as NORP (-> MISC: wrong type), the person cut short (wrong span)
        ("IBM", "hired", "John", "Smith"): [Entity(0, 1, "NORP"), Entity(2, 3, "PERSON")],
    })
    lmap = SchemeMapper(LabelMaps.from_config(compose().systems.ner_label_maps), "ontonotes")
    got = ev.evaluate(system, sentences, lmap)["scores"]
    # gold 4 entities; predicted (mapped) 4; correct 2 (Anna PER, Paris LOC)
    assert got["overall"]["tp"] == 2 and got["overall"]["fp"] == 2 and got["overall"]["fn"] == 2
    assert got["overall"]["precision"] == pytest.approx(0.5) and got["overall"]["f1"] == pytest.approx(0.5)
    assert got["per_type"]["PER"]["tp"] == 1 and got["per_type"]["PER"]["fn"] == 1
    assert got["per_type"]["LOC"]["f1"] == pytest.approx(1.0)
    assert got["per_type"]["MISC"]["fp"] == 1 and got["per_type"]["ORG"]["fn"] == 1


def test_a_token_without_a_tag_is_an_error_naming_the_sentence():
    ev = _module()
    with pytest.raises(InputError, match="document d2, sentence 0"):
        ev.gold_sentences([_doc("d2", [("Anna", "B-PER"), ("left", None)])])
