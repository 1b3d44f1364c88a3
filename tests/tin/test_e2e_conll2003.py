"""TIN's library end to end on a few CoNLL-2003 test sentences: real spaCy parses (trees, tags,
lemmas), spaCy's own NER as the system under test (OntoNotes labels, mapped for grading), the
structural and shuffle transformations, run_suite, location, repair and grading against gold."""

from __future__ import annotations

import pytest

from lingtest.readers.options import configured
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.systems.ner.base import NERSystem
from lingtest.systems.ner.labels import LabelMaps
from lingtest.tin.grading import SchemeMapper
from lingtest.tin.issues import grade_run, issues_from_run, repair_issues
from lingtest.tin.mutant import TinSource
from lingtest.tin.repair import RelabelConfig
from lingtest.tin.spans import entities_from_tags
from lingtest.tin.suite import mutant_case
from lingtest.tin.transformations.shuffle import EntityShuffle
from lingtest.tin.transformations.structural import Structural
from tests.tin.fakes import FakeProposer, FakeSpanEmbedder

read_conll2003 = configured("conll2003")

pytestmark = [pytest.mark.e2e, pytest.mark.mirror]

ONTONOTES = {"PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "NORP": "MISC",
             "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC", "LANGUAGE": "MISC",
             **dict.fromkeys(["DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL"])}
MAP = SchemeMapper(LabelMaps(("PER", "ORG", "LOC", "MISC"), {"ontonotes": ONTONOTES}), "ontonotes")


class ParserNER(NERSystem):
    """The NER of lingtest's spaCy parser (en_core_web_sm), read from its IOB2 tags."""

    name = "spacy_parse_ner"

    def __init__(self, parser) -> None:
        self.parser = parser

    def predict(self, inputs):
        return [entities_from_tags([t.ent or "O" for t in s.tokens]) for s in self.parser.parse(inputs)]


@pytest.fixture(scope="module")
def parser():
    from lingtest.parsing import get_parser

    try:
        return get_parser("spacy")
    except Exception as exc:  # pragma: no cover - model not installed
        pytest.skip(f"spaCy model unavailable: {exc}")


def test_structural_and_shuffle_on_conll2003(mirror, parser):
    sents = [s for d in read_conll2003(mirror / "conll2003" / "test.txt") for s in d.sentences
             if len(s.tokens) >= 6 and s.words[0] != "-DOCSTART-"][:40]
    system = CachedSystem(ParserNER(parser), None)
    parsed = parser.parse([s.words for s in sents])
    preds = system.predict([s.words for s in sents])
    sources = [TinSource.from_sentence(s.id, p, n, gold=entities_from_tags([t.ent or "O" for t in s.tokens]))
               for s, p, n in zip(sents, parsed, preds, strict=True)]
    by_id = {s.id: s for s in sources}

    def generate():
        shuffle = EntityShuffle(max_exhaustive=4, samples=8, seed=1, whole_phrases=True)
        muts = Structural().generate(sources) + shuffle.generate(sources)
        return [mutant_case(m, system=system.name, gold=by_id[m.seed_id].gold) for m in muts]

    cases = generate()
    assert [c.id for c in cases] == [c.id for c in generate()]  # deterministic
    kinds = {c.provenance.transformation for c in cases}
    assert kinds == {"structural", "shuffle"}
    for c in cases:
        if c.provenance.transformation == "structural" and c.source["tokens"][-1] == ".":
            assert c.followup["tokens"][-1] == "?"
        if c.provenance.transformation == "shuffle":  # shuffles move whole predicted entities: gold follows
            mapped = MAP.map_entities(by_id[c.provenance.seed_id].entities)
            if [e.to_list() for e in mapped] == c.meta["gold"]:
                assert c.meta["followup_gold"] is not None

    run = run_suite(system, cases)
    issues = issues_from_run(cases, run.results, run.outputs)
    assert len(issues) == run.failures
    cfg = RelabelConfig(top_k=5, p_threshold=5.5, sim_threshold=0.45, k=2.5, alpha=0.2, lam=0.5,
                        subwords=False)
    repairs = repair_issues(issues, system=system, proposer=FakeProposer({}), embedder=FakeSpanEmbedder(),
                            config=cfg)
    grade = grade_run(issues, repairs, {s.id: (s.tokens, s.entities, s.gold) for s in sources}, MAP)
    o = grade.summary["overall"]
    assert o["issues"] == len(issues) and o["hits"] <= o["wrong_sources"]
    assert o["precision"] is None or 0.0 <= o["precision"] <= 1.0
    # no fills: every suspicious entity keeps its prediction, so repair changes nothing
    assert grade.repair_source.tf == grade.repair_source.ft == 0
    assert grade.f1_before.f1 == grade.f1_after.f1
