"""The causal-LM contrastive scorers on a tiny randomly initialised GPT-2 (the fixture pattern of
tests/resources/test_lm_scorers.py): shared-prefix scoring equals naive per-candidate scoring and the
log-probability of each candidate after the shared beginning computed by hand; templates; window."""

from __future__ import annotations

import pytest
import torch

from lingtest.resources.lm import CausalLMScorer
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.contrastive.causal_lm import (
    CausalLMContrastiveScorer,
    check_template,
    render,
    truncate_after_difference,
)

WORDS = (
    "english german : the curtain rises it . der vorhang geht hoch er sie es ist rot we went home "
    "wir gingen nach hause a car i bought ein auto ich kaufte und war billig and was cheap"
).split()
EN_TEMPLATE = "english : {src_context} {src}\ngerman :\n"
DE_TEMPLATE = "{tgt_context}\n"


@pytest.fixture(scope="module")
def gpt2_parts():
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {
        "<|endoftext|>": 0,
        "<pad>": 1,
        "<unk>": 2,
        **{w: i + 3 for i, w in enumerate(sorted(set(WORDS)))},
    }
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<|endoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<unk>",
        pad_token="<pad>",
    )
    torch.manual_seed(0)
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=len(vocab),
            n_positions=64,
            n_embd=32,
            n_layer=2,
            n_head=2,
            bos_token_id=0,
            eos_token_id=0,
            pad_token_id=1,
        )
    ).eval()
    return model, tok


@pytest.fixture(scope="module")
def lm(gpt2_parts):
    model, tok = gpt2_parts
    return CausalLMScorer.from_model(model, tok, device="cpu", batch_size=3)


QUERIES = [
    ContrastiveQuery(
        "it rises .",
        ("er geht hoch .", "sie geht hoch .", "es geht hoch ."),
        "the curtain rises .",
        "der vorhang geht hoch .",
    ),
    ContrastiveQuery(
        "i bought a car and it was cheap .",
        (
            "ich kaufte ein auto und es war billig .",
            "ich kaufte ein auto und er war billig .",
            "ich kaufte ein auto und sie war billig .",
        ),
        "",
        "",
    ),
    ContrastiveQuery("it is rot .", ("er ist rot .", "sie ist rot ."), "we went home .", "wir gingen nach hause ."),
]


def by_hand(gpt2_parts, template, q):
    """log p(tokens after the candidates' common token prefix | everything before), one unbatched
    forward pass per candidate."""
    model, tok = gpt2_parts
    prompt = render(template, q)
    seqs = [[0, *tok(prompt + c, add_special_tokens=False)["input_ids"]] for c in q.candidates]
    p = 0
    while p < min(len(s) for s in seqs) - 1 and len({s[p] for s in seqs}) == 1:
        p += 1
    out = []
    for ids in seqs:
        with torch.no_grad():
            lp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
        out.append(float(sum(lp[t - 1, ids[t]] for t in range(p, len(ids)))))
    return out


def joint_minus_prompt(lm, template, q):
    prompt = render(template, q)
    return [lm.score([prompt + c])[0] - (lm.score([prompt])[0] if prompt else 0.0) for c in q.candidates]


def flat(scores):
    return [x for s in scores for x in s]


@pytest.mark.parametrize("template", [EN_TEMPLATE, DE_TEMPLATE])
def test_shared_prefix_equals_naive_and_by_hand(gpt2_parts, lm, template):
    shared = CausalLMContrastiveScorer.from_scorer(lm, template=template, shared_prefix=True).predict(QUERIES)
    naive = CausalLMContrastiveScorer.from_scorer(lm, template=template, shared_prefix=False).predict(QUERIES)
    want = [by_hand(gpt2_parts, template, q) for q in QUERIES]
    assert [len(s) for s in shared] == [3, 3, 2]
    assert flat(shared) == pytest.approx(flat(want), abs=1e-4)
    assert flat(naive) == pytest.approx(flat(want), abs=1e-4)
    assert all(x <= 0 for x in flat(shared))
    # the same choices, and the same margins as the full conditional log P(candidate | prompt)
    assert [s.index(max(s)) for s in shared] == [s.index(max(s)) for s in naive]
    for got, q in zip(shared, QUERIES, strict=True):
        full = joint_minus_prompt(lm, template, q)
        assert [g - got[0] for g in got] == pytest.approx([f - full[0] for f in full], abs=1e-4)


