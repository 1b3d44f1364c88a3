"""Antecedent-free augmentation: the selection of "it" whose antecedent a (fake) coreference system
places outside the two-sentence window, and the augmented and baseline sets in the concatenation
layout."""

from __future__ import annotations

from lingtest.contrapro.afa import (
    by_gold_distance,
    read_pairs,
    select,
    training_pairs,
    window_document,
    write_pairs,
    write_selected,
)
from lingtest.contrapro.sample import unscored_pool
from lingtest.data.model import Cluster, ContrastiveExample, Mention


def ex(i, ctx, src, ref, variants):
    return ContrastiveExample(f"e{i}", src, ref, variants, ctx, "Kontext.", {"ante distance": i})


EXAMPLES = [
    ex(0, "It was cold.", "It is red.", "Er ist rot.", ["Sie ist rot.", "Es ist rot."]),        # it-chain only
    ex(1, "The car was cold.", "It is red.", "Es ist rot.", ["Er ist rot.", "Sie ist rot."]),  # nominal antecedent
    ex(2, "I told you.", "It is red.", "Sie ist rot.", ["Er ist rot.", "Es ist rot."]),        # unclustered it
    ex(3, "", "So it goes.", "So geht es.", ["So geht er.", "So geht sie."]),                  # no context
]


class FakeCoref:
    """Clusters by hand, as a coreference system would return them for each window document."""

    def predict(self, docs):
        out = []
        for d in docs:
            words = [w.lower() for w in d.words]
            if d.id == "e0":  # "it" (context) ... "it" (main): a pronoun-only chain
                out.append([Cluster([Mention(0, 1), Mention(4, 5)])])
            elif d.id == "e1":  # "The car" ... "it"
                out.append([Cluster([Mention(0, 2), Mention(words.index("it"), words.index("it") + 1)])])
            else:
                out.append([])
        return out


def test_window_document_has_context_and_main_sentence():
    d = window_document(EXAMPLES[0])
    assert [s.words for s in d.sentences] == [["It", "was", "cold", "."], ["It", "is", "red", "."]]
    assert d.meta["main"] == 1
    assert len(window_document(EXAMPLES[3]).sentences) == 1 and window_document(EXAMPLES[3]).meta["main"] == 0


def test_selection_needs_a_chain_without_a_nominal_mention_in_the_window():
    docs = [window_document(e) for e in EXAMPLES]
    clusters = FakeCoref().predict(docs)
    sel = select(EXAMPLES, docs, clusters, include_unclustered=False)
    assert [s.example.id for s in sel] == ["e0"]
    assert sel[0].it_index == 4 and sel[0].cluster == [[0, 1], [4, 5]]
    loose = select(EXAMPLES, docs, clusters, include_unclustered=True)
    assert [s.example.id for s in loose] == ["e0", "e2", "e3"]
    assert loose[1].cluster is None and loose[0].to_dict()["ante_distance"] == 0


def test_augmented_and_baseline_sets(tmp_path):
    docs = [window_document(e) for e in EXAMPLES]
    sel = select(EXAMPLES, docs, FakeCoref().predict(docs), include_unclustered=True)
    base = training_pairs(sel, augmented=False, sep="<SEP>")
    aug = training_pairs(sel, augmented=True, sep="<SEP>")
    assert base[0] == ("It was cold. <SEP> It is red.", "Kontext. <SEP> Er ist rot.")
    assert len(aug) == 3 * len(base)
    assert [t for s, t in aug[:3]] == ["Kontext. <SEP> Er ist rot.", "Kontext. <SEP> Sie ist rot.",
                                       "Kontext. <SEP> Es ist rot."]
    assert {s for s, _ in aug[:3]} == {base[0][0]}  # the source side stays the same
    assert aug[-1][0] == "<SEP> So it goes."
    assert write_pairs(tmp_path / "aug", aug) == len(aug) and read_pairs(tmp_path / "aug") == aug


def test_pool_leaves_out_the_scored_examples_and_caps_by_a_seeded_draw():
    assert [e.id for e in unscored_pool(EXAMPLES, {"e1"}, None, 13)] == ["e0", "e2", "e3"]
    capped = unscored_pool(EXAMPLES, {"e1"}, 2, 13)
    assert len(capped) == 2 and capped == unscored_pool(list(reversed(EXAMPLES)), {"e1"}, 2, 13)[::-1]
    assert {e.id for e in capped} <= {"e0", "e2", "e3"}


def test_selected_counted_by_gold_distance_and_written(tmp_path):
    import json

    far = ex(5, "It was.", "It is.", "Es ist.", ["Er ist.", "Sie ist."])
    selected = select([*EXAMPLES, far], [window_document(e) for e in [*EXAMPLES, far]],
                      [*FakeCoref().predict([window_document(e) for e in EXAMPLES]), []], include_unclustered=True)
    assert by_gold_distance(selected) == {">3": 1, "0": 1, "2": 1, "3": 1}
    write_selected(tmp_path / "selected.jsonl", selected)
    rows = [json.loads(line) for line in (tmp_path / "selected.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [s.example.id for s in selected] and rows[0]["ante_distance"] == 0
