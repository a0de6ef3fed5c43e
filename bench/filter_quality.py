"""Measure the candidate filter: recall on the released SemEval training
sentences (every one was a candidate of the original filter) and the
candidate rate on the news sample, per domain and per row.

    .venv/bin/python bench/filter_quality.py [--profile NAME] [--misses N]
"""

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from filtering import nlp  # noqa: E402
from filtering.patterns import PROFILES, CandidateFilter  # noqa: E402

SHARED = ROOT.parent / "shared"


def news_sentences():
    with open(SHARED / "corpora" / "news_sample.jsonl", encoding="utf-8") as handle:
        for line in handle:
            document = json.loads(line)
            text = nlp.normalize(document["text"])
            for start, end in nlp.split_sentences(text):
                yield document["domain"], text[start:end]


def semeval_rows():
    with open(SHARED / "semeval2020t5" / "subtask1_train.csv", encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            yield row["gold_label"], row["sentence"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="extended", choices=sorted(PROFILES))
    parser.add_argument("--misses", type=int, default=0, help="print this many label-1 sentences that fail")
    args = parser.parse_args()
    nlp.use_nltk_data(SHARED / "nltk_data")
    engine = CandidateFilter(args.profile)

    passed, total, misses = Counter(), Counter(), []
    rows_on_positives = Counter()
    for label, sentence in semeval_rows():
        match = engine.match(sentence)
        total[label] += 1
        passed[label] += match.candidate
        if label == "1":
            rows_on_positives.update(match.rows)
            if not match.candidate:
                misses.append((match.token_rows, sentence))
    print(f"profile {args.profile}")
    print("SemEval subtask1_train.csv: share passing the filter")
    for label in ("1", "0"):
        print(f"  label {label}: {passed[label]:>6} / {total[label]:>6} = {passed[label] / total[label]:.1%}")

    per_domain, per_row = Counter(), Counter()
    sentences = Counter()
    for domain, sentence in news_sentences():
        match = engine.match(sentence)
        sentences[domain] += 1
        per_domain[domain] += match.candidate
        per_row.update(match.rows)
    all_sentences = sum(sentences.values())
    print("news_sample.jsonl: candidate rate per domain")
    for domain in sorted(sentences):
        share = per_domain[domain] / sentences[domain]
        print(f"  {domain:<11} {per_domain[domain]:>5} / {sentences[domain]:>6} = {share:.2%}")
    candidates = sum(per_domain.values())
    print(f"  {'all':<11} {candidates:>5} / {all_sentences:>6} = {candidates / all_sentences:.2%}")
    print("per row: news sentences firing it (share of all news sentences) | label-1 SemEval sentences firing it")
    for row in engine.profile.rows:
        fired = per_row[row.id]
        print(f"  row {row.id:<3} {fired:>5} ({fired / all_sentences:.2%}) | {rows_on_positives[row.id]:>5}"
              + (f"  {row.name}" if row.name else ""))
    for token_rows, sentence in misses[: args.misses]:
        print(f"  MISS token_rows={list(token_rows)}: {sentence}")


if __name__ == "__main__":
    main()
