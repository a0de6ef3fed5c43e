"""The hosted screening test (in-house annotators) and the organizers' pool view."""

from datetime import timedelta

from django.db.models import Count, Max, OuterRef, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from aggregation.models import WorkerStat
from config.roles import ANNOTATOR, ORGANIZER, role_required
from hits.models import Worker
from hits.services import CrowdError, worker_for_user
from qualification import services
from qualification.models import Attempt, Grant


def _test(name):
    test = services.current_test(name)
    if test is None:
        raise Http404(f"no qualification test {name}")
    return test


@role_required(ANNOTATOR)
def take(request, name):
    test = _test(name)
    worker = worker_for_user(request.user)
    try:
        attempt = services.attempt_start(test=test, worker=worker)
    except CrowdError as error:
        grant = Grant.objects.filter(test__name=name, worker=worker).order_by("-test__version").first()
        last = Attempt.objects.filter(test=test, worker=worker).exclude(submitted=None).order_by("-submitted").first()
        return render(request, "qualification/status.html", {"test": test, "message": str(error), "grant": grant,
                                                             "attempt": last}, status=403 if not grant else 200)
    return render(request, "qualification/take.html", {"test": test, "attempt": attempt,
                                                       "items": test.items.all()})


@role_required(ANNOTATOR)
@require_POST
def submit(request, name, attempt_id):
    worker = worker_for_user(request.user)
    attempt = get_object_or_404(Attempt.objects.select_related("test"), pk=attempt_id, test__name=name)
    try:
        attempt = services.attempt_submit(attempt=attempt, worker=worker, answers=request.POST)
    except CrowdError as error:
        status = 403 if attempt.worker_id != worker.pk else 409
        return render(request, "qualification/status.html", {"test": attempt.test, "message": str(error),
                                                             "attempt": None}, status=status)
    return redirect("qualification:result", name=name, attempt_id=attempt.pk)


@role_required(ANNOTATOR)
def result(request, name, attempt_id):
    worker = worker_for_user(request.user)
    attempt = get_object_or_404(Attempt.objects.select_related("test"), pk=attempt_id, worker=worker)
    retake = None if attempt.passed else attempt.submitted + timedelta(seconds=attempt.test.retake_delay)
    return render(request, "qualification/result.html", {"test": attempt.test, "attempt": attempt, "retake": retake})


@role_required(ORGANIZER)
def pool(request, name):
    test = _test(name)
    latest_accuracy = WorkerStat.objects.filter(worker=OuterRef("pk")).order_by("-run__created").values(
        "consensus_accuracy")[:1]
    workers = (Worker.objects.filter(qualification_attempts__test__name=name)
               .annotate(attempts=Count("qualification_attempts", distinct=True),
                         best=Max("qualification_attempts__score"),
                         later_accuracy=Subquery(latest_accuracy))
               .select_related("user").order_by("-best"))
    grants = {g.worker_id: g for g in Grant.objects.filter(test__name=name)}
    rows = [{"worker": w, "attempts": w.attempts, "best": w.best, "grant": grants.get(w.pk),
             "later_accuracy": w.later_accuracy} for w in workers]
    return render(request, "qualification/pool.html", {"test": test, "rows": rows})
