"""ContraCAT's examples checked against German dictionaries: every configured template generated over the
configured vocabulary (the release's, from the mirror), each example's contrast, antecedent and gold gender
checked (:mod:`lingtest.contracat.validity`, the dictionaries of ``contracat.validity``), per template and
overall, with the antecedent nouns whose claimed gender no dictionary gives.

    .venv/bin/python bench/bench_contracat_validity.py [--out bench/results/contracat_validity.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "contracat_validity.json")
    args = ap.parse_args()

    from omegaconf import OmegaConf

    from lingtest.contracat.components import attested_genders, build_vocabulary, template_defs
    from lingtest.contracat.config import ContracatConfig
    from lingtest.contracat.generate import generate
    from lingtest.contracat.validity import example_validity, unattested_nouns
    from lingtest.metrics.validity import validity_summary

    config = ContracatConfig.from_config(OmegaConf.load(ROOT / "params.yaml"))
    voc = build_vocabulary(config)
    attested = attested_genders(config)
    templates, every, examples = {}, [], []
    for t in template_defs(config):
        exs = generate(t, voc)
        verdicts = [example_validity(ex, attested) for ex in exs]
        every.extend(verdicts)
        examples.extend(exs)
        templates[t.name] = validity_summary(verdicts, 4)
    unattested = unattested_nouns(examples, attested)
    antecedents = {ex.antecedent for ex in examples if ex.antecedent}
    out = {"benchmark": "contracat_validity", "vocabulary": config.vocabulary,
           "dictionaries": {"ding": config.validity.ding, "german_nouns": config.validity.german_nouns},
           "overall": validity_summary(every, 4), "templates": templates,
           "antecedent_nouns": len({noun for noun, _ in antecedents}),
           "antecedent_nouns_unknown": sum(not attested(noun.split()[-1]) for noun in {n for n, _ in antecedents}),
           "unattested_nouns": dict(sorted(unattested.items())), "unattested_count": len(unattested)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: out[k] for k in ("overall", "unattested_nouns", "antecedent_nouns",
                                          "antecedent_nouns_unknown")}, indent=1))


if __name__ == "__main__":
    main()
