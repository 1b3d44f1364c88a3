"""Stage body: convert the packaged Gemma-3-270M GGUF once into a fast-loading local copy (the
offline language-model scorer). Idempotent: an existing finished copy is reused."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from lingtest.data import write_json
from lingtest.paths import project_root
from lingtest.resources.models import conversion_info, convert_gguf_model
from lingtest.tracking import Tracker


def convert_lm_stage(cfg: Any, tracker: Tracker) -> dict[str, Any]:
    lm = cfg.resources.lm
    dest = convert_gguf_model(lm.get("offline_model_dir"), dtype=lm.get("convert_dtype", "bfloat16"))
    info = asdict(conversion_info(dest))  # type: ignore[arg-type]
    write_json(project_root() / str(cfg.paths.lm_conversion), info)
    tracker.log_metrics({"conversion_seconds": info["seconds"]})
    tracker.set_tags({"lm_dir": info["dest_dir"]})
    return info
