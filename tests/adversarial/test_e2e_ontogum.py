"""End to end on OntoGUM from the mirror: perturb a few documents, write CoNLL, read it back."""

from __future__ import annotations

import pytest
from tests.fakes.conf_options import perturber_options

from lingtest.adversarial.apply import DocumentPerturber, strip_annotations
from lingtest.adversarial.overlap import changed_mention_share

pytestmark = [pytest.mark.e2e, pytest.mark.mirror]

DOCS = ("GUM_bio_dvorak", "GUM_news_iodine")  # iodine has an empty token in the coref file


@pytest.fixture(scope="module")
def ontogum_docs(mirror):
    from lingtest.readers.options import configured

    read_ontogum = configured("ontogum", conllu_dir=mirror / "gum" / "dep")
    base = mirror / "ontogum" / "coref" / "ontogum" / "conll"
    out = []
    for name in DOCS:
        out.extend(read_ontogum(base / f"{name}.conll"))
    return out


def _structure(doc):
    """Cluster structure as sorted mention strings per cluster (offsets are checked separately)."""
    words = doc.words
    return sorted(sorted(" ".join(words[m.start:m.end]) for m in c.mentions) for c in doc.clusters)


@pytest.mark.parametrize("scheme", ["swap", "visual", "hyponym", "mixed"])
def test_conll_round_trip_keeps_clusters(ontogum_docs, scheme, tmp_path):
    from lingtest.readers.conll_coref import write_conll
    from lingtest.readers.options import configured

    schemes = ["swap", "delete", "visual", "synonym", "hyponym", "hypernym"] if scheme == "mixed" else scheme
    perturber = DocumentPerturber(schemes, **perturber_options(p=0.5), seed=13, name=scheme)
    pert, changes = perturber.perturb_corpus(ontogum_docs)
    assert changes, "p=0.5 over hundreds of mention words must change some"
    k, n, share = changed_mention_share(pert, changes)
    assert 0 < k <= n
    for clean, new in zip(ontogum_docs, pert, strict=True):
        # same number of clusters and mentions; every mention still covers its (modified) words
        assert [len(c.mentions) for c in new.clusters] == [len(c.mentions) for c in clean.clusters]
        assert len(new.words) == len(clean.words) + sum(len(c.new) - 1 for c in changes if c.doc == clean.key)
    path = tmp_path / f"{scheme}.conll"
    write_conll([strip_annotations(d) for d in pert], path)
    back = list(configured("conll_coref")(path))
    assert [d.id for d in back] == [d.id for d in pert]
    for orig, read in zip(pert, back, strict=True):
        assert read.words == orig.words
        spans = sorted(sorted((m.start, m.end) for m in c.mentions) for c in orig.clusters)
        assert sorted(sorted((m.start, m.end) for m in c.mentions) for c in read.clusters) == spans
        assert _structure(read) == _structure(orig)
