"""A design's item as a model is asked it, and a model's reply read as a person's answers are (designs.llm)."""

import json
import math

import pytest

from designs.llm import Refused, answer_schema, estimate_tokens, messages, prompt_version, read_reply, settle
from designs.loader import load_text
from designs.schemes.base import Record

DESIGN = """
title: Counterfactuals
instructions: Does the sentence say what did not happen?
items: {show: [source]}
llm:
  prompt: Think of the grammar of the sentence.
  max_tokens: 40
annotation_schemes:
  - annotation_type: radio
    name: cf
    description: Is it counterfactual?
    label_requirement: {required: true}
    labels: [{name: "yes", description: It is}, "no"]
  - annotation_type: likert
    name: sure
    description: How sure are you?
    instructions: "1 is a guess,\n\n5 is certain."
    size: 5
  - annotation_type: text
    name: why
    description: Why not?
    display_logic: {show_when: [{schema: cf, operator: equals, value: "no"}]}
"""
RECORD = Record(id="s1", text="Had it rained, we would have stayed in.", fields={"source": "a forum"})


def test_the_answer_s_schema_is_the_schemes_own():
    design = load_text(DESIGN, name="cf.yaml")
    schema = answer_schema(design)
    assert schema["required"] == ["cf"] and schema["additionalProperties"] is False  # why is conditional
    assert schema["properties"]["cf"] == {"type": "string", "enum": ["yes", "no"]}
    assert schema["properties"]["sure"]["type"] == "integer" and set(schema["properties"]) == {"cf", "sure", "why"}


def test_the_model_is_told_what_annotators_are_told():
    design = load_text(DESIGN, name="cf.yaml")
    system, user = messages(design, RECORD)
    assert "Does the sentence say what did not happen?" in system["content"]
    assert system["content"].endswith("Think of the grammar of the sentence.")
    assert "- cf: Is it counterfactual? Options: yes (It is), no." in user["content"]
    assert "- why: Why not? (Answer only if it applies.)" in user["content"]
    assert "- sure: How sure are you? (1 is a guess, 5 is certain.)" in user["content"]  # its instructions too
    assert user["content"].endswith("Item:\nsource: a forum\nText: Had it rained, we would have stayed in.")
    # Another prompt, or another model, is another annotator.
    changed = load_text(DESIGN.replace("Think of the grammar", "Think of the tense"), name="cf.yaml")
    assert prompt_version(design, "m") != prompt_version(changed, "m") != prompt_version(changed, "n")
    assert len(prompt_version(design, "m")) == 8
    tokens = estimate_tokens(design, [RECORD, RECORD])
    assert tokens["most_tokens_out"] == 80 and tokens["tokens_in"] > 2 * len(RECORD.text) // 4
    # The bound counts a token a byte: never below what a byte-level tokenizer would count.
    said = sum(len(message["content"].encode()) for message in messages(design, RECORD))
    assert tokens["most_tokens_in"] >= 2 * said > tokens["tokens_in"]


def test_a_reply_is_read_as_a_person_s_answers():
    design = load_text(DESIGN, name="cf.yaml")
    answers, problems = read_reply(design, RECORD, json.dumps({"cf": "no", "sure": 4, "why": "It rained."}))
    assert answers == {"cf": "no", "sure": 4, "why": "It rained."} and problems == []
    # An answer its condition hides does not count; one that does not fit is left out by name.
    answers, problems = read_reply(design, RECORD, json.dumps({"cf": "yes", "sure": 9, "why": "x"}))
    assert answers == {"cf": "yes"} and [name for name, _ in problems] == ["sure"]


@pytest.mark.parametrize("reply, finish, said", [
    ('{"cf": "ye', "length", "the answer was cut off at max_tokens"),
    ("yes", "stop", "the reply is not JSON"),
    ('["yes"]', "stop", "the reply is a JSON list, not an object of answers"),
    ('{"sure": 3}', "stop", "required cf not answered"),
    ('{"cf": "maybe"}', "stop", "required cf not answered (cf: 'maybe' is not one of the labels (yes, no))"),
])
def test_a_reply_that_is_no_answer_is_refused_saying_why(reply, finish, said):
    design = load_text(DESIGN, name="cf.yaml")
    with pytest.raises(Refused) as refused:
        read_reply(design, RECORD, reply, finish)
    assert str(refused.value).startswith(said), str(refused.value)


def test_samples_settle_on_each_question_s_most_given_answer_with_its_share():
    design = load_text(DESIGN, name="cf.yaml")
    answers, confidence = settle(design, [{"cf": "yes", "sure": 4}, {"cf": "no", "sure": 4}, {"cf": "yes"}], 4)
    # Four asked, three read: "yes" twice of four, 4 twice of four; a tie goes to the first given.
    assert answers == {"cf": "yes", "sure": 4} and confidence == {"cf": 0.5, "sure": 0.5}
    assert settle(design, [{"cf": "no"}, {"cf": "yes"}], 2) == ({"cf": "no"}, {"cf": 0.5})


def test_the_position_check_asks_with_every_option_the_other_way_round():
    design = load_text(DESIGN, name="cf.yaml")
    assert answer_schema(design, reverse=True)["properties"]["cf"]["enum"] == ["no", "yes"]
    user = messages(design, RECORD, reverse=True)[-1]["content"]
    assert "- cf: Is it counterfactual? Options: no, yes (It is)." in user


def test_a_confidence_is_the_probability_of_the_answer_s_own_tokens():
    from designs.llm import logprob_confidence

    tokens = [("{", -0.01), ('"cf"', -0.02), (": ", 0.0), ('"', -0.1), ("ye", -0.5), ('s"', -0.2), (", ", 0.0),
              ('"n"', 0.0), (":", 0.0), (" 3", -1.0), ("}", 0.0)]
    found = logprob_confidence('{"cf": "yes", "n": 3}', tokens)
    assert found == {"cf": pytest.approx(math.exp(-0.8), rel=1e-3), "n": pytest.approx(math.exp(-1.0), rel=1e-3)}
    assert logprob_confidence('{"cf": "no"}', tokens) == {}  # tokens that do not spell the reply say nothing
    assert logprob_confidence("not json", [("not json", -1.0)]) == {}
