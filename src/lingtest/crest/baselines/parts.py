"""The shared components of the baseline stages, each built on first use from the composed configuration: the
configured parser behind CREST's memo (``cfg.parser``), the fill-in proposer (``crest_baselines.fill``, its
ranking LM from ``resources.lm``; or the table ``crest_baseline_fills`` computed with it), the sentence
embedder (``resources.embedder``) and WordNet (``resources.wordnet``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.crest.baselines.config import BaselinesConfig
from lingtest.resources.scores import ScoreGrid


class StageParts:
    """:class:`~lingtest.crest.baselines.base.Parts` from ``cfg`` (the composed configuration); also what the
    fill proposer's ``from_config`` takes (``parser``, ``score_grid``, ``lm_scorer``)."""

    def __init__(self, cfg: Composed, config: BaselinesConfig, fill_table: Path | None = None) -> None:
        self.cfg = cfg
        self.config = config
        self.fill_table = fill_table
        self._memo: dict[str, Any] = {}

    def _get(self, name: str, build: Any) -> Any:
        if name not in self._memo:
            self._memo[name] = build()
        return self._memo[name]

    @property
    def parser(self) -> Any:
        from lingtest.crest.components import memo_parser

        return self._get("parser", lambda: memo_parser(self.cfg.parser))

    @property
    def score_grid(self) -> ScoreGrid:
        return self._get("score_grid", lambda: ScoreGrid.from_config(self.cfg.resources))

    def lm_scorer(self, dtype: str | None) -> Any:
        """A causal-LM scorer of ``resources.lm`` computing in ``dtype`` (null: ``resources.lm.dtype``)."""
        from omegaconf import OmegaConf

        from lingtest.resources.lm import scorer_from_config

        res = self.cfg.resources
        if dtype:
            res = OmegaConf.merge(res, {"lm": {"dtype": str(dtype)}})
        return scorer_from_config(res)

    @property
    def fill(self) -> Any:
        """The fill-in proposer; with ``fill_table``, the proposals read from that file
        (:class:`~lingtest.crest.baselines.fills.FillTable`, written by ``crest_baseline_fills``)."""
        def build() -> Any:
            if self.fill_table is not None:
                from lingtest.crest.baselines.fills import FillTable

                return FillTable.read(self.fill_table)
            cls, config = self.config.fill.component()
            return cls.from_config(config, self)

        return self._get("fill", build)

    @property
    def embedder(self) -> Any:
        from lingtest.resources.embeddings import embedder_from_config

        return self._get("embedder", lambda: embedder_from_config(self.cfg.resources))

    @property
    def wordnet(self) -> Any:
        from lingtest.resources.wordnet import ensure_wordnet

        def build() -> Any:
            w = self.cfg.resources.wordnet
            return ensure_wordnet(w.data_dir, source="nltk" if str(w.source) == "nltk" else "debian")

        return self._get("wordnet", build)

    def close(self) -> None:
        parser = self._memo.get("parser")
        if parser is not None:
            parser.close()
