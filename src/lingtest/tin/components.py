"""TIN's components built from the typed configuration (:class:`~lingtest.tin.config.TinConfig`) and the
shared sections they read (``cfg.resources``, ``cfg.parser``, ``cfg.systems.ner_label_maps``): the stages and
``bench/bench_tin.py`` build them here, tests pass fakes to the pure functions instead. Transformations and
the fill-in proposer are chosen by name from their registries and built from their typed config
(``tin.transformations.<name>``, ``tin.fill``).

Every value comes from ``conf/`` (no defaults in code). Heavy models load lazily and once per
process (:class:`Parts` memoises them).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext
from lingtest.resources.scores import ScoreGrid
from lingtest.tin.config import TinConfig
from lingtest.tin.filters import FilterConfig
from lingtest.tin.grading import EntityMapper, SchemeMapper, labels_mapper
from lingtest.tin.transformations.base import TransformationConfig

log = logging.getLogger(__name__)


def transformation_config(config: TinConfig, name: str) -> tuple[Any, TransformationConfig]:
    """The class registered as ``name`` in :data:`~lingtest.tin.transformations.TRANSFORMATIONS` and its
    entry of ``tin.transformations`` (validated as its ``Config`` with the rest of the configuration)."""
    from lingtest.tin.transformations import TRANSFORMATIONS

    if name not in config.transformations:
        raise ConfigError(f"tin.transformations.{name} is not configured; configured: "
                          f"{', '.join(config.transformations)}")
    return TRANSFORMATIONS.get(name), config.transformations[name]


def transformation_labels(config: TinConfig) -> list[tuple[str, str]]:
    """``(name, label)`` of the configured transformations, in order (the report's columns)."""
    return [(name, str(transformation_config(config, name)[0].label)) for name in config.transformations]


def filter_config(config: TinConfig, system: str, grid: ScoreGrid) -> FilterConfig:
    """The filters: ``tin.filters`` with each transformation's ``semantic`` and ``fit`` thresholds and its
    ``epsilon`` for ``system`` (or its ``default``), deciding on ``grid`` (``resources.score_decimals``,
    :meth:`Parts.score_grid`)."""
    semantic: dict[str, float | None] = {}
    fit: dict[str, float | None] = {}
    epsilon: dict[str, float] = {}
    for name, c in config.transformations.items():
        if system not in c.epsilon and "default" not in c.epsilon:
            raise ConfigError(f"tin.transformations.{name}.epsilon: no value for system {system!r} and no default")
        semantic[name] = c.semantic
        fit[name] = c.fit
        epsilon[name] = c.epsilon[system] if system in c.epsilon else c.epsilon["default"]
    f = config.filters
    return FilterConfig(semantic_threshold=semantic, epsilon=epsilon, weight_min=f.weight_min,
                        weight_mean=f.weight_mean, grid=grid, fit=fit, fit_window=f.fit_window)


def label_mapper(label_maps: Any, system: Any, labels: Any = None) -> EntityMapper:
    """Grading map of a built system: ``labels`` when given (:func:`lingtest.tin.grading.labels_mapper`), else
    the system's ``label_scheme`` (spaCy: ``ontonotes``); ``label_maps``: the shared ``systems.ner_label_maps``
    section (:meth:`lingtest.systems.ner.labels.LabelMaps.from_config` reads it). A system without a scheme
    (a function, an http service, a predictions file) needs ``labels``."""
    from lingtest.systems.ner.labels import LabelMaps

    if labels is not None:
        return labels_mapper(labels, label_maps)
    inner = getattr(system, "system", system)
    scheme = getattr(inner, "label_scheme", None)
    if scheme is None:
        raise ConfigError(f"NER system {getattr(system, 'name', system)!r} declares no label_scheme: pass its "
                          f"labels (a scheme of ner_label_maps.schemes, a mapping of its labels to gold labels "
                          f"or null, or a YAML/JSON file of one)")
    return SchemeMapper(LabelMaps.from_config(label_maps), str(scheme))


class Parts:
    """The shared models of the TIN stages, each built on first use: from ``config`` and, for the shared
    components, their own sections of the composed configuration (``ctx.cfg.parser``,
    ``ctx.cfg.resources``); the phrase index from ``paths.tin.phrase_index`` (``ctx.path``)."""

    def __init__(self, ctx: StageContext, config: TinConfig) -> None:
        self.ctx = ctx
        self.config = config
        self._memo: dict[str, Any] = {}

    def _get(self, name: str, build: Any) -> Any:
        if name not in self._memo:
            self._memo[name] = build()
        return self._memo[name]

    @property
    def parser(self) -> Any:
        from lingtest.config import to_plain
        from lingtest.parsing.cache import build_parser

        return self._get("parser", lambda: build_parser(to_plain(self.ctx.cfg.parser)))

    @property
    def score_grid(self) -> ScoreGrid:
        """The decimals model scores are rounded to before any decision (``resources.score_decimals``)."""
        return self._get("score_grid", lambda: ScoreGrid.from_config(self.ctx.cfg.resources))

    @property
    def tagger(self) -> Any:
        from lingtest.tin.tagging import ParserTagger

        return self._get("tagger", lambda: ParserTagger(self.parser))

    @property
    def lm(self) -> Any:
        """The causal LM of the naturalness filter (``resources.lm``)."""
        from lingtest.resources.lm import scorer_from_config

        return self._get("lm", lambda: self._cached(scorer_from_config(self.ctx.cfg.resources)))

    def _cached(self, scorer: Any) -> Any:
        """``scorer`` with the shared LM score cache when ``tin.score_cache`` (and it is a causal LM)."""
        if self.config.score_cache and hasattr(scorer, "use_score_cache"):
            from lingtest.resources.lm_cache import ScoreCache

            scorer.use_score_cache(self._get("score_cache", ScoreCache))
        return scorer

    @property
    def embedder(self) -> Any:
        from lingtest.tin.embedding import TransformersSpanEmbedder

        def build() -> Any:
            e = self.config.embedder
            return TransformersSpanEmbedder(e.model, layers=list(e.layers), device=e.device, batch_size=e.batch_size,
                                            max_length=e.max_length)
        return self._get("embedder", build)

    @property
    def fill(self) -> Any:
        """The shared fill-in proposer ``tin.fill.kind`` names (:data:`lingtest.resources.fill.FILL_PROPOSERS`)."""
        return self._get("fill", self._build_fill)

    def _build_fill(self) -> Any:
        cls, config = self.config.fill.component()
        return cls.from_config(config, self)

    def lm_scorer(self, dtype: str | None) -> Any:
        """The causal-LM scorer of ``resources.lm`` computing in ``dtype`` (null: ``resources.lm.dtype``): the
        fill proposer's ranking LM. That is the naturalness filter's scorer (:attr:`lm`) when both compute in
        the same precision (one model in memory, loaded once), else a new one."""
        from omegaconf import OmegaConf

        from lingtest.resources.lm import same_precision, scorer_from_config

        res = self.ctx.cfg.resources
        if not dtype or same_precision(dtype, res.lm.dtype):
            return self.lm
        merged: Any = OmegaConf.merge(res, {"lm": {"dtype": str(dtype)}})
        return self._cached(scorer_from_config(merged))

    @property
    def phrase_index(self) -> Any:
        from lingtest.resources.embeddings import embedder_from_config
        from lingtest.tin.phrases import EmbeddingPhraseIndex

        def build() -> Any:
            path = self.ctx.require(self.ctx.path("tin.phrase_index"), "tin_phrase_index")
            return EmbeddingPhraseIndex.load(path, embedder_from_config(self.ctx.cfg.resources),
                                             grid=self.score_grid)
        return self._get("phrase_index", build)

    def transformations(self, names: Sequence[str] | None = None) -> list[Any]:
        """The transformations ``names`` (default: every entry of ``tin.transformations``), in order, each
        built by its registered class from its entry (:func:`transformation_config`)."""
        configs = [transformation_config(self.config, name)
                   for name in (list(self.config.transformations) if names is None else list(names))]
        return [cls.from_config(config, self) for cls, config in configs]
