"""Filter speed, as ratios against baselines measured in the same run.

    .venv/bin/python bench/filter_bench.py [--repeat N] [--command-copies 25]
    .venv/bin/python bench/filter_bench.py --scale-out   # also 1 vs 2 Celery workers (PostgreSQL + Redis)

0. The command, as a user runs it: `manage.py filter_text --sentences` on the
   news sample's sentences replicated (25 copies: 457,700 sentences), one
   process, start-up included, against the organizers-style baseline (below)
   run the same way in its own process; and the command's peak memory over
   the interpreter's own, at a tenth of the input and at all of it.

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


def _run(command):
    """Wall seconds and peak resident memory (MiB, the kernel's VmHWM read while it runs) of a child process.
    (getrusage would count the pages a forked child shares with this big parent before its exec.)"""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, env={**os.environ,
                                                                              "DJANGO_SETTINGS_MODULE":
                                                                              "config.settings"})
    peak = 0
    while child.poll() is None:
        try:
            with open(f"/proc/{child.pid}/status", encoding="ascii") as status:
                found = [line for line in status if line.startswith("VmHWM:")]
            if found:
                peak = max(peak, int(found[0].split()[1]))
        except OSError:
            pass
        time.sleep(0.02)
    if child.returncode:
        raise SystemExit(f"{command} failed ({child.returncode})")
    return time.perf_counter() - started, peak / 1024


def naive_main(path):
    """The organizers-style filter over a file of one sentence a line, in this process (--naive FILE)."""
    from filtering import nlp
    from filtering.patterns import PROFILES

    nlp.use_nltk_data(os.environ.get("NLTK_DATA") or ROOT / ".nltk_data")
    naive = NaiveFilter(PROFILES["news"])
    with open(path, encoding="utf-8") as handle:
        found = sum(bool(naive.match(line.rstrip("\n"))) for line in handle)
    print(found)


def stage_command(sentences, copies):
    with tempfile.TemporaryDirectory() as folder:
        small, big = Path(folder) / "small.txt", Path(folder) / "big.txt"
        lines = "\n".join(sentence.replace("\n", " ") for sentence in sentences) + "\n"
        small.write_text(lines * max(1, copies // 10), encoding="utf-8")
        big.write_text(lines * copies, encoding="utf-8")
        count = len(sentences) * copies
        _, bare_memory = _run([sys.executable, "-c", "import time; time.sleep(0.5)"])
        _, ours_small_memory = _run([sys.executable, "manage.py", "filter_text", str(small),
                                                   "--sentences"])
        ours_time, ours_memory = _run([sys.executable, "manage.py", "filter_text", str(big), "--sentences"])
        naive_time, naive_memory = _run([sys.executable, str(Path(__file__).resolve()), "--naive", str(big)])
    print(f"filter_text --sentences, {count:,} news sentences, one process each, start-up included")
    print(f"  filter_text : {ours_time:>7.1f} s ({count / ours_time:>8,.0f} sentences/s)")
    print(f"  organizers' : {naive_time:>7.1f} s ({count / naive_time:>8,.0f} sentences/s)")
    print(f"  ratio       : {naive_time / ours_time:.1f}x faster than the organizers-style filter")
    print(f"  peak memory over the bare interpreter's ({bare_memory:.0f} MiB): filter_text "
          f"{ours_small_memory - bare_memory:.0f} MiB on {count // 10:,} sentences, "
          f"{ours_memory - bare_memory:.0f} MiB on {count:,}; organizers' {naive_memory - bare_memory:.0f} MiB")


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
    parser.add_argument("--command-copies", type=int, default=25, help="sample copies for the command stage")
    parser.add_argument("--naive", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.naive:
        return naive_main(args.naive)
    from filtering import nlp

    nlp.use_nltk_data(os.environ.get("NLTK_DATA") or ROOT / ".nltk_data")
    sentences = news_sentences()
    stage_command(sentences, args.command_copies)
    stage_filter(sentences, args.repeat)
    stage_end_to_end()
    if args.scale_out:
        stage_scale_out(args.copies)


if __name__ == "__main__":
    main()
