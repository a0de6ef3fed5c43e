"""Sanity-check baselines for an export, as in the paper: tf-idf + linear SVM
for Subtask 1 and a CRF over B/I/O tags for Subtask 2. Scored with our scorer."""

import re

from core.spans import Spans
from filtering import nlp
from releases.scorer import score_subtask1, score_subtask2

_TOKEN = re.compile(r"\w+(?:['’.-]\w+)*|[^\w\s]")


def subtask1_svm(train, test, seed=0):
    """train, test: [(sentence id, label, text)] → scores on test."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.svm import LinearSVC

    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    model = LinearSVC(random_state=seed)
    model.fit(vectorizer.fit_transform([text for _, _, text in train]), [label for _, label, _ in train])
    predicted = model.predict(vectorizer.transform([text for _, _, text in test]))
    return score_subtask1({key: label for key, label, _ in test},
                          {key: int(p) for (key, _, _), p in zip(test, predicted, strict=True)})


def _tokens(text):
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _shape(word):
    return re.sub(r"[a-z]+", "a", re.sub(r"[A-Z]+", "A", re.sub(r"[0-9]+", "0", word)))


def _features(tokens, tags):
    features = []
    for i, ((word, _, _), tag) in enumerate(zip(tokens, tags, strict=True)):
        current = {"bias": 1.0, "word": word.lower(), "suffix3": word[-3:].lower(), "shape": _shape(word),
                   "pos": tag, "pos2": tag[:2], "first": i == 0}
        for offset in (-2, -1, 1, 2):
            j = i + offset
            if 0 <= j < len(tokens):
                current[f"{offset}:word"] = tokens[j][0].lower()
                current[f"{offset}:pos"] = tags[j]
        features.append(current)
    return features


def _bio(tokens, spans):
    tags = ["O"] * len(tokens)
    for name, start, end in (("A", spans.antecedent_start, spans.antecedent_end),
                             ("C", spans.consequent_start, spans.consequent_end)):
        if start == -1:
            continue
        inside = [i for i, (_, s, e) in enumerate(tokens) if s <= end and e > start]
        for n, i in enumerate(inside):
            tags[i] = ("B-" if n == 0 else "I-") + name
    return tags


def _decode(tokens, tags):
    found = {}
    for name in ("A", "C"):
        indices = [i for i, tag in enumerate(tags) if tag.endswith(name)]
        if indices:
            first = indices[0]
            last = first
            while last + 1 < len(tags) and tags[last + 1] == f"I-{name}":
                last += 1
            found[name] = (tokens[first][1], tokens[last][2] - 1)
    antecedent = found.get("A", (-1, -1))
    consequent = found.get("C", (-1, -1))
    return Spans(*antecedent, *consequent)


def subtask2_crf(train, test, iterations=100):
    """train, test: [(sentence id, text, Spans)] → scores on test."""
    import sklearn_crfsuite

    def prepare(rows):
        out = []
        for _, text, spans in rows:
            tokens = _tokens(text)
            out.append((tokens, _features(tokens, nlp.pos_tag([t for t, _, _ in tokens])), _bio(tokens, spans)))
        return out

    training, testing = prepare(train), prepare(test)
    model = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=iterations)
    model.fit([features for _, features, _ in training], [tags for _, _, tags in training])
    predicted = model.predict([features for _, features, _ in testing])
    return score_subtask2({key: (text, spans) for key, text, spans in test},
                          {key: _decode(tokens, tags) for (key, _, _), (tokens, _, _), tags
                           in zip(test, testing, predicted, strict=True)})
