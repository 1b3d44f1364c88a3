"""The released CREST suite: one :class:`~lingtest.data.TestCase` per selected follow-up.

Records carry only what a user needs to re-run a test (tokens with their whitespace, gold
clusters on both sides, the replacement) and no parses or timings, so a seeded run writes the
same bytes every time (probabilities are rounded to 6 decimals; records are in corpus order).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from lingtest.crest.generate import FollowUp, Source, followup_document
from lingtest.data.align import Alignment
from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document, Provenance, Sentence, TestCase
from lingtest.errors import InputError

TECHNIQUE = "crest"
RELATION = "coreference-invariance"


def _payload(doc_id: str, sent: Sentence, clusters: Sequence[Sequence[tuple[int, int]]]) -> dict[str, Any]:
    return {
        "id": doc_id,
        "sentences": [{"tokens": [{"text": t.text, **({"ws": t.ws} if t.ws != " " else {})}
                                  for t in sent.tokens]}],
        "clusters": [{"mentions": [list(m) for m in c]} for c in clusters],
    }


def make_case(source: Source, fu: FollowUp, full: bool = False) -> TestCase:
    """The test case of one follow-up. ``full`` keeps the parsed documents (the intermediate file
    that the evaluation stage reads, so nothing is parsed twice); the released suite does not."""
    gold_fu = fu.gold(source.gold)
    if full:
        src_payload = source.doc.to_dict()
        fu_payload = followup_document(source, fu).to_dict()
    else:
        src_payload = _payload(source.id, source.sentence, source.gold)
        fu_payload = _payload(f"{source.id}#{fu.order}", fu.sentence, gold_fu)
    return TestCase(
        technique=TECHNIQUE,
        relation=RELATION,
        source=src_payload,
        followup=fu_payload,
        expected="same-coreference",
        provenance=Provenance(seed_id=source.id, transformation=f"replace:{fu.candidate_source}",
                              params={"position": fu.position, "old": fu.old, "new": fu.new}),
        meta={
            "position": fu.position,
            "old_token": fu.old,
            "new_token": fu.new,
            "n_new_tokens": fu.alignment.n_new,
            "candidate_source": fu.candidate_source,
            "lm_prob": None if fu.prob is None else round(fu.prob, 6),
            "order": fu.order,
            "selected": fu.selected,
            "gold_clusters": [[list(m) for m in c] for c in source.gold],
            "followup_gold_clusters": [[list(m) for m in c] for c in gold_fu],
            "source_text": source.sentence.text,
            "followup_text": fu.sentence.text,
            # the LM checks' values, when they ran (a baseline's case, recorded as CREST's, has neither)
            **({"lm_fit": fu.fit} if fu.fit is not None else {}),
            **({"naturalness": list(fu.naturalness)} if fu.naturalness is not None else {}),
        },
    )


def build_suite(sources: Sequence[Source], followups: dict[str, list[FollowUp]],
                only_selected: bool = True, M: int | None = None, full: bool = False) -> list[TestCase]:
    out = []
    for s in sources:
        for f in followups.get(s.id, []):
            if (f.selected or not only_selected) and (M is None or f.order < M):
                out.append(make_case(s, f, full=full))
    return out


def write_sources(path: str | Path, sources: Sequence[Source], meta: dict[str, Any] | None = None) -> int:
    """The parsed source documents (every source, including those without a follow-up)."""
    return write_jsonl(path, [s.doc for s in sources], kind="document", meta=meta)


def load_sources(path: str | Path) -> list[Source]:
    """The sources written by :func:`write_sources`, in order."""
    return [Source.from_document(d) for d in read_jsonl(path, Document.from_dict, kind="document")]


def load_cases(path: str | Path) -> list[TestCase]:
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


def load_generated(path: str | Path, sources_path: str | Path | None = None
                   ) -> tuple[list[Source], dict[str, list[FollowUp]]]:
    """Sources and follow-ups back from a file written with ``full=True`` cases; with
    ``sources_path`` (:func:`write_sources`) sources without follow-ups are kept too, in order."""
    sources: dict[str, Source] = {}
    if sources_path is not None:
        for d in read_jsonl(sources_path, Document.from_dict, kind="document"):
            sources[d.id] = Source.from_document(d)
    followups: dict[str, list[FollowUp]] = {}
    for tc in read_jsonl(path, TestCase.from_dict, kind="testcase"):
        sid = tc.provenance.seed_id
        if sid not in sources:
            sources[sid] = Source.from_document(Document.from_dict(tc.source))
        src = sources[sid]
        fdoc = Document.from_dict(tc.followup or {})
        if not fdoc.sentences:
            raise InputError("follow-up has no sentence", path=path, field="followup")
        m = tc.meta
        al = Alignment(len(src.sentence), int(m["position"]), int(m["n_new_tokens"]))
        followups.setdefault(sid, []).append(FollowUp(
            sid, int(m["order"]), int(m["position"]), m["old_token"], m["new_token"], m["candidate_source"],
            m.get("lm_prob"), fdoc.sentences[0], al, bool(m.get("selected", True)), fit=m.get("lm_fit"),
            naturalness=None if m.get("naturalness") is None else tuple(m["naturalness"])))
    return list(sources.values()), followups


def write_suite(path: str | Path, cases: Iterable[TestCase], meta: dict[str, Any] | None = None) -> int:
    return write_jsonl(path, cases, kind="testcase", meta={"technique": TECHNIQUE, **(meta or {})})
