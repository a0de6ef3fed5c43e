"""Filter speed, as ratios against baselines measured in the same run.

    .venv/bin/python bench/filter_bench.py [--repeat N]
    .venv/bin/python bench/filter_bench.py --scale-out   # also 1 vs 2 Celery workers (PostgreSQL + Redis)

1. Filter stage alone on the news sample, one core: this engine against a naive
   implementation of the same rows (one regex per row on the raw text, NLTK's
   own tokenizer and `nltk.pos_tag` on every sentence that any row matched).
2. End to end on a fresh SQLite database: split + filter + store, through the
   same services the commands use.
3. With --scale-out: `filter_candidates` on a replicated corpus with one Celery
   worker process and then with two, against PostgreSQL and Redis.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import CORPUS, replicate  # noqa: E402


def news_sentences():
    from filtering import nlp

    sentences = []
    with open(CORPUS, encoding="utf-8") as handle:
        for line in handle:
            text = nlp.normalize(json.loads(line)["text"])
            sentences.extend(text[start:end] for start, end in nlp.split_sentences(text))
    return sentences


# --- the naive baseline ------------------------------------------------------

def _regex(source):
    """The row's pattern as one regex on raw lower-cased text (guards dropped)."""
    parts = []
    for segment in source.split("..."):
        elements = re.findall(r"!?\{[^}]*\}|\S+", segment)
        words = []
        for element in elements:
            if element.startswith("!"):
                continue
            if element == "^":
                words.append(r"^\W*")
            elif element == "$":
                words.append(r"\W*$")
            elif element.startswith("{"):
                options = [r"\s*".join(map(re.escape, o.split())) for o in element.strip("{}").split(",")]
                words.append("(?:" + "|".join(options) + ")")
            else:
                words.append(re.escape(element))
        parts.append(r"\s*".join(words))
    return re.compile(".*".join(parts))


class NaiveFilter:
    def __init__(self, profile):
        import nltk

        from filtering.patterns import APPENDIX_B, TABLE_5

        self.nltk = nltk
        self.rows = [(row.id, [_regex(p) for p in row.include], [_regex(p) for p in row.exclude]) for row in TABLE_5]
        self.forms = APPENDIX_B
        self.gated = profile.pos_gated

    def match(self, sentence):
        from filtering.patterns import Tokens

        lowered = sentence.lower()
        rows = [row for row, include, exclude in self.rows
                if any(r.search(lowered) for r in include) and not any(r.search(lowered) for r in exclude)]
        if not rows:
            return False
        words = self.nltk.word_tokenize(sentence)
        tagged = self.nltk.pos_tag(words)
        tokens = Tokens([w.lower() for w in words], words)
        tokens._tags = [tag for _, tag in tagged]
        forms = [form.id for form in self.forms if form.matches(tokens)]
        return any(row not in self.gated or forms for row in rows)


def timed(function, sentences):
    started = time.perf_counter()
    found = sum(bool(function(sentence)) for sentence in sentences)
    return time.perf_counter() - started, found


def stage_filter(sentences, repeat):
    from filtering.patterns import CandidateFilter

    engine = CandidateFilter()
    naive = NaiveFilter(engine.profile)
    engine.match("If I had known, I would have gone.")  # load the models outside the timing
    naive.match("If I had known, I would have gone.")
    fast_time = min(timed(lambda s: engine.match(s).candidate, sentences)[0] for _ in range(repeat))
    naive_time, naive_found = timed(naive.match, sentences)
    _, fast_found = timed(lambda s: engine.match(s).candidate, sentences)
    print(f"filter stage, {len(sentences):,} news sentences, one core")
    print(f"  this engine : {len(sentences) / fast_time:>9,.0f} sentences/s ({fast_found} candidates)")
    print(f"  naive       : {len(sentences) / naive_time:>9,.0f} sentences/s ({naive_found} candidates)")
    print(f"  ratio       : {naive_time / fast_time:.1f}x faster than naive")


def stage_end_to_end():
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/bench.sqlite3"}
        env.pop("CELERY_BROKER_URL", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        script = (
            "import time, django; django.setup()\n"
            "from filtering.services import corpus_ingest, filter_run_prepare, filter_chunk_process\n"
            "from filtering.models import Corpus\n"
            "started = time.perf_counter()\n"
            f"report = corpus_ingest(path={str(CORPUS)!r}, corpus_name='bench')\n"
            "ingested = time.perf_counter()\n"
            "run = filter_run_prepare(corpus=Corpus.objects.get(name='bench'))\n"
            "for chunk in run.chunks.all(): filter_chunk_process(chunk_id=chunk.id)\n"
            "done = time.perf_counter()\n"
            "print(report.sentences, ingested - started, done - ingested)\n"
        )
        env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True, capture_output=True,
                             text=True).stdout.split()
    sentences, ingest_time, filter_time = int(out[0]), float(out[1]), float(out[2])
    total = ingest_time + filter_time
    print(f"end to end on SQLite (split + filter + store), {sentences:,} sentences")
    print(f"  ingest (split + store)   : {sentences / ingest_time:>9,.0f} sentences/s")
    print(f"  filter (read + store)    : {sentences / filter_time:>9,.0f} sentences/s")
    print(f"  all                      : {sentences / total:>9,.0f} sentences/s")


def stage_scale_out(copies):
    database = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/crowdset_bench")
    broker = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/13")
    admin = database.rsplit("/", 1)[0] + "/postgres"
    name = database.rsplit("/", 1)[1]
    import psycopg

    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": database, "CELERY_BROKER_URL": broker, "CELERY_TASK_ALWAYS_EAGER": "false"}
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    with tempfile.TemporaryDirectory() as folder:
        path = replicate(Path(folder) / "news.jsonl", copies)
        subprocess.run([*manage, "ingest", str(path), "--corpus", "bench"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    times = {}
    for workers in (1, 2):
        reset = "from filtering.models import FilterRun; FilterRun.objects.all().delete()"
        subprocess.run([*manage, "shell", "-c", reset], cwd=ROOT, env=env, check=True)
        worker = subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", f"--concurrency={workers}",
                                   "--loglevel=WARNING", "--without-gossip", "--without-mingle"], cwd=ROOT, env=env)
        try:
            time.sleep(3)
            started = time.perf_counter()
            subprocess.run([*manage, "filter_candidates", "--corpus", "bench", "--chunk-size", "2000"], cwd=ROOT,
                           env=env, check=True, stdout=subprocess.DEVNULL)
            times[workers] = time.perf_counter() - started
        finally:
            worker.terminate()
            worker.wait()
    sentences = 18_308 * copies
    print(f"scale-out: filter_candidates on PostgreSQL + Redis, {sentences:,} sentences")
    for workers, seconds in times.items():
        print(f"  {workers} worker process(es): {sentences / seconds:>9,.0f} sentences/s")
    print(f"  ratio 2 / 1   : {times[1] / times[2]:.2f}x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale-out", action="store_true")
    parser.add_argument("--copies", type=int, default=10, help="corpus copies for --scale-out")
    args = parser.parse_args()
    from filtering import nlp

    nlp.use_nltk_data(os.environ.get("NLTK_DATA") or ROOT / ".nltk_data")
    stage_filter(news_sentences(), args.repeat)
    stage_end_to_end()
    if args.scale_out:
        stage_scale_out(args.copies)


if __name__ == "__main__":
    main()
