"""Interlinear glossed text (Potato's interlinear_gloss): the Leipzig checks say what Potato 2.12.1's potato.igt says
for the same cells (the expected values below are its output), and an answer is read as Potato keeps it."""

import json

import pytest

from designs.potato import UploadedFolder, import_config
from designs.schemes import SCHEME_TYPES, AnswerProblem, Fields, Record
from designs.schemes.interlinear_gloss import LEIPZIG, check_word, unknown_labels, words


@pytest.mark.parametrize(("morphemes", "gloss", "status", "said"), [
    ("ev-ler-de", "house-PL-LOC", "ok", []),
    ("ev-ler", "house", "misaligned", ["segmentation has 1 boundary (-), gloss has no boundaries"]),
    ("", "cat", "incomplete", ["no segmentation yet"]),
    ("kedi", "", "incomplete", ["no gloss yet"]),
    ("ev=de", "house-LOC", "misaligned", ["segmentation has 1 boundary (=), gloss has 1 boundary (-)"]),
    ("s<um>ulat", "write<AV>", "ok", []),
    ("s<um>ulat", "write", "misaligned", ["segmentation has 2 boundaries (<>), gloss has no boundaries"]),
    ("ev--de", "house-PL-LOC", "misaligned", ["empty morpheme at position 2"]),
    ("ev-ler-de", "house--LOC", "misaligned", ["no gloss for morpheme 2"]),
    ("ev ler", "house PL", "misaligned", ["the segmentation holds a space: join morphemes with - or =",
                                          "the gloss holds a space: join the words of one gloss with . (rule 4)"]),
    ("", "", "empty", []),
])
def test_a_word_is_checked_as_potato_checks_it(morphemes, gloss, status, said):
    assert check_word(morphemes, gloss) == (status, said)


@pytest.mark.parametrize(("gloss", "unknown"), [
    ("cat-PL.XYZ", ["XYZ"]), ("1SG-NPST", []), ("3PL.ERG", []), ("PLLOC-Ø", ["PLLOC"]), ("go-3SG.M", []),
    ("do-Q.FOO.FOO", ["FOO"]),
])
def test_category_labels_not_in_the_leipzig_list_are_named_once(gloss, unknown):
    assert unknown_labels(gloss, LEIPZIG) == unknown
    assert unknown_labels(gloss, None) == []  # labels not checked


CONFIG = (b"annotation_task_name: G\ndata_files: [items.jsonl]\nannotation_schemes:\n"
          b"  - {annotation_type: interlinear_gloss, name: igt, description: Gloss, tiers: [pos], "
          b"abbreviations: [XYZ, leipzig], morphemes_field: m%s}\n")
ITEMS = (b'{"id": "1", "text": "\\u00ab Evlerde, kediler \\u2014 var! \\u00bb"}\n'
         b'{"id": "2", "text": "Kitab\\u0131 okudum", "m": ["kitab-\\u0131", "oku-du-m"]}\n')


def _scheme(extra=b""):
    found = import_config(CONFIG % extra, name="c.yaml", folder=UploadedFolder({"items.jsonl": ITEMS}))
    assert found.ok, found.errors
    scheme = found.design.scheme("igt")
    return found, scheme, SCHEME_TYPES.of(scheme), [Record(str(item["id"]), item["text"], item) for item in map(
        json.loads, ITEMS.splitlines())]


def test_a_gloss_is_read_as_potato_keeps_it():
    """The sentence's words without the punctuation at their edges; nothing typed is no answer, an item's own
    analysis is one untouched; the cells as typed, misaligned or not, unless the scheme is required; told to a
    model; Potato's JSON in an input of the scheme's name."""
    from designs.llm import messages

    found, scheme, kind, (first, second) = _scheme()
    assert words(scheme, first) == ["Evlerde", "kediler", "var"]
    assert kind.read(scheme, Fields({"a-0-morphemes": "Evlerde", "a-1-morphemes": "kediler", "a-2-morphemes": "var"},
                                    "a"), first) is None
    untouched = kind.read(scheme, Fields({"a-0-morphemes": "kitab-ı", "a-1-morphemes": "oku-du-m"}, "a"), second)
    assert untouched == {"words": [{"word": "Kitabı", "morphemes": "kitab-ı", "gloss": "", "pos": ""},
                                   {"word": "okudum", "morphemes": "oku-du-m", "gloss": "", "pos": ""}],
                         "translation": ""}
    typed = {"a-0-morphemes": "Ev-ler-de", "a-0-gloss": "house-PL", "a-0-tier0": "n", "a-1-morphemes": "kediler",
             "a-2-morphemes": "var", "a-translation": "In the houses"}
    answer = kind.read(scheme, Fields(typed, "a"), first)
    assert answer["words"][0] == {"word": "Evlerde", "morphemes": "Ev-ler-de", "gloss": "house-PL", "pos": "n"}
    sent = {f"a-{part}": text for part, text in kind.form_fields(scheme, answer, first).items()}
    assert kind.read(scheme, Fields(sent, "a"), first) == answer
    assert json.loads(kind.potato_answer(scheme, answer, first)["labels"]["igt"]) == answer
    assert "Words: Evlerde kediler var." in messages(found.design, first)[-1]["content"]
    _, required, kind, (first, _) = _scheme(b", label_requirement: {required: true}")
    with pytest.raises(AnswerProblem, match="word 1 \\('Evlerde'\\): segmentation has 2 boundaries \\(- -\\), gloss "
                                            "has 1 boundary \\(-\\)"):
        kind.read(required, Fields(typed, "a"), first)


@pytest.mark.parametrize(("extra", "said"), [
    (b", tiers: [gloss]", "tiers may not be named gloss"),
    (b", abbreviations: standard", "abbreviations must be 'leipzig', a list of labels or a mapping"),
])
def test_a_gloss_scheme_potato_would_refuse_is_an_error_at_its_line(extra, said):
    config = (b"annotation_task_name: G\ndata_files: [items.jsonl]\nannotation_schemes:\n"
              b"  - {annotation_type: interlinear_gloss, name: igt" + extra + b"}\n")
    found = import_config(config, name="c.yaml", folder=UploadedFolder({"items.jsonl": ITEMS}))
    assert not found.ok and any(error.startswith("c.yaml:4:") and said in error for error in found.errors), \
        found.errors
