"""How a design-file project grows: its pages, and its exports, report and aggregation, at 1k, 10k and 100k items.

    .venv/bin/python bench/scale_bench.py [--database sqlite|postgresql] [--sizes 1000,10000,100000] [--million]
                                          [--requests 9] [--out bench/out/scale.json]

Per size, a fresh database (a temporary SQLite file, or BENCH_DATABASE_URL's PostgreSQL database made again)
holds one project made as `design new` makes it from the shipped designs/semeval-subtask1.yaml: the items (25 a
HIT) and five submitted answers an item, each a worker's yes/no of 80% accuracy against a hidden truth. Then:

- pages: each requested --requests times after a warm-up through Django's test client, logged in as the project's
  organizer: the project page, its status.json (polled every 2 s while a job runs), the batch page, the
  dashboard and the API's first pages. The baseline, in the same run, is the login page (no crowd table).
- work: the export (every format), the design report and the aggregation, each as the job the page starts, run
  in a fresh process of its own so its peak memory (the peak RSS above what the process held before the work) is
  its own; the baseline, in the same run, is reading every answer row once with a plain query (the least any of
  them must do).

Printed: median ms (pages) or seconds and peak MiB (work), each as a ratio to its baseline, and the growth factor
from one size to the next (10 = linear in a tenfold size; 1 = constant). --million adds 1,000,000 items (about
20 minutes and 6 GiB of disk on SQLite).
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/crowdset_scale")
ANSWERS_PER_ITEM = 5
ITEMS_PER_HIT = 25


def database(kind, folder):
    if kind == "sqlite":
        return f"sqlite:///{folder / 'scale.sqlite3'}"
    import psycopg

    admin, name = PG_URL.rsplit("/", 1)
    with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    return PG_URL


def setup(url, folder):
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-" + "x" * 40)
    os.environ["DEBUG"] = "false"
    os.environ["HTTPS"] = "false"
    os.environ["UPLOAD_ROOT"] = str(folder / "uploads")
    os.environ["EXPORT_ROOT"] = str(folder / "exports")
    # A job a page starts (the report figures) runs in that request, once: the pages are then measured in the
    # steady state an organizer sees, with no job thread beside them.
    os.environ["JOBS_RUNNER"] = "celery"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fill(size, organizer=None, name=""):
    """The project as a new user makes it (design_project_create over the items), then the answers in bulk;
    `organizer` makes it (a new one when not given), `name` names it (the design's title when not given)."""
    from django.contrib.auth.models import Group, User
    from django.db import connection, transaction
    from django.utils import timezone

    from designs.items import Record
    from hits.models import Assignment, Batch, Hit, Worker
    from projects.services import design_project_create

    started = time.perf_counter()
    if organizer is None:
        organizer = User.objects.create_user("bench-organizer", password="x")
        organizer.groups.add(Group.objects.get(name="organizer"))
    # In-house, and no screening test to draw first: what is measured is the project, not who may join it.
    source = (ROOT / "designs" / "semeval-subtask1.yaml").read_text(encoding="utf-8").replace(
        "name: mturk", "name: inhouse").replace("qualification:\n  test: semeval-screening\n  min_score: 80\n", "")
    rng = random.Random(size)
    truth = [rng.random() < 0.3 for _ in range(size)]
    records = [Record(id=f"s{n}", text=f"If the bank had cut rates in spring {n}, stocks would have risen.",
                      group=("finance", "politics", "healthcare")[n % 3]) for n in range(size)]
    project, batch = design_project_create(source=source, file_name="semeval-subtask1.yaml", records=records,
                                           user=organizer, slug="scale", name=name)
    Batch.objects.filter(pk=batch.pk).update(state=Batch.State.PUBLISHED)
    truth_of = {f"s{n}": value for n, value in enumerate(truth)}
    workers = [Worker.objects.get_or_create(provider="inhouse", external_id=f"w{n}")[0] for n in range(200)]
    now = timezone.now()
    hits = list(Hit.objects.filter(batch=batch).order_by("pk").prefetch_related("items"))
    with transaction.atomic():
        rows = []
        for number, hit in enumerate(hits):
            items = [(item.pk, truth_of[item.key.split(":", 1)[-1]] if ":" in item.key else truth_of.get(item.key))
                     for item in hit.items.all()]
            for place in range(ANSWERS_PER_ITEM):
                answers = {str(pk): {"counterfactual": "1" if (value if rng.random() < 0.8 else not value) else "0"}
                           for pk, value in items}
                rows.append(Assignment(hit=hit, worker=workers[(number * ANSWERS_PER_ITEM + place) % len(workers)],
                                       state=Assignment.State.SUBMITTED, answers=answers, claimed=now, submitted=now))
            if len(rows) >= 5000:
                Assignment.objects.bulk_create(rows)
                rows = []
        Assignment.objects.bulk_create(rows)
        Hit.objects.filter(batch=batch).update(state=Hit.State.COMPLETED)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"  filled in {time.perf_counter() - started:.0f} s: {size:,} items, {len(hits):,} HITs, "
          f"{size * ANSWERS_PER_ITEM:,} answers", flush=True)
    return project, batch, organizer


