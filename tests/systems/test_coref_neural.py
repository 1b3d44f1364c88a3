"""The neural mention-ranking coreference system (lingtest.systems.coref.neural): features, the loss,
training on a tiny hand-parsed corpus with a tiny randomly initialised encoder built here (the hub
path: any Hugging Face encoder folder or id), the checkpoint, the system through the factory and the
span checks that keep perturbed training documents honest."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from coref_handparse import doc  # noqa: E402
from tests.fakes.conf_options import adversarial_metrics  # noqa: E402

from lingtest.adversarial.apply import replace_tokens  # noqa: E402
from lingtest.data.model import Cluster, Document, Mention  # noqa: E402
from lingtest.errors import ConfigError, InputError, MissingResourceError  # noqa: E402
from lingtest.systems.coref.neural.features import (  # noqa: E402
    candidate_mentions,
    check_perturbed_alignment,
    gold_cluster_ids,
    segment_document,
)
from lingtest.systems.coref.neural.model import (  # noqa: E402
    NEG,
    decode_clusters,
    gold_antecedent_mask,
    marginal_log_likelihood_loss,
)
from lingtest.systems.coref.neural.trainer import (  # noqa: E402
    TrainCorefConfig,
    checkpoint_digest,
    conll_f1,
    predict_prepared,
    prepare,
    train_coref,
)

# -- a tiny corpus: a man and a woman, then pronouns whose antecedent only gender decides -------------
_MEN = ("John", "Peter", "Tom", "Paul")
_WOMEN = ("Mary", "Anna", "Lucy", "Emma")
_SUBJ = {"m": "he", "f": "she"}
_OBJ = {"m": "him", "f": "her"}


def _doc(i: int) -> Document:
    """``X met Y . P1 thanked P2 . The dog barked . P3 smiled .`` with X/Y a man and a woman in either
    order and P1, P3 of either gender (seeded by ``i``): word positions say nothing about the
    antecedents, only the names' and pronouns' genders do."""
    import random

    rng = random.Random(i)
    man, woman = _MEN[i % 4], _WOMEN[(i // 4 + i) % 4]
    order = ["m", "f"] if rng.random() < 0.5 else ["f", "m"]
    names = {"m": man, "f": woman}
    g1 = rng.choice("mf")
    g2 = "f" if g1 == "m" else "m"
    g3 = rng.choice("mf")
    d = doc(f"{names[order[0]]}/NNP/2/nsubj/B-PERSON met/VBD/0/ROOT {names[order[1]]}/NNP/2/dobj/B-PERSON ././2/punct",
            f"{_SUBJ[g1].capitalize()}/PRP/2/nsubj thanked/VBD/0/ROOT {_OBJ[g2]}/PRP/2/dobj ././2/punct",
            "The/DT/2/det dog/NN/3/nsubj barked/VBD/0/ROOT ././3/punct",
            f"{_SUBJ[g3].capitalize()}/PRP/2/nsubj smiled/VBD/0/ROOT ././2/punct", id=f"d{i}")
    # tokens: 0 and 2 the names | 4 P1, 6 P2 | 8-9 the dog | 12 P3
    spans = {"m": [], "f": []}
    spans[order[0]].append((0, 1))
    spans[order[1]].append((2, 3))
    spans[g1].append((4, 5))
    spans[g2].append((6, 7))
    spans[g3].append((12, 13))
    d.clusters = [Cluster([Mention(s, e) for s, e in sorted(spans[g])]) for g in ("m", "f")]
    return d


def corpus() -> list[Document]:
    return [_doc(i) for i in range(16)]


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory) -> Path:
    """A randomly initialised 2-layer BERT with a word-level vocabulary of the corpus, saved like a hub
    model (what ``encoder: <hub id>`` downloads)."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny_encoder")
    words = sorted({w.lower() for d in corpus() for w in d.words})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)}, do_lower_case=True)
    tok.save_pretrained(folder)
    assert tok(["He", "John"], is_split_into_words=True, add_special_tokens=False)["input_ids"] == \
        [vocab.index("he"), vocab.index("john")]  # a real vocabulary, not everything [UNK]
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).save_pretrained(folder)
    return folder


def _config(encoder: Path | str, **over) -> TrainCorefConfig:
    base = dict(encoder=str(encoder), fine_tune=False, max_segment=16, hidden=32, width_dim=8, max_width=10,
                distance_dim=8, ffnn_hidden=64, dropout=0.0, max_antecedents=10, epochs=20, learning_rate=3e-3,
                encoder_learning_rate=1e-4, max_grad_norm=5.0, select_best=False, seed=13, device="cpu",
                threads=1)
    return TrainCorefConfig(**{**base, **over})


