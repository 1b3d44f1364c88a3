"""What a reviewer sees of a case, per task: the edit marked, only the edited sentences of a document, the
expectation in words, the questions."""

from __future__ import annotations

from tests.review import review_fixtures as fx

from lingtest.review.views import (
    Block,
    expected_words,
    questions,
    review_item,
    shown_sentences,
)


def words(block: Block, kind: str | None = None) -> list[str]:
    return [s.text for line in block.lines for s in line if kind is None or s.kind == kind]


def text(block: Block) -> list[str]:
    """Each line as plain text (segments joined as the renderers join them)."""
    out = []
    for line in block.lines:
        parts = []
        for k, s in enumerate(line):
            parts.append((" " if k and s.space else "") + s.text)
        out.append("".join(parts))
    return out


def test_a_document_shows_the_edited_sentence_with_one_sentence_of_context():
    item = review_item(fx.crest_case(), task="coref", group="replace:vectors")
    source, followup = item.blocks
    assert (source.title, followup.title) == ("source", "follow-up")
    assert text(source) == ["…", "2│ [She]1 was tired .", "3│ [Her]1 race was long .", "4│ Bo cooked .", "…"]
    assert text(followup) == ["…", "2│ [She]1 was tired .", "3│ [Her]1 battle was long .", "4│ Bo cooked .", "…"]
    assert words(source, "del") == ["race"] and words(followup, "ins") == ["battle"]
    assert item.edit == "replace:vectors: race → battle"
    assert item.expected.startswith("the coreference clusters stay the same")
    assert ("brackets", "gold mentions, numbered by cluster") in item.facts
    assert item.capability is None and [q.field for q in questions(item)] == ["well_formed", "label_correct"]
    assert questions(item)[1].prompt == "relation correct?"


def test_shown_sentences_keep_the_first_edited_ones_and_count_the_rest():
    assert shown_sentences([0], 5) == ([0, 1], 0)
    assert shown_sentences([2, 3], 5) == ([1, 2, 3, 4], 0)
    assert shown_sentences([1, 5, 9, 12], 14, max_edited=2) == ([0, 1, 2, 4, 5, 6], 2)


def test_a_document_with_many_edits_says_what_it_leaves_out():
    case = fx.crest_case()
    for s in case.followup["sentences"]:
        s["tokens"][-1]["text"] = "!"
    item = review_item(case, task="coref", group="g", max_edited=2)
    assert ("note", "3 more edited sentences not shown") in item.facts
    assert text(item.blocks[1])[:3] == ["1│ [Anna]1 came home !", "2│ [She]1 was tired !",
                                        "3│ [Her]1 battle was long !"]


def test_an_ner_mutant_marks_the_recorded_change_and_the_gold_entities():
    item = review_item(fx.tin_case(), task="ner", group="token")
    source, mutant = item.blocks
    assert (source.title, mutant.title) == ("source", "mutant")
    assert text(source) == ["[Anna]PER lives in [Paris]LOC ."]
    assert words(source, "del") == ["lives"] and words(mutant, "ins") == ["resides"]
    assert item.expected.startswith("every entity found in both sentences keeps its label")
    assert item.edit == "token: lives → resides"


def test_a_classification_pair_is_a_word_diff():
    case = fx.text_cases(8)[3]
    item = review_item(case, task="classification", group="synonym")
    assert text(item.blocks[0]) == ["the film number 3 was good"] and text(item.blocks[1]) == [
        "the movie number 3 was good"]
    assert words(item.blocks[0], "del") == ["film"] and words(item.blocks[1], "ins") == ["movie"]
    assert item.edit == "synonym: 1 word changed"
    assert item.expected == "the label is positive" and questions(item)[1].prompt == "label correct?"


