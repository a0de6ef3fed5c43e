"""The fast paths give the same answers as the plain ones, on real text."""

import csv
import itertools
import json

import nltk
import pytest
from django.conf import settings

from filtering import nlp
from filtering.patterns import PROFILES, CandidateFilter


def _corpus_sentences():
    with open(settings.SHARED_DIR / "corpora" / "news_sample.jsonl", encoding="utf-8") as handle:
        for line in handle:
            text = nlp.normalize(json.loads(line)["text"])
            for start, end in nlp.split_sentences(text):
                yield text[start:end]
    with open(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            yield row["sentence"]


@pytest.fixture(scope="module")
def sentences():
    if not (settings.SHARED_DIR / "corpora").exists():
        pytest.skip(f"the shared corpora are not at {settings.SHARED_DIR}")
    return list(_corpus_sentences())


@pytest.mark.slow
def test_it_tags_exactly_as_nltk(sentences):
    # Every 7th sentence of both corpora: ~4,500 sentences, all kinds of tokens.
    reference = nltk.tag.PerceptronTagger()
    for sentence in itertools.islice(sentences, 0, None, 7):
        tokens = nlp.tokenize(sentence)
        assert nlp.pos_tag(tokens) == [tag for _, tag in reference.tag(tokens)], sentence


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_it_decides_the_same_with_and_without_the_prefilter(sentences, profile):
    """The screens (gate words, cheap words, adjacent runs) only ever skip sentences no row can match."""
    fast, plain = CandidateFilter(profile), CandidateFilter(profile, prefilter=False)
    for sentence in sentences:
        assert fast.match(sentence) == plain.match(sentence), sentence
