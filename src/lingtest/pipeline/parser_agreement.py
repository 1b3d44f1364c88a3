"""Stage body: agreement of the configured parser's constituency trees with gold treebank trees
(GUM's ``const/*.ptb`` offline), labelled bracket P/R/F1 with evalb's COLLINS.prm conventions."""

from __future__ import annotations

import time
from typing import Any

from lingtest.data import Document, Tree, read_jsonl, write_json
from lingtest.parsing.evalb import evalb_corpus
from lingtest.paths import project_root
from lingtest.pipeline.data import parser_from_config, prepared_dir
from lingtest.tracking import Tracker


def parser_agreement_stage(cfg: Any, tracker: Tracker) -> dict[str, Any]:
    acfg = cfg.parser_agreement
    root = project_root()
    path = prepared_dir(cfg, acfg.dataset) / f"{acfg.split}.jsonl"
    exclude = tuple(acfg.get("exclude_prefixes") or ())
    docs = [d for d in read_jsonl(path, Document.from_dict) if not d.id.startswith(exclude)]
    gold = [s for d in docs for s in d.sentences if s.tree is not None]
    parser = parser_from_config(cfg)
    start = time.perf_counter()
    parsed = parser.parse([s.words for s in gold])
    seconds = time.perf_counter() - start
    pairs: list[tuple[Tree, Tree]] = []
    for g, p in zip(gold, parsed, strict=True):
        if g.tree is None or p.tree is None:  # gold is filtered above; the parser must build trees
            raise ValueError(f"parser {cfg.parser.name!r} gave no constituency tree for {' '.join(g.words)!r}")
        pairs.append((g.tree, p.tree))
    counts = evalb_corpus(pairs)
    result = {
        "dataset": acfg.dataset, "split": acfg.split, "documents": len(docs), "excluded_prefixes": list(exclude),
        "parser": cfg.parser.name, "model": cfg.parser.get("model"),
        "scoring": "evalb COLLINS.prm (punctuation by gold tag, ROOT/TOP ignored, ADVP=PRT, function tags stripped)",
        **counts.as_dict(), "parse_seconds": seconds,
    }
    write_json(root / str(cfg.paths.parser_agreement), result)
    tracker.log_metrics({k: v for k, v in result.items() if isinstance(v, (int, float))})
    tracker.log_artifact(root / str(cfg.paths.parser_agreement))
    return result
