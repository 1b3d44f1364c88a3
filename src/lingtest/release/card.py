"""The dataset card (``README.md``) of a release: the Hugging Face YAML header (configs, splits,
features, licence) and a body with the columns, how to load it, the paper to cite and the
provenance block. Pure: text from the release's metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lingtest.release.records import COLUMNS

COLUMN_DOCS: dict[str, str] = {
    "group": "the group a summary counts the case in (capability, template, attack or transformation)",
    "line_sha256": "sha256 of the case's line in the suite file (what ties a row to its text)",
    "tokens": "the sentence's tokens (JSON list)",
    "text": "the tokens joined by spaces",
    "gold": "gold entities, token spans `[start, end, label]` with `end` exclusive (JSON)",
    "n_tokens": "number of tokens",
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
           records: int, num_bytes: int, columns: Mapping[str, str] = COLUMNS) -> dict[str, Any]:
    return {
        "pretty_name": f"lingtest {name} {version}",
        "license": license_id,
        "tags": ["lingtest", technique, "test-suite", "metamorphic-testing"],
        "configs": [{"config_name": "default", "data_files": [{"split": split, "path": data_file}]}],
        "dataset_info": {
            "features": [{"name": c, "dtype": t} for c, t in columns.items()],
            "splits": [{"name": split, "num_bytes": num_bytes, "num_examples": records}],
        },
    }


def review_text(review: Mapping[str, Any]) -> str:
    """The reviewed rates of a release's suite, as a sentence and a small table."""
    overall = review.get("overall") or {}

    def rate(key: str) -> str:
        r = overall.get(key)
        if not r:
            return "-"
        return f"{r['rate']:.0%} ({r['k']}/{r['n']}; 95% Wilson [{r['low']:.2f}, {r['high']:.2f}])"

    who = ", ".join(review.get("reviewers") or []) or "unknown"
    lines = [f"A seeded sample of this suite's cases was judged by hand (`lingtest review`; reviewers: {who}; "
             f"labels: `{review.get('labels')}`):", "", "| question | rate |", "|---|---|",
             f"| well-formed | {rate('well_formed')} |", f"| label or relation correct | {rate('label_correct')} |",
             f"| both | {rate('both')} |"]
    rel = overall.get("relevance")
    if rel:
        lines.append(f"| capability relevance (1-5) | mean {rel['mean']:.2f} (n={rel['n']}) |")
    return "\n".join(lines)


def _paper(paper: Mapping[str, Any] | None) -> str:
    if not paper:
        return "(no paper recorded for this technique in conf/release)"
    parts = [str(paper.get("authors") or ""), f"*{paper.get('title')}*", str(paper.get("venue") or "")]
    return ". ".join(p for p in parts if p) + "."


def render(*, name: str, version: str, split: str, data_file: str, suite_file: str | None, records: int,
           num_bytes: int, columns: Mapping[str, str], license: Mapping[str, Any] | None,
           paper: Mapping[str, Any] | None, provenance: Mapping[str, Any]) -> str:
    """The card's text."""
    import yaml

    suite = provenance["suite"]
    release = provenance.get("release", {})
    lic = dict(license or {"id": "other", "note": "licence of the source corpus not recorded in conf/release"})
    head = header(name=name, version=version, license_id=str(lic["id"]), technique=str(suite["technique"]),
                  data_file=data_file, split=split, records=records, num_bytes=num_bytes, columns=columns)
    what = {"sources": "source sentences with gold entities",
            "recipe": "files, listed with their sha256 (a recipe: the files are made by the DVC stage below)"
            }.get(str(release.get("kind")), "test cases")
    lines = ["---", yaml.safe_dump(head, sort_keys=False, allow_unicode=True).rstrip(), "---", "",
             f"# {name} {version}", "",
             f"A frozen lingtest release: {records:,} `{suite['technique']}` {what} from "
             f"`{suite['corpus'] or 'its source data'}` (`{suite['path']}`).", "",
             "```python", "import datasets",
             f'ds = datasets.load_dataset("releases/{name}/{version}", split="{split}")',
             "", "import lingtest", f'suite = lingtest.load_suite("releases/{name}/{version}")', "```", ""]
    if release.get("kind") == "sources":
        lines += [f"The cases are generated for each system under test from its own predictions: `lingtest run "
                  f"releases/{name}/{version} --system SPEC` generates them with the recorded configuration "
                  f"(generator `{(release.get('generator') or {}).get('name')}`) and grades the system against "
                  "gold.", ""]
    files = f"`{data_file}` (Parquet)"
    if release.get("kind") == "recipe":
        lines += [f"`lingtest release materialize releases/{name}/{version} --regenerate` makes the files at the "
                  "recorded commit and configuration and checks each against its sha256; `--from DIR` checks a "
                  "folder you made with `dvc repro`.", ""]
    elif release.get("text") == "withheld":
        lines += ["**The corpus's text is not in this release**: its licence does not allow redistribution. Every "
                  "row keeps what lingtest made (ids, groups, expectations, gold annotations) and the sha256 of its "
                  "text (`line_sha256`); `lingtest release materialize releases/"
                  f"{name}/{version}` fills the text in from your own copy of the corpus, checked row by row.", ""]
    else:
        files = f"`{data_file}` (Parquet), `{suite_file}` (the suite file as lingtest reads it, gzip)"
    lines += [f"Files: {files}, `provenance.json`, `checksums.sha256` (`sha256sum -c checksums.sha256`; "
              f"`lingtest release verify releases/{name}/{version}`).", "",
              "## Columns", "", "| column | type | what |", "|---|---|---|"]
    lines += [f"| `{c}` | {t} | {COLUMN_DOCS.get(c, '')} |" for c, t in columns.items()]
    review = provenance.get("review")
    if review:
        lines += ["", "## Reviewed validity", "", review_text(review)]
    lines += ["", "## Licence", "", f"`{lic['id']}`: {lic.get('note', '')}", "",
              "## Cite", "", _paper(paper), "", "## Provenance", ""]
    git = provenance.get("git", {})
    lines += [f"- suite sha256: `{suite['sha256']}` ({records:,} records)",
              f"- git commit: `{git.get('commit')}`" + (" (working tree dirty)" if git.get("dirty") else ""),
              f"- composed config sha256: `{provenance['config_sha256']}` (the config is in `provenance.json`)",
              f"- seed: `{provenance.get('seed')}`"]
    env = provenance.get("environment", {})
    if env.get("cpu"):
        lines.append(f"- generated on: {env.get('cpu')} ({env.get('machine')})")
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
    lock = env.get("lock") or {}
    if lock:
        lines.append("- lock files: " + ", ".join(f"`{k}` `{v[:12]}`" for k, v in lock.items()))
    lines += ["", f"Regenerate and check byte-identity: `lingtest release verify releases/{name}/{version} "
              "--regenerate`.", ""]
    return "\n".join(lines)
