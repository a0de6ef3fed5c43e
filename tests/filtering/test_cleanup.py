"""Text clean-up at ingest: HTML reduced to its text, entities decoded, typographic apostrophes read as
plain ones by the filter, and sentence ends without a space split, with offsets into the stored text."""

import json

import pytest

from filtering import nlp
from filtering.models import Document
from filtering.patterns import CandidateFilter
from filtering.services import corpus_ingest

ENGINE = CandidateFilter("extended")


@pytest.mark.parametrize(("dressed", "plain"), [
    ("The plan wouldn&#39;t have failed.", "The plan wouldn't have failed."),
    ("&quot;Had I known, I would have sold,&quot; she said.", '"Had I known, I would have sold," she said.'),
    ("The plan wouldn\u2019t have failed.", "The plan wouldn't have failed."),
    ("The plan wouldn\u2018t have failed.", "The plan wouldn't have failed."),
    ("I wish I\u2019d known sooner.", "I wish I'd known sooner."),
    ("We would\u2019ve won.", "We would've won."),
])
def test_entities_and_typographic_apostrophes_match_like_their_plain_forms(dressed, plain):
    cleaned = nlp.normalize(dressed)
    assert ENGINE.match(cleaned).rows == ENGINE.match(plain).rows != ()


def test_plain_text_keeps_its_ampersands_and_angle_brackets():
    assert nlp.normalize("AT&T and R&D said 3 < 4 > 2.") == "AT&T and R&D said 3 < 4 > 2."
    assert nlp.normalize("Fish &chips; &amp; more") == "Fish &chips; & more"  # unknown entities stay


def test_an_html_document_becomes_its_text():
    text = nlp.normalize("<html><head><style>p {color: red}</style></head><body><h1>Rates</h1>"
                         "<p>If only the bank had waited.<br>It did not.</p><script>alert(1)</script>"
                         "<p>AT&amp;T said &lt;no&gt;.</p></body></html>")
    assert text == "Rates\n\nIf only the bank had waited.\nIt did not.\n\nAT&T said <no>."


def test_a_sentence_end_without_a_space_is_split_with_exact_offsets():
    text = "The talks stop.If only I had gone. The U.S.Senate met. Prices rose 3.5% today."
    spans = list(nlp.split_sentences(text))
    sentences = [text[start:end] for start, end in spans]
    assert sentences[:2] == ["The talks stop.", "If only I had gone."]
    assert "The U.S.Senate met." in sentences  # upper-case before the stop: an abbreviation, left whole
    assert all(text[start:end] == sentence for (start, end), sentence in zip(spans, sentences, strict=True))


@pytest.mark.django_db
def test_ingest_stores_the_clean_text_and_offsets_index_it(tmp_path):
    path = tmp_path / "news.jsonl"
    path.write_text(json.dumps({"id": "d1", "domain": "finance", "text": "<p>Shares fell.Had we known, we "
                                "wouldn&#39;t have bought.</p><p>The end.</p>"}) + "\n", encoding="utf-8")
    corpus_ingest(path=path, corpus_name="html")
    document = Document.objects.get(external_id="d1")
    assert document.text == "Shares fell.Had we known, we wouldn't have bought.\n\nThe end."
    sentences = list(document.sentences.order_by("start"))
    assert [s.text for s in sentences] == ["Shares fell.", "Had we known, we wouldn't have bought.", "The end."]
    assert all(document.text[s.start:s.end] == s.text for s in sentences)
    assert ENGINE.match(sentences[1].text).candidate
