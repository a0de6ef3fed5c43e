"""Load test: a launch day. N annotators arrive within two minutes, log in and label at a person's pace.

    .venv/bin/pip install -r requirements-bench.txt
    .venv/bin/python bench/load_test.py [--users 1000] [--minutes 5] [--workers 2] [--answer 8,15]
        [--items-per-hit 10] [--arrive 120] [--processes 2] [--sqlite]

Each annotator logs in through the login form, opens the work list, takes a HIT and opens its page, answers
an item every 8-15 s (each answer saved as a draft, as the page does), submits with *Submit and take the next
HIT* and goes on (bench/locustfile.py). One visitor reads the login page the whole time: the baseline.

The bench starts everything on this machine: a fresh PostgreSQL database (BENCH_DATABASE_URL, default
crowdset_load on 127.0.0.1), Redis (BENCH_REDIS_URL, default 127.0.0.1:6379; databases 12 and 13, flushed) as
the shared cache, session cache and Celery broker, a Celery worker, and gunicorn on loopback. --sqlite runs the
embedded default instead: a fresh SQLite file, no Redis, tasks in the web process.

It prints p50/p95/p99 per endpoint as the annotators saw them, errors and requests/s; the p95 of the time spent in
the application (Server-Timing's app: the rest is waiting for a web process or the network); the server's CPU per
request, from each response's Server-Timing header (the web process's own CPU for that request) and as the ratio
to the login page's in the same run; and the whole server's CPU (gunicorn, PostgreSQL, Redis, the Celery worker,
from /proc) over the run divided by the requests. Afterwards it checks the database against what the clients sent: every
acknowledged submission stored once with one answer per item, no annotator holding two places in one HIT.
It exits non-zero on any error or mismatch.
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
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")

SETUP = """
import sys
import django
django.setup()
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.conf import settings
from accounts.roles import ANNOTATOR, group
from core.items import SentenceItem
from core.semeval import read_subtask1_rows
from designs.semeval import labeling_batch_create
from hits.services import ItemSpec, batch_publish

users, hits, per_hit, password = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# Hashed once with the site's hasher: every annotator logs in with it, and the server checks it each time.
hashed = make_password(password)
annotators = User.objects.bulk_create(User(username=f"load-{n:04d}", password=hashed) for n in range(1, users + 1))
group(ANNOTATOR).user_set.add(*annotators)
rows = read_subtask1_rows(settings.SHARED_DIR / "semeval2020t5" / "subtask1_train.csv")
items = [ItemSpec(key=f"load:{n}", payload=SentenceItem(text=rows[n % len(rows)][2], sentence_id=f"load:{n}"))
         for n in range(hits * per_hit)]
batch = labeling_batch_create(name="load test", items=items, items_per_hit=per_hit)
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


def fresh_database():
    import psycopg

    admin, name = PG_URL.rsplit("/", 1)
    with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def fresh_redis():
    """The cache and the broker, each in a Redis database of its own, emptied."""
    import redis

    urls = {"CACHE_URL": f"{REDIS_URL}/12", "CELERY_BROKER_URL": f"{REDIS_URL}/13"}
    for url in urls.values():
        redis.Redis.from_url(url).flushdb()
    return urls


def machine_cpu():
    """(busy, idle) jiffies of the whole machine, every core: the load generator's share shows here too."""
    values = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, idle


def server_cpu(gunicorn, worker):
    """CPU seconds so far of the server's processes, by kind: gunicorn (master and workers), the Celery worker
    (and its pool), PostgreSQL (every backend of the cluster) and Redis."""
    used = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        ppid, seconds = int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        if int(pid) == gunicorn or ppid == gunicorn:
            kind = "gunicorn"
        elif worker and (int(pid) == worker.pid or ppid == worker.pid):
            kind = "celery worker"
        elif command.startswith("postgres") or "postgres:" in command:
            kind = "postgresql"
        elif command.startswith("redis-server"):
            kind = "redis"
        else:
            continue
        used[kind] = used.get(kind, 0.0) + seconds
    return used


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


def report(record, check, cpu_used):
    requests = record["requests"]
    if not requests:
        print("no request was recorded")
        return False
    begin, end = min(r[1] for r in requests), max(r[1] for r in requests)
    baseline_name = "login page (baseline)"
    baseline_cpu = mean([r[5] for r in requests if r[0] == baseline_name and r[5] is not None])
    names = sorted({r[0] for r in requests}, key=lambda name: (name == baseline_name, name))
    print(f"\n{'request':<24}{'count':>8}{'errors':>8}{'req/s':>8}{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}"
          f"{'app p95':>9}{'CPU ms':>8}{'CPU / baseline':>16}")
    groups = [(name, [r for r in requests if r[0] == name]) for name in names]
    groups.append(("annotator requests", [r for r in requests if r[0] != baseline_name]))
    for name, rows in groups:
        times, cpu = [r[2] for r in rows], mean([r[5] for r in rows if r[5] is not None])
        print(f"{name:<24}{len(rows):>8}{sum(r[3] for r in rows):>8}{len(rows) / (end - begin):>8.1f}"
              f"{percentile(times, 0.5):>8.0f}{percentile(times, 0.95):>8.0f}{percentile(times, 0.99):>8.0f}"
              f"{percentile([r[6] for r in rows if r[6] is not None], 0.95):>9.0f}"
              f"{cpu:>8.2f}{cpu / baseline_cpu if baseline_cpu else 0:>15.2f}x")
    machine = cpu_used.pop("machine busy share")
    total = sum(cpu_used.values())
    print(f"\nserver CPU over the run: {total:.1f} s for {len(requests)} requests, "
          f"{total * 1000 / len(requests):.1f} ms a request ("
          + ", ".join(f"{kind} {seconds:.1f} s" for kind, seconds in sorted(cpu_used.items())) + "); "
          f"the machine's cores (locust's included) {machine:.0%} busy")
    print(f"\nsubmissions: {check['sent']} acknowledged, {check['stored']} stored "
          f"({check['stored'] / (end - begin):.1f}/s); answers sent {check['votes_sent']}, stored "
          f"{check['votes_stored']}; lost {check['lost']}, stored without acknowledgement "
          f"{check['not_acknowledged']}, incomplete {check['incomplete']}, doubled places "
          f"{check['doubled_places']}; claims still open at the end {check['claimed_open']}")
    errors = sum(r[3] for r in requests)
    for failed in [r for r in requests if r[3]][:5]:
        print(f"error: {failed[0]} at {failed[1] - begin:.0f} s of {end - begin:.0f}: {failed[4]}")
    return errors == 0 and not (check["lost"] or check["not_acknowledged"] or check["incomplete"]
                                or check["doubled_places"] or check["votes_sent"] != check["votes_stored"])


