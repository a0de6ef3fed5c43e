"""NLTK models, loaded from disk once per process. No Django here.

Nothing is downloaded at run time: the models must already be in a folder on
NLTK's search path (`use_nltk_data` adds ours). When they are missing the error
says what to install and where.
"""

import re
import unicodedata
from functools import cache

import nltk
import numpy as np

PUNKT = "tokenizers/punkt_tab/english"
TAGGER = "taggers/averaged_perceptron_tagger_eng"
_PACKAGES = {PUNKT: "punkt_tab", TAGGER: "averaged_perceptron_tagger_eng"}

# Abbreviations news text uses that Punkt's English model does not always know;
# without them "the U.S. Senate" or "Acme Inc. said" can be split in two.
EXTRA_ABBREVIATIONS = {"u.s", "u.k", "u.n", "inc", "corp", "co", "ltd", "jan", "feb", "mar", "apr", "jun",
                       "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mr", "mrs", "ms", "dr", "prof",
                       "gov", "sen", "rep", "st", "jr", "sr", "vs", "no"}

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")


class NltkDataMissing(RuntimeError):
    pass


def use_nltk_data(path):
    path = str(path)
    if path not in nltk.data.path:
        nltk.data.path.insert(0, path)


def require(resource):
    try:
        nltk.data.find(resource)
    except LookupError:
        package = _PACKAGES[resource]
        raise NltkDataMissing(
            f"NLTK model {resource!r} was not found in any of {nltk.data.path}. "
            f"Run `make setup` (it links ../shared/nltk_data or downloads the models once), "
            f"or install it yourself with `python -m nltk.downloader -d .nltk_data {package}`, "
            f"or set NLTK_DATA to a folder that contains {resource}."
        ) from None


@cache
def sentence_splitter():
    require(PUNKT)
    splitter = nltk.tokenize.PunktTokenizer("english")
    splitter._params.abbrev_types.update(EXTRA_ABBREVIATIONS)
    return splitter


@cache
def word_tokenizer():
    return nltk.tokenize.NLTKWordTokenizer()


@cache
def tagger():
    require(TAGGER)
    return ExactPerceptronTagger(nltk.tag.PerceptronTagger())


class ExactPerceptronTagger:
    """NLTK's averaged perceptron tagger, same model and same answers, faster.

    NLTK scores a token by walking dicts of dicts in Python; here each feature
    is a row of one dense matrix (classes as columns). The scores are the same
    sums taken in the same feature order, and ties go to the alphabetically
    last tag as in NLTK, so the tags are identical (a test compares them with
    `nltk.pos_tag` over the sample corpora).
    """

    def __init__(self, nltk_tagger):
        model = nltk_tagger.model
        # Columns in descending tag order: argmax takes the first of equal
        # scores, which is then NLTK's (score, tag) maximum.
        self.classes = sorted(model.classes, reverse=True)
        column = {tag: index for index, tag in enumerate(self.classes)}
        self.rows = {feature: index for index, feature in enumerate(model.weights, start=1)}
        self.weights = np.zeros((len(self.rows) + 1, len(self.classes)))  # row 0: unknown feature
        for feature, index in self.rows.items():
            for tag, weight in model.weights[feature].items():
                self.weights[index, column[tag]] = weight
        self.tagdict = nltk_tagger.tagdict
        self.normalize = nltk_tagger.normalize
        self.start = list(nltk_tagger.START)
        self.end = list(nltk_tagger.END)

    def tag(self, tokens):
        row = self.rows.get
        context = self.start + [self.normalize(word) for word in tokens] + self.end
        prev, prev2 = self.start
        tags = []
        for i, word in enumerate(tokens):
            tag = self.tagdict.get(word)
            if not tag:
                j = i + 2
                # NLTK's _get_features, in its order.
                features = [
                    row("bias", 0),
                    row("i suffix " + word[-3:], 0),
                    row("i pref1 " + (word[0] if word else ""), 0),
                    row("i-1 tag " + prev, 0),
                    row("i-2 tag " + prev2, 0),
                    row(f"i tag+i-2 tag {prev} {prev2}", 0),
                    row("i word " + context[j], 0),
                    row(f"i-1 tag+i word {prev} {context[j]}", 0),
                    row("i-1 word " + context[j - 1], 0),
                    row("i-1 suffix " + context[j - 1][-3:], 0),
                    row("i-2 word " + context[j - 2], 0),
                    row("i+1 word " + context[j + 1], 0),
                    row("i+1 suffix " + context[j + 1][-3:], 0),
                    row("i+2 word " + context[j + 2], 0),
                ]
                # Summing down the rows adds them one after another, in order.
                tag = self.classes[int(self.weights[features].sum(axis=0).argmax())]
            tags.append(tag)
            prev2, prev = prev, tag
        return tags


def normalize(text):
    """The one normalization applied to ingested text: Unicode NFC."""
    return unicodedata.normalize("NFC", text)


def split_sentences(text):
    """Yield (start, end) character offsets of the sentences of `text`.

    `text[start:end]` is the sentence. Paragraphs (blank-line separated) are
    split separately so that a headline without a full stop never runs into
    the paragraph after it.
    """
    splitter = sentence_splitter()
    paragraph_start = 0
    for match in _PARAGRAPH_BREAK.finditer(text):
        yield from _split_paragraph(splitter, text, paragraph_start, match.start())
        paragraph_start = match.end()
    yield from _split_paragraph(splitter, text, paragraph_start, len(text))


def _split_paragraph(splitter, text, start, end):
    paragraph = text[start:end]
    if not paragraph.strip():
        return
    for sentence_start, sentence_end in splitter.span_tokenize(paragraph):
        yield start + sentence_start, start + sentence_end


def tokenize(sentence):
    """NLTK word tokens of one sentence, as `nltk.word_tokenize` gives them.

    Typographic apostrophes are made ASCII first: NLTK splits "hadn't" into
    "had", "n't" but leaves "hadn’t" as three odd pieces.
    """
    return word_tokenizer().tokenize(sentence.replace("\u2019", "'"))


def pos_tag(tokens):
    """Penn Treebank tags for `tokens`, as `nltk.pos_tag` gives them."""
    return tagger().tag(tokens)
