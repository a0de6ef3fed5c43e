"""Triad tests (Potato's triad_test): the designs are Potato 2.12.1's (cultural_domain.triads; the expected values
below are its output), and an answer is read as Potato keeps it, the triads in the order and places shown."""

import json

import pytest

from designs.potato import UploadedFolder, import_config
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.schemes.triad_test import fnv1a, resolve, sample, steiner


def test_the_designs_and_the_hash_are_potato_s():
    assert steiner(7) == [(0, 1, 3), (0, 2, 4), (0, 5, 6), (1, 2, 6), (1, 4, 5), (2, 3, 5), (3, 4, 6)]
    assert sample(6, 5, fnv1a("x")) == [(2, 3, 5), (0, 1, 4), (1, 3, 4), (0, 2, 5), (0, 3, 4)]
    assert (fnv1a("triad"), fnv1a("é")) == (3312977515, 513665217)
    assert [resolve(size, "auto", None) for size in (4, 6, 7, 8, 9)] == [
        "complete", "complete", "steiner", "sample", "steiner"]
    assert resolve(8, "steiner", None) == "sample"  # no Steiner system on 8: a sample, as in Potato
    for size in (7, 9, 13, 15):  # every pair of items together in exactly one triad
        pairs = [pair for a, b, c in steiner(size) for pair in ((a, b), (a, c), (b, c))]
        assert sorted(pairs) == [(x, y) for x in range(size) for y in range(x + 1, size)]


CONFIG = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
          b"  - {annotation_type: triad_test, name: odd, items_field: things%s}\n")
ITEMS = b'{"id": "1", "text": "x", "things": ["a", {"name": "b"}, "c", "d", "a"]}\n'


def _scheme(extra=b""):
    found = import_config(CONFIG % extra, name="c.yaml", folder=UploadedFolder({"items.jsonl": ITEMS}))
    assert found.ok, found.errors
    scheme = found.design.scheme("odd")
    return found, scheme, SCHEME_TYPES.of(scheme), Record("1", "x", json.loads(ITEMS))


def test_a_triad_test_is_read_in_the_order_shown():
    """The item's domain without repeats; the triads in the order the page showed them, each in its places; a
    triad left open is null, as Potato keeps it (unless required); a triad that is not the item's is refused;
    agreement per triad whatever its order; told to a model; Potato's JSON."""
    from designs.llm import messages

    found, scheme, kind, record = _scheme()
    context = kind.widget_context(scheme, record, "a", {})
    assert context["design"] == "complete"
    assert [triad["items"] for triad in context["triads"]] == [["a", "b", "c"], ["a", "b", "d"], ["a", "c", "d"],
                                                                ["b", "c", "d"]]
    assert kind.read(scheme, Fields({}, "a"), record) is None
    sent = {"a-order": "[2, 0, 3, 1]", "a-2-shown": '["d", "a", "c"]', "a-2": "d", "a-0-shown": '["c", "b", "a"]',
            "a-0": "b", "a-3-shown": '["b", "d", "c"]', "a-1-shown": '["a", "b", "d"]'}
    answer = kind.read(scheme, Fields(sent, "a"), record)
    assert answer == {"design": "complete", "triads": [["d", "a", "c", "d"], ["c", "b", "a", "b"],
                                                       ["b", "d", "c", None], ["a", "b", "d", None]]}
    again = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer, record).items()}
    assert kind.read(scheme, Fields(again, "a"), record) == answer
    assert kind.units(scheme, answer) == {"a|c|d": "d", "a|b|c": "b"}
    assert kind.combine(scheme, [answer, answer, {"design": "complete", "triads": [["a", "c", "d", "a"]]}]) == {
        "design": "complete", "triads": [["a", "c", "d", "d"], ["a", "b", "c", "b"]]}
    assert json.loads(kind.potato_answer(scheme, answer, record)["labels"]["odd"]) == answer
    assert "Triads: 1. a, b, c; 2. a, b, d; 3. a, c, d; 4. b, c, d." in messages(found.design, record)[-1]["content"]
    with pytest.raises(AnswerProblem, match="triad 1 is not one of this item's"):
        kind.read(scheme, Fields({**sent, "a-0-shown": '["a", "b", "x"]'}, "a"), record)
    with pytest.raises(AnswerProblem, match="'x' is not in triad 1"):
        kind.read(scheme, Fields({**sent, "a-0": "x"}, "a"), record)
    # A form edited by hand: an order that is no list of places, a triad given as numbers. Refused, not a crash.
    for order in ("1e308", '[0, "a", 2, 3]', '{"a": 1}'):
        with pytest.raises(AnswerProblem, match="the triads' order could not be read"):
            kind.read(scheme, Fields({**sent, "a-order": order}, "a"), record)
    digits = Record("2", "x", {"things": ["1", "2", "3", "4"]})
    numbers = {"a-order": "[0, 1, 2, 3]", "a-0-shown": "[1, 2, 3]", "a-0": "4"}
    with pytest.raises(AnswerProblem, match=r"'4' is not in triad 1 \(1, 2, 3\)"):
        kind.read(scheme, Fields(numbers, "a"), digits)
    _, required, kind, record = _scheme(b", label_requirement: {required: true}")
    with pytest.raises(AnswerProblem, match="answer 2 more triads"):
        kind.read(required, Fields(sent, "a"), record)


@pytest.mark.parametrize(("scheme", "said"), [
    (b"labels: [a, b], design: auto", "labels must name at least three different items"),
    (b"labels: [a, b, c, d], design: steiner", "design: steiner needs a number of items that is 1 or 3 mod 6"),
    (b"labels: [a, b, c], items_field: x", "give the domain as labels or as items_field, not both"),
    (b"labels: [a, b, c], design: balanced", "design"),
])
def test_a_triad_test_potato_would_refuse_is_an_error_at_its_line(scheme, said):
    config = (b"annotation_task_name: T\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: triad_test, name: odd, " + scheme + b"}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": ITEMS}))
    assert not found.ok and any(error.startswith("c.yaml:4:") and said in error for error in found.errors), \
        found.errors


def test_an_item_without_its_domain_is_an_error_at_its_line():
    found = import_config(CONFIG % b"", name="c.yaml", folder=UploadedFolder({"items.jsonl": b'{"id": "9", "text": '
                                                                              b'"x", "things": ["a", "a", "b"]}\n'}))
    assert any("item '9' has 2 different items under 'things'; a triad test needs 3 to 60" in error
               for error in found.errors), found.errors
