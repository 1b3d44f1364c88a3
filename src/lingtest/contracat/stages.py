"""Stage bodies of ContraCAT; paths from ``cfg.paths.contracat``, knobs from ``cfg.contracat``
(:class:`~lingtest.contracat.config.ContracatConfig`).

* ``generate_stage``: the vocabulary (``contracat.vocabulary``: the release's ``vocabulary/*.json``,
  plus ``contracat.extra_nouns``) and the template definitions (the release's, named in
  ``contracat.templates``, and ``contracat.custom``), both from :mod:`lingtest.contracat.components`
  -> every template set in the release layout ``<sets>/<template>/{en,de,genders}.txt``,
  ``<sets>/summary.json`` and the test suite ``<cases>`` (a seeded sample of ``contracat.sample``
  examples per template, all with ``null``);
* ``score_stage``: one contrastive system on the suite -> ``<metrics>/<system>.json`` (per template:
  accuracy, by gold gender, by antecedent position; priors: chosen-gender distributions, first/second
  or subject/object shares; per figure group) and ``<results>/<system>.jsonl``;
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
    from lingtest.contracat.components import build_vocabulary, template_defs  # generate only: the lexicon

    c = config
    sets = ctx.path("contracat.sets")
    voc = build_vocabulary(c)
    cases: list[TestCase] = []
    summary: dict[str, Any] = {"templates": {}, "vocabulary": {k: len(v) for k, v in voc.entities.items()}}
    for t in progress(template_defs(c), "ContraCAT templates"):
        exs = generate(t, voc)
        if not exs:
            raise LingtestError(f"template {t.name} generated no example (check its slots and constraints)")
        write_template(sets / t.name, exs, c.separator)
        idx = sample_indices(len(exs), c.sample, c.seed, t.name)
        cases.extend(make_cases(t.name, exs, idx))
        summary["templates"][t.name] = {"examples": len(exs), "scored": len(idx)}
    write_json(sets / "summary.json", summary)
    write_jsonl(ctx.path("contracat.cases"), cases, kind="testcase",
                meta={"technique": TECHNIQUE, "sample": c.sample, "seed": c.seed})
    ctx.tracker.log_metrics({"cases": len(cases),
                             **{f"examples.{k}": v["examples"] for k, v in summary["templates"].items()}})
    return summary


def load_cases(ctx: StageContext) -> list[TestCase]:
    path = ctx.require(ctx.path("contracat.cases"), "contracat_generate")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


def headline_metrics(result: Mapping[str, Any]) -> dict[str, float]:
    """What the score stage logs: the accuracy of every template that has one, the figure groups'."""
    flat = {f"accuracy.{k}": v["accuracy"] for k, v in result["templates"].items() if v.get("accuracy") is not None}
    flat.update({f"group.{k}": v for k, v in result["groups"].items()})
    return flat


def score_stage(ctx: StageContext, config: ContracatConfig, item: str) -> dict[str, Any]:
    """System ``item`` on the suite -> ``<metrics>/<item>.json`` and ``<results>/<item>.jsonl``."""
    from lingtest.contracat.evaluate import evaluate
    from lingtest.suite.run import score_system
    from lingtest.systems.contrastive import TASK
    from lingtest.systems.factory import build_system

    cases = load_cases(ctx)
    return score_system(build_system(ctx.cfg, TASK, item), item, cases, technique=TECHNIQUE,
                        grade=lambda outputs: evaluate([case.meta for case in cases], outputs),
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
