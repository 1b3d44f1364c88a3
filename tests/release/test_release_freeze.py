"""Releases: freeze a suite of a tiny git + DVC project, load it with `datasets` offline, immutability
(folder, release index, git tag), checksums and content checks, withheld text and its materialisation,
committing and tagging, DVC tracking, and regeneration at the recorded commit."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from tests.fakes.dvc_project import git, make_project, repro_and_commit, write_params

from lingtest.config import load_params
from lingtest.errors import InputError
from lingtest.release.freeze import freeze
from lingtest.release.suites import resolve_suite
from lingtest.release.verify import regenerate, verify_checksums


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("rel"))


def _freeze(root: Path, version: str, out: Path, suite: str = "toy", overrides: list[str] | None = None):
    cfg = load_params(root / "params.yaml", overrides or [])
    return freeze(resolve_suite(suite, cfg, root), version, cfg, root, out)


def _rewrite_parquet(path: Path, edit) -> None:
    import pyarrow as pa

    rows = pq.read_table(path).to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)


def test_release_layout_card_and_provenance(project: Path, tmp_path: Path) -> None:
    rel = _freeze(project, "1.0.0", tmp_path / "releases")
    assert rel.created and rel.name == "toy-demo" and rel.records == 9 and rel.tag == "toy-demo@v1.0.0"
    files = sorted(p.relative_to(rel.path).as_posix() for p in rel.path.rglob("*") if p.is_file())
    sha16 = rel.suite_sha256[:16]
    assert files == ["README.md", "checksums.sha256", f"data/test-{sha16}.jsonl.gz", f"data/test-{sha16}.parquet",
                     "provenance.json"]
    table = pq.read_table(rel.path / rel.data_file)
    assert table.num_rows == 9
    assert {f.name: str(f.type) for f in table.schema}["source_text"] == "string"
    row = table.slice(0, 1).to_pylist()[0]
    assert row["expectation"] == "label" and json.loads(row["expected"]) == {"label": "pos", "name": "label"}
    assert json.loads(row["provenance"]) == {"i": 0} and row["transformation"] == "swap"
    assert row["group"] == "swap" and row["line_sha256"] is not None and row["source_text"]
    # the gzip file is the suite file byte for byte
    import gzip

    suite_bytes = (project / "data/suites/toy/demo.jsonl").read_bytes()
    assert gzip.decompress((rel.path / f"data/test-{sha16}.jsonl.gz").read_bytes()) == suite_bytes
    prov = json.loads((rel.path / "provenance.json").read_text())
    head = git(["rev-parse", "HEAD"], project).stdout.strip()
    assert prov["git"]["commit"] == head and prov["seed"] == 1
    assert prov["pipeline"]["stage"] == "toy_generate"
    assert set(prov["pipeline"]["dependencies"]) == {"../inputs/words.txt", "gen.py"}  # src/ is left out
    assert prov["pipeline"]["params"]["params.yaml"] == {"toy.seed": 1, "toy.n": 9, "toy.nondeterministic": False}
    card = (rel.path / "README.md").read_text()
    assert card.startswith("---\npretty_name: lingtest toy-demo 1.0.0\n")
    assert f"path: data/test-{sha16}.parquet" in card and "num_examples: 9" in card and "num_bytes: " in card
    assert head in card and prov["config_sha256"] in card
    assert verify_checksums(rel.path).ok
    assert prov["release"]["text"] == "included" and prov["release"]["licence"]["corpus"] == "demo"
    index = json.loads((tmp_path / "releases" / "index.json").read_text())
    assert index["toy-demo"]["1.0.0"]["suite_sha256"] == rel.suite_sha256 == prov["suite"]["sha256"]


def test_load_dataset_offline_two_releases_do_not_mix(project: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hfcache"))
    first = _freeze(project, "1.0.0", tmp_path / "a")
    other = tmp_path / "b-suite.jsonl"  # another suite with the same release name and version dir name
    lines = (project / "data/suites/toy/demo.jsonl").read_text().splitlines()
    other.write_text("\n".join(lines[:4]) + "\n")
    cfg = load_params(project / "params.yaml")
    second = freeze(resolve_suite(str(other), cfg, project, name="toy-demo"), "1.0.0", cfg, project, tmp_path / "b")
    ds1 = datasets.load_dataset(str(first.path), split="test", cache_dir=str(tmp_path / "hfcache"))
    ds2 = datasets.load_dataset(str(second.path), split="test", cache_dir=str(tmp_path / "hfcache"))
    assert ds1.num_rows == 9 and ds2.num_rows == 3
    from lingtest.release.records import COLUMNS

    assert ds1.column_names == list(COLUMNS)
    assert "followup_text" in ds1.column_names and ds1.features["id"].dtype == "string"
    assert ds1[0]["id"] == pq.read_table(first.path / first.data_file).column("id")[0].as_py()


def test_release_is_immutable(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "releases"
    first = _freeze(project, "1.0.0", out)
    again = _freeze(project, "1.0.0", out)
    assert not again.created and again.suite_sha256 == first.suite_sha256
    other = tmp_path / "x" / "toy" / "demo.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text("\n".join((project / "data/suites/toy/demo.jsonl").read_text().splitlines()[:3]) + "\n")
    cfg = load_params(project / "params.yaml")
    with pytest.raises(InputError, match="immutable"):
        freeze(resolve_suite(str(other), cfg, project, name="toy-demo"), "1.0.0", cfg, project, out)
    with pytest.raises(InputError, match="X.Y.Z"):
        _freeze(project, "1.0", out)
    # the index remembers the version where its folder is gone (another clone, a deleted folder)
    import shutil

    shutil.rmtree(first.path)
    with pytest.raises(InputError, match="another suite"):
        freeze(resolve_suite(str(other), cfg, project, name="toy-demo"), "1.0.0", cfg, project, out)
    # as does a git tag of that name where the index does not list it
    git(["tag", "toy-demo@v3.0.0"], project)
    try:
        with pytest.raises(InputError, match="git tag toy-demo@v3.0.0 exists"):
            _freeze(project, "3.0.0", out)
    finally:
        git(["tag", "-d", "toy-demo@v3.0.0"], project)


def test_verify_finds_tampering(project: Path, tmp_path: Path) -> None:
    rel = _freeze(project, "2.0.0", tmp_path / "releases")
    card = rel.path / "README.md"
    card.write_text(card.read_text() + "edited\n")
    (rel.path / "extra.txt").write_text("x")
    report = verify_checksums(rel.path)
    assert not report.ok
    assert report.problems == ["checksum mismatch: README.md", "not listed in checksums.sha256: extra.txt"]


def test_an_edited_row_fails_with_checksums_and_provenance_rewritten(project: Path, tmp_path: Path) -> None:
    from lingtest.release.freeze import write_checksums
    from lingtest.release.records import rows_sha256
    from lingtest.release.verify import verify_content

    rel = _freeze(project, "2.1.0", tmp_path / "releases")
    assert verify_content(rel.path) == []
    data = rel.path / rel.data_file

    def edit(rows: list[dict]) -> None:
        rows[3]["source_text"] = "an edited sentence"

    _rewrite_parquet(data, edit)
    write_checksums(rel.path)
    assert verify_checksums(rel.path).ok
    problems = verify_content(rel.path)
    assert any(p.startswith("rows: the Parquet rows hash") for p in problems)
    assert any("differ from the suite file" in p for p in problems)
    # provenance.json rewritten too: the suite file and the index still disagree with the rows
    prov_path = rel.path / "provenance.json"
    prov = json.loads(prov_path.read_text())
    prov["release"]["rows_sha256"] = rows_sha256(pq.read_table(data).to_pylist())
    prov_path.write_text(json.dumps(prov))
    write_checksums(rel.path)
    problems = verify_content(rel.path)
    assert not any(p.startswith("rows: the Parquet rows hash") for p in problems)
    assert any("differ from the suite file" in p for p in problems) and any(p.startswith("index:") for p in problems)


def test_withheld_text_and_materialize(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A corpus whose licence forbids redistribution: no text in the release, every row's line sha256;
    materialising from the pipeline's suite file rebuilds the suite byte for byte; a candidate file with
    an edited line leaves that row missing and writes nothing."""
    from lingtest.release.materialize import materialize

    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    rel = _freeze(project, "1.0.0", tmp_path / "releases", overrides=["release.licenses.demo.redistribute=false"])
    assert rel.text == "withheld"
    assert sorted(p.name for p in (rel.path / "data").iterdir()) == [Path(rel.data_file).name]
    rows = pq.read_table(rel.path / rel.data_file).to_pylist()
    assert all(r["source_text"] is None and r["source"] is None and r["meta"] is None for r in rows)
    assert all(r["group"] and r["expected"] and len(r["line_sha256"]) == 64 for r in rows)
    assert "not in this release" in (rel.path / "README.md").read_text()
    suite = project / "data/suites/toy/demo.jsonl"
    lines = suite.read_text().splitlines()
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines[:2] + [lines[2].replace('"s1"', '"s1x"')] + lines[3:]) + "\n")
    got = materialize(rel.path, candidates=edited)
    assert not got.ok and got.matched == 8 and got.missing == [rows[1]["id"]]
    got = materialize(rel.path, candidates=suite)
    assert got.ok and got.path is not None and got.path.read_bytes() == suite.read_bytes()
    assert str(tmp_path / "cache") in str(got.path)


