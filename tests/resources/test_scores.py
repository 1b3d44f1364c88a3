"""The score grid (resources.score_decimals) and the stable order of scored items."""

from __future__ import annotations

import math

import numpy as np
import pytest
from omegaconf import OmegaConf
from tests.fakes.conf_options import conf_group, score_grid

from lingtest.errors import ConfigError
from lingtest.resources.scores import SCORE_KINDS, ScoreGrid, on_grid, stable_ranking


def test_the_configured_grid_has_every_kind():
    grid = score_grid()
    assert set(SCORE_KINDS) == {"logprob", "logit", "prob", "similarity"}
    assert [grid.decimals(k) for k in SCORE_KINDS] == [conf_group("resources")["score_decimals"][k]
                                                      for k in SCORE_KINDS]
    # the composed config (an OmegaConf section) gives the same grid
    assert ScoreGrid.from_config(OmegaConf.create(conf_group("resources"))) == grid


def test_bad_configuration_is_an_error_naming_the_key():
    good = {"logprob": 3, "logit": 3, "prob": 6, "similarity": 5}
    with pytest.raises(ConfigError, match=r"resources\.score_decimals is not configured"):
        ScoreGrid.from_config({"device": "cpu"})
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['cosine'\], missing key\(s\) \['similarity'\]"):
        ScoreGrid.from_config({"score_decimals": {**{k: v for k, v in good.items() if k != "similarity"},
                                                  "cosine": 5}})
    with pytest.raises(ConfigError, match=r"resources\.score_decimals\.prob must be an integer from 0 to 12"):
        ScoreGrid.from_config({"score_decimals": {**good, "prob": 6.5}})
    with pytest.raises(ConfigError, match=r"score_decimals\.logit"):
        ScoreGrid(logprob=3, logit=-1, prob=6, similarity=5)
    with pytest.raises(ValueError, match="unknown score kind 'score'"):
        ScoreGrid(**good).round("score", 1.0)


def test_values_equal_up_to_noise_land_on_one_grid_point():
    grid = ScoreGrid(logprob=3, logit=3, prob=6, similarity=5)
    x = -12.3456789
    assert grid.round("logprob", x) == grid.round("logprob", x * (1 + 1e-6)) == -12.346
    assert grid.round("similarity", 0.8999999) == grid.round("similarity", 0.9000001) == 0.9
    assert on_grid(-0.00001, 3) == 0.0 and math.copysign(1.0, on_grid(-0.00001, 3)) == 1.0  # no -0.0
    assert on_grid(float("-inf"), 3) == float("-inf")
    arr = grid.round_array("similarity", np.array([0.123454, 0.123456, -0.000001], dtype=np.float32))
    assert arr.dtype == np.float64 and arr.tolist() == [0.12345, 0.12346, 0.0]


def test_stable_ranking_orders_by_score_then_text_then_index():
    items = [("b", 0.5), ("a", 0.5), ("c", 0.9), ("a", 0.5)]
    ranked = stable_ranking(items, lambda x: x[1], lambda x: x[0])
    assert ranked == [("c", 0.9), ("a", 0.5), ("a", 0.5), ("b", 0.5)]
    first = stable_ranking(list(enumerate(items)), lambda x: x[1][1], lambda x: x[1][0])
    assert [i for i, _ in first] == [2, 1, 3, 0]  # equal texts keep their input order
