"""Concurrent claims against PostgreSQL: no HIT gets more places than it has."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from hits.models import Assignment
from hits.services import assignment_claim, batch_publish, worker_for_user
from tests.hits.helpers import make_batch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_it_gives_each_place_to_exactly_one_of_many_racing_workers():
    batch = batch_publish(batch=make_batch(count=50, assignments_per_hit=3))  # 2 HITs x 3 places
    workers = [worker_for_user(User.objects.create_user(f"racer{n}")) for n in range(24)]
    barrier = threading.Barrier(len(workers))
    results, errors = [], []

    def race(worker):
        try:
            barrier.wait()
            results.append(assignment_claim(batch=batch, worker=worker))
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(result is not None for result in results) == 6
    for hit in batch.hits.all():
        assert Assignment.objects.filter(hit=hit).count() == 3
