"""Readers for canonical hub copies saved by the download stage (``datasets.save_to_disk``).

The conversion from Hugging Face records to the data model is a pure function over plain dicts,
tested on recorded records; only :func:`_load` touches the ``datasets`` library.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from lingtest.data import Cluster, Document, Entity, Mention, Sentence, Token, Tree
from lingtest.errors import InputError, MissingResourceError


def _load(path: str | Path) -> tuple[Any, dict[str, Any]]:
    try:
        import datasets  # type: ignore[import-not-found]
    except ImportError as exc:  # pragma: no cover - depends on the hub extra
        raise MissingResourceError("reading a saved hub dataset needs `pip install 'lingtest[hub]'`") from exc
    ds = datasets.load_from_disk(str(path))
    return ds, ds.features


def iob_spans(tags: Sequence[str], offset: int = 0) -> list[Entity]:
    """Entity spans from IOB1 or IOB2 tags (an ``I-`` after ``O`` or another type opens a span)."""
    out: list[Entity] = []
    start, label = None, None
    for i, tag in enumerate([*tags, "O"]):
        if tag == "O" or tag.startswith("B-") or (tag.startswith("I-") and tag[2:] != label):
            if start is not None:
                out.append(Entity(offset + start, offset + i, label))  # type: ignore[arg-type]
                start, label = None, None
            if tag != "O":
                start, label = i, tag[2:]
    return out


def from_hf_conll2012(records: Iterable[dict[str, Any]], pos_names: Sequence[str],
                      ner_names: Sequence[str], source: str = "<hf>") -> Iterator[Document]:
    """Convert ``conll2012_ontonotesv5`` records (one per document, sentences carrying
    ``part_id``) into one :class:`Document` per (document, part). Coreference spans are
    ``[cluster_id, start, end]`` with an inclusive end, sentence-relative."""
    for rec_no, rec in enumerate(records, start=1):
        doc_id = rec.get("document_id")
        if not doc_id:
            raise InputError("record without document_id", path=source, line=rec_no, field="document_id")
        parts: dict[int, list[dict[str, Any]]] = {}
        for sent in rec.get("sentences", []):
            parts.setdefault(int(sent.get("part_id", 0)), []).append(sent)
        for part, sents in sorted(parts.items()):
            doc = Document(id=doc_id, part=part)
            clusters: dict[Any, list[Mention]] = {}
            offset = 0
            for si, sent in enumerate(sents):
                words = sent.get("words") or []
                if not words:
                    raise InputError(f"empty sentence {si} in {doc_id}", path=source, line=rec_no, field="words")
                pos = [pos_names[p] if isinstance(p, int) else p for p in sent.get("pos_tags") or []]
                ner = [ner_names[n] if isinstance(n, int) else n for n in sent.get("named_entities") or []]
                tokens = [Token(text=w, tag=pos[i] if i < len(pos) else None,
                                ent=ner[i] if i < len(ner) else None) for i, w in enumerate(words)]
                tree = None
                if sent.get("parse_tree"):
                    try:
                        tree, leaves = Tree.from_bracketed(sent["parse_tree"])
                    except ValueError as exc:
                        raise InputError(str(exc), path=source, line=rec_no, field="parse_tree") from None
                    if len(leaves) != len(words):
                        tree = None  # the tree covers traces or differs: keep tokens authoritative
                meta = {"speaker": sent["speaker"]} if sent.get("speaker") else {}
                doc.sentences.append(Sentence(tokens=tokens, tree=tree, meta=meta))
                doc.entities.extend(iob_spans([t.ent or "O" for t in tokens], offset))
                for cid, start, end in sent.get("coref_spans") or []:
                    if not (0 <= start <= end < len(words)):
                        raise InputError(f"coref span [{start}, {end}] outside sentence {si}", path=source,
                                         line=rec_no, field="coref_spans")
                    clusters.setdefault(cid, []).append(Mention(offset + start, offset + end + 1))
                offset += len(words)
            doc.clusters = [Cluster(mentions=sorted(set(ms)), id=str(cid)) for cid, ms in
                            sorted(clusters.items(), key=lambda kv: min(kv[1]))]
            yield doc


def _names(feature: Any) -> list[str]:
    """Class names of a (possibly nested) ``Sequence(ClassLabel)`` feature."""
    while not hasattr(feature, "names"):
        feature = feature.feature if hasattr(feature, "feature") else feature[0]
    return list(feature.names)


def read_hf_conll2012(path: str | Path, **_: Any) -> Iterator[Document]:
    ds, features = _load(path)
    sent_features = features["sentences"]
    sent_features = sent_features[0] if isinstance(sent_features, list) else sent_features.feature
    yield from from_hf_conll2012(ds, _names(sent_features["pos_tags"]), _names(sent_features["named_entities"]),
                                 source=str(path))


def read_hf_conll2003(path: str | Path, **_: Any) -> Iterator[Document]:
    from lingtest.readers.conll2003 import from_hf_conll2003

    ds, features = _load(path)
    yield from from_hf_conll2003(ds, _names(features["ner_tags"]))
