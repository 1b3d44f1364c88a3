"""The releases committed in git, as a user gets them: a fresh `git clone` holds every release, each
loads offline with `datasets` and with `lingtest.load_suite`, passes `lingtest release verify` (checksums,
rows against the suite, the index as git recorded it), and runs with a toy model of its task; one that
withholds its text says so and how to materialise it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lingtest.release.index import read_index

REPO = Path(__file__).resolve().parents[2]


def _committed_releases() -> list[str]:
    index = read_index(REPO / "releases")
    return sorted(f"{n}/{v}" for n, vs in index.items() for v, e in vs.items() if "withdrawn" not in e)


RELEASES = _committed_releases()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("clone") / "lingtest"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(target)], check=True)
    return target


def test_every_technique_has_a_release() -> None:
    techniques = set()
    for rel in RELEASES:
        prov = json.loads((REPO / "releases" / rel / "provenance.json").read_text())
        techniques.add(prov["suite"]["technique"])
    assert {"crest", "adversarial", "tin", "s2lct", "contrapro", "contracat"} <= techniques
    total = sum(p.stat().st_size for p in (REPO / "releases").rglob("*") if p.is_file())
    assert total < 50 * 1024 * 1024


@pytest.mark.parametrize("rel", RELEASES)
def test_a_fresh_clone_loads_and_verifies_every_release(clone: Path, rel: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    import lingtest
    from lingtest.release.verify import verify_checksums, verify_content

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))  # nothing materialised
    folder = clone / "releases" / rel
    prov = json.loads((folder / "provenance.json").read_text())
    ds = datasets.load_dataset(str(folder), split="test", cache_dir=str(tmp_path / "hf"))
    assert ds.num_rows == prov["suite"]["records"] > 0
    assert verify_checksums(folder).ok
    assert verify_content(folder, clone) == []
    if prov["release"]["kind"] == "recipe":  # files made by a stage, listed with their sha256
        from lingtest.errors import InputError

        assert set(ds.column_names) == {"path", "sha256", "bytes"} and len(ds[0]["sha256"]) == 64
        with pytest.raises(InputError, match="recipe release"):
            lingtest.load_suite(folder)
        return
    suite = lingtest.load_suite(folder)
    assert suite.info.cases == prov["suite"]["records"] and suite.info.version == rel.split("/")[1]
    assert suite.info.sha256 == prov["suite"]["sha256"]
    withheld = prov["release"]["text"] == "withheld"
    assert suite.info.materialized == (not withheld)
    if withheld:
        assert ds[0].get("source_text") is None and ds[0].get("tokens") is None
        from lingtest.errors import InputError

        with pytest.raises(InputError, match="materialize"):
            suite.run(lambda xs: xs, config=["systems.cache=false"], progress=False)
    else:
        assert ds[0]["source_text"]


def _hate(texts: list[str]) -> list[dict[str, float]]:
    words = ("hate", "kill", "nigger", "muslim", "jew")
    out = []
    for t in texts:
        p = 0.8 if any(w in t.lower() for w in words) else 0.1
        out.append({"hate": p, "non-hate": round(1 - p, 6)})
    return out


def _no_clusters(docs: list[dict[str, Any]]) -> list[list[Any]]:
    return [[] for _ in docs]


def _pronoun_pairs(docs: list[dict[str, Any]]) -> list[list[Any]]:
    """Every two consecutive third-person pronouns of a document corefer (a toy coreference model)."""
    out = []
    for d in docs:
        words = [w.lower() for s in d["sentences"] for w in s]
        idx = [i for i, w in enumerate(words) if w in ("he", "she", "it", "they", "him", "her", "them")]
        out.append([[[a, a + 1], [b, b + 1]] for a, b in zip(idx[::2], idx[1::2], strict=False)])
    return out


TOYS = {"classification": _hate, "coref": _pronoun_pairs}


@pytest.mark.parametrize("rel", [r for r in RELEASES if json.loads(
    (REPO / "releases" / r / "provenance.json").read_text())["release"]["text"] == "included"])
def test_every_release_with_its_text_runs_with_a_toy_model(rel: str, tmp_path: Path) -> None:
    import lingtest

    suite = lingtest.load_suite(REPO / "releases" / rel)
    results = suite.run(TOYS[suite.info.task], limit=12, seed=1, config=["systems.cache=false"], progress=False)
    assert len(results) == 12
    summary = results.summary()
    assert summary.iloc[-1]["group"] == "overall" and summary.iloc[-1]["cases"] == 12
    out = results.save(tmp_path / "run")
    saved = json.loads((out / "summary.json").read_text())
    assert saved["suite"]["sha256"] == suite.info.sha256 and saved["overall"]["cases"] == 12
    assert len((out / "results.jsonl").read_text().splitlines()) == 13
