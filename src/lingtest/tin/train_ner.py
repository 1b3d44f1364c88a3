"""Fine-tune a token-classification NER from an encoder (the packaged MiniLM by default) on IOB2-tagged
sentences: the CoNLL-scheme system under test of TIN (``minilm_ner``, the offline analogue of the
paper's Flair-CoNLL and BERT-base-NER).

:func:`train_ner` is pure apart from writing its checkpoint: its result depends only on the config,
the sentences and the software versions. It runs inside
:func:`~lingtest.resources.finetuning.deterministic_training`: torch's deterministic algorithms, the
configured CPU threads, ``random``, ``numpy`` and ``torch`` seeded from ``config.seed``; the training
order of every epoch is a permutation drawn from a generator of its own (``seed``, epoch), so the data
order never depends on anything else and two runs on one machine give the same weights. Labels are aligned
to the **first subword** of every word (the other subwords and the special tokens get -100 and no
loss); words beyond ``max_length`` subwords are cut off in training (counted in the metrics), never
in prediction, which windows long sentences
(:func:`~lingtest.systems.ner.transformer.predict_word_tags`). The label set is ``O`` plus ``B-``
and ``I-`` of every type in the training tags, in sorted order.

The checkpoint folder holds the model (``config.json`` with the ``id2label`` label map,
``model.safetensors``), the tokenizer and ``training.json`` (the config, the labels and the metrics);
:class:`~lingtest.systems.ner.transformer.MiniLMNERSystem` loads it. The returned metrics hold the
entity-level dev scores of exactly what that system predicts (:func:`lingtest.metrics.ner.score_ner`
on the IOB2 tags of its entities), the mean training loss of every epoch and the counts.

The config is a :class:`TrainNERConfig` built from the conf section (every value required: the
defaults live in ``conf/``, not here).

:func:`train_ner_stage` is the body of the ``train_ner`` stage; it lives here, not in
:mod:`lingtest.tin.stages`, and reads only ``tin.train_data`` and ``tin.train_ner``
(:class:`TinTraining`), so that editing the TIN stages, transformations, filters or repair never
retrains the model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ConfigDict

from lingtest.config import Block, Section
from lingtest.data.model import Document
from lingtest.errors import InputError
from lingtest.execution.context import StageContext
from lingtest.resources.finetuning import (
    GROUP_BATCHES,
    IGNORE,
    FineTuneConfig,
    config_from_mapping,
    deterministic_training,
    epoch_batches,
    fine_tune,
    save_fine_tuned,
)

__all__ = ["TaggedSentence", "TinTraining", "TrainData", "TrainNERConfig", "align_labels", "epoch_batches",
           "label_list", "tagged_sentences", "train_ner", "train_ner_stage", "GROUP_BATCHES", "IGNORE"]

log = logging.getLogger(__name__)


class TrainNERConfig(FineTuneConfig):
    """``base_model``: encoder to fine-tune (``offline-default``: the packaged MiniLM; a folder; a hub
    id); ``epochs``, ``max_length`` (subwords per training sentence, special tokens included),
    ``batch_size``, ``learning_rate`` (AdamW peak, linear warm-up then linear decay to 0),
    ``warmup_ratio`` (share of the steps warming up), ``weight_decay`` (AdamW, not on biases and
    LayerNorm weights), ``max_grad_norm`` (gradient clipping), ``group_by_length`` (batches of
    sentences of similar length, see :func:`epoch_batches`), ``eval_batch_size`` (sentences per
    prediction batch on the dev set), ``seed``, ``device`` (``auto``/``cpu``/``cuda``), ``threads``
    (torch CPU threads while training, :func:`~lingtest.resources.threads.resolve_threads`: ``auto`` =
    the CPUs idle at the start, an integer, or ``None`` for torch's default; restored afterwards)."""

    stage = "train_ner"

    @classmethod
    def from_mapping(cls, data: Any, where: str = "train_ner") -> TrainNERConfig:
        """From a config section (every field, nothing else); names ``where`` in errors."""
        result: TrainNERConfig = config_from_mapping(cls, data, where)
        return result


class TrainData(Block):
    """``tin.train_data``: the prepared dataset with IOB2 tags and its splits; ``max_*_sentences``: the
    first N non-empty sentences of a split (null: all)."""

    corpus: str
    train_split: str
    dev_split: str
    max_train_sentences: int | None
    max_dev_sentences: int | None


class TinTraining(Section):
    """The keys of ``cfg.tin`` the ``train_ner`` stage reads (typed, no defaults here). The other keys of the
    section are ignored here, not rejected: :class:`lingtest.tin.config.TinConfig` (which extends this
    with them) validates the whole section in every other TIN stage; validating it here would make this
    stage depend on the code of the transformations, filters and repair."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    section = "tin"

    train_data: TrainData
    train_ner: TrainNERConfig  # the trainer's own typed options (it checks their ranges)


@dataclass(frozen=True)
class TaggedSentence:
    """Words and their IOB2 tags (equally many)."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.tags):
            raise InputError(f"{len(self.tokens)} tokens but {len(self.tags)} tags", field="tags")
        for i, t in enumerate(self.tags):
            if t != "O" and not (len(t) > 2 and t[:2] in ("B-", "I-")):
                raise InputError(f"token {i}: tag {t!r} is not IOB2 (O, B-TYPE, I-TYPE)", field="tags")


def tagged_sentences(documents: Iterable[Document]) -> list[TaggedSentence]:
    """The non-empty sentences of prepared documents (CoNLL-2003 reader: ``Token.ent`` holds IOB2),
    in order. A token without a tag raises :class:`InputError` naming the document and sentence."""
    out = []
    for doc in documents:
        for s, sent in enumerate(doc.sentences):
            if not sent.tokens:
                continue
            tags = [t.ent for t in sent.tokens]
            if any(t is None for t in tags):
                raise InputError(f"document {doc.id}, sentence {s}: a token has no NER tag", field="ent")
            out.append(TaggedSentence(tuple(t.text for t in sent.tokens), tuple(tags)))  # type: ignore[arg-type]
    return out


def label_list(sentences: Iterable[TaggedSentence]) -> list[str]:
    """``O``, then ``B-T`` and ``I-T`` of every type ``T`` in the tags, types sorted."""
    types = sorted({t[2:] for s in sentences for t in s.tags if t != "O"})
    return ["O"] + [f"{p}-{t}" for t in types for p in ("B", "I")]


def align_labels(word_ids: Sequence[int | None], tags: Sequence[str],
                 label2id: Mapping[str, int]) -> list[int]:
    """Subword labels: a word's tag on its first subword, :data:`IGNORE` on the rest and on special
    tokens."""
    out = []
    prev = None
    for w in word_ids:
        out.append(IGNORE if w is None or w == prev else label2id[tags[w]])
        prev = w
    return out


def _encode(tokenizer: Any, sentences: Sequence[TaggedSentence], label2id: Mapping[str, int],
            max_length: int) -> tuple[list[dict[str, list[int]]], int]:
    """Tokenised training examples (input ids, attention mask, labels) and the number of words cut
    off by ``max_length``."""
    examples = []
    truncated = 0
    for s in sentences:
        enc = tokenizer(list(s.tokens), is_split_into_words=True, truncation=True, max_length=max_length)
        word_ids = enc.word_ids()
        seen = {w for w in word_ids if w is not None}
        truncated += len(s.tokens) - (max(seen) + 1 if seen else 0)
        ex = {k: list(v) for k, v in enc.items()}
        ex["labels"] = align_labels(word_ids, s.tags, label2id)
        examples.append(ex)
    return examples, truncated


def predict_dev(net: Any, tokenizer: Any, sentences: Sequence[TaggedSentence], *, max_length: int,
                batch_size: int, device: str) -> list[list[str]]:
    """IOB2 tags of what :class:`~lingtest.systems.ner.transformer.MiniLMNERSystem` predicts for the
    sentences (first-subword aggregation, windowed, entities re-encoded as IOB2)."""
    from lingtest.systems.ner.spans import entities_to_iob2, tags_to_entities
    from lingtest.systems.ner.transformer import predict_word_tags

    out: list[list[str]] = []
    for i in range(0, len(sentences), batch_size):
        chunk = [list(s.tokens) for s in sentences[i:i + batch_size]]
        tags = predict_word_tags(net, tokenizer, chunk, max_length=max_length, aggregation="first",
                                 device=device)
        out.extend(entities_to_iob2(tags_to_entities(t), len(t)) for t in tags)
    return out


def train_ner(config: TrainNERConfig, train_sentences: Sequence[TaggedSentence],
              dev_sentences: Sequence[TaggedSentence], out_dir: str | Path) -> dict[str, Any]:
    """Fine-tune ``config.base_model`` on ``train_sentences``, score it on ``dev_sentences``, save the
    checkpoint to ``out_dir`` and return the metrics (see the module notes)."""
    with deterministic_training(config.seed, config.threads):
        return _train(config, train_sentences, dev_sentences, Path(out_dir))


def _train(config: TrainNERConfig, train_sentences: Sequence[TaggedSentence],
           dev_sentences: Sequence[TaggedSentence], out: Path) -> dict[str, Any]:
    from transformers import AutoModelForTokenClassification

    from lingtest.metrics.ner import score_ner
    from lingtest.resources.device import pick_device

    if not train_sentences:
        raise InputError("no training sentences", field="train_sentences")
    started = time.perf_counter()
    device = pick_device(config.device)
    labels = label_list(train_sentences)
    unknown = sorted({t for s in dev_sentences for t in s.tags} - set(labels))
    if unknown:
        raise InputError(f"dev tags {unknown} never occur in the training data", field="dev_sentences")

    model = fine_tune(config, AutoModelForTokenClassification, labels,
                      lambda tok, l2i: _encode(tok, train_sentences, l2i, config.max_length), device,
                      name="train_ner", started=started)
    pred = predict_dev(model.net, model.tokenizer, dev_sentences, max_length=config.max_length,
                       batch_size=config.eval_batch_size, device=device)
    dev = score_ner([list(s.tags) for s in dev_sentences], pred)
    metrics = {"dev": dev.to_dict(), "dev_f1": dev.overall.f1, "train_loss": model.losses, "steps": model.steps,
               "train_sentences": len(train_sentences), "dev_sentences": len(dev_sentences),
               "truncated_train_words": model.truncated, "labels": labels,
               "seconds": round(time.perf_counter() - started, 3)}
    save_fine_tuned(model, out, config, device, metrics)
    return metrics


# ---- the stage body -----------------------------------------------------------------------------------
def train_ner_stage(ctx: StageContext, config: TinTraining) -> dict[str, Any]:
    """Fine-tune ``tin.train_ner.base_model`` on ``tin.train_data`` into ``paths.tin.ner_model`` (the
    ``minilm_ner`` system under test) and write its dev scores to ``paths.tin.ner_model_metrics``."""
    import shutil

    from lingtest.config import to_plain
    from lingtest.data import read_jsonl, write_json
    from lingtest.metrics.wall_clock import split_wall_clock
    from lingtest.tracking import numeric_metrics

    data = config.train_data
    splits = {}
    for role, split, limit in (("train", data.train_split, data.max_train_sentences),
                               ("dev", data.dev_split, data.max_dev_sentences)):
        path = ctx.require(ctx.path("prepared") / data.corpus / f"{split}.jsonl", f"prepare@{data.corpus}")
        sents = tagged_sentences(list(read_jsonl(path, Document.from_dict)))
        splits[role] = sents if limit is None else sents[:limit]
    out = ctx.path("tin.ner_model")
    if out.exists():
        shutil.rmtree(out)  # a checkpoint of another configuration must not survive in part
    metrics = train_ner(config.train_ner, splits["train"], splits["dev"], out)
    # ``config``: the section as composed, as the record always held it (a float option given as an integer
    # stays an integer here; the trainer got it as a float, see training.json)
    record = {"corpus": data.corpus, "config": to_plain(ctx.cfg.tin.train_ner), "data": data.model_dump(),
              "metrics": split_wall_clock(metrics)[0]}  # the time goes to the run only
    # the file holds the record; the run gets the training metrics only (not the options, not the labels)
    metrics_path = ctx.path("tin.ner_model_metrics")
    write_json(metrics_path, record)
    ctx.tracker.log_metrics(numeric_metrics({k: v for k, v in metrics.items() if k != "labels"}, "train_ner."))
    ctx.tracker.log_artifact(str(metrics_path))
    return metrics
