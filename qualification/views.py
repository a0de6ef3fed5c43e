"""The hosted screening test (in-house annotators) and the organizers' pool view."""

from datetime import timedelta

from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts import access
from accounts.roles import ORGANIZER, role_required
from hits.crowd_auth import bind_worker, bound, worker_required
from hits.models import Batch, Worker
from hits.prolific_views import busy_page, participant_check
from hits.providers.base import ProviderBusy
from hits.services import CrowdError
from qualification import practice, prolific, selectors, services
from qualification.extensions import DESIGN_TESTS
from qualification.models import Attempt, Grant, QualificationTest


def _test(name):
    test = services.current_test(name)
    if test is None:
        raise Http404(f"no qualification test {name}")
    return test


def _test_for(request, name):
    """The test, for the worker in front of it: a participant Prolific sent reaches only the screening study they
    came from; an annotator, a test of their projects (or the site's), or one a batch they may work on needs.
    Anyone else finds no such test."""
    test = _test(name)
    worker, context = bound(request)
    if worker is not None and worker == request.worker:
        study = ((test.provider_state or {}).get("prolific") or {}).get("study_id")
        if study and context.get("study") == study:
            return test
        raise Http404(f"no qualification test {name}")
    tests = access.rows(request.user, QualificationTest.objects.filter(pk=test.pk), access.WORK)
    needed = access.rows(request.user, Batch.objects.filter(requirements__qualification=name), access.WORK)
    if not (tests.exists() or needed.exists()):
        raise Http404(f"no qualification test {name}")
    return test


@worker_required
def take(request, name):
    test = _test_for(request, name)
    worker = request.worker
    try:
        attempt = services.attempt_start(test=test, worker=worker)
    except CrowdError as error:
        grant = Grant.objects.filter(test__name=name, worker=worker).order_by("-test__version").first()
        last = Attempt.objects.filter(test=test, worker=worker).exclude(submitted=None).order_by("-submitted").first()
        return render(request, "qualification/status.html", {"test": test, "message": str(error), "grant": grant,
                                                             "attempt": last}, status=403 if not grant else 200)
    return _take_page(request, test, attempt, list(test.items.all()), {})


def _take_page(request, test, attempt, items, draft, unanswered=0):
    if test.practice:
        return _practice_page(request, test, attempt, items)
    if test.design_source:  # a design's test: its items as the design's task page shows them
        return render(request, "qualification/take_design.html", {
            **DESIGN_TESTS.get("design").page_context(test, items), "test": test, "attempt": attempt,
            "draft": draft})
    return render(request, "qualification/take.html", {"test": test, "attempt": attempt, "items": items,
                                                       "draft": draft, "unanswered": unanswered})


def _practice_page(request, test, attempt, items):
    """A practice round's item, alone on the design's page, under what the last answer was told."""
    progress = attempt.progress
    item = items[progress["at"]]
    said = progress.get("said")
    told = None
    if said:
        answered = next(entry for entry in items if entry.pk == said["item"])
        told = {**said, "why": answered.why, "moved": not said["again"],
                "restarted": said["round"] != progress["round"],
                "answer": DESIGN_TESTS.get("design").shown(test, answered.answers)}
    return render(request, "qualification/practice.html", {
        **DESIGN_TESTS.get("design").page_context(test, [item]), "test": test, "attempt": attempt, "item": item,
        "number": progress["at"] + 1, "count": len(items), "told": told, "right_so_far": len(progress["right"]),
        "rules": practice.Practice.of(test.practice), "draft": progress.get("draft") or {}})


def _practice_submit(request, attempt, worker):
    items = list(attempt.test.items.all())
    try:
        item_id = int(request.POST.get("practice_item", ""))
    except ValueError:
        item_id = 0
    current = next((item for item in items if item.pk == item_id), None)
    answers = DESIGN_TESTS.get("design").read(attempt.test, [current], request.POST) if current else {}
    draft = {key: value for key, value in request.POST.items() if key != "csrfmiddlewaretoken"}
    try:
        attempt = services.practice_answer(attempt=attempt, worker=worker, item_id=item_id,
                                           answers=answers.get(f"item-{item_id}"), draft=draft)
    except CrowdError as error:
        status = 403 if attempt.worker_id != worker.pk else 409
        return render(request, "qualification/status.html", {
            "test": attempt.test, "message": str(error), "retry": attempt.worker_id == worker.pk
            and attempt.submitted is None}, status=status)
    if attempt.submitted:
        return redirect("qualification:result", name=attempt.test.name, attempt_id=attempt.pk)
    return redirect("qualification:take", name=attempt.test.name)


