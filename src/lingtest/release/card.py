"""The dataset card (``README.md``) of a release: the Hugging Face YAML header (configs, splits,
features, licence) and a body with the columns, how to load it, the paper to cite and the
provenance block. Pure: text from the release's metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lingtest.release.records import COLUMNS

COLUMN_DOCS: dict[str, str] = {
    "id": "content-derived case id (stable across regenerations)",
    "technique": "the technique that generated the case",
    "relation": "the metamorphic relation or attack",
    "expectation": "name of the expectation checked (`invariance`, `label`, `direction`, `oracle`, ...)",
    "seed_id": "id of the source input the case was derived from",
    "transformation": "the transformation, perturbation or attack applied",
    "source_text": "the source input as text (documents: one sentence per line)",
    "followup_text": "the follow-up input as text (null when the case has none)",
    "source": "the full source payload (JSON)",
    "followup": "the full follow-up payload (JSON)",
    "expected": "the expectation with its parameters (JSON)",
    "provenance": "the transformation's parameters (JSON)",
    "meta": "technique-specific details (JSON)",
}


def header(*, name: str, version: str, license_id: str, technique: str, data_file: str, split: str,
           records: int, num_bytes: int) -> dict[str, Any]:
    return {
        "pretty_name": f"lingtest {name} {version}",
        "license": license_id,
        "tags": ["lingtest", technique, "test-suite", "metamorphic-testing"],
        "configs": [{"config_name": "default", "data_files": [{"split": split, "path": data_file}]}],
        "dataset_info": {
            "features": [{"name": c, "dtype": t} for c, t in COLUMNS.items()],
            "splits": [{"name": split, "num_bytes": num_bytes, "num_examples": records}],
        },
    }


def _paper(paper: Mapping[str, Any] | None) -> str:
    if not paper:
        return "(no paper recorded for this technique in conf/release)"
    parts = [str(paper.get("authors") or ""), f"*{paper.get('title')}*", str(paper.get("venue") or "")]
    return ". ".join(p for p in parts if p) + "."


def render(*, name: str, version: str, split: str, data_file: str, jsonl_file: str, records: int,
           num_bytes: int, license: Mapping[str, Any] | None, paper: Mapping[str, Any] | None,
           provenance: Mapping[str, Any]) -> str:
    """The card's text."""
    import yaml

    suite = provenance["suite"]
    lic = dict(license or {"id": "other", "note": "licence of the source corpus not recorded in conf/release"})
    head = header(name=name, version=version, license_id=str(lic["id"]), technique=str(suite["technique"]),
                  data_file=data_file, split=split, records=records, num_bytes=num_bytes)
    lines = ["---", yaml.safe_dump(head, sort_keys=False, allow_unicode=True).rstrip(), "---", "",
             f"# {name} {version}", "",
             f"A frozen lingtest test suite: {records:,} `{suite['technique']}` test cases generated from "
             f"`{suite['corpus'] or 'its source data'}` (`{suite['path']}`).", "",
             "```python", "import datasets", f'ds = datasets.load_dataset("path/to/{name}/{version}", split="{split}")',
             "```", "",
             f"Files: `{data_file}` (Parquet), `{jsonl_file}` (the suite's JSONL records, as lingtest reads them), "
             "`provenance.json`, `checksums.sha256` (`sha256sum -c checksums.sha256`; "
             "`lingtest release verify DIR`).", "",
             "## Columns", "", "| column | type | what |", "|---|---|---|"]
    lines += [f"| `{c}` | {t} | {COLUMN_DOCS.get(c, '')} |" for c, t in COLUMNS.items()]
    lines += ["", "## Licence", "", f"`{lic['id']}`: {lic.get('note', '')}", "",
              "## Cite", "", _paper(paper), "", "## Provenance", ""]
    git = provenance.get("git", {})
    lines += [f"- suite sha256: `{suite['sha256']}` ({records:,} records)",
              f"- git commit: `{git.get('commit')}`" + (" (working tree dirty)" if git.get("dirty") else ""),
              f"- composed config sha256: `{provenance['config_sha256']}` (the config is in `provenance.json`)",
              f"- seed: `{provenance.get('seed')}`"]
    pipe = provenance.get("pipeline")
    if pipe:
        lines.append(f"- DVC stage: `{pipe['stage']}` (`{pipe.get('cmd')}`)")
        lines.append("- data and model dependencies (md5 as in `dvc.lock`):")
        for path, dep in pipe["dependencies"].items():
            lines.append(f"  - `{path}`: `{dep.get('md5', '')}` (stage `{dep['stage']}`)")
    else:
        lines.append("- DVC stage: none recorded (the suite is not a `dvc.lock` output)")
    src = provenance.get("source_data")
    if src:
        lines.append(f"- source corpus manifest `{src['path']}`: sha256 `{src['sha256']}` "
                     f"({len(src['files'])} source files, sha256 each in `provenance.json`)")
    env = provenance.get("environment", {})
    lock = env.get("lock") or {}
    if lock:
        lines.append("- lock files: " + ", ".join(f"`{k}` `{v[:12]}`" for k, v in lock.items()))
    lines += ["", "Regenerate and check byte-identity: `lingtest release verify DIR --regenerate`.", ""]
    return "\n".join(lines)
