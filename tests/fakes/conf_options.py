"""Component options as ``conf/`` sets them, for tests that build a component directly: constructors
take every option as a required argument (defaults live in conf/ only), so the tests pass the
pipeline's values, with ``overrides`` winning. Import:
``from tests.fakes.conf_options import perturbation_options, ranker_options, score_grid, vector_options``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from lingtest.paths import project_root


@lru_cache(maxsize=8)
def conf_group(group: str) -> dict[str, Any]:
    """``conf/<group>/default.yaml`` as plain dicts (``${...}`` interpolations left unresolved)."""
    from omegaconf import OmegaConf

    out = OmegaConf.to_container(OmegaConf.load(project_root() / "conf" / group / "default.yaml"), resolve=False)
    assert isinstance(out, dict)
    return out


def perturbation_options(scheme: str, **overrides: Any) -> dict[str, Any]:
    """The options of adversarial perturbation ``scheme`` (``conf/adversarial``, :func:`options_of`)."""
    from lingtest.adversarial.perturbations import options_of

    return {**options_of(scheme, conf_group("adversarial")), **overrides}


def all_perturbation_options() -> dict[str, dict[str, Any]]:
    """Every registered scheme's options (``DocumentPerturber(options=...)``)."""
    from lingtest.adversarial.perturbations import PERTURBATIONS

    return {name: perturbation_options(name) for name in PERTURBATIONS.names()}


def score_grid() -> Any:
    """The :class:`~lingtest.resources.scores.ScoreGrid` of ``resources.score_decimals``."""
    from lingtest.resources.scores import ScoreGrid

    return ScoreGrid.from_config(conf_group("resources"))


def vector_options(**overrides: Any) -> dict[str, Any]:
    """The ``vectors`` candidate proposer's options of ``crest.proposers.vectors`` (with the score grid)."""
    return {**conf_group("crest")["proposers"]["vectors"], "grid": score_grid(), **overrides}


def ranker_options(**overrides: Any) -> dict[str, Any]:
    """The :class:`~lingtest.resources.candidates.rank.LMRanker` options of ``crest.ranker`` (without the
    keys CREST reads itself: ``enabled``, ``dtype``, ``threads``)."""
    rc = conf_group("crest")["ranker"]
    keys = ("threshold", "include_original", "filter_sources", "window", "left_window", "shared_prefix")
    return {**{k: rc[k] for k in keys}, "grid": score_grid(), **overrides}


def proposer_options(name: str, **overrides: Any) -> dict[str, Any]:
    """The options of candidate proposer ``name`` (``wordnet``, ``vectors``, ``masked_lm``) of
    ``crest.proposers.<name>`` (:func:`lingtest.resources.candidates.get_proposer`)."""
    return {**conf_group("crest")["proposers"][name], **overrides}


def lesk_options(**overrides: Any) -> dict[str, Any]:
    """The :class:`~lingtest.adversarial.lesk.AdaptedLesk` options of ``adversarial.lexical``."""
    lex = conf_group("adversarial")["lexical"]
    return {"window": lex["window"], "fallback": lex["fallback"], **overrides}


def perturber_options(**overrides: Any) -> dict[str, Any]:
    """The :class:`~lingtest.adversarial.apply.DocumentPerturber` options of ``conf/adversarial`` (``p``,
    ``consistency``, ``retry`` as ``mixed.retry``, every scheme's ``options``); ``seed`` and ``name`` are
    left to the test (``adversarial.seed`` is the global ``${seed}``)."""
    adv = conf_group("adversarial")
    return {"p": adv["p"], "consistency": adv["consistency"], "retry": adv["mixed"]["retry"],
            "options": all_perturbation_options(), **overrides}


def overlap_options(**overrides: Any) -> dict[str, Any]:
    """``lowercase`` of ``adversarial.overlap`` (the mention-string functions of
    :mod:`lingtest.adversarial.overlap`)."""
    return {"lowercase": conf_group("adversarial")["overlap"]["lowercase"], **overrides}


def adversarial_metrics() -> list[str]:
    """``adversarial.metrics`` (:func:`lingtest.adversarial.report.score_corpus`)."""
    return list(conf_group("adversarial")["metrics"])
