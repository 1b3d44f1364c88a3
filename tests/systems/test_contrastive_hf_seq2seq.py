"""The Hugging Face encoder-decoder scorer on a tiny randomly initialised Marian model built here (no
download): scores equal per-candidate forced decoding, in both modes, whatever the batch size and the
order of the queries; loading from a directory; a target-language prefix token is forced, not scored."""

from __future__ import annotations

import pytest
import torch

from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.contrastive.hf_seq2seq import HFSeq2SeqScorer

WORDS = (
    "the curtain rises it . der vorhang geht hoch er sie es ist rot we went home wir gingen nach hause "
    "a car i bought ein auto ich kaufte und war billig and was cheap"
).split()


def make_tokenizer(prefix: str | None = None):
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "</s>", "<unk>", "<SEP>", "<de>"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS)))}
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    single = f"{prefix} $A </s>" if prefix else "$A </s>"
    ids = [("</s>", vocab["</s>"])] + ([(prefix, vocab[prefix])] if prefix else [])
    core.post_processor = TemplateProcessing(single=single, special_tokens=ids)
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )


@pytest.fixture(scope="module")
def tiny():
    from transformers import MarianConfig, MarianMTModel

    tok = make_tokenizer()
    torch.manual_seed(0)
    cfg = MarianConfig(
        vocab_size=len(tok),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=64,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
        decoder_start_token_id=tok.pad_token_id,
    )
    model = MarianMTModel(cfg).eval()
    return model, tok


QUERIES = [
    ContrastiveQuery(
        "it rises .",
        ("er geht hoch .", "sie geht hoch .", "es geht hoch ."),
        "the curtain rises .",
        "der vorhang geht hoch .",
    ),
    ContrastiveQuery(
        "i bought a car and it was cheap .",
        ("ich kaufte ein auto und es war billig .", "ich kaufte ein auto und er war billig ."),
        "",
        "",
    ),
    ContrastiveQuery(
        "it is rot .",
        ("er ist rot .", "sie ist rot .", "es ist rot ."),
        "we went home .",
        "wir gingen nach hause .",
    ),
]


def forced(model, tok, src: str, target: str, skip: int) -> float:
    """log p(target tokens[skip:] | src) by one unbatched forward pass."""
    src_ids = torch.tensor([tok(src)["input_ids"]])
    labels = tok(target)["input_ids"]
    dec = torch.tensor([[model.config.decoder_start_token_id, *labels[:-1]]])
    with torch.no_grad():
        logits = model(input_ids=src_ids, decoder_input_ids=dec).logits[0]
    lp = torch.log_softmax(logits.float(), dim=-1)
    return float(sum(lp[t, labels[t]] for t in range(skip, len(labels))))


def reference(model, tok, q: ContrastiveQuery, mode: str) -> list[float]:
    if mode == "sentence":
        return [forced(model, tok, q.source, c, 0) for c in q.candidates]
    ctx_src = f"{q.source_context} <SEP>" if q.source_context else "<SEP>"
    ctx_tgt = f"{q.target_context} <SEP>" if q.target_context else "<SEP>"
    skip = len(tok(ctx_tgt, add_special_tokens=False)["input_ids"])
    return [forced(model, tok, f"{ctx_src} {q.source}", f"{ctx_tgt} {c}", skip) for c in q.candidates]


@pytest.mark.parametrize("mode", ["sentence", "concat"])
def test_equals_per_candidate_forced_decoding(tiny, mode):
    model, tok = tiny
    scorer = HFSeq2SeqScorer.from_model(model, tok, mode=mode, forward_batch=4)
    got = scorer.predict(QUERIES)
    for q, g in zip(QUERIES, got, strict=True):
        assert g == pytest.approx(reference(model, tok, q, mode), abs=1e-4)
        assert all(x <= 0 for x in g)


def flat(scores: list[list[float]]) -> list[float]:
    return [x for s in scores for x in s]


def test_independent_of_batch_size_and_order(tiny):
    model, tok = tiny
    base = HFSeq2SeqScorer.from_model(model, tok, mode="concat", forward_batch=1).predict(QUERIES)
    for fb in (2, 3, 100):
        got = HFSeq2SeqScorer.from_model(model, tok, mode="concat", forward_batch=fb).predict(QUERIES)
        assert [len(s) for s in got] == [3, 2, 3]
        assert flat(got) == pytest.approx(flat(base), abs=1e-5)
    rev = HFSeq2SeqScorer.from_model(model, tok, mode="concat", forward_batch=3).predict(
        list(reversed(QUERIES))
    )
    assert flat(list(reversed(rev))) == pytest.approx(flat(base), abs=1e-5)


def test_context_changes_the_scores(tiny):
    model, tok = tiny
    sent = HFSeq2SeqScorer.from_model(model, tok, mode="sentence").predict(QUERIES[:1])[0]
    ctx = HFSeq2SeqScorer.from_model(model, tok, mode="concat").predict(QUERIES[:1])[0]
    assert sent != pytest.approx(ctx, abs=1e-4)


def test_loads_from_a_directory(tmp_path, tiny):
    model, tok = tiny
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    loaded = HFSeq2SeqScorer(str(tmp_path), mode="sentence", device="cpu", dtype="float32", forward_batch=2)
    assert flat(loaded.predict(QUERIES)) == pytest.approx(
        flat(HFSeq2SeqScorer.from_model(model, tok, mode="sentence").predict(QUERIES)), abs=1e-5
    )
    assert loaded.config()["mode"] == "sentence" and loaded.config()["model"] == str(tmp_path)
    with pytest.raises(ValueError, match="mode"):
        HFSeq2SeqScorer.from_model(model, tok, mode="document")  # type: ignore[arg-type]


def test_language_prefix_token_is_forced_not_scored(tiny):
    model, _ = tiny
    tok = make_tokenizer(prefix="<de>")  # NLLB/M2M100 style: a target-language token before the text
    scorer = HFSeq2SeqScorer.from_model(model, tok, mode="sentence")
    assert scorer._tgt_prefix == [tok.convert_tokens_to_ids("<de>")] and scorer._tgt_suffix == [
        tok.eos_token_id
    ]
    q = QUERIES[0]
    want = [forced(model, tok, q.source, c, 1) for c in q.candidates]
    assert scorer.predict([q])[0] == pytest.approx(want, abs=1e-4)


def test_long_context_is_cut_from_the_left(tiny):
    model, tok = tiny
    long_ctx = " ".join(["wir gingen nach hause ."] * 20)
    q = ContrastiveQuery("it rises .", ("er geht hoch .", "es geht hoch ."), long_ctx, long_ctx)
    scorer = HFSeq2SeqScorer.from_model(model, tok, mode="concat", max_length=16)
    rows = scorer._rows(0, q)
    assert all(len(r.labels) <= 16 for r in rows)
    assert rows[0].labels[rows[0].first_scored :] == tok("er geht hoch .")["input_ids"]
    assert len(scorer.predict([q])[0]) == 2
