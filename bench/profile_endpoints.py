"""Where an annotator request's time goes: each endpoint the load test calls, run in-process under cProfile.

    .venv/bin/python bench/profile_endpoints.py [--requests 200] [--sqlite] [--top 12]

A fresh PostgreSQL database (BENCH_DATABASE_URL's server, database crowdset_profile; or a SQLite file with
--sqlite) gets a batch of 100 HITs of 10 sentences and one annotator; the Redis cache of the load test is used
when reachable. Each endpoint (login page, work list, claim, task page, draft, submit and next) is called
--requests times through Django's test client, then again under the profiler. For each it prints the CPU per
request (thread time, the test client's own work included), the queries per request, and the functions of
this project and of Django that take the most time, cumulative.
"""

import argparse
import cProfile
import io
import os
import pstats
import re
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.load_test import PG_URL, REDIS_URL, SETUP  # noqa: E402

ITEM = re.compile(r'name="a-(\d+)-0" value="1"')


def prepare(args, folder):
    if args.sqlite:
        database = f"sqlite:///{folder / 'profile.sqlite3'}"
    else:
        import psycopg

        admin = PG_URL.rsplit("/", 1)[0]
        with psycopg.connect(admin + "/postgres", autocommit=True) as connection:
            connection.execute('DROP DATABASE IF EXISTS "crowdset_profile" WITH (FORCE)')
            connection.execute('CREATE DATABASE "crowdset_profile"')
        database = admin + "/crowdset_profile"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), "DATABASE_URL": database,
           "SECRET_KEY": secrets.token_urlsafe(40), "DEBUG": "false", "HTTPS": "false", "ALLOWED_HOSTS": "testserver"}
    env.pop("CELERY_BROKER_URL", None)
    try:
        import redis

        redis.Redis.from_url(f"{REDIS_URL}/10").flushdb()
        env["CACHE_URL"] = f"{REDIS_URL}/10"
    except redis.RedisError:  # no Redis here: each process's own cache, as on the embedded default
        env.pop("CACHE_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    (folder / "setup.py").write_text(SETUP)
    password = secrets.token_urlsafe(12)
    batch = subprocess.run([sys.executable, str(folder / "setup.py"), "1", "100", "10", password], cwd=ROOT, env=env,
                           check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    os.environ.update(env)
    return int(batch), password


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        batch, password = prepare(args, Path(folder))
        import django

        django.setup()
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        annotator = Client()
        annotator.post("/accounts/login/", {"username": "load-0001", "password": password})
        state = {}

        def claim():
            response = annotator.post(f"/work/batches/{batch}/claim/")
            state["page"] = response["Location"]
            return response

        def submit():
            page = annotator.get(state["page"]).content.decode()
            assignment = state["page"].rstrip("/").rsplit("/", 1)[1]
            fields = {f"a-{item}-0": "1" for item in ITEM.findall(page)}
            response = annotator.post(f"/work/assignments/{assignment}/submit/",
                                      {**fields, "_elapsed_ms": "60000", "_changes": "[]", "next": "1"})
            state["page"] = response["Location"]
            return response

        def draft():
            assignment = state["page"].rstrip("/").rsplit("/", 1)[1]
            return annotator.post(f"/work/assignments/{assignment}/draft/", {"_draft_at": "1"},
                                  HTTP_ACCEPT="application/json")

        claim()
        visitor = Client()
        endpoints = [("login page", lambda: visitor.get("/accounts/login/")),
                     ("work list", lambda: annotator.get("/work/")),
                     ("claim (holding one: the same HIT back)", claim),
                     ("task page", lambda: annotator.get(state["page"])),
                     ("draft", draft),
                     ("submit and next (with its task page)", submit)]
        print(f"{'endpoint':<42}{'CPU ms':>8}{'queries':>9}")
        profiles = {}
        for name, call in endpoints:
            count = args.requests if "submit" not in name else min(args.requests, 20)  # a HIT each: 100 in all
            call()
            with CaptureQueriesContext(connection) as captured:
                started = time.thread_time()
                for _ in range(count):
                    call()
                cpu = (time.thread_time() - started) * 1000 / count
            print(f"{name:<42}{cpu:>8.2f}{len(captured) / count:>9.1f}")
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(count):
                call()
            profiler.disable()
            profiles[name] = profiler
        for name, profiler in profiles.items():
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
            stats.print_stats(rf"({re.escape(str(ROOT))}/(?!\.venv)|django/(db|template|contrib)/)", args.top)
            print(f"\n== {name}\n" + "\n".join(line for line in out.getvalue().splitlines()
                                                 if re.match(r"\s*\d", line)))


if __name__ == "__main__":
    main()
