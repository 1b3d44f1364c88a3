"""The ContraCAT generator: the definition language on a small vocabulary built here, new nouns from
a TSV list and from the Ding dictionary (fixture excerpt), and - on the mirror - the release's
template files regenerated line for line (25 of 26; the release's garbled one: its English contexts and
labels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.contracat.cases import make_cases
from lingtest.contracat.definitions import GARBLED, REGENERATED, RELEASE
from lingtest.contracat.generate import TemplateDef, generate, write_template
from lingtest.contracat.vocabulary import (
    Entity,
    load_vocabulary,
    nouns_from_ding,
    nouns_from_tsv,
    parse_vocabulary,
    with_nouns,
)
from lingtest.errors import ConfigError, InputError

VOC = parse_vocabulary({
    "animal": {"dog": {"de": "Hund", "gender": "m"}, "cat": {"de": "Katze", "gender": "f"},
               "horse": {"de": "Pferd", "gender": "n"}, "wolf": {"de": "Wolf", "gender": "m"}},
    "food": {"apple": {"de": "Apfel", "gender": "m"}, "egg": {"de": "Ei", "gender": "n"}},
    "human": {"doctor": {"f": "Ärztin", "m": "Arzt"}, "actor": {"m": "Schauspieler"}},
    "size_adjective": {"big": "groß", "small": "klein"},
    "pro_nom": {"I": "ich habe", "you": ["du hast", "ihr habt"]},
    "trans_verb": {"ate": "gegessen"},
    "animal_attribute": {"was hungry": "war hungrig"},
    "food_attribute": {"was cooked": "war gekocht"},
})


def lines(exs):
    out = []
    for e in exs:
        out.append(tuple(x for part in e.lines() for x in part))
    return out


def test_slots_tables_pronouns_and_labels():
    t = TemplateDef.from_dict("role", RELEASE["0_priors/role"])
    exs = generate(t, VOC)
    # animals x foods of another gender x sizes, in vocabulary order
    assert [(e.en_context, e.en) for e in exs[:3]] == [("The dog ate the egg.", "It was big."),
                                                       ("The dog ate the egg.", "It was small."),
                                                       ("The cat ate the apple.", "It was big.")]
    assert exs[0].de_context == "Der Hund hat das Ei gegessen."
    assert exs[0].de == ("Er war groß.", "Sie war groß.", "Es war groß.") and exs[0].label == "mn"
    assert len(exs) == (1 + 2 + 1 + 1) * 2  # dog:egg, cat:apple+egg, horse:apple, wolf:egg


def test_pairs_swaps_and_gold_labels_follow_the_entity():
    pos = generate(TemplateDef.from_dict("p", RELEASE["0_priors/position"]), VOC)
    assert [e.en_context for e in pos[:2]] == ["I stood in front of the dog and the cat.",
                                               "I stood in front of the cat and the dog."]
    assert pos[0].de_context == "Ich stand vor dem Hund und der Katze." and [pos[0].label, pos[1].label] == ["mf", "fm"]
    ent = generate(TemplateDef.from_dict("e", RELEASE["1_entity_step"]), VOC)
    first = ent[0]
    assert (first.en_context, first.en) == ("The dog and the doctor were hungry.", "However it was hungrier.")
    assert first.de_context == "Der Hund und die Ärztin waren hungrig." and first.de[0] == "Aber er war hungriger."
    human_first = next(e for e in ent if e.en_context.startswith("The doctor"))
    assert human_first.label == {"cat": "f", "dog": "m", "horse": "n", "wolf": "m"}[human_first.en_context.split()[4]]
    assert {e.position for e in ent} == {1, 2}
    verb = generate(TemplateDef.from_dict("v", RELEASE["0_priors/verb"]), VOC)
    assert [e.de[0] for e in verb] == ["Ich habe ihn gegessen.", "Du hast ihn gegessen.", "Ihr habt ihn gegessen."]
    assert {e.label for e in verb} == {""}


def test_half_full_after_and_labels_at_a_place():
    """The release's overlap templates: --half keeps the entries at even positions (dog, horse; apple)
    except the --full slots; ``after B A`` draws B after A with loops between; ``gender @A`` is the
    gender of the entity shown at A's place after a swap (the eater), ``gender A`` follows the entity."""
    base = {"context": {"en": "The {A} ate the {F} and the {B} ran.", "de": "{DEF_NOM:A} {A} aß {DEF_ACC:F} {F}."},
            "sentence": {"en": "It ate.", "de": "{PRO_NOM} aß."},
            "slots": {"A": "animal", "B": "animal", "F": "food"}, "loops": ["A", "F", "after B A", "swap A B"],
            "label": "gender @A"}
    exs = generate(TemplateDef.from_dict("ov", {**base, "half": True}), VOC)
    assert [e.en_context for e in exs] == ["The dog ate the apple and the horse ran.",
                                           "The horse ate the apple and the dog ran."]
    assert [e.label for e in exs] == ["m", "n"] and [e.position for e in exs] == [1, 1]
    follows = generate(TemplateDef.from_dict("ov", {**base, "half": True, "label": "gender A"}), VOC)
    assert [e.label for e in follows] == ["m", "m"] and [e.position for e in follows] == [1, 3]  # A, F, B
    full = generate(TemplateDef.from_dict("ov", {**base, "half": True, "full": ["F"]}), VOC)
    assert [e.en_context.split()[4] for e in full[::2]] == ["apple", "egg"]
    every = generate(TemplateDef.from_dict("ov", base), VOC)
    assert len(every) == (3 + 2 + 1 + 0) * 2 * 2  # the animals after A's, per food, each also swapped
    with pytest.raises(ConfigError, match="unknown slot"):
        generate(TemplateDef.from_dict("ov", {**base, "half": True, "full": ["Z"]}), VOC)
    with pytest.raises(ConfigError, match="true or false"):
        TemplateDef.from_dict("ov", {**base, "half": "yes"})
    with pytest.raises(ConfigError, match="outer loop"):
        generate(TemplateDef.from_dict("ov", {**base, "loops": ["after B A", "A", "F", "swap A B"]}), VOC)