def test_german_only_without_context_scores_the_candidates_alone(gpt2_parts, lm):
    scorer = CausalLMContrastiveScorer.from_scorer(lm, template=DE_TEMPLATE)
    q = QUERIES[1]
    assert render(DE_TEMPLATE, q) == "" and scorer.texts(q) == list(q.candidates)
    assert scorer.predict([q])[0] == pytest.approx(by_hand(gpt2_parts, DE_TEMPLATE, q), abs=1e-4)


def test_shared_mode_goes_through_packed_scoring(gpt2_parts):
    model, tok = gpt2_parts
    lm = CausalLMScorer.from_model(model, tok, device="cpu", batch_size=3)
    calls = {"score": 0, "grouped": 0}
    score, grouped = lm.score, lm.score_grouped

    def count_score(*a, **k):
        calls["score"] += 1
        return score(*a, **k)

    def count_grouped(*a, **k):
        calls["grouped"] += 1
        return grouped(*a, **k)

    lm.score, lm.score_grouped = count_score, count_grouped  # type: ignore[method-assign]
    CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE).predict(QUERIES)
    assert calls == {"score": 0, "grouped": 1}  # one packed call, no per-text fallback


def test_window_scores_a_few_words_after_the_differences(gpt2_parts, lm):
    cands = ("ich kaufte ein auto und es war billig .", "ich kaufte ein auto und er war billig .")
    assert truncate_after_difference(cands, 1) == [
        "ich kaufte ein auto und es war",
        "ich kaufte ein auto und er war",
    ]
    assert truncate_after_difference(("er geht .", "sie geht ."), 5) == ["er geht .", "sie geht ."]
    # two differences: both kept, so the candidates stay distinct
    two = ("es war da und es ging weg .", "er war da und ihn ging weg .")
    assert truncate_after_difference(two, 1) == ["es war da und es ging", "er war da und ihn ging"]
    q = QUERIES[1]
    w = CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE, window=1)
    short = ContrastiveQuery(
        q.source, tuple(truncate_after_difference(q.candidates, 1)), q.source_context, q.target_context
    )
    assert w.predict([q])[0] == pytest.approx(by_hand(gpt2_parts, EN_TEMPLATE, short), abs=1e-4)
    assert CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE, window=1, shared_prefix=False).predict([q])[
        0
    ] == pytest.approx(w.predict([q])[0], abs=1e-4)
    with pytest.raises(ValueError, match="window"):
        CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE, window=-1)


def test_order_and_batching_do_not_matter(gpt2_parts, lm):
    model, tok = gpt2_parts
    base = CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE).predict(QUERIES)
    wide = CausalLMScorer.from_model(model, tok, device="cpu", batch_size=64)
    wide.group_batch_size, wide.pack_tokens = 4, 40  # several packed passes
    rev = CausalLMContrastiveScorer.from_scorer(wide, template=EN_TEMPLATE).predict(list(reversed(QUERIES)))
    assert flat(list(reversed(rev))) == pytest.approx(flat(base), abs=1e-4)


def test_templates():
    q = ContrastiveQuery("It rises.", ("Er geht hoch.", "Sie geht hoch."), "", "Der Vorhang.")
    assert render("English: {src_context} {src}\nGerman:\n", q) == "English: It rises.\nGerman:\n"
    assert render("{tgt_context}\n", q) == "Der Vorhang.\n"
    with pytest.raises(ValueError, match="candidate"):
        check_template("{src}\n{candidate}")
    with pytest.raises(ValueError, match="allowed"):
        CausalLMContrastiveScorer.from_scorer(None, template="{source}")


def test_loads_from_a_directory(tmp_path, gpt2_parts, lm):
    model, tok = gpt2_parts
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    loaded = CausalLMContrastiveScorer(
        template=EN_TEMPLATE,
        model=str(tmp_path),
        device="cpu",
        dtype="float32",
        pack_tokens=48,
        lm_batch_size=2,
    )
    assert loaded.scorer.pack_tokens == 48 and loaded.config()["template"] == EN_TEMPLATE
    want = CausalLMContrastiveScorer.from_scorer(lm, template=EN_TEMPLATE).predict(QUERIES)
    assert flat(loaded.predict(QUERIES)) == pytest.approx(flat(want), abs=1e-4)

