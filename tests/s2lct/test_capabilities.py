"""Each configured capability's generator on a few hand-made seeds (the specs of conf/s2lct)."""

from __future__ import annotations

import pytest

from lingtest.errors import ConfigError
from lingtest.s2lct.seeds import combine, seed_cases
from lingtest.s2lct.spec import load_suites

SST_CAPS = [f"LC{i}" for i in range(1, 11)]
HS_CAPS = [f"LC{i}" for i in range(1, 15)]


def cases_of(spec, pool, knowledge, cap, suite="sst", **kw):
    opts = {"seed": 13, "max_sents": None, "max_cases": None, "others_per_seed": 3} | kw
    cases, used = seed_cases(suite, spec, pool, knowledge, capabilities=[cap], **opts)
    return cases, used


def test_the_paper_has_10_and_14_capabilities(specs):
    assert list(specs["sst"].capabilities) == SST_CAPS
    assert list(specs["hatexplain"].capabilities) == HS_CAPS
    assert specs["sst"].labels == ["negative", "neutral", "positive"]
    assert specs["hatexplain"].labels == ["hate", "non-hate"]


EXPECT_SST = {
    # capability: (seed texts that must be found, one expected generated text, expected labels of it)
    "LC1": ({"a red movie .", "the red film"}, "a red movie .", ["neutral"]),
    "LC2": ({"a good movie .", "a great film", "a bad movie .", "an awful plot", "This is a bad movie"},
            "a great film", ["positive"]),
    "LC3": ({"a good movie .", "a bad movie ."},
            'Previously, I used to like it saying that "a good movie .", but now I hate it.', ["negative"]),
    "LC4": ({"This is a bad movie"}, "This is not a bad movie", ["positive", "neutral"]),
    "LC5": ({"This is a red shirt"}, "This is not a red shirt", ["neutral"]),
    "LC6": ({"an awful plot"}, 'I thought that "an awful plot", but I didn\'t', ["positive", "neutral"]),
    "LC9": ({"a great film"}, 'Do I agree that "a great film"? yes', ["positive"]),
    "LC10": ({"an awful plot"}, 'Do I think that "an awful plot"? no', ["positive", "neutral"]),
}


@pytest.mark.parametrize("cap", sorted(EXPECT_SST))
def test_sentiment_capabilities(cap, specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, cap)
    must, example, labels = EXPECT_SST[cap]
    sents = {c.sent for c in cases}
    if cap in ("LC4", "LC5"):
        assert {s.replace(" not ", " ") for s in sents} == must
    else:
        assert must <= sents
    got = {c.text: c.expected for c in cases}
    assert example in got
    assert got[example] == labels
    assert all(c.capability == cap and c.kind == "seed" for c in cases)


