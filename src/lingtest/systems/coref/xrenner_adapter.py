"""Adapter for xrenner (Zeldes & Zhang 2016), a rule-based coreference resolver whose English model
ships inside its PyPI package (``xrenner/models/eng.xrm``).

xrenner reads a dependency parse in CoNLL-U (10 columns) and writes, among other formats, CoNLL
coreference columns (``index<TAB>word<TAB>(3 ... 3)``). We give it our spaCy parse
(:func:`to_conllu`) and turn its output back into clusters (:func:`parse_xrenner_conll`).

Installation and what runs offline (checked with xrenner 2.2.1.1 on Python 3.11)::

    pip install --no-deps xrenner && pip install xmltodict six

xrenner's declared requirements (``xgboost==0.90``, ``flair==0.6.1``, ``transformers==3.0.2``,
``scikit-learn==0.22.1``, ``numpy<=1.24.4``) cannot be installed beside a current stack, and its
English model's pickled XGBoost classifiers need ``xgboost``; so the adapter runs xrenner
**rule-based** (``rule_based=True``: no coreference classifiers) and **without sequence taggers**
(``no_seq=True``: no flair entity tagger), which is xrenner's documented ``-r`` / no-seq mode and
runs with only ``xmltodict`` and ``six``. Expect lower accuracy than the published system.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from lingtest.data.model import Cluster, Document
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.coref.base import CorefSystem, ensure_parsed, iterate, normalise_clusters

log = logging.getLogger(__name__)

INSTALL_HINT = ("install xrenner without its pinned (uninstallable) ML dependencies: "
                "`pip install --no-deps xrenner && pip install xmltodict six`; lingtest runs it rule-based "
                "(no xgboost classifiers, no flair sequence tagger)")


def _clean(v: str | None, default: str = "_") -> str:
    if not v:
        return default
    return re.sub(r"\s+", "_", v)


def to_conllu(doc: Document) -> str:
    """CoNLL-U (10 columns, 1-based ids, ``0`` for the root) of a parsed document, one block per
    sentence. Raises :class:`InputError` for an unparsed token."""
    lines: list[str] = []
    for si, sent in enumerate(doc.sentences):
        for ti, t in enumerate(sent.tokens):
            if t.head is None:
                raise InputError(f"document {doc.key!r} sentence {si} token {ti} is not parsed", field="head")
            head = 0 if t.head < 0 or t.head == ti else t.head + 1
            dep = "root" if head == 0 else _clean(t.dep, "dep")
            lines.append("\t".join([
                str(ti + 1), _clean(t.text), _clean(t.lemma or t.text), _clean(t.pos), _clean(t.tag),
                _clean(t.morph), str(head), dep, "_", "_",
            ]))
        lines.append("")
    return "\n".join(lines) + "\n"


_OPEN = re.compile(r"^\((\d+)$")
_CLOSE = re.compile(r"^(\d+)\)$")
_SINGLE = re.compile(r"^\((\d+)\)$")
_PART = re.compile(r"\(\d+\)|\(\d+|\d+\)")


def parse_xrenner_conll(output: str, n_tokens: int | None = None) -> list[list[tuple[int, int]]]:
    """Clusters (token spans, exclusive end) from xrenner's ``conll`` output for one document.

    Lines are ``index<TAB>word<TAB>coref`` between ``# begin document`` and ``# end document``;
    the coref column holds ``(id``, ``id)``, ``(id)`` parts, concatenated (``(4(1008)``) or
    joined by ``|``; ``_`` for none. Token indices
    are 0-based over the whole document. ``n_tokens`` checks that xrenner kept our tokenisation.
    """
    open_: dict[str, list[int]] = {}
    clusters: dict[str, list[tuple[int, int]]] = {}
    order: list[str] = []
    n = 0
    for lineno, line in enumerate(output.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) < 3:
            raise InputError(f"xrenner output line has {len(cols)} columns, expected 3", line=lineno)
        try:
            i = int(cols[0])
        except ValueError:
            raise InputError(f"token index {cols[0]!r} is not an integer", line=lineno, field="index") from None
        if i != n:
            raise InputError(f"token index {i} where {n} was expected", line=lineno, field="index")
        n += 1
        field = cols[-1].strip()
        if field in ("_", "-", ""):
            continue
        parts = _PART.findall(field)
        if "".join(parts) != field.replace("|", "").replace(" ", ""):
            raise InputError(f"cannot read coreference field {field!r}", line=lineno, field="coref")
        for part in parts:
            if m := _SINGLE.match(part):
                cid = m.group(1)
                clusters.setdefault(cid, []).append((i, i + 1))
            elif m := _OPEN.match(part):
                cid = m.group(1)
                open_.setdefault(cid, []).append(i)
            else:
                m = _CLOSE.match(part)
                if m is None:  # unreachable: _PART finds only these three forms
                    raise InputError(f"cannot read coreference field {field!r}", line=lineno, field="coref")
                cid = m.group(1)
                if not open_.get(cid):
                    raise InputError(f"closing bracket for cluster {cid} that was never opened", line=lineno,
                                     field="coref")
                start = open_[cid].pop()
                clusters.setdefault(cid, []).append((start, i + 1))
            if cid not in order:
                order.append(cid)
    unclosed = [c for c, v in open_.items() if v]
    if unclosed:
        raise InputError(f"xrenner output leaves cluster(s) {unclosed} open")
    if n_tokens is not None and n != n_tokens:
        raise InputError(f"xrenner output has {n} tokens, the input document {n_tokens}")
    return [sorted(clusters[c]) for c in order if c in clusters]


def load_xrenner(model: str = "eng", rule_based: bool = True, no_seq: bool = True,
                 force_single_type_chains: bool | None = False):
    """Instantiate ``xrenner.Xrenner``; :class:`MissingResourceError` says how to install it.

    ``force_single_type_chains=False`` switches off xrenner's last post-processing step, which only
    unifies the entity *type* of each chain (clusters are unchanged) and in xrenner 2.2.1.1 crashes
    (``max() arg is an empty sequence`` in ``xrenner_postprocess.py``) whenever an earlier step has
    emptied a chain: on 17 of the 32 OntoGUM test documents. ``None`` keeps the model's setting.
    """
    try:
        from xrenner import Xrenner
    except ImportError as exc:
        raise MissingResourceError(f"xrenner is not importable ({exc}); {INSTALL_HINT}") from exc
    try:
        engine = Xrenner(model=model, rule_based=rule_based, no_seq=no_seq)
        if force_single_type_chains is not None:
            engine.lex.filters["force_single_type_chains"] = bool(force_single_type_chains)
        return engine
    except ModuleNotFoundError as exc:
        raise MissingResourceError(
            f"xrenner model {model!r} needs {exc.name!r} (rule_based={rule_based}, no_seq={no_seq}); "
            f"{INSTALL_HINT}") from exc
    except SystemExit as exc:  # xrenner calls sys.exit() on a missing model or dependency
        raise MissingResourceError(f"xrenner could not load model {model!r}; {INSTALL_HINT}") from exc


_CONTAINERS = (dict, list, set)


def lexicon_state(lex: Any) -> dict[str, Any]:
    """A copy of every container and scalar attribute of xrenner's lexicon, as loaded.

    xrenner updates its lexicon while it analyses a document (word frequencies, punctuation pairs,
    compatibility caches, counters) and keeps the updates for the next document, so without a reset a
    document's clusters depend on which documents were analysed before it (measured: one OntoGUM test
    document changes between a run on the 32 clean documents and a run interleaved with their perturbed
    copies). Restoring this state before each document makes predictions independent of order and of
    what a prediction cache already holds."""
    import copy

    state: dict[str, Any] = {}
    for k, v in vars(lex).items():
        if isinstance(v, _CONTAINERS):
            state[k] = copy.deepcopy(v) if _nested_mutable(v) else copy.copy(v)
        elif isinstance(v, str | int | float | bool) or v is None:
            state[k] = v
    return state


def _nested_mutable(v: Any) -> bool:
    items = v.values() if isinstance(v, dict) else v
    for x in items:
        return isinstance(x, _CONTAINERS)  # containers are homogeneous in xrenner's lexicon
    return False


def restore_lexicon(lex: Any, state: dict[str, Any]) -> None:
    import copy

    for k, v in state.items():
        if isinstance(v, _CONTAINERS):
            setattr(lex, k, copy.deepcopy(v) if _nested_mutable(v) else copy.copy(v))
        else:
            setattr(lex, k, v)


class XrennerSystem(CorefSystem):
    """xrenner over our spaCy parse. ``on_error``: ``"raise"`` or ``"empty"`` (log the failure and
    predict no clusters for that document, so one bad parse does not stop a long run);
    ``force_single_type_chains``: see :func:`load_xrenner` (off in the config: works around a crash).
    Every option but ``progress`` (a progress bar, not part of the cache key) is required: the
    values are in ``conf/systems/default.yaml``."""

    name = "xrenner"
    version = "2"  # 2: the lexicon is reset before each document (predictions no longer depend on order)

    def __init__(self, *, model: str, rule_based: bool, no_seq: bool, keep_singletons: bool, parser: str,
                 parser_options: dict[str, Any] | None, on_error: str, force_single_type_chains: bool | None,
                 progress: bool = False) -> None:
        if on_error not in ("raise", "empty"):
            raise ValueError(f"on_error must be 'raise' or 'empty', not {on_error!r}")
        self.model = model
        self.rule_based = bool(rule_based)
        self.no_seq = bool(no_seq)
        self.keep_singletons = bool(keep_singletons)
        self.parser = parser
        self.parser_options = dict(parser_options or {})
        self.on_error = on_error
        self.force_single_type_chains = force_single_type_chains
        self.progress = bool(progress)
        self._xrenner = None
        self._pristine: dict[str, Any] = {}
        self._parsers: dict = {}
        self.failures: list[tuple[str, str]] = []

    def config(self) -> dict[str, Any]:
        return {"model": self.model, "rule_based": self.rule_based, "no_seq": self.no_seq,
                "keep_singletons": self.keep_singletons, "parser": self.parser,
                "parser_options": self.parser_options, "force_single_type_chains": self.force_single_type_chains}

    def _engine(self):
        if self._xrenner is None:
            self._xrenner = load_xrenner(self.model, self.rule_based, self.no_seq, self.force_single_type_chains)
            self._pristine = lexicon_state(self._xrenner.lex)
        return self._xrenner

    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        parsed = ensure_parsed(docs, self.parser, self.parser_options, _cache=self._parsers)
        engine = self._engine()
        out: list[list[Cluster]] = []
        for doc in iterate(parsed, self.progress, "xrenner coreference"):
            n = sum(len(s.tokens) for s in doc.sentences)
            if n == 0:
                out.append([])
                continue
            try:
                restore_lexicon(engine.lex, self._pristine)  # each document starts from the loaded model
                engine.set_doc_name(re.sub(r"\W+", "_", doc.key) or "doc")
                raw = engine.analyze(to_conllu(doc), "conll")
                spans = parse_xrenner_conll(raw, n_tokens=n)
            except Exception as exc:  # noqa: BLE001 - xrenner raises arbitrary errors on odd parses
                if self.on_error == "raise":
                    raise
                log.warning("xrenner failed on %s: %s: %s", doc.key, type(exc).__name__, exc)
                self.failures.append((doc.key, f"{type(exc).__name__}: {exc}"))
                out.append([])
                continue
            out.append(normalise_clusters(spans, keep_singletons=self.keep_singletons, n_tokens=n))
        return out
