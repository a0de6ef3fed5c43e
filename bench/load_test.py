"""Load test: concurrent annotators taking and submitting Subtask-1 HITs.

    .venv/bin/pip install -r requirements-bench.txt
    .venv/bin/python bench/load_test.py [--users 100] [--minutes 5] [--workers 4] [--label 15,45] [--think 1,3]
        [--sqlite] [--processes N]

--sqlite runs the embedded default instead: a fresh SQLite file (WAL, busy
timeout) behind the same gunicorn. --processes runs locust with N worker
processes, for crowds one locust process cannot play.

Annotators arrive two a second (a whole crowd clicking in the same second is
not how people start work) and, when the time is up, finish the HIT they
are on (locust's stop timeout), so every submission sent is answered.

A fresh PostgreSQL database (BENCH_DATABASE_URL, default crowdset_load on
127.0.0.1) gets the annotators and one in-house batch big enough that nobody
runs out; gunicorn serves the site on loopback and locust plays the
annotators. Afterwards the database is checked against what the clients
sent: every accepted submission is stored once with one vote per sentence,
and no annotator holds two places in one HIT.

Latency is reported per request kind, and as a ratio to the login page
(a page that touches no crowd tables) measured in the same run.
"""

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/crowdset_load")
PORT = int(os.environ.get("BENCH_PORT", "8765"))

SETUP = """
import sys
import django
django.setup()
import json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.conf import settings
from accounts.roles import ANNOTATOR, group
from core.items import SentenceItem
from core.semeval import read_subtask1_rows
from designs.semeval import labeling_batch_create
from hits.services import ItemSpec, batch_publish

users, hits, password = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
hashed = make_password(password)  # hashed once: the test measures the site, not PBKDF2 at set-up
annotators = User.objects.bulk_create(User(username=f"load-{n:03d}", password=hashed) for n in range(1, users + 1))
group(ANNOTATOR).user_set.add(*annotators)
sessions = []
for user in User.objects.filter(username__startswith="load-"):
    session = SessionStore()
    session.update({SESSION_KEY: str(user.pk), BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                    HASH_SESSION_KEY: user.get_session_auth_hash()})
    session.create()
    sessions.append(session.session_key)
json.dump(sessions, open(sys.argv[4], "w"))
rows = read_subtask1_rows(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv")
items = [ItemSpec(key=f"load:{n}", payload=SentenceItem(text=rows[n % len(rows)][2], sentence_id=f"load:{n}"))
         for n in range(hits * 25)]
batch = labeling_batch_create(name="load test", items=items, items_per_hit=25)
batch_publish(batch=batch)
# A live database's autovacuum would have analyzed the tables by now; without it the planner
# guesses from empty tables.
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("ANALYZE")
print(batch.pk)
"""

CHECK = """
import json, sys
import django
django.setup()
from django.db.models import Count
from hits.models import Assignment
sent = {int(k): v for k, v in json.load(open(sys.argv[1]))["submitted"].items()}
submitted = {a.pk: a for a in Assignment.objects.filter(state="submitted").select_related("hit")}
sizes = {a.pk: a.hit.hit_items.count() for a in submitted.values()}
lost = sorted(set(sent) - set(submitted))
unknown = sorted(set(submitted) - set(sent))
short = sorted(pk for pk, a in submitted.items()
               if len(a.answers) != sizes[pk] or (pk in sent and sent[pk] != sizes[pk]))
doubled = Assignment.objects.values("hit", "worker").annotate(n=Count("pk")).filter(n__gt=1).count()
print(json.dumps({"sent": len(sent), "stored": len(submitted), "votes_sent": sum(sent.values()),
                  "votes_stored": sum(len(a.answers) for a in submitted.values()), "lost": lost[:10],
                  "not_acknowledged": unknown[:10], "incomplete": short[:10], "doubled_places": doubled,
                  "claimed_open": Assignment.objects.filter(state="claimed").count()}))
"""


def fresh_database(async_commit=False):
    import psycopg

    admin, name = PG_URL.rsplit("/", 1)
    with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
        if async_commit:
            connection.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')


def django(env, *args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE,
                          text=True).stdout


