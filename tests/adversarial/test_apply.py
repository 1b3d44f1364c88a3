"""Document-level application: span bookkeeping, seeding, audit records, consistency."""

from __future__ import annotations

import pytest
from tests.fakes.conf_options import perturber_options

from lingtest.adversarial.apply import (
    Change,
    DocumentPerturber,
    adversarial_training_set,
    document_rng,
    mention_token_indices,
    offset_map,
    replace_tokens,
    strip_annotations,
)
from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token, Tree


def parsed_doc() -> Document:
    # "I like dessert . The dessert was cold ."
    s1 = Sentence(tokens=[
        Token("I", pos="PRON", tag="PRP", lemma="I", head=1, dep="nsubj"),
        Token("like", pos="VERB", tag="VBP", lemma="like", head=-1, dep="root"),
        Token("dessert", ws="", pos="NOUN", tag="NN", lemma="dessert", head=1, dep="obj", ent="B-FOOD"),
        Token(".", pos="PUNCT", tag=".", lemma=".", head=1, dep="punct"),
    ], tree=Tree.from_dict({"ptb": "(S (NP (PRP 0)) (VP (VBP 1) (NP (NN 2))) (. 3))"}))
    s2 = Sentence(tokens=[
        Token("The", pos="DET", tag="DT", lemma="the", head=1, dep="det"),
        Token("dessert", pos="NOUN", tag="NN", lemma="dessert", head=3, dep="nsubj"),
        Token("was", pos="AUX", tag="VBD", lemma="be", head=3, dep="cop"),
        Token("cold", pos="ADJ", tag="JJ", lemma="cold", head=-1, dep="root"),
        Token(".", pos="PUNCT", tag=".", lemma=".", head=3, dep="punct"),
    ], tree=Tree.from_dict({"ptb": "(S (NP (DT 0) (NN 1)) (VP (VBD 2) (ADJP (JJ 3))) (. 4))"}))
    return Document(id="d1", sentences=[s1, s2], clusters=[Cluster([Mention(2, 3), Mention(4, 6)], id="c1"),
                                                            Cluster([Mention(0, 1)], id="c2")],
                    entities=[Entity(2, 3, "FOOD"), Entity(7, 8, "TEMP")])


def test_offset_map():
    assert offset_map(4, {1: ["a", "b", "c"]}) == [0, 1, 4, 5, 6]
    assert offset_map(3, {}) == [0, 1, 2, 3]


def test_multiword_replacement_updates_every_index():
    doc = parsed_doc()
    new, omap = replace_tokens(doc, {2: ["ice", "cream"], 5: ["ice", "cream"]})
    assert new.words == "I like ice cream . The ice cream was cold .".split()
    assert [len(s) for s in new.sentences] == [5, 6]
    assert [(m.start, m.end) for m in new.clusters[0].mentions] == [(2, 4), (5, 8)]
    assert [new.mention_text(m) for m in new.clusters[0].mentions] == ["ice cream", "The ice cream"]
    assert [(m.start, m.end) for m in new.clusters[1].mentions] == [(0, 1)]
    assert [c.id for c in new.clusters] == ["c1", "c2"]
    assert new.entities == [Entity(2, 4, "FOOD"), Entity(9, 10, "TEMP")]
    assert new.words[9] == "cold"
    s1, s2 = new.sentences
    # heads: "ice" -> "cream" (compound), "cream" keeps the old head (like), "." -> like
    assert [t.head for t in s1.tokens] == [1, -1, 3, 1, 1]
    assert s1.tokens[2].dep == "compound" and s1.tokens[3].dep == "obj"
    assert s1.tokens[2].ws == " " and s1.tokens[3].ws == ""  # the original's trailing whitespace moves last
    assert s1.tokens[2].ent == "B-FOOD" and s1.tokens[3].ent == "I-FOOD"
    assert s1.tokens[3].lemma is None and s1.tokens[1].lemma == "like"
    assert [t.head for t in s2.tokens] == [2, 2, 4, 4, -1, 4]
    # trees cover the new token indices
    assert s1.tree.leaves() == [0, 1, 2, 3, 4]
    assert s2.tree.leaves() == list(range(6))
    assert s2.tree.to_bracketed(s2.words) == ("(S (NP (DT The) (NN ice) (NN cream)) "
                                              "(VP (VBD was) (ADJP (JJ cold))) (. .))")
    # the input is untouched
    assert doc.words == "I like dessert . The dessert was cold .".split()
    assert omap[2] == 2 and omap[3] == 4 and omap[9] == 11


def test_replace_tokens_rejects_bad_replacements():
    with pytest.raises(IndexError):
        replace_tokens(parsed_doc(), {99: ["x"]})
    with pytest.raises(ValueError):
        replace_tokens(parsed_doc(), {2: ["ice cream"]})
    with pytest.raises(ValueError):
        replace_tokens(parsed_doc(), {2: []})


def test_strip_annotations_keeps_text_and_gold():
    d = strip_annotations(parsed_doc())
    assert d.words == parsed_doc().words and d.sentences[0].tree is None
    assert all(t.head is None and t.pos is None for t in d.tokens)
    assert d.clusters[0].mentions == parsed_doc().clusters[0].mentions and d.entities == parsed_doc().entities


class FixedReplacement:
    """A stand-in scheme: ``dessert`` becomes ``ice cream``, other words are not eligible."""

    name = "fixed"
    group = "beta"

    def perturb(self, word, rng, context=None):
        return ["ice", "cream"] if word.lower() == "dessert" else None


