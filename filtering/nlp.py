"""NLTK models, loaded from disk once per process. No Django here.

Nothing is downloaded at run time: the models must already be in a folder on
NLTK's search path (`use_nltk_data` adds ours). When they are missing the error
says what to install and where.
"""

import html
import json
import re
import sys
import unicodedata
from array import array
from functools import cache
from html.parser import HTMLParser
from types import ModuleType

import numpy as np


def _import_nltk() -> ModuleType:
    """NLTK's package init imports SciPy and scikit-learn when they are installed (crowd-kit brings them)
    for collocation tests and classifiers the filter never uses: 150 MiB and two seconds of start-up in
    every process that splits or tags. They are hidden while NLTK loads, so its optional imports fall back
    as they do on an install without them; afterwards they import as usual for whoever needs them."""
    hidden = [name for name in ("scipy", "sklearn") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # the documented way to make an import fail
    try:
        import nltk
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]
    return nltk


nltk = _import_nltk()

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
    return ExactPerceptronTagger.load(TAGGER)


class _Row(int):
    """A row number of the tagger's matrix, as the JSON parser hands it up (see ExactPerceptronTagger.load)."""


class ExactPerceptronTagger:
    """NLTK's averaged perceptron tagger, same model and same answers, faster.

    NLTK scores a token by walking dicts of dicts in Python; here each feature
    is a row of one dense matrix (classes as columns). The scores are the same
    sums taken in the same feature order, and ties go to the alphabetically
    last tag as in NLTK, so the tags are identical (a test compares them with
    `nltk.pos_tag` over the sample corpora).
    """

    START = ["-START-", "-START2-"]  # NLTK's PerceptronTagger.START and .END
    END = ["-END-", "-END2-"]

    def __init__(self, rows, weights, tagdict, classes):
        """`rows`: feature -> row of `weights`, a matrix with a column per tag of `classes` (in descending
        order: argmax takes the first of equal scores, which is then NLTK's (score, tag) maximum)."""
        self.rows, self.weights, self.tagdict, self.classes = rows, weights, tagdict, classes
        self.start, self.end = list(self.START), list(self.END)

    @classmethod
    def load(cls, resource):
        """Read the model files NLTK's PerceptronTagger reads, straight into the matrix: each feature's
        weights become a row as the JSON parser finishes them, so NLTK's dict-of-dicts model (60 MiB of
        small objects, whose memory Python keeps after they are freed) is never built."""
        name = resource.rsplit("/", 1)[-1]

        def read(suffix, **options):
            with nltk.data.find(f"{resource}/{name}.{suffix}.json").open() as handle:
                return json.load(handle, **options)

        classes = sorted(read("classes"), reverse=True)
        column = {tag: index for index, tag in enumerate(classes)}
        matrix = array("d", bytes(8 * len(classes)))  # row 0: unknown feature

        def rows_or_row(pairs):
            # The parser finishes each feature's object before the object that holds them all.
            if pairs and isinstance(pairs[0][1], _Row):
                return {feature: int(row) for feature, row in pairs}
            values = [0.0] * len(classes)
            for tag, weight in pairs:
                values[column[tag]] = weight
            matrix.extend(values)
            return _Row(len(matrix) // len(classes) - 1)

        rows = read("weights", object_pairs_hook=rows_or_row)
        weights = np.frombuffer(matrix, dtype=np.float64).reshape(-1, len(classes))
        return cls(rows if isinstance(rows, dict) else {}, weights, dict(read("tagdict")), classes)

    @staticmethod
    def normalize(word):
        """NLTK's PerceptronTagger.normalize, which uses no state of the tagger."""
        if "-" in word and word[0] != "-":
            return "!HYPHEN"
        if word.isdigit() and len(word) == 4:
            return "!YEAR"
        if word and word[0].isdigit():
            return "!DIGITS"
        return word.lower()

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


# Tags that mark a document as HTML (a stray "<" or "a < b" in plain text does not).
_HTML_TAG = re.compile(r"</?(?:p|br|div|span|a|b|i|em|strong|ul|ol|li|h[1-6]|blockquote|figure|figcaption|img|"
                       r"table|tr|td|th|section|article|header|footer|script|style)\b[^<>]*>", re.IGNORECASE)
# Entities with their semicolon only: "AT&T" or "R&D" stay as they are.
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_BLOCKS = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "figure", "figcaption",
           "table", "tr", "section", "article", "header", "footer"}


class _HtmlText(HTMLParser):
    """The text of an HTML document: blocks as paragraphs, <br> as a line break, scripts and styles left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)

    def text(self):
        joined = "".join(self.parts)
        return re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", joined).strip()


def normalize(text):
    """The one clean-up applied to ingested text, whose result is what is stored (sentence offsets index it):
    Unicode NFC; no byte-order mark in front (a BOM glued to the first word hides it from the filter:
    "\ufeffIf only I had gone."); an HTML document reduced to its text (blocks become paragraphs); and HTML
    entities decoded ("wouldn&#39;t have" reads as "wouldn't have")."""
    text = unicodedata.normalize("NFC", text).lstrip("\ufeff")
    if "<" in text and _HTML_TAG.search(text):
        parser = _HtmlText()
        parser.feed(text)
        parser.close()
        text = parser.text()
    elif "&" in text:
        text = _ENTITY.sub(lambda match: html.unescape(match.group(0)), text)
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


# NLTK bounds each regular-expression call to 5 s, and Punkt runs its expressions over a whole paragraph:
# a megabyte-long "paragraph" (a file without blank lines) would stop the split halfway. Longer paragraphs
# are cut into windows at a line break or a sentence end, each split on its own.
WINDOW = 50_000
_WINDOW_CUT = re.compile(r"\n|[.!?][\"')\]\u2019\u201d]*\s")


def _windows(text, start, end):
    while end - start > WINDOW:
        cut = None
        for match in _WINDOW_CUT.finditer(text, start + WINDOW // 2, start + WINDOW):
            cut = match.end()
        cut = cut or start + WINDOW  # no sentence end in 25,000 characters: cut anyway
        yield start, cut
        start = cut
    yield start, end


# A sentence end with no space after it ("the talks stop.If only ..."): two lower-case letters, the mark, and
# a capitalised word. Punkt reads "stop.If" as one token; the split is made here, on the stored text.
_GLUED_END = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")


def _split_paragraph(splitter, text, start, end):
    if not text[start:end].strip():
        return
    for window_start, window_end in _windows(text, start, end):
        window = text[window_start:window_end]
        for sentence_start, sentence_end in splitter.span_tokenize(window):
            begin = window_start + sentence_start
            for match in _GLUED_END.finditer(text, begin, window_start + sentence_end):
                yield begin, match.start()
                begin = match.start()
            yield begin, window_start + sentence_end


# Typographic apostrophes and single quotes, read as the ASCII apostrophe by the tokenizer and the filter's
# screen (the stored text keeps them).
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})


def tokenize(sentence):
    """NLTK word tokens of one sentence, as `nltk.word_tokenize` gives them.

    Typographic apostrophes are made ASCII first: NLTK splits "hadn't" into
    "had", "n't" but leaves "hadn’t" as three odd pieces.
    """
    return word_tokenizer().tokenize(sentence.translate(APOSTROPHES))


def pos_tag(tokens):
    """Penn Treebank tags for `tokens`, as `nltk.pos_tag` gives them."""
    return tagger().tag(tokens)