def test_definitions_are_checked():
    with pytest.raises(ConfigError, match="unknown key"):
        TemplateDef.from_dict("x", {**RELEASE["0_priors/role"], "typo": 1})
    bad = {**RELEASE["0_priors/role"], "loops": ["A", "F"]}
    with pytest.raises(ConfigError, match="not in any loop"):
        generate(TemplateDef.from_dict("x", bad), VOC)
    with pytest.raises(ConfigError, match="bad label"):
        generate(TemplateDef.from_dict("x", {**RELEASE["0_priors/role"], "label": "best A"}), VOC)


def test_new_vocabulary_from_a_tsv_list_and_from_ding(tmp_path, fixtures_dir):
    from lingtest.contrapro.lexicon import load_lexicon

    lexicon = load_lexicon(openthesaurus=None, ding=fixtures_dir / "contrapro" / "de-en", german_nouns=False)
    p = tmp_path / "nouns.tsv"
    p.write_text("# a comment\nlamp\tLampe\tf\nbook\tBuch\tn\n", encoding="utf-8")
    nouns = nouns_from_tsv(p)
    assert nouns == [Entity("lamp", "Lampe", "f"), Entity("book", "Buch", "n")]
    voc = with_nouns(VOC, "concrete_noun", nouns)
    big = generate(TemplateDef.from_dict("g", RELEASE["3_gender_step/big"]), voc)
    assert [(e.en_context, e.de_context, e.label) for e in big] == [
        ("I saw a lamp.", "Ich sah eine Lampe.", "f"), ("I saw a book.", "Ich sah ein Buch.", "n")]
    (tmp_path / "bad.tsv").write_text("lamp\tLampe\tx\n", encoding="utf-8")
    with pytest.raises(InputError, match="gender"):
        nouns_from_tsv(tmp_path / "bad.tsv")
    found = nouns_from_ding(lexicon, ["curtain", "no-such-noun"])
    assert [e.en for e in found] == ["curtain"] and found[0].gender in "mfn"


def test_write_and_cases(tmp_path):
    exs = generate(TemplateDef.from_dict("role", RELEASE["2_coreference_step/world_knowledge"]), VOC)
    assert write_template(tmp_path / "wk", exs) == len(exs)
    en = (tmp_path / "wk" / "en.txt").read_text(encoding="utf-8").splitlines()
    assert len(en) == 3 * len(exs) and en[0] == en[2] == "The dog ate the egg. <SEP> It was hungry."
    assert exs[0].label == "m" and exs[-1].label == exs[-1].de_context.startswith("Das") * "" + "mfn"[
        "mfn".index(exs[-1].label)]  # food attributes point at the food
    assert exs[-1].en == "It was cooked." and exs[-1].label == {"Apfel": "m", "Ei": "n"}[exs[-1].de_context.split()[4]]
    cases = make_cases("wk", exs, [0, 1])
    assert cases[0].expected == {"name": "contrastive", "reference": "mfn".index(exs[0].label)}
    assert cases[0].source["candidates"] == list(exs[0].de) and cases[0].meta["prior"] is False


@pytest.mark.e2e
def test_regenerates_the_release_from_the_mirror(mirror):
    root = Path(mirror) / "contracat" / "templates"
    if not root.is_dir():
        pytest.skip("no ContraCAT templates in the mirror")
    voc = load_vocabulary(root)
    for name in REGENERATED:
        exs = generate(TemplateDef.from_dict(name, RELEASE[name]), voc)
        en, de, g = [], [], []
        for e in exs:
            a, b, c = e.lines()
            en += a
            de += b
            g += c
        assert en == (root / name / "en.txt").read_text(encoding="utf-8").splitlines(), name
        assert de == (root / name / "de.txt").read_text(encoding="utf-8").splitlines(), name
        released = [x.strip() for x in (root / name / "genders.txt").read_text(encoding="utf-8").splitlines()]
        assert g[: len(released)] == released and not any(g[len(released):]), name
    # the garbled template (a slot-index bug of the release's generator): the same English contexts
    # and labels, in the same order; ours writes the intended main sentences and German side
    exs = generate(TemplateDef.from_dict(GARBLED, RELEASE[GARBLED]), voc)
    en = (root / GARBLED / "en.txt").read_text(encoding="utf-8").splitlines()
    gl = [x.strip() for x in (root / GARBLED / "genders.txt").read_text(encoding="utf-8").splitlines()]
    assert [e.en_context for e in exs] == [x.split(" <SEP> ")[0] for x in en[::3]]
    assert [e.label for e in exs] == gl[::3]
    assert exs[0].en == "It liked the cookie." and en[0].endswith("It liked cookie.")
    assert exs[0].de[0] == "Er mochte den Keks."
