"""Small suites of every task for the review tests, written as suite files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lingtest.data.io import write_jsonl
from lingtest.data.model import Provenance, TestCase

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "<script>alert(1)</script> & \"quoted\" film"


def text_cases(n: int = 40) -> list[TestCase]:
    """CheckList-like invariance cases in two groups; case 7's follow-up text is markup."""
    out = []
    for i in range(n):
        group = "typo" if i % 4 == 0 else "synonym"
        source = f"the film number {i} was good"
        followup = HOSTILE if i == 7 else f"the movie number {i} was good"
        out.append(TestCase(technique="demo", relation="inv", source={"text": source}, followup={"text": followup},
                            expected={"name": "label", "label": "positive"}, provenance=Provenance(f"s{i}", group)))
    return out


def s2lct_cases() -> list[TestCase]:
    """Seeds and an expansion of two capabilities (the expansion's parent is seed 0)."""
    seeds = [TestCase(technique="s2lct", relation="seed", source={"text": text}, followup=None,
                      expected={"name": "s2lct-label", "labels": labels},
                      provenance=Provenance(f"x{i}", f"s2lct:{cap}:0:seed"),
                      meta={"capability": cap, "kind": "seed", "sent": sent})
             for i, (text, sent, labels, cap) in enumerate([
                 ("a good film .", "a good film .", ["positive"], "LC1"),
                 ("a bad film .", "a bad film .", ["negative"], "LC1"),
                 ('I thought that "a dull film", but it was not', "a dull film", ["positive", "neutral"], "LC6")])]
    expansion = TestCase(technique="s2lct", relation="exp", source={"text": "a good old film ."}, followup=None,
                         expected={"name": "s2lct-label", "labels": ["positive"]},
                         provenance=Provenance("x0", "s2lct:LC1:0:exp"),
                         meta={"capability": "LC1", "kind": "exp", "parent": seeds[0].id, "fills": ["old"],
                               "mask_tags": ["JJ"], "masked": "a good {JJ} film ."})
    return [*seeds, expansion]


def sentence(words: list[str]) -> dict[str, Any]:
    return {"tokens": [{"text": w} for w in words]}


def document(sentences: list[list[str]], clusters: list[list[list[int]]], id: str = "doc") -> dict[str, Any]:
    return {"id": id, "sentences": [sentence(s) for s in sentences],
            "clusters": [{"mentions": c} for c in clusters]}


#: a document of five sentences; CREST replaces "race" (sentence 3, document token 9)
SENTENCES = [["Anna", "came", "home", "."], ["She", "was", "tired", "."], ["Her", "race", "was", "long", "."],
             ["Bo", "cooked", "."], ["They", "ate", "."]]


def crest_case() -> TestCase:
    edited = [list(s) for s in SENTENCES]
    edited[2][1] = "battle"
    clusters = [[[0, 1], [4, 5], [8, 9]]]
    return TestCase(technique="crest", relation="coreference-invariance", source=document(SENTENCES, clusters),
                    followup=document(edited, clusters, "doc#1"), expected="same-coreference",
                    provenance=Provenance("doc:s2", "replace:vectors", {"old": "race", "new": "battle", "position": 9}))


def tin_case() -> TestCase:
    return TestCase(technique="tin", relation="tin-mr1", source={"tokens": ["Anna", "lives", "in", "Paris", "."]},
                    followup={"tokens": ["Anna", "resides", "in", "Paris", "."]}, expected="tin-mr1",
                    provenance=Provenance("n1", "token", {"old": "lives", "new": "resides", "position": 1}),
                    meta={"changed": [1, 2], "changed_followup": [1, 2], "gold": [[0, 1, "PER"], [3, 4, "LOC"]],
                          "followup_gold": [[0, 1, "PER"], [3, 4, "LOC"]]})


def contrapro_case() -> TestCase:
    return TestCase(technique="contrapro", relation="pronoun-choice",
                    source={"src": "It wouldn't work.", "src_context": "Your plan's too simple.",
                            "ref": "Es würde nicht klappen.", "ref_context": "Das Vorhaben ist zu einfach.",
                            "contrastive": ["Sie würde nicht klappen.", "Er würde nicht klappen."]},
                    followup=None, expected="contrastive",
                    provenance=Provenance("c1", "synonym/synonym", {"changes": [
                        {"where": "ref_context", "old": "Der Plan ist zu einfach.",
                         "new": "Das Vorhaben ist zu einfach."},
                        {"where": "contrastive[0]", "old": "Sie würde nicht klappen.",
                         "new": "Sie würde nicht klappen."}]}))


def contracat_case() -> TestCase:
    return TestCase(technique="contracat", relation="pronoun-choice",
                    source={"source": "It was large.",
                            "candidates": ["Sie war riesig.", "Er war riesig.", "Es war riesig."],
                            "source_context": "I saw the zebra.", "target_context": "Ich sah das Zebra."},
                    followup=None, expected={"name": "contrastive", "reference": 2},
                    provenance=Provenance("p#1", "0_priors/position", {"A": "zebra", "S": "large"}),
                    meta={"template": "0_priors/position"})


def write(path: Path, cases: list[TestCase], **meta: Any) -> Path:
    write_jsonl(path, cases, kind="testcase", meta=meta)
    return path


def pyproject_entry_points(group: str) -> dict[str, str]:
    """The entry points ``pyproject.toml`` declares in ``group`` (name -> ``"module:attr"``)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {str(k): str(v) for k, v in project.get("entry-points", {}).get(group, {}).items()}


def use_review_units(monkeypatch: Any, **providers: Any) -> Any:
    """The review units ``providers`` (name -> a provider, or its ``"module:attr"`` as an entry point names
    it) in place of the ``lingtest.review_units`` entry points of the installed package, whose metadata a
    test does not depend on (it is refreshed by ``pip install -e .``); returns the registry."""
    from lingtest.registry import Registry
    from lingtest.review import units

    reg: Registry = Registry("review unit")
    for name, provider in providers.items():
        if isinstance(provider, str):
            reg.register_lazy(name, provider)
        else:
            reg.register(name, provider)
    monkeypatch.setattr(units, "REVIEW_UNITS", reg)
    return reg


def review_app() -> Any:
    """A typer application with the review command alone (the project's application adds it with the others)."""
    import typer

    from lingtest.commands.review import register

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """The review command alone."""

    register(app)
    return app
