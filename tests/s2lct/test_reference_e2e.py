"""Algorithm 1 with the real reference CFG (NLTK's PTB sample in the mirror) and the real
SentiWordNet: the paper's running example."""

from __future__ import annotations

import pytest

from lingtest.s2lct.grammar import ReferenceCFG, masked_sentences, node_from_tree, parse_bracketed

pytestmark = pytest.mark.e2e


def test_or_both_gets_an_nns_mask_from_the_ptb_sample(mirror):
    from lingtest.readers.treebank import read_ptb_sample

    path = mirror / "ptb-sample" / "treebank.zip"
    if not path.exists():
        pytest.skip(f"{path} not in the mirror")
    trees = [node_from_tree(s.tree, s.words) for d in read_ptb_sample(path, pattern="treebank/combined/",
                                                                      max_depth=250, max_member_bytes=2**24)
             for s in d.sentences if s.tree is not None]
    cfg = ReferenceCFG(trees)
    assert len(trees) == 3914
    assert ("NP", ("DT", "NNS")) in cfg.rules and all("-" not in lhs[1:] for lhs, _ in cfg.rules
                                                      if not lhs.startswith("-"))
    seed = parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")
    texts = [m.text() for m in masked_sentences(seed, cfg, top=5, max_masks=9)]
    assert "Or both {NNS} ." in texts
    assert len([t for t in texts if t.startswith("Or both")]) <= 5  # top 5 per seed production


def test_sentiwordnet_pure_neutral_words():
    from lingtest.errors import MissingResourceError
    from lingtest.s2lct.sentiment import SentiWordNetSentiment

    try:
        from lingtest.resources.sentiwordnet import ensure_sentiwordnet

        swn = ensure_sentiwordnet()
    except MissingResourceError as exc:
        pytest.skip(str(exc))
    s = SentiWordNetSentiment(swn, adverbs_as_adjectives=True)
    assert s("good", "adj") == "positive" and s("bad", "adj") == "negative"
    assert s("movie", "noun") == "neutral" and s.neutral_word("movie", "noun")
    assert not s.neutral_word("good", "adj")
    assert s("xyzzyq", "noun") is None and not s.neutral_word("xyzzyq", "noun")  # unknown words fail
