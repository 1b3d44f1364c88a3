"""Stanza backend: UD tags, lemmas, features, dependencies, NER and Stanza's own constituency
parser, on pre-tokenised input (``tokenize_pretokenized=True``, so Stanza never re-tokenises or
re-splits sentences).

Model loading needs Stanza's resources in ``model_dir`` (default ``~/stanza_resources`` /
Stanza's own default); nothing is downloaded unless ``download=True``. The conversion from
Stanza's objects to ours, :func:`stanza_doc_to_sentences`, is pure and tested without models.
"""

from __future__ import annotations

from typing import Any

from lingtest.data.model import Sentence, Token, Tree
from lingtest.errors import MissingResourceError
from lingtest.parsing.base import BaseParser

__all__ = ["StanzaParser", "stanza_doc_to_sentences", "stanza_tree_to_tree", "bioes_to_iob2"]


def bioes_to_iob2(tag: str | None) -> str | None:
    """Stanza's BIOES NER tags to IOB2 (``S-PER`` → ``B-PER``, ``E-PER`` → ``I-PER``)."""
    if tag is None or tag in ("", "_"):
        return None
    if tag == "O":
        return "O"
    prefix, _, label = tag.partition("-")
    if not label:
        return "O"
    return {"S": "B", "B": "B", "I": "I", "E": "I"}.get(prefix, "I") + "-" + label


def stanza_tree_to_tree(stree: Any) -> Tree:
    """A Stanza constituency tree (``stanza.models.constituency.parse_tree.Tree``) as our Tree;
    leaves are numbered left to right."""
    counter = 0

    def conv(node: Any) -> Tree:
        nonlocal counter
        if node.is_preterminal():
            t = Tree(node.label, token=counter)
            counter += 1
            return t
        if node.is_leaf():  # a bare word without a POS node
            t = Tree("X", token=counter)
            counter += 1
            return t
        return Tree(node.label, [conv(c) for c in node.children])

    return conv(stree)


def stanza_doc_to_sentences(doc: Any) -> list[Sentence]:
    """Convert a ``stanza.Document`` to Sentences: one Token per syntactic word with text, upos,
    xpos, lemma, head (0-based, -1 root), deprel, feats and IOB2 NER (from the word's token; later
    words of a multiword token continue its entity), plus the constituency tree when present."""
    out: list[Sentence] = []
    for sent in doc.sentences:
        tokens: list[Token] = []
        for tok in sent.tokens:
            ner = bioes_to_iob2(getattr(tok, "ner", None))
            for j, w in enumerate(tok.words):
                ent = ner
                if j > 0 and ner and ner.startswith("B-"):
                    ent = "I-" + ner[2:]
                ws = " " if j == len(tok.words) - 1 else ""  # words of one multiword token touch
                head = None if w.head is None else int(w.head) - 1
                tokens.append(Token(text=w.text, ws=ws, pos=w.upos, tag=w.xpos, lemma=w.lemma, head=head,
                                    dep=w.deprel, ent=ent, morph=w.feats))
        tree = None
        if getattr(sent, "constituency", None) is not None:
            tree = stanza_tree_to_tree(sent.constituency)
        out.append(Sentence(tokens=tokens, tree=tree))
    return out


class StanzaParser(BaseParser):
    """Parse pre-tokenised sentences with a Stanza pipeline.

    ``use_gpu``: ``"auto"`` (GPU when torch sees one), ``True`` or ``False``. ``model_dir``: Stanza
    resources folder. ``download``: allow Stanza to fetch missing models (needs the network).
    ``pipeline``: an already built ``stanza.Pipeline`` (tests, reuse).
    """

    name = "stanza"

    def __init__(self, lang: str = "en", processors: str = "tokenize,pos,lemma,depparse,constituency,ner",
                 use_gpu: bool | str = "auto", model_dir: str | None = None, package: str = "default",
                 download: bool = False, batch_size: int = 64, pipeline: Any = None) -> None:
        self.lang = lang
        self.processors = processors
        self.package = package
        self.batch_size = int(batch_size)
        if pipeline is None:
            pipeline = self._load(lang, processors, use_gpu, model_dir, package, download)
        self.nlp = pipeline

    def _load(self, lang: str, processors: str, use_gpu: bool | str, model_dir: str | None, package: str,
              download: bool) -> Any:
        try:
            import stanza
        except ImportError as exc:
            raise MissingResourceError("stanza is not installed; `pip install stanza`") from exc
        if use_gpu == "auto":
            try:
                import torch

                use_gpu = torch.cuda.is_available()
            except ImportError:
                use_gpu = False
        kwargs: dict[str, Any] = {
            "lang": lang, "processors": processors, "package": package, "use_gpu": bool(use_gpu),
            "tokenize_pretokenized": True, "tokenize_no_ssplit": True, "logging_level": "WARN",
            "pos_batch_size": self.batch_size * 50, "depparse_batch_size": self.batch_size * 50,
            "constituency_batch_size": self.batch_size, "ner_batch_size": self.batch_size,
        }
        if model_dir:
            kwargs["dir"] = model_dir
        if not download:
            kwargs["download_method"] = None
        try:
            return stanza.Pipeline(**kwargs)
        except Exception as exc:  # stanza raises FileNotFoundError/ResourcesFileNotFoundError etc.
            raise MissingResourceError(
                f"Stanza models for {lang!r} ({processors}) are not available in "
                f"{model_dir or 'the default stanza_resources folder'}: run "
                f"`python -c \"import stanza; stanza.download('{lang}')\"` with a network, or pass "
                f"download=True ({type(exc).__name__}: {exc})") from exc

    def fingerprint(self) -> dict[str, Any]:
        import stanza

        return {"name": self.name, "lang": self.lang, "processors": self.processors, "package": self.package,
                "stanza": stanza.__version__}

    def parse(self, sentences: list[list[str]]) -> list[Sentence]:
        out: list[Sentence | None] = [None] * len(sentences)
        todo = [(i, list(s)) for i, s in enumerate(sentences) if s]
        for i, s in enumerate(sentences):
            if not s:
                out[i] = Sentence(tokens=[])
        if todo:
            doc = self.nlp([s for _, s in todo])
            parsed = stanza_doc_to_sentences(doc)
            if len(parsed) != len(todo):
                raise RuntimeError(f"stanza returned {len(parsed)} sentences for {len(todo)}")
            for (i, words), p in zip(todo, parsed, strict=True):
                if p.words != words:
                    raise RuntimeError(f"stanza changed the tokens of sentence {i}: {words} -> {p.words}")
                out[i] = p
        return out  # type: ignore[return-value]