def test_stale_suite_is_refused(project: Path, tmp_path: Path) -> None:
    """A suite that is not the one dvc.lock records (edited, or from another run) is not released."""
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns(".git", ".dvc"))
    suite = root / "data/suites/toy/demo.jsonl"
    suite.chmod(0o644)
    suite.write_text(suite.read_text().replace("w1", "w01"))
    with pytest.raises(InputError, match="dvc.lock"):
        _freeze(root, "1.0.0", tmp_path / "releases")


def test_cli_release_committed_to_git_and_tagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from lingtest.commands.release import freeze_command, verify_command
    from lingtest.release.publish import tag_committed

    root = make_project(tmp_path / "p")
    (root / ".gitignore").write_text("/mlruns/\n")
    monkeypatch.chdir(root)
    assert freeze_command("toy", "1.0.0") == 0
    out = capsys.readouterr().out
    assert "released toy-demo 1.0.0: 9 cases, text included" in out
    add = next(line for line in out.splitlines() if "next: git add" in line).split("next: ", 1)[1].split(" && ")[0]
    assert add == "git add releases/toy-demo/1.0.0 releases/index.json"
    git(add.split()[1:], root)
    git(["commit", "-q", "-m", "release"], root)
    assert tag_committed(root, root / "releases") == ["toy-demo@v1.0.0"]
    assert tag_committed(root, root / "releases") == []
    assert verify_command(root / "releases/toy-demo/1.0.0") == 0
    assert "content: OK" in capsys.readouterr().out
    # rewriting the index in the working tree does not hide an edited release: git has the original
    index = json.loads((root / "releases/index.json").read_text())
    index["toy-demo"]["1.0.0"]["suite_sha256"] = "0" * 64
    (root / "releases/index.json").write_text(json.dumps(index))
    assert verify_command(root / "releases/toy-demo/1.0.0") == 1
    assert "index: releases/index.json records another suite" in capsys.readouterr().out


