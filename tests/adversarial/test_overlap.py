"""Mention-overlap statistics on a tiny hand-made fixture with hand-computed values."""

from __future__ import annotations

import pytest
from tests.fakes.conf_options import overlap_options, perturber_options

from lingtest.adversarial.apply import Change, DocumentPerturber
from lingtest.adversarial.overlap import (
    changed_mention_share,
    changed_token_map,
    mention_overlap,
    mention_strings,
)
from lingtest.data import Document, read_jsonl


@pytest.fixture()
def tiny(fixtures_dir):
    d = fixtures_dir / "adversarial"
    return (list(read_jsonl(d / "train.jsonl", Document.from_dict)),
            list(read_jsonl(d / "test.jsonl", Document.from_dict)))


def test_mention_strings(tiny):
    train, _ = tiny
    assert mention_strings(train, **overlap_options()) == {"John", "the big dog", "The dog"}
    assert mention_strings(train, lowercase=True) == {"john", "the big dog", "the dog"}


def test_overlap_hand_computed(tiny):
    train, test = tiny
    # test mentions: Mary, Mary, the dog, The dog, John -> "The dog" and "John" are train mentions
    st = mention_overlap(train, test, **overlap_options())
    assert (st.mentions, st.overlapping) == (5, 2) and st.share == pytest.approx(0.4)
    # lower-cased, "the dog" matches as well
    assert mention_overlap(train, test, lowercase=True).share == pytest.approx(0.6)


def test_overlap_after_perturbation_and_changed_share(tiny):
    train, test = tiny
    doc = test[0]
    # hand-made change log: "dog" (token 6, inside "The dog") became "dgo"
    from lingtest.adversarial.apply import replace_tokens

    new, _ = replace_tokens(doc, {6: ["dgo"]})
    changes = [Change(doc=doc.key, token=6, new_token=6, original="dog", new=("dgo",), scheme="swap", sentence=1)]
    st = mention_overlap(train, [new], **overlap_options(), changed=changed_token_map(changes))
    assert (st.overlapping, st.changed, st.changed_overlapping) == (1, 1, 0)  # only "John" still matches
    assert changed_mention_share([new], changes) == (1, 5, pytest.approx(0.2))


def test_changed_mentions_follow_multiword_shifts(tiny):
    _, test = tiny
    doc = test[0]
    from lingtest.adversarial.apply import replace_tokens

    new, omap = replace_tokens(doc, {3: ["hot", "dog"]})  # "the dog" -> "the hot dog"
    changes = [Change(doc.key, 3, omap[3], "dog", ("hot", "dog"), "hyponym", 0)]
    assert changed_token_map(changes) == {doc.key: {3, 4}}
    assert changed_mention_share([new], changes)[:2] == (1, 5)
    mentions = [new.mention_text(m) for c in new.clusters for m in c.mentions]
    assert mentions[:4] == ["Mary", "Mary", "the hot dog", "The dog"]


def test_perturbing_reduces_overlap(tiny):
    train, test = tiny
    perturber = DocumentPerturber("visual", **perturber_options(p=1.0), seed=0, name="visual")
    pert, changes = perturber.perturb_corpus(test)
    # Mary, Mary, John (4 letters) change; "the", "The", "dog" are shorter than 4 letters
    assert sorted(c.original for c in changes) == ["John", "Mary", "Mary"]
    st = mention_overlap(train, pert, **overlap_options(), changed=changed_token_map(changes))
    assert (st.overlapping, st.changed, st.changed_overlapping) == (1, 3, 0)  # only "The dog" is left
    assert changed_mention_share(pert, changes) == (3, 5, pytest.approx(0.6))
