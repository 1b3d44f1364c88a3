"""Folders of ``lingtest run`` for the report's tests: one per task (the toy suites of
``tests/suite/toys.py`` and the committed coreference and classification releases, sampled), each with
at least one failing case, and a second run of the classification suite whose verdicts flip.

``RUNS`` names each folder and the task and technique it holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.suite import toys

import lingtest
from lingtest.data.model import Provenance, TestCase

REPO = Path(__file__).resolve().parents[2]
CFG = ["systems.cache=false"]
#: a case text that would run if the page did not escape it
SCRIPT_TEXT = "<script>document.title='pwned'</script> not a good film & <b>bold</b>"


def longest_word_coref(docs: list[dict[str, Any]]) -> list[list[list[list[int]]]]:
    """Links the first token with the longest word: its clusters move when a word changes."""
    out = []
    for d in docs:
        words = [w for s in d["sentences"] for w in s]
        k = max(range(len(words)), key=lambda i: (len(words[i]), -i))
        out.append([[[0, 1], [k, k + 1]]] if k > 0 else [])
    return out


def hate(texts: list[str]) -> list[dict[str, float]]:
    """``hate`` when the text has a word of a short list."""
    words = ("hate", "kill", "nigger", "muslim", "jew")
    out = []
    for t in texts:
        p = 0.8 if any(w in t.lower() for w in words) else 0.1
        out.append({"hate": p, "non-hate": round(1 - p, 6)})
    return out


def negation_blind(texts: list[str]) -> list[dict[str, float]]:
    """Positive when the text says "good" or "not": flips verdicts of ``toys.sentiment`` both ways."""
    out = []
    for t in texts:
        p = 0.9 if "good" in t or "not" in t else 0.2
        out.append({"negative": round(1 - p, 6), "positive": p})
    return out


def classification_cases() -> list[TestCase]:
    """The toy classification cases and one whose text is markup."""
    extra = TestCase(technique="demo", relation="mft", source={"text": SCRIPT_TEXT}, followup=None,
                     expected={"name": "label", "label": "positive"}, provenance=Provenance("xss", "markup"))
    return [*toys.classification_cases(), extra]


#: folder -> (task, technique, how to make it)
RUNS: dict[str, tuple[str, str, Callable[[Path], Any]]] = {}


def _toy(name: str, cases: Callable[[], list[TestCase]], model: Any) -> Callable[[Path], Any]:
    def make(root: Path) -> Any:
        suite = lingtest.load_suite(toys.write_suite(root / "suites" / f"{name}.jsonl", cases()))
        return suite.run(model, config=CFG, progress=False)

    return make


def _release(rel: str, model: Any, limit: int = 12) -> Callable[[Path], Any]:
    def make(root: Path) -> Any:
        suite = lingtest.load_suite(REPO / "releases" / rel)
        return suite.run(model, limit=limit, seed=1, config=CFG, progress=False)

    return make


RUNS.update({
    "classification": ("classification", "demo", _toy("demo-clf", classification_cases, toys.sentiment)),
    "classification-b": ("classification", "demo", _toy("demo-clf", classification_cases, negation_blind)),
    "ner": ("ner", "tin", _toy("tin-ner", toys.ner_cases, toys.capitals)),
    "coref": ("coref", "adversarial", _toy("adversarial-coref", toys.coref_cases, longest_word_coref)),
    "contrastive": ("contrastive", "contracat", _toy("contracat-contrastive", toys.contrastive_cases, toys.shortest)),
    "s2lct": ("classification", "s2lct", _toy("s2lct", toys.s2lct_cases, negation_blind)),
    "crest": ("coref", "crest", _release("crest-ontogum/1.1.0", longest_word_coref)),
    "adversarial": ("coref", "adversarial", _release("adversarial-ontogum/1.0.0", longest_word_coref)),
    "hatexplain": ("classification", "s2lct", _release("s2lct-hatexplain/1.0.0", hate)),
})


def make_runs(root: Path, names: list[str] | None = None) -> dict[str, Path]:
    """The run folders ``names`` (default: all of :data:`RUNS`) under ``root``; name -> folder."""
    out = {}
    for name in names or list(RUNS):
        out[name] = RUNS[name][2](root).save(root / "runs" / name)
    return out