def pages(project, batch, organizer, requests):
    from django.test import Client

    client = Client()
    client.force_login(organizer)
    urls = {"login page (baseline)": ("/accounts/login/", Client()),
            "project page": (f"/projects/{project.slug}/", client),
            "status.json": (f"/projects/{project.slug}/status.json", client),
            "batch page": (f"/projects/{project.slug}/batches/{batch.pk}/", client),
            "dashboard": ("/dashboard/", client),
            "API: batches": ("/api/batches/", client),
            "API: HITs of the batch": (f"/api/hits/?batch={batch.pk}", client),
            "API: assignments of the batch": (f"/api/assignments/?batch={batch.pk}", client)}
    found = {}
    for name, (url, who) in urls.items():
        first = who.get(url)
        if first.status_code != 200:
            raise SystemExit(f"{url} answered {first.status_code}")
        times = []
        for _ in range(requests):
            started = time.perf_counter()
            who.get(url)
            times.append(time.perf_counter() - started)
        found[name] = statistics.median(times) * 1000
    return found


def _status(field):
    """A figure of /proc/self/status, in KiB."""
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith(field + ":"))
    return int(line.split()[1])


JOBS = ("read every answer (baseline)", "export", "design report", "aggregation")


def run_job(name, batch_id, folder):
    """One job in this process, which did nothing else: (seconds, MiB above what the process held before it)."""
    from hits.models import Assignment, Batch

    batch = Batch.objects.get(pk=batch_id)
    jobs = {
        "read every answer (baseline)": lambda: sum(len(answers) for answers in Assignment.objects.filter(
            hit__batch=batch).values_list("answers", flat=True).iterator(2000)),
        "export": lambda: __import__("designs.export", fromlist=["export_batch"]).export_batch(
            batch=batch, out=folder / f"export-{time.monotonic_ns()}"),
        "design report": lambda: __import__("designs.export", fromlist=["batch_report"]).batch_report(batch),
        "aggregation": lambda: __import__("aggregation.services", fromlist=["batch_aggregate"]).batch_aggregate(
            batch=batch, samples=200),
    }
    start = _status("VmRSS")
    started = time.perf_counter()
    jobs[name]()
    return time.perf_counter() - started, (_status("VmHWM") - start) / 1024


def work(url, batch, folder):
    """Each job in a process of its own, so that its peak memory is its own."""
    found = {}
    for name in JOBS:
        run = subprocess.run([sys.executable, __file__, "--job", name, "--url", url, "--batch", str(batch.pk),
                              "--folder", str(folder)], capture_output=True, text=True, check=False)
        if run.returncode:
            raise SystemExit(f"{name} failed:\n{run.stderr[-3000:]}")
        found[name] = json.loads(run.stdout.strip().splitlines()[-1])
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--million", action="store_true", help="add 1,000,000 items")
    parser.add_argument("--requests", type=int, default=9)
    parser.add_argument("--out", help="also write the figures as JSON here")
    parser.add_argument("--job", choices=JOBS, help=argparse.SUPPRESS)  # one measured job, in a process of its own
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.job:
        setup(options.url, Path(options.folder))
        print(json.dumps(run_job(options.job, options.batch, Path(options.folder))))
        return
    sizes = [int(size) for size in options.sizes.split(",")] + ([1_000_000] if options.million else [])
    results = {}
    for size in sizes:
        # One process per size: Django's settings and connections are made once per process.
        folder = Path(tempfile.mkdtemp(prefix="crowdset-scale-"))
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            os.close(read)
            url = database(options.database, folder)
            setup(url, folder)
            print(f"{size:,} items on {options.database}", flush=True)
            project, batch, organizer = fill(size)
            found = {"pages": pages(project, batch, organizer, options.requests), "work": work(url, batch, folder)}
            os.write(write, json.dumps(found).encode())
            os._exit(0)
        os.close(write)
        data = b""
        while chunk := os.read(read, 65536):
            data += chunk
        os.waitpid(child, 0)
        shutil.rmtree(folder, ignore_errors=True)
        if not data:
            raise SystemExit(f"the run at {size:,} items failed")
        results[size] = json.loads(data)
    show(results, options.database)
    if options.out:
        Path(options.out).parent.mkdir(parents=True, exist_ok=True)
        Path(options.out).write_text(json.dumps({"database": options.database, "results": results}, indent=2))


def show(results, kind):
    sizes = list(results)
    print(f"\nPages on {kind}: median ms (ratio to the login page); growth from the size before")
    print(f"{'page':<32}" + "".join(f"{size:>22,}" for size in sizes))
    for name in results[sizes[0]]["pages"]:
        cells = []
        for index, size in enumerate(sizes):
            value = results[size]["pages"][name]
            ratio = value / results[size]["pages"]["login page (baseline)"]
            growth = "" if index == 0 else f" x{value / results[sizes[index - 1]]['pages'][name]:.1f}"
            cells.append(f"{value:8.1f} ({ratio:4.1f}){growth:>6}")
        print(f"{name:<32}" + "".join(f"{cell:>22}" for cell in cells))
    print(f"\nWork on {kind}: seconds and peak MiB (time as a ratio to reading every answer); growth of the time")
    print(f"{'job':<30}" + "".join(f"{size:>28,}" for size in sizes))
    for name in results[sizes[0]]["work"]:
        cells = []
        for index, size in enumerate(sizes):
            seconds, peak = results[size]["work"][name]
            ratio = seconds / results[size]["work"]["read every answer (baseline)"][0]
            growth = "" if index == 0 else f" x{seconds / results[sizes[index - 1]]['work'][name][0]:.1f}"
            cells.append(f"{seconds:7.2f}s {peak:6.0f}MiB ({ratio:4.1f}){growth:>6}")
        print(f"{name:<30}" + "".join(f"{cell:>28}" for cell in cells))


if __name__ == "__main__":
    main()