def test_lc1_excludes_polar_words_and_long_sentences(specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC1")
    # every short neutral sentence with a neutral adjective and noun and no polar ones; not "the plot
    # moves on" (no adjective) nor "a good movie ." (positive)
    assert {c.sent for c in cases} == {"a red movie .", "the red film", "This is a red shirt", "it is n't a red film"}


def test_lc4_needs_no_negation_already(specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC5")
    assert all("n't" not in c.text for c in cases)


def test_lc3_enumerates_every_template_combination(specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC3")
    pos = [c for c in cases if c.sent == "a good movie ."]
    assert len(pos) == 3 * 3 * 2  # prefixes x infixes x postfixes
    assert len({c.text for c in pos}) == 18
    assert all(c.expected == ["negative"] for c in pos)
    neg = [c for c in cases if c.sent == "a bad movie ."]
    assert len(neg) == 3 * 3 * 1 and all(c.expected == ["positive"] for c in neg)


def test_lc7_puts_neutral_sentences_in_the_middle(specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC7")
    c = next(c for c in cases if c.sent == "a great film")
    assert c.expected == ["negative"]
    assert c.text.startswith(("I wouldn't say, given ", "I do not think, given ", "I don't agree with, given "))
    assert c.text.endswith(", a great film")
    assert len(c.meta["others"]) == 3  # others_per_seed neutral sentences drawn per seed
    middle = c.text.split("given ", 1)[1].rsplit(", a great film", 1)[0]
    assert middle in c.meta["others"].values()


def test_lc8_quotes_opposite_opinions(specs, sst_pool, knowledge):
    cases, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC8")
    c = next(c for c in cases if c.sent == "a good movie .")
    assert c.expected == ["positive"]
    quoted = c.text.split('"')[1]
    assert quoted in {"a bad movie .", "an awful plot", "This is a bad movie"}
    assert c.text.endswith('but I think that "a good movie .".')


EXPECT_HS = {
    "LC1": ({"you bitch"}, "you bitch", ["hate"]),
    "LC2": ({"my bitch is my dog"}, "my bitch is my dog", ["non-hate"]),
    "LC3": ({"fuck those people"}, "fuck those people", ["hate"]),
    "LC4": ({"this shit is so good"}, "this shit is so good", ["non-hate"]),
    "LC5": ({"women are garbage", "women like the city"}, "I heard that women like the city but i dislike them",
            ["hate"]),
    "LC6": ({"women are garbage"}, "people say women are garbage. i also hate them", ["hate"]),
    "LC7": ({"women like the city"}, "I do not believe that women like the city", ["hate"]),
    "LC8": ({"women are garbage"}, "I do not think that women are garbage", ["non-hate"]),
    "LC9": ({"you bitch"}, "why do you agree with that you bitch?", ["hate"]),
    "LC10": ({"you bitch"}, "i believe that you bitch", ["hate"]),
    "LC11": ({"women like the city"}, "women like the city", ["non-hate"]),
    "LC12": ({"women like the city", "kind women are nice"}, "kind women are nice", ["non-hate"]),
    "LC13": ({"women are garbage"}, 'statements like "women are garbage" are harmful', ["non-hate"]),
    "LC14": ({"women are garbage"}, "saying that women are garbage shows how misguided you are", ["non-hate"]),
}


@pytest.mark.parametrize("cap", HS_CAPS)
def test_hate_speech_capabilities(cap, specs, hs_pool, knowledge):
    cases, _ = cases_of(specs["hatexplain"], hs_pool, knowledge, cap, suite="hatexplain")
    must, example, labels = EXPECT_HS[cap]
    assert must <= {c.sent for c in cases}
    got = {c.text: c.expected for c in cases}
    assert example in got, sorted(got)
    assert got[example] == labels


def test_lc11_rejects_sentiment_words(specs, hs_pool, knowledge):
    cases, _ = cases_of(specs["hatexplain"], hs_pool, knowledge, "LC11", suite="hatexplain")
    assert "kind women are nice" not in {c.sent for c in cases}


def test_caps_are_seeded_and_stable(specs, sst_pool, knowledge):
    a, used = cases_of(specs["sst"], sst_pool, knowledge, "LC3", max_sents=1, max_cases=5)
    b, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC3", max_sents=1, max_cases=5)
    assert [c.id for c in a] == [c.id for c in b]
    assert len([c for c in a if c.rule == 0]) == 5
    assert len({c.seed_id for c in a if c.rule == 0}) == 1
    assert {h.sentence.id for h in used[("LC3", 0)]} == {c.seed_id for c in a if c.rule == 0}
    c, _ = cases_of(specs["sst"], sst_pool, knowledge, "LC3", max_sents=1, max_cases=5, seed=14)
    assert [x.id for x in c] != [x.id for x in a] or len(sst_pool) < 2


def test_combine_without_template_is_the_sentence(specs):
    rule = specs["sst"].capabilities["LC1"].rules[0]
    assert combine(rule, "Or both .", []) == [((), "Or both .")]


@pytest.mark.parametrize("patch, match", [
    ({"expected": "happy"}, "not in"),
    ({"search": "hasattr(label, happy)"}, "not a label"),
    ({"search": "hasattr(label"}, "expected"),
    ({"colour": "red"}, "Extra inputs"),
    ({"combine": [{"prefix": ["a"]}]}, "exactly one sent"),
    ({"combine": [{"prefix": ["a"], "sent": "{}"}]}, "exactly one of"),
    ({"replace": {"pattern": "(", "repl": "x"}}, "bad regex"),
])
def test_bad_specs_are_config_errors(patch, match, s2lct_conf):
    import copy

    suites = copy.deepcopy(s2lct_conf["suites"])
    suites["sst"]["capabilities"]["LC1"]["rules"][0].update(patch)
    with pytest.raises(ConfigError, match=match):
        load_suites({"sst": suites["sst"]})


def test_a_new_capability_is_a_config_entry(s2lct_conf, sst_pool, knowledge):
    import copy

    suites = copy.deepcopy(s2lct_conf["suites"])
    suites["sst"]["capabilities"]["LC11"] = {
        "name": "Short negative sentences, in a question",
        "rules": [{"search": "hasattr(label, negative) and hasattr(length, < 4)",
                   "combine": [{"prefix": ["Is it true that"]}, {"sent": "{}?"}], "expected": "negative"}]}
    spec = load_suites({"sst": suites["sst"]})["sst"]
    cases, _ = cases_of(spec, sst_pool, knowledge, "LC11")
    assert {c.text for c in cases} == {"Is it true that a bad movie .?", "Is it true that an awful plot?"}
