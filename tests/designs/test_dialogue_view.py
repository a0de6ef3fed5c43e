"""A dialogue drawn with the design's view of it (items.dialogues), as Potato's dialogue display draws it: depths from
the data or counted up the reply chain, timestamps in Potato's three styles."""

from designs.dialogue import depths, drawn
from designs.model import DialogueView

THREAD = [{"id": "a", "speaker": "A", "text": "1", "timestamp": 100},
          {"id": "b", "speaker": "B", "text": "2", "reply_to": "a", "timestamp": 90},
          {"id": "c", "speaker": "C", "text": "3", "reply_to": "b", "timestamp": "later"},
          {"id": "d", "speaker": "D", "text": "4", "reply_to": "d"},  # replies to itself: a cycle, depth 0
          {"speaker": "E", "text": "5", "reply_to": "gone", "timestamp": 100 + 2 * 86400}]


def test_depths_are_the_data_s_or_counted_up_the_reply_chain():
    assert depths(THREAD, "depth", "reply_to") == [0, 1, 2, 0, 0]
    given = [{**turn, "depth": depth} for turn, depth in zip(THREAD, (0, 3, None, "x", -2), strict=True)]
    assert depths(given, "depth", "reply_to") == [0, 3, 0, 0, 0]  # any depth given wins; what is not a number is 0
    # An id or a reply_to that is a mapping or a list names no turn (it crashed the count): the turn is a root.
    odd = [{**THREAD[0], "id": {"x": 1}}, {**THREAD[1], "reply_to": ["a"]}, *THREAD[2:]]
    assert depths(odd, "depth", "reply_to") == [0, 0, 1, 0, 0]


def test_a_view_indents_caps_and_stamps_the_turns():
    said = drawn(THREAD, DialogueView(indent_replies=True, max_indent_depth=1, timestamps="relative",
                                      max_height=300), numbered=True)
    assert said.max_height == "300px" and said.threaded and said.reply_lines
    assert [(turn["number"], turn["depth"], turn["indent"]) for turn in said] == [
        (1, 0, 0), (2, 1, 1), (3, 2, 1), (4, 0, 0), (5, 0, 0)]
    # From the earliest time (90, the second turn's), as Potato counts; a time that is no number is not shown.
    assert [turn.get("stamp") for turn in said] == ["+10s", "start", None, None, "+2d"]
    absolute = drawn(THREAD, DialogueView(timestamps="absolute", max_height="40vh"))
    assert absolute.max_height == "40vh" and absolute[0]["stamp"] == "1970-01-01 00:01"
    assert [turn.get("stamp") for turn in drawn(THREAD, DialogueView(timestamps="epoch"))] == [
        "100", "90", None, None, "172900"]
    assert drawn(THREAD, None) == drawn(THREAD, DialogueView())  # no view: the turns as they were


def test_a_height_that_is_no_length_is_refused():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="is not a length"):
        DialogueView(max_height="300px; color: red")


def test_a_turn_s_metadata_is_shown_as_potato_shows_it():
    """Each field of meta_fields the turn's meta has, and that is a text, a number or a truth, "name: value", a
    fraction to three figures, joined by "  ·  "; a turn without meta shows none."""
    turns = [{"speaker": "A", "text": "1", "meta": {"score": 0.8731, "flagged": False, "tags": ["x"]}},
             {"speaker": "B", "text": "2", "info": {"score": 3, "flagged": None}},
             {"speaker": "C", "text": "3", "meta": "not an object"}]
    said = drawn(turns, DialogueView(meta_fields=["score", "flagged", "tags"]))
    assert [turn.get("meta") for turn in said] == ["score: 0.873  ·  flagged: false", None, None]
    said = drawn(turns, DialogueView(meta_fields=["score", "flagged"], meta_key="info"))
    assert [turn.get("meta") for turn in said] == [None, "score: 3", None]