@worker_required
@require_POST
def submit(request, name, attempt_id):
    worker = request.worker
    _test_for(request, name)
    attempt = get_object_or_404(Attempt.objects.select_related("test"), pk=attempt_id, test__name=name)
    if attempt.test.practice:
        return _practice_submit(request, attempt, worker)
    items = list(attempt.test.items.all())
    if attempt.test.design_source:
        # The design's page lets the test be sent once every item is answered, as a HIT's does.
        answers = DESIGN_TESTS.get("design").read(attempt.test, items, request.POST)
    else:
        answers = {f"item-{item.pk}": request.POST[f"item-{item.pk}"] for item in items
                   if request.POST.get(f"item-{item.pk}") in ("0", "1")}
        unanswered = len(items) - len(answers)
        if unanswered and request.POST.get("confirmed") != "1" and attempt.worker_id == worker.pk \
                and attempt.submitted is None:
            # Gaps count as wrong and a failed test waits a day: the worker confirms, with every answer kept.
            return _take_page(request, attempt.test, attempt, items, answers, unanswered)
    try:
        attempt = services.attempt_submit(attempt=attempt, worker=worker, answers=answers)
    except CrowdError as error:
        status = 403 if attempt.worker_id != worker.pk else 409
        return render(request, "qualification/status.html", {
            "test": attempt.test, "message": str(error),
            "attempt": attempt if attempt.worker_id == worker.pk and attempt.submitted else None}, status=status)
    return redirect("qualification:result", name=name, attempt_id=attempt.pk)


@worker_required
def result(request, name, attempt_id):
    worker = request.worker
    attempt = get_object_or_404(Attempt.objects.select_related("test"), pk=attempt_id, worker=worker)
    if attempt.submitted is None:
        return redirect("qualification:take", name=name)
    retake = None if attempt.passed else attempt.submitted + timedelta(seconds=attempt.test.retake_delay)
    given = attempt.answers or {}
    if attempt.test.design_source:
        tests = DESIGN_TESTS.get("design")
        rows = [{"item": item, "given": tests.shown(attempt.test, given.get(str(item.pk))),
                 "answer": tests.shown(attempt.test, item.answers), "unanswered": not given.get(str(item.pk)),
                 "right": bool(given.get(str(item.pk))) and tests.right(given[str(item.pk)], item.answers),
                 "why": item.why} for item in attempt.test.items.all()]
    else:
        rows = [{"item": item, "given": given.get(str(item.pk)), "right": given.get(str(item.pk)) == item.answer,
                 "why": item.why or services.explanation(item.answer, item.rows)} for item in attempt.test.items.all()]
    # A participant Prolific sent goes back there with the pass or the fail code (both are paid).
    from_prolific = worker.provider == "prolific" and bound(request)[0] == worker
    progress = attempt.progress or {}
    if attempt.test.practice:
        retake = None  # a practice round ends the work when it is not passed, as in Potato
        for row in rows:
            row["tries"] = progress.get("tries", {}).get(str(row["item"].pk), 0)
    return render(request, "qualification/result.html", {
        "test": attempt.test, "attempt": attempt, "retake": retake, "rows": rows, "progress": progress,
        "ending": practice.ENDINGS.get(progress.get("ended", "")),
        "wrong": sum(not row["right"] for row in rows),
        "complete": prolific.completion_url(attempt.test, bool(attempt.passed)) if from_prolific else ""})


def prolific_start(request, name):
    """The screening study's external URL: checked with Prolific, then the hosted test for that participant."""
    test = _test(name)
    study = ((test.provider_state or {}).get("prolific") or {}).get("study_id")
    if not study:
        raise Http404(f"the test {name} has no Prolific screening study")
    try:
        pid, study_id, submission = participant_check(request.GET, expected_study=study)
    except ProviderBusy:
        return busy_page(request)
    except CrowdError as error:
        return render(request, "hits/refused.html", {"message": str(error), "provider": "Prolific"}, status=403)
    worker, _ = Worker.objects.get_or_create(provider="prolific", external_id=pid)
    bind_worker(request, worker, submission=submission["id"], study=study_id)
    return redirect("qualification:take", name=name)


@role_required(ORGANIZER)
def pool(request, name):
    test = access.get_or_404(request.user, QualificationTest.objects.filter(name=name).order_by("-version"),
                             access.MANAGE)
    return render(request, "qualification/pool.html", {"test": test, "rows": selectors.pool_rows(test)})
