"""TIN's components built from the composed config (``cfg.tin``, ``cfg.resources``, ``cfg.parser``,
``cfg.systems.ner_label_maps``): the stages and ``bench/bench_tin.py`` build them here, tests pass
fakes to the pure functions instead.

Every value comes from ``conf/`` (no defaults in code). Heavy models load lazily and once per
process (:class:`Parts` memoises them).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.errors import ConfigError, MissingResourceError
from lingtest.paths import configured_paths
from lingtest.tin.filters import FilterConfig
from lingtest.tin.grading import SchemeMapper
from lingtest.tin.repair import RelabelConfig

log = logging.getLogger(__name__)



def tin_paths(cfg: Any) -> dict[str, Path]:
    """``cfg.paths.tin`` as absolute paths."""
    return configured_paths(cfg.paths.tin)


def filter_config(cfg: Any, system: str) -> FilterConfig:
    """The filters of ``tin.filters`` with the epsilons of ``system`` (or ``default``)."""
    f = cfg.tin.filters
    eps = to_plain(f.epsilon)
    table = eps.get(system, eps["default"])
    names = list(cfg.tin.transformations)
    missing = [n for n in names if n not in table or n not in f.semantic]
    if missing:
        raise ConfigError(f"tin.filters: no epsilon/semantic threshold for transformation(s) {missing}")
    return FilterConfig(semantic_threshold=dict(to_plain(f.semantic)), epsilon=dict(table),
                        weight_min=float(f.weight_min), weight_mean=float(f.weight_mean))


def relabel_config(cfg: Any) -> RelabelConfig:
    return RelabelConfig.from_dict(to_plain(cfg.tin.relabel))


def label_mapper(cfg: Any, system: Any) -> SchemeMapper:
    """Grading map of a built system (its ``label_scheme``; spaCy: ``ontonotes``)."""
    from lingtest.systems.ner.labels import LabelMaps

    inner = getattr(system, "system", system)
    scheme = getattr(inner, "label_scheme", None)
    if scheme is None:
        raise ConfigError(f"NER system {getattr(system, 'name', system)!r} declares no label_scheme")
    return SchemeMapper(LabelMaps.from_config(cfg.systems.ner_label_maps), str(scheme))


class Parts:
    """The shared models of the TIN stages, each built on first use."""

    def __init__(self, cfg: Any) -> None:
        self.cfg = cfg
        self._memo: dict[str, Any] = {}

    def _get(self, name: str, build: Any) -> Any:
        if name not in self._memo:
            self._memo[name] = build()
        return self._memo[name]

    @property
    def parser(self) -> Any:
        from lingtest.parsing.cache import build_parser

        return self._get("parser", lambda: build_parser(to_plain(self.cfg.parser)))

    @property
    def tagger(self) -> Any:
        from lingtest.tin.tagging import ParserTagger

        return self._get("tagger", lambda: ParserTagger(self.parser))

    @property
    def lm(self) -> Any:
        """The causal LM of the naturalness filter (``resources.lm``)."""
        from lingtest.resources.lm import scorer_from_config

        return self._get("lm", lambda: scorer_from_config(self.cfg.resources))

    @property
    def embedder(self) -> Any:
        from lingtest.tin.embedding import TransformersSpanEmbedder

        def build() -> Any:
            e = self.cfg.tin.embedder
            return TransformersSpanEmbedder(str(e.model), layers=list(e.layers), device=str(e.device),
                                            batch_size=e.batch_size, max_length=int(e.max_length))
        return self._get("embedder", build)

    @property
    def fill(self) -> Any:
        return self._get("fill", self._build_fill)

    def _build_fill(self) -> Any:
        from lingtest.resources.fill import FILL_PROPOSERS

        fc = self.cfg.tin.fill
        kind = str(fc.kind)
        if kind == "masked_lm":
            m = to_plain(fc.masked_lm)
            return FILL_PROPOSERS.get(kind)(score=m["score"], min_piece_chars=int(m["min_piece_chars"]),
                                            model=m["model"], device=m["device"])
        if kind != "wordnet_vectors":
            raise ConfigError(f"tin.fill.kind must be wordnet_vectors or masked_lm, got {kind!r}")
        from omegaconf import OmegaConf

        from lingtest.resources.candidates import get_proposer
        from lingtest.resources.candidates.rank import LMRanker
        from lingtest.resources.lm import scorer_from_config
        from lingtest.resources.threads import resolve_threads

        rc = fc.ranker
        threads = resolve_threads(rc.get("threads"))
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
        res = self.cfg.resources
        if rc.get("dtype"):
            res = OmegaConf.merge(res, {"lm": {"dtype": str(rc.dtype)}})
        scorer = scorer_from_config(res)
        ranker = LMRanker(scorer, threshold=float(rc.threshold), include_original=False,
                          filter_sources=["wordnet_synonym", "wordnet_antonym", "vectors"],
                          window=rc.get("window"), left_window=rc.get("left_window"),
                          shared_prefix=bool(rc.shared_prefix))
        proposers = [get_proposer("wordnet", **dict(to_plain(fc.wordnet))),
                     get_proposer("vectors", **dict(to_plain(fc.vectors)))]
        return FILL_PROPOSERS.get(kind)(self.parser, proposers, ranker)

    @property
    def phrase_index(self) -> Any:
        from lingtest.resources.embeddings import embedder_from_config
        from lingtest.tin.phrases import EmbeddingPhraseIndex

        def build() -> Any:
            path = tin_paths(self.cfg)["phrase_index"]
            if not path.exists():
                raise MissingResourceError(f"{path} not found: run the tin_phrase_index stage first (dvc repro)")
            return EmbeddingPhraseIndex.load(path, embedder_from_config(self.cfg.resources))
        return self._get("phrase_index", build)

    def transformations(self, names: Sequence[str] | None = None) -> list[Any]:
        """The configured transformations (``tin.transformations``), in order."""
        from lingtest.tin.transformations import TRANSFORMATIONS

        t = self.cfg.tin
        out = []
        for name in (list(t.transformations) if names is None else list(names)):
            cls = TRANSFORMATIONS.get(name)
            if name == "token":
                o = t.token
                out.append(cls(self.fill, self.tagger, top_k=int(o.top_k), min_score=float(o.min_score),
                               tags=list(o.tags), skip_lemmas=list(o.skip_lemmas)))
            elif name == "phrase":
                o = t.phrase
                out.append(cls(self.phrase_index, topn=int(o.topn), min_score=float(o.min_score),
                               max_words=int(o.max_words)))
            elif name == "structural":
                out.append(cls())
            elif name == "shuffle":
                o = t.shuffle
                out.append(cls(max_exhaustive=int(o.max_exhaustive), samples=int(o.samples), seed=int(t.seed)))
            else:  # pragma: no cover - a registered transformation without a builder here
                raise ConfigError(f"no builder for TIN transformation {name!r}")
        return out
