"""Stage bodies of ContraCAT (issue 12); paths from ``cfg.paths.contracat``, knobs from ``cfg.contracat``.

* ``generate_stage``: the vocabulary (``contracat.vocabulary``: the release's ``vocabulary/*.json``,
  plus ``contracat.extra_nouns``) and the template definitions (the release's, named in
  ``contracat.templates``, and ``contracat.custom``) -> every template set in the release layout
  ``<sets>/<template>/{en,de,genders}.txt``, ``<sets>/summary.json`` and the test suite ``<cases>``
  (a seeded sample of ``contracat.sample`` examples per template, all with ``null``);
* ``score_stage``: one contrastive system on the suite -> ``<metrics>/<system>.json`` (per template:
  accuracy, by gold gender, by antecedent position; priors: chosen-gender distributions, first/second
  or subject/object shares; per figure group) and ``<results>/<system>.jsonl``;
* ``report_stage``: table and plots over ``contracat.systems`` in the layout of Figures 4.2/4.4.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.contracat.cases import TECHNIQUE, make_cases
from lingtest.contracat.generate import TemplateDef, generate, write_template
from lingtest.contracat.vocabulary import Vocabulary, load_vocabulary, nouns_from_ding, nouns_from_tsv, with_nouns
from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import TestCase
from lingtest.errors import ConfigError, LingtestError
from lingtest.paths import configured_paths, repo_path
from lingtest.progress import progress

log = logging.getLogger(__name__)



def contracat_config(cfg: Any) -> dict[str, Any]:
    return dict(to_plain(cfg.contracat))


def contracat_paths(cfg: Any) -> dict[str, Path]:
    return configured_paths(cfg.paths.contracat)


def build_vocabulary(ccfg: Mapping[str, Any]) -> Vocabulary:
    """The configured vocabulary with ``extra_nouns`` added (a TSV list and/or English nouns looked up
    in the Ding dictionary)."""
    voc = load_vocabulary(repo_path(ccfg["vocabulary"]))
    extra = ccfg["extra_nouns"]
    cls = str(extra["class"])
    if extra.get("tsv"):
        voc = with_nouns(voc, cls, nouns_from_tsv(repo_path(extra["tsv"])))
    if extra.get("ding_english"):
        from lingtest.contrapro.lexicon import load_lexicon
        from lingtest.readers.textio import read_lines

        english = [ln.strip() for ln in read_lines(repo_path(extra["ding_english"])) if ln.strip()]
        lexicon = load_lexicon(openthesaurus=None, ding=repo_path(extra["ding"]), german_nouns=False)
        found = nouns_from_ding(lexicon, english)
        log.info("Ding: %d of %d English nouns found with a German noun of one gender", len(found), len(english))
        voc = with_nouns(voc, cls, found)
    return voc


def template_defs(ccfg: Mapping[str, Any]) -> list[TemplateDef]:
    from lingtest.contracat.definitions import RELEASE

    custom = dict(ccfg.get("custom") or {})
    out = []
    for name in ccfg["templates"]:
        if name in custom:
            out.append(TemplateDef.from_dict(name, custom[name]))
        elif name in RELEASE:
            out.append(TemplateDef.from_dict(name, RELEASE[name]))
        else:
            raise ConfigError(f"contracat.templates: unknown template {name!r}; release: {', '.join(RELEASE)}"
                              + (f"; custom: {', '.join(custom)}" if custom else ""))
    return out


def sample_indices(n_total: int, n: int | None, seed: int, key: str) -> list[int]:
    if n is None or n >= n_total:
        return list(range(n_total))
    if n < 0:
        raise ConfigError(f"contracat.sample must be >= 0 or null, got {n}")
    return sorted(random.Random(f"{seed}:{key}").sample(range(n_total), n))


def generate_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    paths = contracat_paths(cfg)
    ccfg = contracat_config(cfg)
    voc = build_vocabulary(ccfg)
    sample = ccfg["sample"]
    seed = int(ccfg["seed"])
    sep = str(ccfg["separator"])
    cases: list[TestCase] = []
    summary: dict[str, Any] = {"templates": {}, "vocabulary": {k: len(v) for k, v in voc.entities.items()}}
    for t in progress(template_defs(ccfg), "ContraCAT templates"):
        exs = generate(t, voc)
        if not exs:
            raise LingtestError(f"template {t.name} generated no example (check its slots and constraints)")
        write_template(paths["sets"] / t.name, exs, sep)
        idx = sample_indices(len(exs), None if sample is None else int(sample), seed, t.name)
        cases.extend(make_cases(t.name, exs, idx))
        summary["templates"][t.name] = {"examples": len(exs), "scored": len(idx)}
    write_json(paths["sets"] / "summary.json", summary)
    write_jsonl(paths["cases"], cases, kind="testcase", meta={"technique": TECHNIQUE, "sample": sample, "seed": seed})
    tracker.log_metrics({"cases": float(len(cases)),
                         **{f"examples.{k}": float(v["examples"]) for k, v in summary["templates"].items()}})
    return summary


def load_cases(path: Path) -> list[TestCase]:
    if not path.exists():
        raise LingtestError(f"{path} not found: run contracat_generate first")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


def score_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.contracat.evaluate import evaluate
    from lingtest.suite.run import score_system
    from lingtest.systems.contrastive import TASK
    from lingtest.systems.factory import build_system

    paths = contracat_paths(cfg)
    cases = load_cases(paths["cases"])

    def flatten(result: Mapping[str, Any]) -> dict[str, float]:
        flat = {f"accuracy.{k}": v["accuracy"] for k, v in result["templates"].items()
                if v.get("accuracy") is not None}
        flat.update({f"group.{k}": v for k, v in result["groups"].items()})
        return flat

    return score_system(build_system(cfg, TASK, item), item, cases, technique=TECHNIQUE,
                        grade=lambda outputs: evaluate([c.meta for c in cases], outputs), flatten=flatten,
                        metrics_path=paths["metrics"] / f"{item}.json",
                        results_path=paths["results"] / f"{item}.jsonl", tracker=tracker)


def report_stage(cfg: Any, tracker: Any) -> str:
    from lingtest.contracat.report import plot_groups, plot_priors, table
    from lingtest.data.io import atomic_open

    paths = contracat_paths(cfg)
    ccfg = contracat_config(cfg)
    results = {}
    for name in ccfg["systems"]:
        p = paths["metrics"] / f"{name}.json"
        if not p.exists():
            raise LingtestError(f"{p} not found: run contracat_score@{name} first (dvc repro)")
        results[name] = json.loads(p.read_text(encoding="utf-8"))
    text = table(results)
    with atomic_open(paths["report"] / "report.md") as fh:
        fh.write(text)
    plot_groups(results, paths["report"] / "templates.png")
    plot_priors(results, paths["report"] / "priors.png")
    for f in ("report.md", "templates.png", "priors.png"):
        tracker.log_artifact(str(paths["report"] / f))
    return text
