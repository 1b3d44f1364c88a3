"""The one entry point of every DVC stage: ``python -m lingtest.pipeline.stage NAME [ITEM] [key=value ...]``.

:data:`STAGES` maps each DVC stage name (the part before ``@``) to its body, ``module:function``.
Naming convention: a stage ``<technique>_<step>`` is ``lingtest.<technique>.stages:<step>_stage``;
the data stages of the shared glue live in ``lingtest.pipeline``. A body takes ``(cfg, tracker)``, plus
``item`` for ``foreach`` stages. ``tests/core/test_pipeline_deps.py`` derives every stage's import
closure from this table and fails when ``dvc.yaml`` misses a module.
"""

from __future__ import annotations

import sys

from lingtest.registry import Registry

#: stage name -> ``module:function`` of its body (what :mod:`lingtest.pipeline.deps` follows)
TARGETS: dict[str, str] = {
    "download": "lingtest.pipeline.data:download_stage",
    "prepare": "lingtest.pipeline.data:prepare_stage",
    "parse": "lingtest.pipeline.data:parse_stage",
    "parser_agreement": "lingtest.pipeline.parser_agreement:parser_agreement_stage",
    "convert_lm": "lingtest.pipeline.models:convert_lm_stage",
    "adversarial_generate": "lingtest.adversarial.stages:generate_stage",
    "adversarial_overlap": "lingtest.adversarial.stages:overlap_stage",
    "adversarial_score": "lingtest.adversarial.stages:score_stage",
    "adversarial_report": "lingtest.adversarial.stages:report_stage",
    "crest_generate": "lingtest.crest.stages:generate_stage",
    "crest_evaluate": "lingtest.crest.stages:evaluate_stage",
    "crest_report": "lingtest.crest.stages:report_stage",
    "crest_ablation": "lingtest.crest.stages:ablation_stage",
    "crest_baseline_fills": "lingtest.crest.baselines.stages:fills_stage",
    "crest_baseline_generate": "lingtest.crest.baselines.stages:generate_stage",
    "crest_baseline_evaluate": "lingtest.crest.baselines.stages:evaluate_stage",
    "crest_baseline_report": "lingtest.crest.baselines.stages:report_stage",
    "contrapro_generate": "lingtest.contrapro.stages:generate_stage",
    "contrapro_score": "lingtest.contrapro.stages:score_stage",
    "contrapro_report": "lingtest.contrapro.stages:report_stage",
    "contrapro_afa": "lingtest.contrapro.stages:afa_stage",
    "contrapro_finetune": "lingtest.contrapro.stages:finetune_stage",
    "contracat_generate": "lingtest.contracat.stages:generate_stage",
    "contracat_score": "lingtest.contracat.stages:score_stage",
    "contracat_report": "lingtest.contracat.stages:report_stage",
    "coref_train": "lingtest.coref_training.stages:train_stage",
    "coref_train_report": "lingtest.coref_training.stages:report_stage",
    "train_ner": "lingtest.tin.train_ner:train_ner_stage",
    "train_classifier": "lingtest.s2lct.classifier_stages:train_classifier_stage",
    "s2lct_coverage": "lingtest.s2lct.classifier_stages:coverage_stage",
    "s2lct_coverage_hub": "lingtest.s2lct.classifier_stages:coverage_stage",  # the same body, for hub systems
    "s2lct_generate": "lingtest.s2lct.stages:generate_stage",
    "s2lct_evaluate": "lingtest.s2lct.stages:evaluate_stage",
    "s2lct_diversity": "lingtest.s2lct.stages:diversity_stage",
    "s2lct_report": "lingtest.s2lct.stages:report_stage",
    "tin_phrase_index": "lingtest.tin.stages:phrase_index_stage",
    "tin_sources": "lingtest.tin.stages:sources_stage",
    "tin_generate": "lingtest.tin.stages:generate_stage",
    "tin_suite": "lingtest.tin.stages:suite_stage",
    "tin_evaluate": "lingtest.tin.stages:evaluate_stage",
    "tin_repair": "lingtest.tin.stages:repair_stage",
    "tin_baseline": "lingtest.tin.stages:baseline_stage",
    "tin_report": "lingtest.tin.stages:report_stage",
}
STAGES: Registry = Registry("stage")
for _name, _target in TARGETS.items():
    STAGES.register_lazy(_name, _target)


def main(argv: list[str] | None = None) -> None:
    from lingtest.pipeline.runner import main as run_main

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(f"usage: python -m lingtest.pipeline.stage NAME [ITEM] [key=value ...]; stages: {', '.join(STAGES)}",
              file=sys.stderr)
        sys.exit(2)
    name = args.pop(0)
    run_main(name, STAGES.get(name), args)


if __name__ == "__main__":
    main()
