"""Toy suites of every task, and the models a user would write for them (JSON form in, JSON form out).

The functions are importable as ``tests.suite.toys:<name>`` (the SPEC of a callable system)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from lingtest.data.io import write_jsonl
from lingtest.data.model import Provenance, TestCase

HERE = "tests.suite.toys"


# ---- models ---------------------------------------------------------------------------------------------
def sentiment(texts: list[str]) -> list[dict[str, float]]:
    """positive when the text says "good" and not "not"."""
    out = []
    for t in texts:
        p = 0.9 if "good" in t and "not" not in t else 0.2
        out.append({"negative": round(1 - p, 6), "positive": p})
    return out


def capitals(sentences: list[list[str]]) -> list[list[list[Any]]]:
    """Every capitalised token is a PER entity."""
    return [[[i, i + 1, "PER"] for i, w in enumerate(s) if w[:1].isupper()] for s in sentences]


def first_last(docs: list[dict[str, Any]]) -> list[list[list[list[int]]]]:
    out = []
    for d in docs:
        n = sum(len(s) for s in d["sentences"])
        out.append([[[0, 1], [n - 1, n]]])
    return out


def shortest(queries: list[dict[str, Any]]) -> list[list[float]]:
    return [[-len(c) / 10 for c in q["candidates"]] for q in queries]


def nan_probs(texts: list[str]) -> list[dict[str, float]]:
    return [{"negative": math.nan, "positive": 0.5} for _ in texts]


# ---- suites ---------------------------------------------------------------------------------------------
ADJECTIVES = ["good", "bad", "fine", "dull", "great", "awful", "nice", "poor", "neat", "weak"]


def classification_cases(n: int = 30) -> list[TestCase]:
    """``label`` cases (MFT): "a good film" positive, "not a good film" negative, ... in two groups."""
    cases = []
    for i in range(n):
        adj = ADJECTIVES[i % len(ADJECTIVES)]
        negated = i % 3 == 0
        text = f"{'not ' if negated else ''}a {adj} film number {i}"
        positive = (adj == "good") != negated
        cases.append(TestCase(technique="demo", relation="mft", source={"text": text}, followup=None,
                              expected={"name": "label", "label": "positive" if positive else "negative"},
                              provenance=Provenance(f"s{i}", "negation" if negated else "plain")))
    return cases


def ner_cases() -> list[TestCase]:
    """TIN-like invariance cases (technique ``tin``: the task is NER by the technique)."""
    pairs = [(["Anna", "met", "Bo", "."], ["Anna", "met", "Cy", "."], "replace"),
             (["Anna", "met", "Bo", "."], ["anna", "met", "Bo", "."], "lowercase"),
             (["We", "saw", "Paris"], ["We", "saw", "Rome"], "replace"),
             (["it", "rains"], ["it", "pours"], "replace")]
    return [TestCase(technique="tin", relation="MR1", source={"tokens": s}, followup={"tokens": f},
                     expected="invariance", provenance=Provenance(f"n{i}", t),
                     meta={"gold": [[0, 1, "PER"]], "followup_gold": [[0, 1, "PER"]]})
            for i, (s, f, t) in enumerate(pairs)]


def doc(words: list[str], id: str = "d") -> dict[str, Any]:
    return {"id": id, "sentences": [{"tokens": [{"text": w} for w in words]}]}


def coref_cases() -> list[TestCase]:
    return [TestCase(technique="adversarial", relation="coreference-invariance", source=doc(src),
                     followup=doc(fu), expected={"name": "invariance", "alignment": {"replacements": [[1, 1]]}},
                     provenance=Provenance(f"c{i}", scheme))
            for i, (src, fu, scheme) in enumerate([(["John", "said", "he", "left"], ["John", "stated", "he", "left"],
                                                    "synonym"),
                                                   (["Mary", "knew", "her"], ["Mary", "kn3w", "her"], "typo")])]


def contrastive_cases() -> list[TestCase]:
    rows = [("It is red .", ["Es ist rot .", "Er ist rot .", "Sie ist rot ."], "t1"),
            ("It is long .", ["Es ist lang .", "Er ist so lang .", "Sie ist sehr lang ."], "t2")]
    return [TestCase(technique="contracat", relation="pronoun-choice",
                     source={"source": src, "candidates": cands, "source_context": "", "target_context": ""},
                     followup=None, expected={"name": "contrastive", "reference": 0},
                     provenance=Provenance(f"{tpl}#0", tpl), meta={"template": tpl})
            for src, cands, tpl in rows]


def s2lct_cases() -> list[TestCase]:
    texts = [("a good film .", ["positive"], "LC1"), ("a bad film .", ["negative"], "LC1"),
             ("it is not good .", ["negative"], "LC2")]
    return [TestCase(technique="s2lct", relation="seed", source={"text": t}, followup=None,
                     expected={"name": "s2lct-label", "labels": labels},
                     provenance=Provenance(f"x{i}", f"s2lct:{cap}:0:seed"), meta={"capability": cap, "kind": "seed"})
            for i, (t, labels, cap) in enumerate(texts)]


def write_suite(path: Path, cases: list[TestCase], **meta: Any) -> Path:
    write_jsonl(path, cases, kind="testcase", meta=meta)
    return path


def write_release(folder: Path, suite: Path, name: str = "demo-toy", version: str = "1.0.0") -> Path:
    """A release folder as ``lingtest release`` lays it out (JSONL, Parquet, provenance.json)."""
    import pyarrow.parquet as pq

    from lingtest.data.io import read_jsonl
    from lingtest.release.provenance import sha256_file
    from lingtest.release.records import case_row, rows_to_table

    sha = sha256_file(suite)
    target = folder / name / version
    (target / "data").mkdir(parents=True)
    cases = list(read_jsonl(suite, TestCase.from_dict, kind="testcase"))
    pq.write_table(rows_to_table([case_row(c) for c in cases]), target / f"data/test-{sha[:16]}.parquet")
    (target / f"data/test-{sha[:16]}.jsonl").write_bytes(suite.read_bytes())
    prov = {"suite": {"name": name, "technique": cases[0].technique, "sha256": sha, "records": len(cases)},
            "release": {"name": name, "version": version, "data_file": f"data/test-{sha[:16]}.parquet",
                        "jsonl_file": f"data/test-{sha[:16]}.jsonl"}}
    (target / "provenance.json").write_text(json.dumps(prov), encoding="utf-8")
    return target
