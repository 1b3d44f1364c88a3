"""Each sieve on tiny hand-parsed examples, plus candidate ordering."""

from __future__ import annotations

from coref_handparse import JOHN_SAID, MARY_MET, SHE_SMILED, doc

from lingtest.systems.coref import sieves as S
from lingtest.systems.coref.mentions import ParsedDoc, detect_mentions
from lingtest.systems.coref.sieve import candidate_order


def setup(*specs):
    pd = ParsedDoc.from_document(doc(*specs))
    ms = detect_mentions(pd)
    by_text: dict[str, list] = {}
    for m in ms:
        by_text.setdefault(" ".join(m.words), []).append(m)
    return pd, ms, S.ClusterState(ms), by_text


def test_exact_and_relaxed_string_match():
    pd, ms, st, t = setup(
        "The/DT/2/det president/NN/5/nsubj of/IN/2/prep Peru/NNP/3/pobj/B-GPE spoke/VBD/0/ROOT ././5/punct",
        "The/DT/2/det president/NN/3/nsubj smiled/VBD/0/ROOT ././3/punct",
        "The/DT/2/det president/NN/3/nsubj left/VBD/0/ROOT ././3/punct")
    long, p1, p2 = t["The president of Peru"][0], t["The president"][0], t["The president"][1]
    assert S.exact_string_match(p2, p1, st, pd)
    assert not S.exact_string_match(p1, long, st, pd)
    assert S.relaxed_string_match(p1, long, st, pd)
    # pronouns never string-match
    pd2, _, st2, t2 = setup(JOHN_SAID, "He/PRP/2/nsubj left/VBD/0/ROOT ././2/punct",
                            "he/PRP/2/nsubj ran/VBD/0/ROOT ././2/punct")
    assert not S.exact_string_match(t2["he"][1], t2["he"][0], st2, pd2)


def test_appositive_and_predicate_nominative():
    pd, ms, st, t = setup(
        "Acme/NNP/6/nsubj/B-ORG ,/,/1/punct the/DT/4/det company/NN/1/appos ,/,/1/punct grew/VBD/0/ROOT ././6/punct",
        "Smith/NNP/2/nsubj/B-PERSON is/VBZ/0/ROOT a/DT/4/det lawyer/NN/2/attr ././2/punct")
    assert S.appositive(t["the company"][0], t["Acme"][0], st, pd)
    assert S.predicate_nominative(t["a lawyer"][0], t["Smith"][0], st, pd)
    assert not S.predicate_nominative(t["a lawyer"][0], t["Acme"][0], st, pd)
    assert not S.appositive(t["a lawyer"][0], t["Smith"][0], st, pd)


def test_relative_pronoun():
    pd, ms, st, t = setup("The/DT/2/det man/NN/5/nsubj who/WP/4/nsubj left/VBD/2/relcl smiled/VBD/0/ROOT ././5/punct")
    who, man = t["who"][0], t["The man who left"][0]
    assert S.relative_pronoun(who, man, st, pd)
    assert man in candidate_order(who, ms)  # the NP containing a relative pronoun is a candidate


def test_role_appositive():
    pd, ms, st, t = setup("actress/NN/3/appos/O Rebecca/NNP/3/compound/B-PERSON Schaeffer/NNP/4/nsubj/I-PERSON "
                          "died/VBD/0/ROOT ././4/punct")
    role, name = t["actress"][0], t["Rebecca Schaeffer"][0]
    role.animacy = "ANIMATE"
    assert S.role_appositive(name, role, st, pd)


def test_acronym_and_demonym():
    pd, ms, st, t = setup(
        "NASA/NNP/2/nsubj/B-ORG launched/VBD/0/ROOT ././2/punct",
        "The/DT/3/det Space/NNP/3/compound/B-ORG Agency/NNP/4/nsubj/I-ORG grew/VBD/0/ROOT ././4/punct",
        "National/NNP/4/compound/B-ORG Aeronautics/NNP/4/compound/I-ORG Space/NNP/4/compound/I-ORG "
        "Administration/NNP/5/nsubj/I-ORG won/VBD/0/ROOT ././5/punct")
    nasa, long = t["NASA"][0], t["National Aeronautics Space Administration"][0]
    assert S.acronym(long, nasa, st, pd)
    assert not S.acronym(t["The Space Agency"][0], nasa, st, pd)
    pd2, _, st2, t2 = setup("Americans/NNPS/2/nsubj/B-NORP voted/VBD/0/ROOT ././2/punct",
                            "America/NNP/2/nsubj/B-GPE won/VBD/0/ROOT ././2/punct")
    assert S.demonym(t2["America"][0], t2["Americans"][0], st2, pd2)