def wait_for(url, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer at {url} within {seconds}s")


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def report(record, check):
    requests = record["requests"]
    if not requests:
        print("no request was recorded")
        return False
    begin, end = min(r[1] for r in requests), max(r[1] for r in requests)
    names = sorted({r[0] for r in requests}, key=lambda name: (name.startswith("login"), name))
    baseline = percentile([r[2] for r in requests if r[0].startswith("login")], 0.95)
    print(f"\n{'request':<24}{'count':>8}{'errors':>8}{'req/s':>8}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}"
          f"{'p95 / baseline':>16}")
    groups = [(name, [r for r in requests if r[0] == name]) for name in names]
    groups.append(("annotator requests", [r for r in requests if not r[0].startswith("login")]))
    for name, rows in groups:
        times = [r[2] for r in rows]
        print(f"{name:<24}{len(rows):>8}{sum(r[3] for r in rows):>8}{len(rows) / (end - begin):>8.1f}"
              f"{percentile(times, 0.5):>8.0f}{percentile(times, 0.95):>8.0f}{percentile(times, 0.99):>8.0f}"
              f"{percentile(times, 0.95) / baseline:>15.1f}x")
    print(f"\nsubmissions: {check['sent']} acknowledged, {check['stored']} stored "
          f"({check['stored'] / (end - begin):.1f}/s); votes sent {check['votes_sent']}, stored "
          f"{check['votes_stored']}; lost {check['lost']}, stored without acknowledgement "
          f"{check['not_acknowledged']}, incomplete {check['incomplete']}, doubled places "
          f"{check['doubled_places']}; claims still open at the end {check['claimed_open']}")
    errors = sum(r[3] for r in requests)
    for failed in [r for r in requests if r[3]][:5]:
        print(f"error: {failed[0]}: {failed[4] if len(failed) > 4 else ''}")
    return errors == 0 and not (check["lost"] or check["not_acknowledged"] or check["incomplete"]
                                or check["doubled_places"] or check["votes_sent"] != check["votes_stored"])


def merge_records(folder, record, processes):
    """One record from every locust process's (each writes RECORD.<pid>). Worker processes may still be
    writing theirs when the master returns: wait for all of them (a minute at most)."""
    expected = processes + 1 if processes > 1 else 1
    deadline = time.monotonic() + 60
    while len(list(folder.glob(record.name + ".*"))) < expected and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(1)  # a file just created may still be being written
    merged = {"submitted": {}, "requests": []}
    for part in sorted(folder.glob(record.name + ".*")):
        found = json.loads(part.read_text())
        merged["submitted"].update(found["submitted"])
        merged["requests"].extend(found["requests"])
    target = folder / "merged.json"
    target.write_text(json.dumps(merged))
    return target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread when > 1)")
    parser.add_argument("--async-commit", action="store_true",
                        help="diagnosis only: PostgreSQL answers commits before the disk has them, to see what "
                             "waiting for the disk costs (never for real data)")
    parser.add_argument("--hits", type=int, default=1500, help="HITs in the batch (25 sentences, 5 places each)")
    parser.add_argument("--think", default="1,3", help="seconds between a submit and the next HIT: MIN,MAX")
    parser.add_argument("--label", default="15,45", help="seconds spent answering one HIT: MIN,MAX (0,0: none)")
    parser.add_argument("--sqlite", action="store_true", help="the embedded default: SQLite, not PostgreSQL")
    parser.add_argument("--processes", type=int, default=1, help="locust worker processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        database = f"sqlite:///{folder / 'load.sqlite3'}" if args.sqlite else PG_URL
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT),
               "DATABASE_URL": database, "DB_CONN_MAX_AGE": "60", "SECRET_KEY": secrets.token_urlsafe(40),
               "DEBUG": "false", "HTTPS": "false", "LOG_LEVEL": "ERROR"}
        env.pop("CELERY_BROKER_URL", None)
        if not args.sqlite:
            fresh_database(args.async_commit)
        django(env, "manage.py", "migrate", "-v", "0")
        (folder / "setup.py").write_text(SETUP)
        (folder / "check.py").write_text(CHECK)
        sessions, record = folder / "sessions.json", folder / "record.json"
        batch = django(env, str(folder / "setup.py"), str(args.users), str(args.hits), secrets.token_urlsafe(12),
                       str(sessions)).strip()
        print(f"{'SQLite' if args.sqlite else 'PostgreSQL'} ready: {args.users} annotators, batch {batch} with "
              f"{args.hits} HITs of 25 sentences")
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", str(args.workers),
                                   "--threads", str(args.threads), "--bind", f"127.0.0.1:{PORT}",
                                   "--log-level", "warning"], cwd=ROOT, env=env)
        try:
            wait_for(f"http://127.0.0.1:{PORT}/accounts/login/")
            print(f"locust: {args.users} annotators ({args.label} s per HIT, {args.think} s between HITs) and 1 "
                  f"baseline visitor for "
                  f"{args.minutes:g} min against gunicorn ({args.workers} workers x {args.threads} threads) "
                  f"on {'SQLite' if args.sqlite else 'PostgreSQL'}, {args.processes} locust process(es)")
            spread = ["--processes", str(args.processes)] if args.processes > 1 else []
            subprocess.run([sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "locustfile.py"), *spread,
                            "--headless", "--users", str(args.users + 1),
                            "--spawn-rate", str(max(2, args.users // 50)),
                            "--run-time", f"{int(args.minutes * 60)}s", "--host", f"http://127.0.0.1:{PORT}",
                            "--only-summary", "--loglevel", "WARNING", "--stop-timeout", "90"],
                           cwd=ROOT, env={**env, "LOAD_BATCH": batch, "LOAD_SESSIONS": str(sessions),
                                          "LOAD_RECORD": str(record), "LOAD_THINK": args.think,
                                          "LOAD_LABEL": args.label, "LOAD_PROCESSES": str(args.processes)},
                           check=False, stdout=subprocess.DEVNULL)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        merged = merge_records(folder, record, args.processes)
        check = json.loads(django(env, str(folder / "check.py"), str(merged)))
        ok = report(json.loads(merged.read_text()), check)
    print("\nresult:", "no errors, every acknowledged vote stored once" if ok else "FAILED (see above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