def test_perturber_records_changes_and_keeps_spans_valid():
    doc = parsed_doc()
    p = DocumentPerturber("fixed", **perturber_options(p=1.0), seed=3, name="fixed",
                          perturbations={"fixed": FixedReplacement()})
    new, changes = p(doc)
    assert [(c.token, c.new_token, c.original, c.new, c.sentence) for c in changes] == [
        (2, 2, "dessert", ("ice", "cream"), 0), (5, 6, "dessert", ("ice", "cream"), 1)]
    for c in changes:
        assert new.words[c.new_token:c.new_token + len(c.new)] == list(c.new)
        assert doc.words[c.token] == c.original
        assert Change.from_dict(c.to_dict()) == c
    assert new.meta["adversarial"]["changes"] == 2
    assert Document.from_dict(new.to_dict()).words == new.words


def test_only_mention_words_are_attacked_each_once():
    doc = parsed_doc()
    doc.clusters.append(Cluster([Mention(4, 6), Mention(5, 6)]))  # nested mentions share "dessert"
    assert mention_token_indices(doc) == [0, 2, 4, 5]
    new, changes = DocumentPerturber("swap", **perturber_options(p=1.0), seed=0, name="swap")(doc)
    changed = [c.token for c in changes]
    assert changed == [2, 5]  # "I", "The" are too short; "like", "was", "cold" are not in mentions
    assert len(set(changed)) == len(changed)
    assert new.words[1] == "like" and new.words[7] == "cold"


def test_p_zero_changes_nothing_and_p_is_validated():
    new, changes = DocumentPerturber("swap", **perturber_options(p=0.0), seed=0, name="swap")(parsed_doc())
    assert changes == [] and new.words == parsed_doc().words
    with pytest.raises(ValueError):
        DocumentPerturber("swap", **perturber_options(p=1.5), seed=0, name="swap")
    with pytest.raises(ValueError):
        DocumentPerturber("swap", **perturber_options(consistency="sometimes"), seed=0, name="swap")


def _many_docs(n: int = 6) -> list[Document]:
    text = "The emergency services reached the mountain village after the avalanche blocked every road".split()
    out = []
    for k in range(n):
        out.append(Document(id=f"doc{k}", sentences=[Sentence([Token(w) for w in text])],
                            clusters=[Cluster([Mention(0, 3), Mention(4, 7), Mention(8, 10), Mention(11, 13)])]))
    return out


def test_results_do_not_depend_on_document_order():
    docs = _many_docs()
    p = DocumentPerturber(["swap", "delete", "visual"], **perturber_options(p=0.5), seed=11, name="mixed")
    fwd = {d.key: p(d)[0].words for d in docs}
    bwd = {d.key: p(d)[0].words for d in reversed(docs)}
    assert fwd == bwd
    assert len({tuple(w) for w in fwd.values()}) > 1  # documents draw different attacks
    other = DocumentPerturber(["swap", "delete", "visual"], **perturber_options(p=0.5), seed=12, name="mixed")
    assert {d.key: other(d)[0].words for d in docs} != fwd


def test_document_rng_depends_on_seed_salt_and_key():
    a = document_rng(1, "k", "swap").integers(1 << 30, size=4).tolist()
    assert a == document_rng(1, "k", "swap").integers(1 << 30, size=4).tolist()
    assert a != document_rng(2, "k", "swap").integers(1 << 30, size=4).tolist()
    assert a != document_rng(1, "k", "delete").integers(1 << 30, size=4).tolist()
    assert a != document_rng(1, "k2", "swap").integers(1 << 30, size=4).tolist()


def test_mixed_set_uses_several_schemes_with_weights():
    docs = _many_docs(20)
    p = DocumentPerturber({"swap": 1, "delete": 1, "visual": 0}, **perturber_options(p=1.0), seed=5, name="mixed")
    schemes = {c.scheme for d in docs for c in p(d)[1]}
    assert schemes == {"swap", "delete"}


def test_document_consistency_reuses_the_first_decision():
    text = "the avalanche hit ; the avalanche stopped ; the avalanche melted".split()
    doc = Document(id="x", sentences=[Sentence([Token(w) for w in text])],
                   clusters=[Cluster([Mention(0, 2), Mention(4, 6), Mention(8, 10)])])
    for seed in range(10):
        new, changes = DocumentPerturber("swap", **perturber_options(p=0.5, consistency="document"), seed=seed,
                                          name="swap")(doc)
        forms = {new.words[i] for i in (1, 5, 9)}
        assert len(forms) == 1
    # token-level decisions differ somewhere across seeds
    varied = [len({DocumentPerturber("swap", **perturber_options(p=0.5), seed=s, name="swap")(doc)[0].words[i]
                   for i in (1, 5, 9)}) for s in range(10)]
    assert max(varied) > 1


def test_adversarial_training_set_replaces_half():
    clean = _many_docs(10)
    pert = [DocumentPerturber("swap", **perturber_options(p=1.0), seed=0, name="swap")(d)[0] for d in clean]
    mixed = adversarial_training_set(clean, pert, ratio=0.5, seed=0)
    assert len(mixed) == 10 and [d.key for d in mixed] == [d.key for d in clean]
    n_pert = sum(m.words != c.words for m, c in zip(mixed, clean, strict=True))
    assert n_pert == 5
    assert adversarial_training_set(list(reversed(clean)), pert, 0.5, 0)[::-1] == mixed
    assert all(m.words != c.words for m, c in zip(adversarial_training_set(clean, pert, 1.0, 0), clean, strict=True))
    with pytest.raises(ValueError):
        adversarial_training_set(clean, pert[:3], 0.5, 0)


def test_mention_outside_the_document_is_reported():
    doc = parsed_doc()
    doc.clusters.append(Cluster([Mention(8, 12)]))
    with pytest.raises(ValueError, match="outside"):
        DocumentPerturber("swap", **perturber_options(p=1.0), seed=0, name="swap")(doc)
