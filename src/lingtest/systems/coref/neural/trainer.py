"""Train the mention-ranking model (:mod:`.model`) on documents with gold clusters, save and load its
checkpoint.

:func:`train_coref` is pure apart from writing the checkpoint: the result depends only on the config,
the documents and the software versions. It runs inside
:func:`~lingtest.resources.finetuning.deterministic_training`: torch's deterministic algorithms (without
them a torch CPU kernel makes two runs on one machine differ), the configured CPU threads, ``random``,
``numpy`` and ``torch`` seeded from ``config.seed``; the document order of every epoch is a permutation
from a generator of its own (``seed``, epoch). One document is one step (Lee et al. 2017). With a frozen
encoder (the default) every document's word vectors are computed once, so an epoch costs only the
scoring layers; with ``fine_tune`` the encoder is trained too (``encoder_learning_rate``). After every
epoch the model is scored on the dev documents (CoNLL F1 through :mod:`lingtest.metrics.coref`) and the
best epoch's weights are kept (``select_best``; otherwise the last).

Documents must be parsed (candidates come from the parse); every gold span is checked against the
tokens first (:func:`~.features.check_gold_spans`).

The checkpoint folder holds ``config.json`` (model sizes, encoder, segment size), ``heads.safetensors``
(the scoring layers), ``encoder/`` (only when fine-tuned: the encoder and tokenizer) and
``training.json`` (config, metrics, counts). :func:`checkpoint_digest` hashes the first three: it is
part of the system's prediction-cache key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lingtest.data.model import Document
from lingtest.errors import ConfigError, InputError, MissingResourceError
from lingtest.metrics.wall_clock import split_wall_clock

log = logging.getLogger(__name__)

CONFIG_FILE = "config.json"
HEADS_FILE = "heads.safetensors"
ENCODER_DIR = "encoder"
TRAINING_FILE = "training.json"


@dataclass(frozen=True)
class TrainCorefConfig:
    """``encoder``: ``offline-default`` (the packaged MiniLM), a folder or a hub id; ``fine_tune``;
    ``max_segment`` (subwords per encoder segment); model sizes (``hidden``, ``width_dim``,
    ``max_width``, ``distance_dim``, ``ffnn_hidden``, ``dropout``, ``max_antecedents``; see
    :class:`~.model.ModelConfig`); ``epochs``, ``learning_rate`` (Adam, scoring layers),
    ``encoder_learning_rate`` (only with ``fine_tune``), ``max_grad_norm``, ``select_best`` (keep the
    best dev epoch), ``seed``, ``device``, ``threads`` (torch CPU threads; ``auto`` = idle CPUs)."""

    encoder: str
    fine_tune: bool
    max_segment: int
    hidden: int
    width_dim: int
    max_width: int
    distance_dim: int
    ffnn_hidden: int
    dropout: float
    max_antecedents: int
    epochs: int
    learning_rate: float
    encoder_learning_rate: float
    max_grad_norm: float
    select_best: bool
    seed: int
    device: str
    threads: int | str | None

    def __post_init__(self) -> None:
        checks = [("max_segment", self.max_segment >= 8), ("hidden", self.hidden >= 1),
                  ("width_dim", self.width_dim >= 1), ("max_width", self.max_width >= 1),
                  ("distance_dim", self.distance_dim >= 1), ("ffnn_hidden", self.ffnn_hidden >= 1),
                  ("dropout", 0 <= self.dropout < 1), ("max_antecedents", self.max_antecedents >= 1),
                  ("epochs", self.epochs >= 1), ("learning_rate", self.learning_rate > 0),
                  ("encoder_learning_rate", self.encoder_learning_rate > 0),
                  ("max_grad_norm", self.max_grad_norm > 0)]
        bad = [name for name, ok in checks if not ok]
        if bad:
            raise ConfigError("coref training: out-of-range value(s) "
                              + ", ".join(f"{n}={getattr(self, n)!r}" for n in bad))

    @classmethod
    def from_mapping(cls, data: Any, where: str = "coref_training.train") -> TrainCorefConfig:
        """From a config section (every field, nothing else); names ``where`` in errors."""
        from lingtest.resources.finetuning import config_from_mapping

        result: TrainCorefConfig = config_from_mapping(cls, data, where)
        return result

    def model_config(self, input_dim: int) -> Any:
        from lingtest.systems.coref.neural.model import ModelConfig

        return ModelConfig(input_dim=input_dim, hidden=self.hidden, width_dim=self.width_dim,
                           max_width=self.max_width, distance_dim=self.distance_dim, ffnn_hidden=self.ffnn_hidden,
                           dropout=self.dropout, max_antecedents=self.max_antecedents)


@dataclass
class Prepared:
    """One document ready for the model: candidates, gold cluster ids, segments (and cached word
    vectors with a frozen encoder)."""

    doc: Document
    spans: tuple[tuple[int, int], ...]
    sentences: tuple[int, ...]
    cluster_ids: list[int]
    segments: Any
    vectors: Any = None


def prepare(docs: Sequence[Document], tokenizer: Any, max_segment: int, where: str) -> list[Prepared]:
    """Candidates, gold ids and segments of parsed documents (gold spans checked)."""
    from lingtest.systems.coref.neural.features import (
        candidate_mentions,
        check_gold_spans,
        gold_cluster_ids,
        segment_document,
    )

    out = []
    for d in docs:
        check_gold_spans(d, where)
        c = candidate_mentions(d)
        out.append(Prepared(d, c.spans, c.sentences, gold_cluster_ids(d, c.spans),
                            segment_document(d, tokenizer, max_segment)))
    return out


def candidate_recall(prepared: Sequence[Prepared]) -> dict[str, float]:
    """Share of gold mentions among the candidates (a low value on a perturbed set is the sign of
    spans that do not match the tokens)."""
    gold = sum(len(c.mentions) for p in prepared for c in p.doc.clusters)
    found = sum(1 for p in prepared for i in p.cluster_ids if i >= 0)
    return {"gold_mentions": float(gold), "found": float(found), "recall": found / gold if gold else 0.0}


def unknown_subword_share(prepared: Sequence[Prepared], tokenizer: Any) -> float:
    """Share of subwords that are the tokenizer's unknown token (a tokenizer that maps most words to
    it leaves the model nothing to learn from; visually perturbed words raise it)."""
    unk = tokenizer.unk_token_id
    ids = [i for p in prepared for seg in p.segments.input_ids for i in seg]
    return sum(1 for i in ids if i == unk) / len(ids) if ids and unk is not None else 0.0


def score_tensors(model: Any, p: Prepared, vectors: Any, device: str) -> tuple[Any, Any]:
    import torch

    starts = torch.tensor([s for s, _ in p.spans], dtype=torch.long, device=device)
    ends = torch.tensor([e for _, e in p.spans], dtype=torch.long, device=device)
    sents = torch.tensor(list(p.sentences), dtype=torch.long, device=device)
    return model(vectors, starts, ends, sents)


def predict_prepared(model: Any, encoder: Any, prepared: Sequence[Prepared], device: str,
                     pad_id: int) -> list[list[list[tuple[int, int]]]]:
    """Clusters (span lists) of every prepared document, in eval mode without gradients."""
    import torch

    from lingtest.systems.coref.neural.features import word_vectors
    from lingtest.systems.coref.neural.model import decode_clusters

    model.eval()
    encoder.eval()
    out: list[list[list[tuple[int, int]]]] = []
    with torch.no_grad():
        for p in prepared:
            vec = p.vectors if p.vectors is not None else word_vectors(encoder, p.segments, device, pad_id)
            if not p.spans:
                out.append([])
                continue
            scores, ante = score_tensors(model, p, vec, device)
            out.append(decode_clusters(p.spans, scores.cpu(), ante.cpu()))
    return out


def conll_f1(prepared: Sequence[Prepared], predicted: Sequence[Sequence[Sequence[tuple[int, int]]]]) -> float:
    """Corpus CoNLL F1 in percent: MUC, B³ and CEAFe counts summed over the documents (as the official
    scorer does), each F1 from the sums, then their mean (:mod:`lingtest.metrics.coref`)."""
    from lingtest.data.model import clusters_as_spans
    from lingtest.metrics.coref import CONLL_METRICS, aggregate, score_clusterings

    per_doc = [score_clusterings(clusters_as_spans(p.doc.clusters), [list(c) for c in pred], CONLL_METRICS)
               for p, pred in zip(prepared, predicted, strict=True)]
    return 100 * sum(aggregate(d[m] for d in per_doc).f1 for m in CONLL_METRICS) / len(CONLL_METRICS)


def train_coref(config: TrainCorefConfig, train_docs: Sequence[Document], dev_docs: Sequence[Document],
                out_dir: str | Path) -> dict[str, Any]:
    """Train on ``train_docs`` (parsed, with gold clusters), pick the epoch on ``dev_docs`` (when given
    and ``select_best``), save the checkpoint to ``out_dir`` and return the metrics; deterministic
    (:func:`~lingtest.resources.finetuning.deterministic_training` with ``config.seed`` and
    ``config.threads``)."""
    from lingtest.resources.finetuning import deterministic_training

    with deterministic_training(config.seed, config.threads):
        return _train(config, train_docs, dev_docs, Path(out_dir))


def _train(config: TrainCorefConfig, train_docs: Sequence[Document], dev_docs: Sequence[Document],
           out: Path) -> dict[str, Any]:
    import numpy as np
    import torch

    from lingtest.progress import progress
    from lingtest.resources.device import pick_device
    from lingtest.systems.coref.neural.features import load_encoder, word_vectors
    from lingtest.systems.coref.neural.model import MentionRanker, gold_antecedent_mask, marginal_log_likelihood_loss

    if not train_docs:
        raise InputError("no training documents", field="train_docs")
    started = time.perf_counter()
    device = pick_device(config.device)
    encoder, tokenizer = load_encoder(config.encoder, device)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    train = prepare(train_docs, tokenizer, config.max_segment, "training document")
    dev = prepare(dev_docs, tokenizer, config.max_segment, "dev document")
    if not config.fine_tune:
        encoder.eval()
        for p in encoder.parameters():
            p.requires_grad_(False)
        with torch.no_grad():
            for p in progress([*train, *dev], "coref: encoding documents"):
                p.vectors = word_vectors(encoder, p.segments, device, pad_id)
    encoded_s = time.perf_counter() - started
    model = MentionRanker(config.model_config(int(encoder.config.hidden_size))).to(device)
    params = list(model.parameters())
    groups: list[dict[str, Any]] = [{"params": list(model.parameters()), "lr": config.learning_rate}]
    if config.fine_tune:
        params += list(encoder.parameters())
        groups.append({"params": list(encoder.parameters()), "lr": config.encoder_learning_rate})
    optimizer = torch.optim.Adam(groups)

    losses: list[float] = []
    dev_f1: list[float] = []
    best: tuple[float, int, dict[str, Any]] | None = None
    for epoch in range(config.epochs):
        model.train()
        if config.fine_tune:
            encoder.train()
        order = np.random.default_rng([config.seed, epoch]).permutation(len(train))
        total = 0.0
        for i in progress(order.tolist(), f"coref epoch {epoch + 1}/{config.epochs}"):
            p = train[i]
            if not p.spans:
                continue
            vec = p.vectors if p.vectors is not None else word_vectors(encoder, p.segments, device, pad_id)
            scores, ante = score_tensors(model, p, vec, device)
            ids = torch.tensor(p.cluster_ids, dtype=torch.long, device=device)
            loss = marginal_log_likelihood_loss(scores, gold_antecedent_mask(ids, ante))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            optimizer.step()
            total += float(loss.detach())
        losses.append(total / len(train))
        f1 = conll_f1(dev, predict_prepared(model, encoder, dev, device, pad_id)) if dev else float("nan")
        dev_f1.append(f1)
        log.info("coref training: epoch %d/%d, mean loss %.3f, dev CoNLL F1 %.2f, %.0f s", epoch + 1, config.epochs,
                 losses[-1], f1, time.perf_counter() - started)
        if config.select_best and dev and (best is None or f1 > best[0]):
            best = (f1, epoch, _snapshot(model, encoder if config.fine_tune else None))
    chosen = config.epochs - 1
    if best is not None:
        chosen = best[1]
        _restore(model, encoder if config.fine_tune else None, best[2])
    metrics = {"train_loss": losses, "dev_conll_f1": dev_f1, "epoch": chosen + 1,
               "dev_f1": dev_f1[chosen] if dev else None,
               "train_documents": len(train), "dev_documents": len(dev),
               "train_candidate_recall": candidate_recall(train), "dev_candidate_recall": candidate_recall(dev),
               "train_unknown_subwords": unknown_subword_share(train, tokenizer),
               "truncated_words": sum(p.segments.truncated_words for p in [*train, *dev]),
               "encode_seconds": round(encoded_s, 3), "seconds": round(time.perf_counter() - started, 3)}
    save_checkpoint(out, model, encoder if config.fine_tune else None, tokenizer if config.fine_tune else None,
                    config)
    # the record is part of the checkpoint, an output that comes out the same on every run: no wall-clock
    # figures in it (they are in the returned metrics, which the stage logs to its run)
    record = {"config": asdict(config), "device": device, "torch_threads": torch.get_num_threads(),
              "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
              "metrics": split_wall_clock(metrics)[0], "digest": checkpoint_digest(out)}
    (out / TRAINING_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return metrics


def _snapshot(model: Any, encoder: Any) -> dict[str, Any]:
    snap = {"model": {k: v.detach().clone() for k, v in model.state_dict().items()}}
    if encoder is not None:
        snap["encoder"] = {k: v.detach().clone() for k, v in encoder.state_dict().items()}
    return snap


def _restore(model: Any, encoder: Any, snap: Mapping[str, Any]) -> None:
    model.load_state_dict(snap["model"])
    if encoder is not None:
        encoder.load_state_dict(snap["encoder"])


# --------------------------------------------------------------------------------------------
# checkpoints
# --------------------------------------------------------------------------------------------
def save_checkpoint(out: Path, model: Any, encoder: Any, tokenizer: Any, config: TrainCorefConfig) -> None:
    """Write ``config.json``, ``heads.safetensors`` and, for a fine-tuned encoder, ``encoder/``."""
    import shutil

    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / HEADS_FILE))
    enc_dir = out / ENCODER_DIR
    if enc_dir.exists():
        shutil.rmtree(enc_dir)
    if encoder is not None:
        encoder.save_pretrained(enc_dir)
        tokenizer.save_pretrained(enc_dir)
    info = {"model": model.config.to_dict(), "encoder": ENCODER_DIR if encoder is not None else config.encoder,
            "fine_tuned": encoder is not None, "max_segment": config.max_segment}
    (out / CONFIG_FILE).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def checkpoint_digest(folder: str | Path) -> str:
    """sha256 over the checkpoint's config, scoring layers and (fine-tuned) encoder files."""
    folder = Path(folder)
    if not (folder / CONFIG_FILE).is_file() or not (folder / HEADS_FILE).is_file():
        raise MissingResourceError(f"{folder} holds no coreference checkpoint ({CONFIG_FILE}, {HEADS_FILE}); "
                                   "train one with `dvc repro coref_train@clean`")
    h = hashlib.sha256()
    files = [folder / CONFIG_FILE, folder / HEADS_FILE]
    enc = folder / ENCODER_DIR
    if enc.is_dir():
        files.extend(sorted(p for p in enc.rglob("*") if p.is_file()))
    for path in files:
        h.update(str(path.relative_to(folder)).encode())
        h.update(b"\0")
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def load_checkpoint(folder: str | Path, device: str) -> tuple[Any, Any, Any, dict[str, Any]]:
    """``(model, encoder, tokenizer, info)`` of a checkpoint folder, in eval mode on ``device``."""
    from safetensors.torch import load_file

    from lingtest.systems.coref.neural.features import load_encoder
    from lingtest.systems.coref.neural.model import MentionRanker, ModelConfig

    folder = Path(folder)
    checkpoint_digest(folder)  # raises a clear error when files are missing
    try:
        info = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        mc = ModelConfig(**info["model"])
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{folder / CONFIG_FILE}: not a coreference checkpoint config ({exc})",
                         field="model") from exc
    enc_name = str(folder / ENCODER_DIR) if info.get("fine_tuned") else str(info["encoder"])
    encoder, tokenizer = load_encoder(enc_name, device)
    if int(encoder.config.hidden_size) != mc.input_dim:
        raise InputError(f"{folder}: encoder {enc_name!r} has {encoder.config.hidden_size} dimensions, the model was "
                         f"trained on {mc.input_dim}", field="encoder")
    model = MentionRanker(mc)
    model.load_state_dict(load_file(str(folder / HEADS_FILE)))
    model.to(device)
    model.eval()
    encoder.eval()
    return model, encoder, tokenizer, info
