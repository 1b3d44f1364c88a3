"""Unknown config keys are errors: in stage overrides, in system options and in expectations."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.config import load_params, write_params
from lingtest.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_stage_overrides_of_unknown_keys_are_errors(tmp_path):
    params = write_params(tmp_path / "params.yaml", conf_dir=ROOT / "conf")
    assert load_params(params, ["crest.M=3"]).crest.M == 3
    with pytest.raises(ConfigError, match="thr_q"):
        load_params(params, ["crest.oracle.thr_q=0.5"])
    cfg = load_params(params)
    with pytest.raises(AttributeError):
        _ = cfg.crest.no_such_knob  # struct mode: reading a key conf/ does not define fails
