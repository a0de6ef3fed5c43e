"""A task really goes through Redis to a separate Celery worker process."""

import os
from pathlib import Path

import pytest

from config.celery import ping

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _parent_of(pid):
    # /proc/<pid>/stat: "pid (name) state ppid ..."; the name may hold spaces.
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def test_it_runs_a_task_in_the_worker_process(celery_worker):
    assert ping.app.conf.task_always_eager is False
    reply = ping.delay().get(timeout=30)
    assert reply["pid"] != os.getpid()
    assert _parent_of(reply["pid"]) == celery_worker.pid