def mean(values):
    return sum(values) / len(values) if values else 0.0


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
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--arrive", type=float, default=120, help="seconds over which the annotators arrive")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (2: best measured here)")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread when > 1)")
    parser.add_argument("--hits", type=int, default=1500, help="HITs in the batch (5 places each)")
    parser.add_argument("--items-per-hit", type=int, default=10)
    parser.add_argument("--answer", default="8,15", help="seconds to answer one item: MIN,MAX")
    parser.add_argument("--sqlite", action="store_true", help="the embedded default: SQLite, not PostgreSQL")
    parser.add_argument("--processes", type=int, default=1, help="locust worker processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        database = f"sqlite:///{folder / 'load.sqlite3'}" if args.sqlite else PG_URL
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT),
               "DATABASE_URL": database, "DB_CONN_MAX_AGE": "600", "SECRET_KEY": secrets.token_urlsafe(40),
               "DEBUG": "false", "HTTPS": "false", "LOG_LEVEL": "ERROR", "SERVER_TIMING": "true"}
        for name in ("CELERY_BROKER_URL", "CACHE_URL", "CELERY_RESULT_BACKEND"):
            env.pop(name, None)
        if not args.sqlite:
            fresh_database()
            env.update(fresh_redis())
        django(env, "manage.py", "migrate", "-v", "0")
        (folder / "setup.py").write_text(SETUP)
        (folder / "check.py").write_text(CHECK)
        record, password = folder / "record.json", secrets.token_urlsafe(12)
        batch = django(env, str(folder / "setup.py"), str(args.users), str(args.hits), str(args.items_per_hit),
                       password).strip()
        print(f"{'SQLite' if args.sqlite else 'PostgreSQL + Redis + a Celery worker'} ready: {args.users} "
              f"annotators, batch {batch} with {args.hits} HITs of {args.items_per_hit} sentences")
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", str(args.workers),
                                   "--threads", str(args.threads), "--bind", f"127.0.0.1:{PORT}",
                                   "--log-level", "warning"], cwd=ROOT, env=env)
        worker = None if args.sqlite else subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker", "--concurrency", "1", "--loglevel",
             "WARNING", "--without-gossip", "--without-mingle"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        try:
            wait_for(f"http://127.0.0.1:{PORT}/accounts/login/")
            print(f"locust: {args.users} annotators arriving over {args.arrive:g} s ({args.answer} s an item), "
                  f"1 baseline visitor, {args.minutes:g} min against gunicorn ({args.workers} workers x "
                  f"{args.threads} threads), {args.processes} locust process(es)")
            spread = ["--processes", str(args.processes)] if args.processes > 1 else []
            cpu_before, machine_before = server_cpu(server.pid, worker), machine_cpu()
            subprocess.run([sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "locustfile.py"), *spread,
                            "--headless", "--users", str(args.users + 1),
                            "--spawn-rate", f"{max(1.0, args.users / args.arrive):.2f}",
                            "--run-time", f"{int(args.minutes * 60)}s", "--host", f"http://127.0.0.1:{PORT}",
                            "--only-summary", "--loglevel", "WARNING", "--stop-timeout", "30"],
                           cwd=ROOT, env={**env, "LOAD_BATCH": batch, "LOAD_PASSWORD": password,
                                          "LOAD_USERS": str(args.users), "LOAD_RECORD": str(record),
                                          "LOAD_ANSWER": args.answer, "LOAD_PROCESSES": str(args.processes)},
                           check=False, stdout=subprocess.DEVNULL)
            cpu_used = {name: after - cpu_before.get(name, 0.0)
                        for name, after in server_cpu(server.pid, worker).items()}
            busy, idle = (after - before for after, before in zip(machine_cpu(), machine_before, strict=True))
            cpu_used["machine busy share"] = busy / (busy + idle)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
            if worker:
                worker.send_signal(signal.SIGTERM)
                worker.wait(60)
        merged = merge_records(folder, record, args.processes)
        check = json.loads(django(env, str(folder / "check.py"), str(merged)))
        ok = report(json.loads(merged.read_text()), check, cpu_used)
    print("\nresult:", "no errors, every acknowledged answer stored once" if ok else "FAILED (see above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
