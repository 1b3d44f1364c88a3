"""Stage bodies of ContraCAT; paths from ``cfg.paths.contracat``, knobs from ``cfg.contracat``
(:class:`~lingtest.contracat.config.ContracatConfig`).

* ``generate_stage``: the vocabulary (``contracat.vocabulary``: the release's ``vocabulary/*.json``,
  plus ``contracat.extra_nouns``) and the template definitions (the release's, named in
  ``contracat.templates``, and ``contracat.custom``), both from :mod:`lingtest.contracat.components`
  -> every template set in the release layout ``<sets>/<template>/{en,de,genders}.txt``,
  ``<sets>/summary.json`` (with every example's validity: :mod:`lingtest.contracat.validity`) and the test
  suite ``<cases>`` (a seeded sample of ``contracat.sample``
  examples per template, all with ``null``);
* ``score_stage``: one contrastive system on the suite -> ``<metrics>/<system>.json`` (per template:
  accuracy, by gold gender, by antecedent position; priors: chosen-gender distributions, first/second
  or subject/object shares; per figure group; the scored cases' validity and the share of the system's
  wrong choices on valid ones, :mod:`lingtest.contracat.validity`) and ``<results>/<system>.jsonl``;
* ``report_stage``: table and plots over ``contracat.systems`` in the layout of Figures 4.2/4.4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lingtest.contracat.cases import TECHNIQUE, make_cases, sample_indices
from lingtest.contracat.config import ContracatConfig
from lingtest.contracat.generate import generate, write_template
from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import TestCase
from lingtest.errors import LingtestError
from lingtest.execution.context import StageContext
from lingtest.progress import progress


def generate_stage(ctx: StageContext, config: ContracatConfig) -> dict[str, Any]:
    from lingtest.contracat.components import attested_genders, build_vocabulary, template_defs  # generate only
    from lingtest.contracat.validity import example_validity, unattested_nouns
    from lingtest.metrics.validity import validity_summary

    c = config
    sets = ctx.path("contracat.sets")
    voc = build_vocabulary(c)
    attested = attested_genders(c)
    cases: list[TestCase] = []
    summary: dict[str, Any] = {"templates": {}, "vocabulary": {k: len(v) for k, v in voc.entities.items()}}
    every, examples = [], []
    scored_invalid: dict[str, list[str]] = {}
    for t in progress(template_defs(c), "ContraCAT templates"):
        exs = generate(t, voc)
        if not exs:
            raise LingtestError(f"template {t.name} generated no example (check its slots and constraints)")
        write_template(sets / t.name, exs, c.separator)
        idx = sample_indices(len(exs), c.sample, c.seed, t.name)
        picked = make_cases(t.name, exs, idx)
        cases.extend(picked)
        verdicts = [example_validity(ex, attested) for ex in exs]
        every.extend(verdicts)
        scored_invalid.update({case.id: list(verdicts[i].reasons) for i, case in zip(idx, picked, strict=True)
                               if not verdicts[i].valid})
        examples.extend(exs)
        summary["templates"][t.name] = {"examples": len(exs), "scored": len(idx), **validity_summary(verdicts, 4)}
    summary.update({"validity": validity_summary(every, 4), "unattested_nouns": unattested_nouns(examples, attested),
                    "scored_invalid": dict(sorted(scored_invalid.items()))})
    write_json(sets / "summary.json", summary)
    write_jsonl(ctx.path("contracat.cases"), cases, kind="testcase",
                meta={"technique": TECHNIQUE, "sample": c.sample, "seed": c.seed})
    ctx.tracker.log_metrics({"cases": len(cases), "validity": float(summary["validity"]["validity"] or 0.0),
                             **{f"examples.{k}": v["examples"] for k, v in summary["templates"].items()}})
    return summary


def load_cases(ctx: StageContext) -> list[TestCase]:
    path = ctx.require(ctx.path("contracat.cases"), "contracat_generate")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


def headline_metrics(result: Mapping[str, Any]) -> dict[str, float]:
    """What the score stage logs: the accuracy of every template that has one, the figure groups'."""
    flat = {f"accuracy.{k}": v["accuracy"] for k, v in result["templates"].items() if v.get("accuracy") is not None}
    flat.update({f"group.{k}": v for k, v in result["groups"].items()})
    flat.update({k: result[k] for k in ("validity", "precision_validity_adjusted") if result.get(k) is not None})
    return flat


def score_stage(ctx: StageContext, config: ContracatConfig, item: str) -> dict[str, Any]:
    """System ``item`` on the suite -> ``<metrics>/<item>.json`` and ``<results>/<item>.jsonl``."""
    from lingtest.contracat.evaluate import evaluate
    from lingtest.contracat.validity import run_validity
    from lingtest.suite.run import score_system
    from lingtest.systems.contrastive import TASK
    from lingtest.systems.factory import build_system

    cases = load_cases(ctx)
    invalid = ctx.read_json(ctx.path("contracat.sets") / "summary.json", "contracat_generate").get("scored_invalid", {})

    def grade(outputs: list[Any]) -> dict[str, Any]:
        return {**evaluate([case.meta for case in cases], outputs), **run_validity(cases, outputs, invalid)}

    return score_system(build_system(ctx.cfg, TASK, item), item, cases, technique=TECHNIQUE, grade=grade,
                        flatten=headline_metrics,
                        metrics_path=ctx.path("contracat.metrics") / f"{item}.json",
                        results_path=ctx.path("contracat.results") / f"{item}.jsonl", tracker=ctx.tracker)


def report_stage(ctx: StageContext, config: ContracatConfig) -> str:
    from lingtest.contracat.report import plot_groups, plot_priors, table
    from lingtest.data.io import atomic_open

    results = {name: ctx.read_json(ctx.path("contracat.metrics") / f"{name}.json", f"contracat_score@{name}")
               for name in config.systems}
    text = table(results)
    out = ctx.path("contracat.report")
    with atomic_open(out / "report.md") as fh:
        fh.write(text)
    plot_groups(results, out / "templates.png")
    plot_priors(results, out / "priors.png")
    for f in ("report.md", "templates.png", "priors.png"):
        ctx.tracker.log_artifact(str(out / f))
    return text
