"""How fast the organizer's pages answer on a big database.

    .venv/bin/python bench/dashboard_bench.py postgresql [--sentences 1000000] [--batches 100] [--requests 30]
    .venv/bin/python bench/dashboard_bench.py sqlite --database db.sqlite3   # e.g. a copy of the demo's database

postgresql: a fresh database (BENCH_DATABASE_URL, default crowdset_bench on localhost) is filled with a
corpus of --sentences sentences in 10,000 documents, a filter run with its candidates, --batches batches
of 25 HITs with five submitted assignments each (and an aggregation of each), and a 20,000-sentence
dataset version with spans, all linked to one project.

sqlite: a copy of the given database (the demo's, say) with the released training files imported as a
version, if no version called `released` is there yet.

Each page is requested --requests times through Django's test client after one warm-up request; the
baseline, in the same run, is the login page, which reads no crowd table. Figures are p50 and p95
milliseconds and the p95 as a ratio to the baseline's.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/crowdset_bench")


def setup(url):
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-" + "x" * 40)
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("HTTPS", "false")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fresh_postgres():
    import psycopg

    admin, name = PG_URL.rsplit("/", 1)
    with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return PG_URL


def fill_postgres(sentences, batch_count):
    """Bulk rows straight in SQL (generate_series): the pages read them as if the pipeline had made them."""
    from django.db import connection

    from aggregation.models import AggregationRun, ItemOutcome
    from core.items import SentenceItem
    from designs.models import DesignBatch
    from designs.semeval import SUBTASK1_DESIGN
    from designs.services import shipped_version
    from filtering.models import Corpus, FilterChunk, FilterRun
    from hits.models import Assignment, Batch, Hit, HitItem, Item, Worker
    from projects.models import Project
    from releases.models import DatasetSentence, DatasetSpan, DatasetVersion

    started = time.perf_counter()
    corpus = Corpus.objects.create(name="bench")
    documents, per_document = 10_000, max(1, sentences // 10_000)
    with connection.cursor() as cursor:
        cursor.execute("""INSERT INTO filtering_document (corpus_id, external_id, domain, title, source, text, created)
            SELECT %s, 'doc-' || n, (ARRAY['finance','politics','healthcare'])[1 + n %% 3], '', '', 'text', now()
            FROM generate_series(1, %s) n""", [corpus.pk, documents])
        cursor.execute("""INSERT INTO filtering_sentence (document_id, index, text, start, "end")
            SELECT d.id, s, 'If the bank had cut rates, stocks would have risen ' || s || '.', 0, 10
            FROM filtering_document d, generate_series(0, %s) s WHERE d.corpus_id = %s""",
                       [per_document - 1, corpus.pk])
        run = FilterRun.objects.create(profile="news", corpus=corpus, scope="bench/*")
        cursor.execute("""INSERT INTO filtering_candidate (sentence_id, run_id, rows, pos_forms, created)
            SELECT id, %s, '["2"]', '[]', now() FROM filtering_sentence WHERE id %% 50 = 0""", [run.pk])
        cursor.execute("ANALYZE")
    Corpus.objects.filter(pk=corpus.pk).update(document_count=documents, sentence_count=documents * per_document)
    FilterChunk.objects.bulk_create(
        FilterChunk(run=run, first_id=n * 5000, last_id=n * 5000 + 4999, done=True, sentences=5000, candidates=100,
                    stats={"by_domain": {"finance": [5000, 100]}, "rows": {"2": 100}, "pos_forms": {}})
        for n in range(sentences // 5000))
    workers = Worker.objects.bulk_create(Worker(provider="inhouse", external_id=f"w{n}") for n in range(50))
    project = Project.objects.create(name="Bench", slug="bench")
    project.corpora.add(corpus)
    project.filter_runs.add(run)
    labeling = shipped_version(SUBTASK1_DESIGN)
    for b in range(batch_count):
        batch = Batch.objects.create(name=f"bench {b}", task_type="design", provider="inhouse", state="completed")
        DesignBatch.objects.create(batch=batch, version=labeling)
        items = Item.objects.bulk_create(
            Item(batch=batch, key=f"s{b}-{n}", group="finance",
                 payload=SentenceItem(text=f"Sentence {n}.", sentence_id=f"s{b}-{n}").to_json()) for n in range(625))
        hits = Hit.objects.bulk_create(Hit(batch=batch, index=n, state="completed", provider_hit_id=f"h{b}-{n}")
                                       for n in range(25))
        HitItem.objects.bulk_create(HitItem(hit=hits[n // 25], item=item, position=n % 25)
                                    for n, item in enumerate(items))
        Assignment.objects.bulk_create(
            Assignment(hit=hit, worker=workers[(h * 5 + k) % 50], state="approved", answers={})
            for h, hit in enumerate(hits) for k in range(5))
        aggregation = AggregationRun.objects.create(batch=batch, rules={}, rules_text="bench", votes=3125, alpha=0.5,
                                                    alpha_low=0.4, alpha_high=0.6, summary={"outcomes": {}})
        ItemOutcome.objects.bulk_create(ItemOutcome(run=aggregation, item=item, yes=5, no=0, outcome="positive")
                                        for item in items)
        project.batches.add(batch)
        project.aggregations.add(aggregation)
    version = DatasetVersion.objects.create(name="bench-v1", split_report={"train": 13000, "test": 7000},
                                            config={"source": "bench", "seed": 0, "stratify": ["label"]})
    DatasetSentence.objects.bulk_create(
        (DatasetSentence(version=version, sentence_id=str(n), text=f"Sentence {n}.", label=n % 2,
                         split="train" if n % 3 else "test") for n in range(20_000)), batch_size=5000)
    DatasetSpan.objects.bulk_create(
        (DatasetSpan(version=version, sentence_id=str(n), text="If it had, it would.", split="train",
                     antecedent_start=0, antecedent_end=8) for n in range(0, 20_000, 2)), batch_size=5000)
    project.versions.add(version)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"filled in {time.perf_counter() - started:.0f} s: {sentences:,} sentences, {batch_count} batches, "
          f"a 20,000-sentence version")
    return project


def prepare_sqlite(path):
    from django.conf import settings

    from releases.models import DatasetVersion
    from releases.services import dataset_import_released

    if not DatasetVersion.objects.filter(name="released").exists():
        released = settings.SHARED_DIR / "semeval2020t5"
        dataset_import_released(name="released", subtask1_path=released / "subtask1_train.csv",
                                subtask2_path=released / "subtask2_train.csv")
    from projects.models import Project

    return Project.objects.first()


def measure(client, url, requests):
    client.get(url)
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"{url} answered {response.status_code}")
    times.sort()
    return statistics.median(times), times[max(0, round(0.95 * len(times)) - 1)]


def report(project, requests):
    from django.contrib.auth.models import User
    from django.test import Client

    user, _ = User.objects.get_or_create(username="bench-organizer", defaults={"is_staff": True})
    client = Client()
    client.force_login(user)
    urls = ["/dashboard/", "/projects/", "/datasets/"]
    if project is not None:
        urls += [f"/projects/{project.slug}/", f"/projects/{project.slug}/status.json"]
        batch = project.batches.order_by("pk").first()
        if batch is not None:
            urls.append(f"/projects/{project.slug}/batches/{batch.pk}/")
    anonymous = Client()
    base_p50, base_p95 = measure(anonymous, "/accounts/login/", requests)
    print(f"{'page':<40} {'p50 ms':>8} {'p95 ms':>8} {'p95 / baseline':>15}")
    print(f"{'/accounts/login/ (baseline)':<40} {base_p50:>8.1f} {base_p95:>8.1f} {1:>14.1f}x")
    for url in urls:
        p50, p95 = measure(client, url, requests)
        print(f"{url:<40} {p50:>8.1f} {p95:>8.1f} {p95 / base_p95:>14.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", choices=("postgresql", "sqlite"))
    parser.add_argument("--database-file", help="sqlite: the database to copy (default db.sqlite3)")
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--requests", type=int, default=30)
    options = parser.parse_args()
    if options.database == "postgresql":
        setup(fresh_postgres())
        project = fill_postgres(options.sentences, options.batches)
    else:
        source = Path(options.database_file or ROOT / "db.sqlite3")
        if not source.exists():
            raise SystemExit(f"{source}: no such database; run `make demo` first or pass --database-file")
        folder = Path(tempfile.mkdtemp())
        shutil.copy(source, folder / "bench.sqlite3")
        setup(f"sqlite:///{folder / 'bench.sqlite3'}")
        project = prepare_sqlite(folder / "bench.sqlite3")
    report(project, options.requests)


if __name__ == "__main__":
    main()
