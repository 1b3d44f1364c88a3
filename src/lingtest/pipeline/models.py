"""Stage body: convert the packaged Gemma-3-270M GGUF once into a fast-loading local copy (the
offline language-model scorer). Idempotent: an existing finished copy is reused."""

from __future__ import annotations

import time
from typing import Any

from lingtest.data import write_json
from lingtest.execution.context import StageContext
from lingtest.resources.models import conversion_record, convert_gguf_model


def convert_lm_stage(ctx: StageContext) -> dict[str, Any]:
    lm = ctx.cfg.resources.lm  # the shared resources section, read by the LM loaders themselves
    t0 = time.perf_counter()
    dest = convert_gguf_model(lm.get("offline_model_dir"), dtype=lm.convert_dtype)
    seconds = time.perf_counter() - t0  # this run's time (~0 when the copy is reused): MLflow only
    record = conversion_record(dest)  # what determines the copy: no time, no path
    write_json(ctx.path("lm_conversion"), record)
    ctx.tracker.log_metrics({"conversion_seconds": round(seconds, 2)})
    ctx.tracker.set_tags({"lm_dir": str(dest)})
    return record