def test_an_expansion_is_shown_against_its_seed_and_a_template_against_its_sentence():
    cases = fx.s2lct_cases()
    by_id = {c.id: c for c in cases}
    caps = {"LC1": "Short sentences with sentiment", "LC6": "Negation at the end"}
    exp = review_item(cases[3], task="classification", group="LC1", capabilities=caps, by_id=by_id)
    assert [b.title for b in exp.blocks] == ["seed case", "expansion"]
    assert words(exp.blocks[1], "ins") == ["old"]
    assert exp.edit == "s2lct:LC1:0:exp: filled {JJ} with 'old'"
    assert exp.capability == "LC1: Short sentences with sentiment"
    assert [q.field for q in questions(exp)] == ["well_formed", "label_correct", "relevance"]
    alone = review_item(cases[3], task="classification", group="LC1", capabilities=caps, by_id={})
    assert [b.title for b in alone.blocks] == ["masked template", "expansion"]
    seed = review_item(cases[0], task="classification", group="LC1", capabilities=caps, by_id=by_id)
    assert [b.title for b in seed.blocks] == ["text"] and seed.edit == "s2lct:LC1:0:seed"
    template = review_item(cases[2], task="classification", group="LC6", capabilities=caps, by_id=by_id)
    assert [b.title for b in template.blocks] == ["corpus sentence", "test case"]
    assert template.expected == "the label is positive or neutral"


def test_a_contrapro_case_shows_the_reference_the_candidates_and_the_edit():
    item = review_item(fx.contrapro_case(), task="contrastive", group="synonym/synonym")
    titles = [b.title for b in item.blocks]
    assert titles == ["source context", "source", "target context", "reference translation (correct)",
                      "contrastive 1", "contrastive 2", "edit of ref_context: before", "edit of ref_context: after"]
    assert words(item.blocks[4], "ins") == ["Sie"] and words(item.blocks[5], "ins") == ["Er"]
    assert words(item.blocks[6], "del") == ["Der Plan"] and words(item.blocks[7], "ins") == ["Das Vorhaben"]
    assert item.edit == "synonym/synonym: edited ref_context, contrastive[0]"
    assert item.expected == "the reference translation scores above every contrastive candidate"


def test_a_contracat_case_takes_its_reference_from_the_expectation():
    item = review_item(fx.contracat_case(), task="contrastive", group="0_priors/position")
    blocks = {b.title: text(b) for b in item.blocks}
    assert blocks["reference translation (correct)"] == ["Es war riesig."]
    assert blocks["contrastive 1"] == ["Sie war riesig."] and blocks["contrastive 2"] == ["Er war riesig."]
    assert item.edit == "0_priors/position: template filled with A=zebra, S=large"


def test_expectations_in_words():
    case = fx.text_cases(1)[0]
    for expected, task, words_ in [
            ("invariance", "ner", "the same entities, with the same labels, in both sentences"),
            ({"name": "direction", "label": "positive", "increasing": False}, "classification",
             "the probability of positive falls from the source to the follow-up"),
            ("tin-mr2", "ner", "the same entities with the same labels in both sentences"),
            ({"name": "mystery", "k": 1}, "ner", 'mystery {"k": 1}')]:
        case.expected = expected
        assert expected_words(case, task) == words_


def test_a_prior_template_has_no_correct_answer_and_no_label_question():
    """ContraCAT's prior templates measure a system's preference: nothing is shown as correct and the
    label question is not asked (a reviewer would otherwise grade a convention)."""
    import dataclasses

    from lingtest.review.views import questions

    prior = dataclasses.replace(fx.contracat_case(), meta={"template": "0_priors/position", "prior": True})
    item = review_item(prior, task="contrastive", group="0_priors/position")
    assert not item.graded and [q.field for q in questions(item)] == ["well_formed"]
    assert all("(correct)" not in b.title for b in item.blocks) and "no candidate is correct" in item.blocks[-3].title
    assert item.expected.startswith("none: a prior template")
    graded = review_item(fx.contracat_case(), task="contrastive", group="0_priors/position")
    assert graded.graded and [q.field for q in questions(graded)] == ["well_formed", "label_correct"]
