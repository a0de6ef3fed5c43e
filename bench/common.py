"""Shared by the benchmark scripts."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpora" / "news_sample.jsonl"


def replicate(path, copies):
    """Write `copies` copies of the news sample to `path`, each document with a fresh id."""
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    with open(path, "w", encoding="utf-8") as handle:
        for copy in range(copies):
            for line in lines:
                document = json.loads(line)
                document["id"] = f"{document['id']}-r{copy}"
                handle.write(json.dumps(document, ensure_ascii=False) + "\n")
    return path