# ------------------------------------------------------------------------------------------------
def test_candidates_cover_the_gold_mentions_of_the_tiny_corpus():
    for d in corpus():
        c = candidate_mentions(d)
        ids = gold_cluster_ids(d, c.spans)
        assert sum(i >= 0 for i in ids) == sum(len(cl.mentions) for cl in d.clusters)
        assert (8, 10) in c.spans  # "The dog": a candidate without a gold cluster
        assert ids[c.spans.index((8, 10))] == -1


def test_segments_keep_every_word_and_respect_the_size(tiny_encoder):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tiny_encoder))
    d = corpus()[0]
    d.sentences[0].tokens[1].text = "\u200b"  # a word the tokenizer turns into no subword at all
    seg = segment_document(d, tok, max_segment=8)
    assert all(len(s) <= 8 for s in seg.input_ids)
    words = [w for of in seg.word_of for w in of if w >= 0]
    assert words == list(range(len(d.words)))  # every word once, in order: positions never shift
    assert seg.n_words == len(d.words)
    with pytest.raises(InputError, match="max_segment"):
        segment_document(d, tok, max_segment=2)


def test_gold_mask_loss_and_decoding():
    ids = torch.tensor([0, -1, 0, 1])
    ante = torch.tensor([[-1, -1], [0, -1], [1, 0], [2, 1]])
    gold = gold_antecedent_mask(ids, ante)
    assert gold.tolist() == [[True, False, False], [True, False, False], [False, False, True],
                             [True, False, False]]
    good = torch.tensor([[0.0, NEG, NEG], [0.0, -5.0, NEG], [0.0, -5.0, 5.0], [0.0, -5.0, -5.0]])
    bad = torch.tensor([[0.0, NEG, NEG], [0.0, 5.0, NEG], [0.0, 5.0, -5.0], [0.0, 5.0, 5.0]])
    assert float(marginal_log_likelihood_loss(good, gold)) < 0.1 < float(marginal_log_likelihood_loss(bad, gold))
    spans = [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert decode_clusters(spans, good, ante) == [[(0, 1), (4, 5)]]
    assert decode_clusters(spans, bad, ante) == [[(0, 1), (2, 3), (4, 5), (6, 7)]]


def test_config_from_mapping_is_strict(tiny_encoder):
    from dataclasses import asdict

    data = asdict(_config(tiny_encoder))
    assert TrainCorefConfig.from_mapping(data) == _config(tiny_encoder)
    with pytest.raises(ConfigError, match="unknown key"):
        TrainCorefConfig.from_mapping({**data, "extra": 1})
    with pytest.raises(ConfigError, match="epochs must be a int"):
        TrainCorefConfig.from_mapping({**data, "epochs": "3"})
    with pytest.raises(ConfigError, match="dropout"):
        TrainCorefConfig.from_mapping({**data, "dropout": 1.5})


def _f1_of(folder: Path, docs) -> float:
    from lingtest.systems.coref.neural.trainer import load_checkpoint

    model, encoder, tok, info = load_checkpoint(folder, "cpu")
    prepared = prepare(docs, tok, info["max_segment"], "test")
    return conll_f1(prepared, predict_prepared(model, encoder, prepared, "cpu", tok.pad_token_id))


@pytest.fixture(scope="module")
def trained(tiny_encoder, tmp_path_factory) -> tuple[Path, dict]:
    """The model trained 20 epochs on the tiny corpus (shared by the tests below)."""
    folder = tmp_path_factory.mktemp("trained")
    return folder, train_coref(_config(tiny_encoder), corpus(), [], folder)


def test_the_model_overfits_a_tiny_corpus_and_one_epoch_does_not(trained, tiny_encoder, tmp_path):
    docs = corpus()
    folder, metrics = trained
    f1 = _f1_of(folder, docs)
    assert f1 >= 95.0, metrics
    assert metrics["train_loss"][-1] < metrics["train_loss"][0] / 10
    assert metrics["train_candidate_recall"]["recall"] == 1.0
    assert metrics["train_unknown_subwords"] == 0.0
    train_coref(_config(tiny_encoder, epochs=1), docs, [], tmp_path / "one")
    control = _f1_of(tmp_path / "one", docs)  # positions alone do not tell the antecedents
    assert control < 85.0 and f1 - control > 15.0


def test_training_is_seeded_and_the_digest_follows_the_weights(tiny_encoder, tmp_path):
    docs = corpus()[:4]
    cfg = _config(tiny_encoder, epochs=3)
    train_coref(cfg, docs, docs[:2], tmp_path / "a")
    train_coref(cfg, docs, docs[:2], tmp_path / "b")
    train_coref(_config(tiny_encoder, epochs=3, seed=14), docs, docs[:2], tmp_path / "c")
    assert checkpoint_digest(tmp_path / "a") == checkpoint_digest(tmp_path / "b")
    assert checkpoint_digest(tmp_path / "a") != checkpoint_digest(tmp_path / "c")
    record = json.loads((tmp_path / "a" / "training.json").read_text())
    assert record["digest"] == checkpoint_digest(tmp_path / "a")
    # trained under torch's deterministic algorithms, switched off again afterwards
    assert record["deterministic_algorithms"] is True
    assert not torch.are_deterministic_algorithms_enabled()
    assert len(record["metrics"]["dev_conll_f1"]) == 3
    with pytest.raises(MissingResourceError, match="no coreference checkpoint"):
        checkpoint_digest(tmp_path / "missing")


def test_fine_tuning_saves_the_encoder_with_the_checkpoint(tiny_encoder, tmp_path):
    docs = corpus()[:2]
    train_coref(_config(tiny_encoder, epochs=1, fine_tune=True), docs, [], tmp_path / "ft")
    assert (tmp_path / "ft" / "encoder" / "config.json").is_file()
    info = json.loads((tmp_path / "ft" / "config.json").read_text())
    assert info["fine_tuned"] is True and info["encoder"] == "encoder"


def test_the_system_through_the_factory_cache_and_digest(trained, tmp_path):
    from omegaconf import OmegaConf

    from lingtest.systems.factory import build_system

    docs = corpus()
    ckpt = trained[0]
    entry = {"kind": "neural", "path": str(ckpt), "device": "auto", "parser": "spacy",
             "parser_options": {"model": "en_core_web_sm"}}
    cfg = OmegaConf.create({"systems": {"cache": True, "cache_dir": str(tmp_path / "cache"),
                                        "batch_size": {"cpu": 4, "cuda": 8}, "coref": {"neural_x": entry}},
                            "resources": {"device": "cpu"}})
    system = build_system(cfg, "coref", "neural_x")
    assert system.config()["checkpoint"] == checkpoint_digest(ckpt)
    inputs = copy.deepcopy(docs)
    cold = system.predict(inputs)
    assert [c.mentions for c in inputs[0].clusters] == [c.mentions for c in docs[0].clusters]  # input untouched
    warm = build_system(cfg, "coref", "neural_x")
    again = warm.predict(copy.deepcopy(docs))
    assert warm.hits == len(docs) and [[m.to_list() for c in d for m in c.mentions] for d in again] == \
        [[m.to_list() for c in d for m in c.mentions] for d in cold]
    from lingtest.adversarial.report import score_corpus

    assert score_corpus([d.clusters for d in docs], cold, adversarial_metrics())["conll"]["f1"] >= 95.0
    with pytest.raises(ConfigError, match="unknown option"):
        build_system(OmegaConf.merge(cfg, {"systems": {"coref": {"neural_x": {"epochs": 3}}}}), "coref", "neural_x")


# -- perturbed training documents: spans must still sit on their words ---------------------------
def test_perturbed_alignment_accepts_real_replacements_and_catches_moved_spans():
    clean = corpus()[0]
    # "Mary" -> "Ma ry" (a two-token replacement, as multi-word lexical substitutes are): spans shift
    pert, _ = replace_tokens(clean, {2: ["Ma", "ry"], 0: ["Jhon"]})
    check_perturbed_alignment(clean, pert)
    ci = next(i for i, c in enumerate(clean.clusters) if Mention(2, 3) in c.mentions)
    assert Mention(2, 4) in pert.clusters[ci].mentions
    # the bug to catch: the perturbed tokens with the clean document's spans
    stale = copy.deepcopy(pert)
    stale.clusters = copy.deepcopy(clean.clusters)
    with pytest.raises(InputError, match="do not match its tokens|moved|shorter"):
        check_perturbed_alignment(clean, stale)
    out_of_range = copy.deepcopy(pert)
    out_of_range.clusters[0].mentions.append(Mention(40, 41))
    with pytest.raises(InputError):
        check_perturbed_alignment(clean, out_of_range)


def test_stale_spans_would_ruin_training_and_are_refused(tiny_encoder, tmp_path):
    """Misaligned gold (clean spans on perturbed tokens) leaves almost no gold mention among the
    candidates: the loss still falls (it learns to predict the dummy), but nothing is linked. The
    candidate recall in the metrics shows it, and the stage's check refuses such documents."""
    clean = corpus()
    shifted = []
    for d in clean:
        pert, _ = replace_tokens(d, {0: ["Dr", ".", "X"]})  # every later span moves by two
        stale = copy.deepcopy(pert)
        stale.clusters = copy.deepcopy(d.clusters)
        shifted.append(stale)
        with pytest.raises(InputError):
            check_perturbed_alignment(d, stale)
    prepared = prepare(shifted, __import__("transformers").AutoTokenizer.from_pretrained(str(tiny_encoder)), 16, "t")
    from lingtest.systems.coref.neural.trainer import candidate_recall

    assert candidate_recall(prepared)["recall"] < 0.5
