"""A stage process pays for what its stage module imports before the body runs: every technique's stage
module (and the stage runner) must import no model library, so a stage that only reads JSON starts in well
under a second and the model stages import torch or spaCy only when their body needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("torch", "spacy", "transformers", "mlflow", "thinc", "lemminflect")

MODULES = ["lingtest.pipeline.stage", "lingtest.pipeline.data", "lingtest.adversarial.stages",
           "lingtest.contracat.stages", "lingtest.contrapro.stages", "lingtest.coref_training.stages",
           "lingtest.crest.stages", "lingtest.s2lct.stages", "lingtest.tin.stages"]


@pytest.mark.parametrize("module", MODULES)
def test_stage_module_imports_no_model_library(module: str) -> None:
    code = (f"import sys, {module}\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"importing {module} imports {proc.stdout.strip()}"


def test_inflection_still_inflects() -> None:
    from lingtest.resources.candidates.inflect import inflect_like, lemmatize

    assert lemmatize("lakes", "NOUN") == "lake"
    assert inflect_like("pond", "NNS", "NOUN") == "ponds"
    assert inflect_like("look into", "VBD", "VERB") == "looked into"
