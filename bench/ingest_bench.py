"""Ingest throughput and peak memory on a corpus of a million sentences or more.

    .venv/bin/python bench/ingest_bench.py [--sentences 1000000] [--databases sqlite,postgresql]

The news sample is replicated (fresh document ids per copy) until it holds at
least --sentences sentences. The baseline, measured in the same run, is
reading and splitting the same file without storing anything; each database's
figure is given as a ratio to it. Every ingest runs `manage.py ingest` in its
own process on a fresh database; peak memory is that process's maximum RSS.
"""

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import replicate  # noqa: E402

SAMPLE_SENTENCES = 18_308
PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/crowdset_bench")

SPLIT_ONLY = """
import sys
from filtering import nlp
from filtering.readers import read_records
nlp.use_nltk_data(sys.argv[2])
print(sum(len(list(nlp.split_sentences(nlp.normalize(r.text)))) for r in read_records(sys.argv[1])))
"""


def run(command, env):
    """Run a child process; return (seconds, peak RSS in MiB, stdout)."""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command} failed")
    return seconds, usage.ru_maxrss / 1024, out


def fresh_database(kind, folder):
    if kind == "sqlite":
        return f"sqlite:///{folder}/bench.sqlite3"
    import psycopg

    admin, name = PG_URL.rsplit("/", 1)
    with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return PG_URL


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--databases", default="sqlite,postgresql")
    args = parser.parse_args()
    copies = math.ceil(args.sentences / SAMPLE_SENTENCES)
    nltk_data = os.environ.get("NLTK_DATA") or str(ROOT / ".nltk_data")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "corpus.jsonl"
        replicate(corpus, copies)
        size = corpus.stat().st_size / 2**20
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT)}
        env.pop("CELERY_BROKER_URL", None)
        seconds, peak, out = run([sys.executable, "-c", SPLIT_ONLY, str(corpus), nltk_data], env)
        sentences = int(out.strip())
        baseline = sentences / seconds
        print(f"corpus: {copies} copies of the news sample, {sentences:,} sentences, {size:,.0f} MiB")
        print(f"  {'read + split only (baseline)':<30} {baseline:>9,.0f} sentences/s  peak {peak:>6,.0f} MiB")
        for kind in args.databases.split(","):
            database = fresh_database(kind, folder)
            db_env = {**env, "DATABASE_URL": database}
            subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=db_env, check=True)
            seconds, peak, _ = run([sys.executable, "manage.py", "ingest", str(corpus), "--corpus", "bench"], db_env)
            rate = sentences / seconds
            print(f"  {'ingest on ' + kind:<30} {rate:>9,.0f} sentences/s  peak {peak:>6,.0f} MiB"
                  f"  ({rate / baseline:.2f}x the baseline)")


if __name__ == "__main__":
    main()