def test_head_match_sieves():
    pd, ms, st, t = setup(
        "The/DT/3/det Italian/JJ/3/amod chef/NN/4/nsubj cooked/VBD/0/ROOT ././4/punct",
        "The/DT/2/det chef/NN/3/nsubj smiled/VBD/0/ROOT ././3/punct",
        "The/DT/3/det French/JJ/3/amod chef/NN/4/nsubj left/VBD/0/ROOT ././4/punct")
    italian, chef, french = t["The Italian chef"][0], t["The chef"][0], t["The French chef"][0]
    assert S.strict_head_match_a(chef, italian, st, pd)  # no new modifiers
    assert not S.strict_head_match_a(french, italian, st, pd)  # "French" is not in the antecedent
    assert not S.strict_head_match_b(french, italian, st, pd)  # word inclusion fails too
    assert not S.strict_head_match_c(french, italian, st, pd)


def test_proper_head_match_and_location_mismatch():
    pd, ms, st, t = setup(
        "North/NNP/2/compound/B-GPE Carolina/NNP/3/nsubj/I-GPE voted/VBD/0/ROOT ././3/punct",
        "South/NNP/2/compound/B-GPE Carolina/NNP/3/nsubj/I-GPE won/VBD/0/ROOT ././3/punct",
        "Bill/NNP/2/compound/B-PERSON Clinton/NNP/3/nsubj/I-PERSON spoke/VBD/0/ROOT ././3/punct",
        "Clinton/NNP/2/nsubj/B-PERSON left/VBD/0/ROOT ././2/punct")
    assert not S.proper_head_match(t["South Carolina"][0], t["North Carolina"][0], st, pd)
    assert S.proper_head_match(t["Clinton"][0], t["Bill Clinton"][0], st, pd)
    assert S.relaxed_head_match(t["Clinton"][0], t["Bill Clinton"][0], st, pd)


def test_pronoun_agreement_uses_cluster_attributes():
    pd, ms, st, t = setup(JOHN_SAID, MARY_MET, SHE_SMILED)
    john, he, mary, him, she = t["John"][0], t["he"][0], t["Mary"][0], t["him"][0], t["She"][0]
    assert S.pronoun_match(he, john, st, pd)
    assert S.pronoun_match(she, mary, st, pd)
    # binding: "Mary met him" - co-arguments of one verb cannot corefer (not reflexive)
    assert not S.pronoun_match(him, mary, st, pd)
    # once John's cluster has "he" (male), "She" cannot join it although John alone is untyped
    assert S.pronoun_match(she, john, st, pd)
    st.merge(he, john)
    assert not S.pronoun_match(she, john, st, pd)
    assert st.same(he, john) and not st.is_first(he)


def test_it_does_not_take_a_person():
    pd, ms, st, t = setup(JOHN_SAID, "It/PRP/2/nsubj broke/VBD/0/ROOT ././2/punct")
    assert not S.pronoun_match(t["It"][0], t["John"][0], st, pd)


def test_same_person_pronoun():
    pd, ms, st, t = setup("I/PRP/2/nsubj left/VBD/0/ROOT ././2/punct", "I/PRP/2/nsubj came/VBD/0/ROOT ././2/punct",
                          "We/PRP/2/nsubj came/VBD/0/ROOT ././2/punct")
    i1, i2, we = t["I"][0], t["I"][1], t["We"][0]
    assert S.same_person_pronoun(i2, i1, st, pd)
    assert not S.same_person_pronoun(we, i1, st, pd)


def test_candidate_order_salience():
    pd, ms, st, t = setup("John/NNP/2/nsubj/B-PERSON saw/VBD/0/ROOT Bill/NNP/2/dobj/B-PERSON ././2/punct",
                          "Mary/NNP/2/nsubj/B-PERSON met/VBD/0/ROOT Tom/NNP/2/dobj/B-PERSON and/CC/2/cc "
                          "he/PRP/7/nsubj smiled/VBD/2/conj ././2/punct")
    he = t["he"][0]
    order = [" ".join(c.words) for c in candidate_order(he, ms)]
    # same sentence by prominence (breadth-first), then the previous sentence, subjects first
    assert order == ["Mary", "Tom", "John", "Bill"]
    assert [" ".join(c.words) for c in candidate_order(he, ms, max_sentence_distance=0)] == ["Mary", "Tom"]