def test_cli_release_dvc_tracked_and_tagged(project: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from lingtest.commands.release import freeze_command

    root = project
    monkeypatch.chdir(root)
    assert freeze_command("toy", "1.0.0", dvc=True) == 0
    out = capsys.readouterr().out
    assert "released toy-demo 1.0.0: 9 cases" in out and "tracked by DVC" in out
    dvc_file = root / "releases/toy-demo/1.0.0.dvc"
    assert dvc_file.exists()
    # the suggested `git add` names only files that exist (the project's .gitignore already ignores
    # releases/*/*/, so DVC wrote no .gitignore of its own) and works as printed
    add = next(line for line in out.splitlines() if "next: git add" in line).split("next: ", 1)[1].split(" && ")[0]
    assert add == "git add releases/toy-demo/1.0.0.dvc releases/index.json"
    git(add.split()[1:], root)
    # DVC keeps the folder out of git; only the .dvc file and DVC's .gitignore are added
    assert git(["check-ignore", "-q", "releases/toy-demo/1.0.0/README.md"], root, check=False).returncode == 0
    assert freeze_command("toy", "1.0.0", dvc=True, tag=True) == 2  # not committed yet
    assert "before tagging" in capsys.readouterr().err
    git(["add", "releases"], root)
    git(["commit", "-q", "-m", "release"], root)
    assert freeze_command("toy", "1.0.0", dvc=True, tag=True) == 0
    assert git(["tag", "-l"], root).stdout.split() == ["toy-demo@v1.0.0"]
    assert freeze_command("toy", "1.0.0", dvc=True, tag=True) == 2  # a tag is never moved


@pytest.mark.e2e
def test_regenerate_at_the_recorded_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Byte-identical after the workspace moved on; a non-deterministic stage is caught (the stage must
    really run again, not come back from DVC's run cache)."""
    from lingtest.commands.release import verify_command

    root = make_project(tmp_path / "a")
    rel = _freeze(root, "1.0.0", root / "releases")
    write_params(root, seed=2)
    repro_and_commit(root, "another seed")
    monkeypatch.chdir(root)
    assert verify_command(rel.path, regenerate=True) == 0
    assert "byte-identical" in capsys.readouterr().out
    root = make_project(tmp_path / "b", nondeterministic=True)
    rel = _freeze(root, "0.1.0", root / "releases")
    result = regenerate(rel.path, root)
    assert not result.identical and result.stage == "toy_generate"


def test_push_to_hub_is_one_thin_call_per_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    from lingtest.release.publish import push_to_hub

    calls: list[tuple[str, dict]] = []

    class Info:
        oid = "abc123"
        commit_url = "https://huggingface.co/datasets/u/x/commit/abc123"

    class FakeApi:
        def create_repo(self, repo_id: str, **kw: object) -> None:
            calls.append(("create_repo", {"repo_id": repo_id, **kw}))

        def upload_folder(self, **kw: object) -> Info:
            calls.append(("upload_folder", dict(kw)))
            return Info()

        def create_tag(self, repo_id: str, **kw: object) -> None:
            calls.append(("create_tag", {"repo_id": repo_id, **kw}))

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    url = push_to_hub(tmp_path, "u/x", tag="toy-demo@v1.0.0")
    assert url.endswith("/commit/abc123")
    assert [c[0] for c in calls] == ["create_repo", "upload_folder", "create_tag"]
    assert calls[1][1]["folder_path"] == str(tmp_path) and calls[1][1]["repo_type"] == "dataset"
    assert calls[2][1] == {"repo_id": "u/x", "repo_type": "dataset", "tag": "toy-demo-v1.0.0", "revision": "abc123"}


def test_suite_names_for_every_layout(tmp_path: Path) -> None:
    from omegaconf import OmegaConf

    from lingtest.release.suites import configured_suites

    for rel in ("data/suites/adversarial/ontogum.jsonl", "data/suites/s2lct/sentiment.jsonl",
                "data/suites/s2lct/hate.jsonl", "data/suites/contrapro.jsonl"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('{"__schema__": 1, "kind": "testcase"}\n')
    cfg = OmegaConf.create({"paths": {
        "adversarial": {"suite": "data/suites/adversarial/ontogum.jsonl", "metrics": "m"},
        "s2lct": {"suites": "data/suites/s2lct"},
        "contrapro": {"suites": "data/suites/contrapro", "cases": "data/suites/contrapro.jsonl"},
        "crest": {"suite": "data/suites/crest/ontogum.jsonl"}, "manifests": "data/manifests"}})
    assert sorted(configured_suites(cfg, tmp_path)) == ["adversarial-ontogum", "contrapro", "crest-ontogum",
                                                        "s2lct-hate", "s2lct-sentiment"]
    assert resolve_suite("adversarial", cfg, tmp_path).name == "adversarial-ontogum"
    assert resolve_suite("s2lct-hate", cfg, tmp_path).rel == "data/suites/s2lct/hate.jsonl"
    assert resolve_suite("contrapro", cfg, tmp_path).technique == "contrapro"
    with pytest.raises(InputError, match="several suites"):
        resolve_suite("s2lct", cfg, tmp_path)
    with pytest.raises(InputError, match="dvc repro"):
        resolve_suite("crest", cfg, tmp_path)
    # a suite file outside the configured layouts: its technique from its header, else its folder
    base = tmp_path / "data/crest/ontogum/baselines/sit/generated.jsonl"
    base.parent.mkdir(parents=True)
    base.write_text('{"__schema__": 1, "kind": "testcase", "technique": "crest"}\n')
    ref = resolve_suite(str(base), cfg, tmp_path, name="crest-baseline-sit-ontogum")
    assert (ref.technique, ref.name, ref.rel) == ("crest", "crest-baseline-sit-ontogum",
                                                  "data/crest/ontogum/baselines/sit/generated.jsonl")
    base.write_text('{"__schema__": 1, "kind": "testcase"}\n')
    assert resolve_suite(str(base), cfg, tmp_path).technique == "sit"


def test_a_recipe_release_lists_files_and_checks_a_folder(project: Path, tmp_path: Path) -> None:
    """A folder too large for git (or not redistributable) is released as the sha256 and size of each
    file; materialising checks a folder against the listing and names the files that differ."""
    from lingtest.release.materialize import materialize
    from lingtest.release.suites import SuiteRef
    from lingtest.release.verify import verify_content

    folder = tmp_path / "sets"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "en.txt").write_text("one\ntwo\n")
    (folder / "de.txt").write_text("eins\n")
    cfg = load_params(project / "params.yaml")
    ref = SuiteRef("toy-sets", "toy", folder, str(folder))
    rel = freeze(ref, "1.0.0", cfg, project, tmp_path / "releases", kind="recipe")
    rows = pq.read_table(rel.path / rel.data_file).to_pylist()
    assert [r["path"] for r in rows] == ["a/en.txt", "de.txt"] and rows[0]["bytes"] == 8
    assert rel.text == "withheld" and "--regenerate" in (rel.path / "README.md").read_text()
    assert verify_content(rel.path) == []
    assert materialize(rel.path, candidates=folder).ok
    (folder / "de.txt").write_text("zwei\n")
    got = materialize(rel.path, candidates=folder)
    assert not got.ok and got.missing == ["de.txt"] and got.matched == 1


def test_the_release_index_does_not_make_the_next_release_dirty(tmp_path: Path) -> None:
    root = make_project(tmp_path / "p")
    (root / ".gitignore").write_text("/mlruns/\n")
    git(["add", ".gitignore"], root)
    git(["commit", "-q", "-m", "ignore"], root)
    first = _freeze(root, "1.0.0", root / "releases")
    git(["add", "releases"], root)
    git(["commit", "-q", "-m", "release"], root)
    second = _freeze(root, "1.1.0", root / "releases")  # the index changed by the first is committed
    third = _freeze(root, "1.2.0", root / "releases")   # the index changed by the second is not
    for rel in (first, second, third):
        assert json.loads((rel.path / "provenance.json").read_text())["git"]["dirty"] is False
    (root / "params.yaml").write_text((root / "params.yaml").read_text() + "\n# edited\n")
    fourth = _freeze(root, "1.3.0", root / "releases")
    assert json.loads((fourth.path / "provenance.json").read_text())["git"]["dirty"] is True


def test_a_reviewed_suite_s_card_carries_its_rates(tmp_path: Path) -> None:
    """Judgements of the same suite (its sha256), under any name or version in reviews/, go into the
    release's provenance and card."""
    from lingtest.release.provenance import sha256_file
    from lingtest.review.labels import Judgement, SuiteKey, labels_path, record

    root = make_project(tmp_path / "p")
    suite = root / "data/suites/toy/demo.jsonl"
    key = SuiteKey(name="toy-demo", version=None, sha256=sha256_file(suite), technique="toy", task="classification")
    ids = [json.loads(line)["id"] for line in suite.read_text().splitlines()[1:]]
    judged = [Judgement(id=i, well_formed=k != 0, label_correct=True, relevance=None, note="", reviewer="r",
                        time="2026-01-01T00:00:00Z") for k, i in enumerate(ids[:4])]
    record(labels_path(key, root), key, judged)
    # a review of other units of the same suite (its folder sorts first) is not the review of its cases
    other = SuiteKey(name="toy-demo", version=None, sha256=key.sha256, technique="toy", task="classification",
                     unit="expansion")
    record(labels_path(other, root), other, [Judgement(id="s1", well_formed=False, label_correct=False, relevance=None,
                                                       note="", reviewer="r", time="2026-01-01T00:00:00Z")])
    rel = _freeze(root, "1.0.0", tmp_path / "releases")
    prov = json.loads((rel.path / "provenance.json").read_text())
    assert prov["review"]["overall"]["well_formed"]["k"] == 3 and prov["review"]["overall"]["well_formed"]["n"] == 4
    card = (rel.path / "README.md").read_text()
    assert "## Reviewed validity" in card and "| well-formed | 75% (3/4;" in card


def test_a_suite_inside_a_folder_output_gets_its_stage_and_its_recorded_md5(tmp_path: Path) -> None:
    from lingtest.release.provenance import member_md5, producing_output, producing_stage

    stages = {"gen@sit": {"outs": [{"path": "data/b/sit", "md5": "199a1434dd1dd050ceb4e5498c9a6462.dir"},
                                   {"path": "metrics/b/sit/generation.json", "md5": "a1"}]},
              "suite": {"outs": [{"path": "data/suites/x.jsonl", "md5": "b2"}]}}
    assert producing_output(stages, "data/suites/x.jsonl") == ("suite", stages["suite"]["outs"][0], None)
    assert producing_output(stages, "data/b/sit/generated.jsonl") == (
        "gen@sit", stages["gen@sit"]["outs"][0], "generated.jsonl")
    assert producing_stage(stages, "data/b/sitting.jsonl") is None  # a prefix of a name is not a folder
    listing = tmp_path / ".dvc/cache/files/md5/19/9a1434dd1dd050ceb4e5498c9a6462.dir"
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps([{"md5": "9568", "relpath": "generated.jsonl"},
                                   {"md5": "8a04", "relpath": "s.jsonl"}]))
    assert member_md5(tmp_path, "199a1434dd1dd050ceb4e5498c9a6462.dir", "generated.jsonl") == "9568"
    assert member_md5(tmp_path, "199a1434dd1dd050ceb4e5498c9a6462.dir", "other.jsonl") is None
    assert member_md5(tmp_path, "0000.dir", "generated.jsonl") is None  # no listing in this clone
    assert member_md5(tmp_path, "a1", "generated.jsonl") is None  # not a folder
