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
from lingtest.readers.textio import control_character, guarded, is_int, is_str_list, shorten
from lingtest.readers.treebank import check_bracketed


def _load(path: str | Path) -> tuple[Any, dict[str, Any]]:
    path = Path(path)
    if not path.is_dir():
        raise InputError("expected a dataset folder saved by `datasets.save_to_disk`",
                         path=path) if path.exists() else InputError("file not found", path=path)
    _check_arrow_files(path)  # before importing datasets: a broken folder fails fast and light
    try:
        import datasets  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the hub extra
        raise MissingResourceError("reading a saved hub dataset needs `pip install 'lingtest[hub]'`") from exc
    try:
        ds = datasets.load_from_disk(str(path))
        features = ds.features
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - datasets/pyarrow raise many kinds on a broken folder
        raise InputError(f"cannot load the saved dataset ({type(exc).__name__}: {exc})"[:500],
                         path=path) from None
    return ds, features


def _check_arrow_files(path: Path) -> None:
    """Read every ``*.arrow`` file of a saved dataset as a stream (not memory-mapped) and validate
    it fully (buffer bounds, offsets, UTF-8) before ``datasets`` maps it: a corrupt file must be
    an :class:`InputError`, never a crash of the process (a bad offset in a memory-mapped file
    is a bus error)."""
    files = sorted(path.glob("*.arrow"))
    if not files:
        raise InputError("the dataset folder holds no *.arrow file", path=path)
    try:
        import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the hub extra
        raise MissingResourceError("reading a saved hub dataset needs `pip install 'lingtest[hub]'`") from exc

    for f in files:
        try:
            with pa.OSFile(str(f)) as src:
                for batch in pa.ipc.open_stream(src):
                    batch.validate(full=True)
        except (RecursionError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - pyarrow raises ArrowInvalid, OSError, ...
            raise InputError(f"corrupt Arrow file ({type(exc).__name__}: {exc})"[:500], path=f) from None


def _rows(ds: Any, path: str | Path) -> Iterator[Any]:
    """The records of a loaded dataset; a record that cannot be decoded is an InputError."""
    it = iter(ds)
    n = 0
    while True:
        try:
            row = next(it)
        except StopIteration:
            return
        except (RecursionError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - pyarrow/datasets decoding errors
            raise InputError(f"cannot decode the record ({type(exc).__name__}: {exc})"[:500], path=path,
                             line=n + 1) from None
        n += 1
        yield row


def check_strings(values: Iterable[Any], source: str, line: int, field: str) -> None:
    """Raise :class:`InputError` when a string among ``values`` holds a control character (no text
    does: a corrupt file, or zeroed bytes)."""
    for v in values:
        if isinstance(v, str) and (ch := control_character(v)) is not None:
            raise InputError(f"control character U+{ord(ch):04X} in {shorten(v)}", path=source, line=line,
                             field=field)


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


def _tags(values: Any, names: Sequence[str], n: int, field: str, source: str, line: int) -> list[str | None]:
    """Tag ids (or tag strings) of one sentence as strings; ``None`` beyond a short list."""
    if values is None:
        values = []
    if not isinstance(values, list) or len(values) > n or \
            not all((is_int(v) and 0 <= v < len(names)) or isinstance(v, str) for v in values):
        raise InputError(f"must be at most {n} tag ids known to the dataset (or tag strings)", path=source,
                         line=line, field=field)
    out: list[str | None] = [names[v] if is_int(v) else v for v in values]
    return out + [None] * (n - len(out))


def from_hf_conll2012(records: Iterable[dict[str, Any]], pos_names: Sequence[str],
                      ner_names: Sequence[str], *, max_depth: int, source: str = "<hf>") -> Iterator[Document]:
    """Convert ``conll2012_ontonotesv5`` records (one per document, sentences carrying
    ``part_id``) into one :class:`Document` per (document, part). Coreference spans are
    ``[cluster_id, start, end]`` with an inclusive end, sentence-relative. Every field is
    type-checked; a (document, part) given twice is an error."""
    seen: set[tuple[str, int]] = set()
    for rec_no, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            raise InputError("expected a record (mapping)", path=source, line=rec_no)
        doc_id = rec.get("document_id")
        if not isinstance(doc_id, str) or not doc_id:
            raise InputError("record without document_id", path=source, line=rec_no, field="document_id")
        check_strings([doc_id], source, rec_no, "document_id")
        sentences = rec.get("sentences")
        if sentences is None:
            sentences = []
        if not isinstance(sentences, list) or not all(isinstance(s, dict) for s in sentences):
            raise InputError("must be a list of sentence records", path=source, line=rec_no,
                             field="sentences")
        parts: dict[int, list[dict[str, Any]]] = {}
        for sent in sentences:
            part_id = sent.get("part_id", 0)
            if not is_int(part_id):
                raise InputError(f"part_id {shorten(part_id)} is not an integer", path=source, line=rec_no,
                                 field="part_id")
            parts.setdefault(part_id, []).append(sent)
        for part, sents in sorted(parts.items()):
            if (doc_id, part) in seen:
                raise InputError(f"document {doc_id!r} part {part} occurs twice", path=source, line=rec_no,
                                 field="document_id")
            seen.add((doc_id, part))
            doc = Document(id=doc_id, part=part)
            clusters: dict[Any, list[Mention]] = {}
            offset = 0
            for si, sent in enumerate(sents):
                words = sent.get("words")
                if not is_str_list(words) or not words:
                    raise InputError(f"sentence {si} in {doc_id} has no words (a list of strings)",
                                     path=source, line=rec_no, field="words")
                check_strings(words, source, rec_no, "words")
                if not all(words):
                    raise InputError(f"sentence {si} in {doc_id} has an empty word", path=source, line=rec_no,
                                     field="words")
                for fld in ("parse_tree", "speaker"):
                    check_strings([sent.get(fld)], source, rec_no, fld)
                pos = _tags(sent.get("pos_tags"), pos_names, len(words), "pos_tags", source, rec_no)
                ner = _tags(sent.get("named_entities"), ner_names, len(words), "named_entities", source,
                            rec_no)
                tokens = [Token(text=w, tag=pos[i], ent=ner[i]) for i, w in enumerate(words)]
                tree = None
                parse = sent.get("parse_tree")
                if parse:
                    if not isinstance(parse, str):
                        raise InputError("parse_tree is not a string", path=source, line=rec_no,
                                         field="parse_tree")
                    problem = check_bracketed(parse, max_depth=max_depth)
                    if problem is not None:
                        raise InputError(problem, path=source, line=rec_no, field="parse_tree")
                    try:
                        tree, leaves = Tree.from_bracketed(parse)
                    except (ValueError, IndexError) as exc:
                        raise InputError(str(exc), path=source, line=rec_no, field="parse_tree") from None
                    if len(leaves) != len(words):
                        tree = None  # the tree covers traces or differs: keep tokens authoritative
                speaker = sent.get("speaker")
                if speaker is not None and not isinstance(speaker, str):
                    raise InputError("speaker is not a string", path=source, line=rec_no, field="speaker")
                meta = {"speaker": speaker} if speaker else {}
                doc.sentences.append(Sentence(tokens=tokens, tree=tree, meta=meta))
                doc.entities.extend(iob_spans([t.ent or "O" for t in tokens], offset))
                spans = sent.get("coref_spans")
                if spans is None:
                    spans = []
                if not isinstance(spans, list):
                    raise InputError("must be a list of [cluster, start, end]", path=source, line=rec_no,
                                     field="coref_spans")
                for span in spans:
                    if not (isinstance(span, list | tuple) and len(span) == 3 and all(map(is_int, span))):
                        raise InputError(f"coref span {shorten(span)} is not [cluster, start, end] integers",
                                         path=source, line=rec_no, field="coref_spans")
                    cid, start, end = span
                    if not (0 <= start <= end < len(words)):
                        raise InputError(f"coref span [{start}, {end}] outside sentence {si}", path=source,
                                         line=rec_no, field="coref_spans")
                    clusters.setdefault(cid, []).append(Mention(offset + start, offset + end + 1))
                offset += len(words)
            doc.clusters = [Cluster(mentions=sorted(set(ms)), id=str(cid)) for cid, ms in
                            sorted(clusters.items(), key=lambda kv: min(kv[1]))]
            yield doc


def _names(feature: Any, path: str | Path, field: str) -> list[str]:
    """Class names of a (possibly nested) ``Sequence(ClassLabel)`` feature."""
    try:
        for _ in range(8):
            if hasattr(feature, "names"):
                return [str(n) for n in feature.names]
            feature = feature.feature if hasattr(feature, "feature") else feature[0]
    except (KeyError, IndexError, TypeError, AttributeError):
        pass
    raise InputError("the dataset's features have no class names here", path=path, field=field)


def _feature(features: Any, key: str, path: str | Path) -> Any:
    try:
        return features[key]
    except (KeyError, TypeError, IndexError):
        raise InputError("the saved dataset has no such feature (not this dataset?)", path=path,
                         field=key) from None


@guarded("records")
def read_hf_conll2012(path: str | Path, *, max_depth: int) -> Iterator[Document]:
    """``conll2012_ontonotesv5`` saved by ``datasets.save_to_disk`` (see :func:`from_hf_conll2012`)."""
    ds, features = _load(path)
    sent_features = _feature(features, "sentences", path)
    sent_features = sent_features[0] if isinstance(sent_features, list) else getattr(sent_features, "feature",
                                                                                     sent_features)
    pos = _names(_feature(sent_features, "pos_tags", path), path, "pos_tags")
    ner = _names(_feature(sent_features, "named_entities", path), path, "named_entities")
    yield from from_hf_conll2012(_rows(ds, path), pos, ner, source=str(path), max_depth=max_depth)


@guarded("records")
def read_hf_conll2003(path: str | Path) -> Iterator[Document]:
    """``conll2003`` saved by ``datasets.save_to_disk`` (see
    :func:`lingtest.readers.conll2003.from_hf_conll2003`)."""
    from lingtest.readers.conll2003 import from_hf_conll2003

    ds, features = _load(path)
    names = _names(_feature(features, "ner_tags", path), path, "ner_tags")
    yield from from_hf_conll2003(_rows(ds, path), names, source=str(path))
