"""Stage body: agreement of the configured parser's constituency trees with gold treebank trees
(GUM's ``const/*.ptb`` offline), labelled bracket P/R/F1 with evalb's COLLINS.prm conventions."""

from __future__ import annotations

import time
from typing import Any

from lingtest.config import Section
from lingtest.data import Document, Tree, read_jsonl
from lingtest.execution.context import StageContext
from lingtest.parsing.evalb import evalb_corpus


class ParserAgreementConfig(Section):
    """``parser_agreement`` (conf/config.yaml): the gold treebank split the parser is scored on."""

    section = "parser_agreement"

    dataset: str
    split: str
    exclude_prefixes: list[str] | None


def parser_agreement_stage(ctx: StageContext, config: ParserAgreementConfig) -> dict[str, Any]:
    path = ctx.require(ctx.path("prepared") / config.dataset / f"{config.split}.jsonl", f"prepare@{config.dataset}")
    exclude = tuple(config.exclude_prefixes or ())
    docs = [d for d in read_jsonl(path, Document.from_dict) if not d.id.startswith(exclude)]
    gold = [s for d in docs for s in d.sentences if s.tree is not None]
    from lingtest.parsing.cache import build_parser

    parser = build_parser(ctx.cfg.parser)
    pcfg = ctx.cfg.parser
    start = time.perf_counter()
    parsed = parser.parse([s.words for s in gold])
    seconds = time.perf_counter() - start
    pairs: list[tuple[Tree, Tree]] = []
    for g, p in zip(gold, parsed, strict=True):
        if g.tree is None or p.tree is None:  # gold is filtered above; the parser must build trees
            raise ValueError(f"parser {pcfg.name!r} gave no constituency tree for {' '.join(g.words)!r}")
        pairs.append((g.tree, p.tree))
    counts = evalb_corpus(pairs)
    result = {
        "dataset": config.dataset, "split": config.split, "documents": len(docs), "excluded_prefixes": list(exclude),
        "parser": pcfg.name, "model": pcfg.get("model"),
        "scoring": "evalb COLLINS.prm (punctuation by gold tag, ROOT/TOP ignored, ADVP=PRT, function tags stripped)",
        **counts.as_dict(),
    }
    # the parse time goes to the run only: the file is an output that comes out the same on every run
    ctx.write_metrics(ctx.path("parser_agreement"), {**result, "parse_seconds": seconds})
    return result
