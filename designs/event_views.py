"""The events a multi_document_event scheme keeps above the documents of a batch (designs.models.SharedEvent), as
the scheme's widget reads and changes them while a worker works (Potato's /corpus/api/ routes, one URL here): a
GET lists the batch's events, a POST makes one change, named by `action`, and answers with the list as it now is.
Only a worker holding a claimed assignment of the batch reaches them, and only the documents of that HIT can be put
in an event or cited. A title or slot changed on a version someone else has changed since is refused (409) with
theirs, so nobody's edit is overwritten unseen; an event is deleted only by whoever made it, and a seeded one never."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from designs.models import SharedEvent, batch_design
from designs.schemes import SCHEME_TYPES
from designs.task_type import record
from hits.crowd_auth import worker_required
from hits.models import Assignment, Worker

TITLE_MOST = 500
SLOT_MOST = 2000


class Refused(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def listing(batch: Any, scheme: Any, worker: Worker) -> dict[str, Any]:
    """The batch's events of `scheme` as the widget shows them; evidence says only whether the worker cited it."""
    events = []
    for event in SharedEvent.objects.filter(batch=batch, scheme=scheme.name).order_by("pk"):
        events.append({"id": event.key, "title": event.title, "slot_values": event.slot_values,
                       "members": event.members, "version": event.version, "seeded": event.seeded,
                       "mine": event.created_by_id == worker.pk,
                       "evidence": [{key: value for key, value in citation.items() if key != "created_by"}
                                    for citation in event.evidence]})
    return {"events": events, "allow_create": scheme.allow_annotator_create}


@worker_required
@require_http_methods(["GET", "POST"])
def shared_events(request, assignment_id: int, scheme_name: str):
    assignment = get_object_or_404(Assignment.objects.select_related("hit__batch"), pk=assignment_id,
                                   worker=request.worker)
    design, _ = batch_design(assignment.hit.batch_id)
    scheme = next((found for found in design.annotation_schemes
                   if found.name == scheme_name and SCHEME_TYPES.of(found).keeps_shared), None)
    if scheme is None:
        return JsonResponse({"error": f"this batch has no scheme {scheme_name!r} that keeps events"}, status=404)
    batch = assignment.hit.batch
    if request.method == "GET":
        return JsonResponse(listing(batch, scheme, request.worker))
    if assignment.state != Assignment.State.CLAIMED:
        return JsonResponse({"error": "this HIT is no longer yours to work on: its events cannot be changed from "
                                      "it", **listing(batch, scheme, request.worker)}, status=409)
    documents = {found.id: found.text for found in map(record, assignment.hit.ordered_items())}
    try:
        with transaction.atomic():
            _change(request.POST, batch, scheme, request.worker, documents)
    except Refused as refused:
        return JsonResponse({"error": str(refused), **listing(batch, scheme, request.worker)}, status=refused.status)
    return JsonResponse(listing(batch, scheme, request.worker))


def _change(given: Any, batch: Any, scheme: Any, worker: Worker, documents: dict[str, str]) -> None:
    action = given.get("action", "")
    if action == "create":
        if not scheme.allow_annotator_create:
            raise Refused("this study's events are given: annotators do not make new ones", 403)
        doc = _document(given, documents, required=False)
        SharedEvent.objects.create(batch=batch, scheme=scheme.name, key=f"evt_{uuid.uuid4().hex[:12]}",
                                   template_name=scheme.template_name, title=given.get("title", "")[:TITLE_MOST],
                                   members=[doc] if doc else [], created_by=worker)
        return
    event = SharedEvent.objects.select_for_update().filter(batch=batch, scheme=scheme.name,
                                                           key=given.get("event", "")).first()
    if event is None:
        raise Refused("that event is not there any more (someone deleted it); the list is as it is now", 404)
    if action in ("title", "slot") and given.get("version") != str(event.version):
        raise Refused(f"someone changed “{event.title or 'this event'}” while you were editing it; it now says what "
                      f"they gave: change it again if you need to", 409)
    if action == "title":
        event.title = given.get("title", "")[:TITLE_MOST]
    elif action == "slot":
        slot = given.get("slot", "")
        if slot not in [entry.name for entry in scheme.slots]:
            raise Refused(f"the template has no slot {slot!r}")
        event.slot_values = {**event.slot_values, slot: given.get("value", "")[:SLOT_MOST]}
    elif action == "member":
        doc = _document(given, documents)
        keep = given.get("attach") == "1"
        event.members = [*[entry for entry in event.members if entry != doc], *([doc] if keep else [])]
    elif action == "cite":
        event.evidence = [*event.evidence, _citation(given, scheme, documents, worker)]
        doc = event.evidence[-1]["doc_id"]
        if doc not in event.members:  # citing a document's words puts it in the event, as in Potato
            event.members = [*event.members, doc]
    elif action == "uncite":
        index = given.get("index", "")
        if not index.isdecimal() or int(index) >= len(event.evidence):
            raise Refused("that citation is not there any more; the list is as it is now", 404)
        event.evidence = [entry for number, entry in enumerate(event.evidence) if number != int(index)]
    elif action == "delete":
        if event.seeded or event.created_by_id != worker.pk:
            raise Refused("only whoever made an event deletes it (a given one stays): take this document out of it "
                          "instead", 403)
        event.delete()
        return
    else:
        raise Refused(f"unknown action {action!r}")
    event.version += 1
    event.save()


def _document(given: Any, documents: dict[str, str], required: bool = True) -> str:
    doc = given.get("doc", "")
    if not doc and not required:
        return ""
    if doc not in documents:
        raise Refused(f"document {doc!r} is not in this HIT: only its documents can be put in an event or cited")
    return doc


def _citation(given: Any, scheme: Any, documents: dict[str, str], worker: Worker) -> dict[str, Any]:
    slot = given.get("slot", "")
    if slot not in [entry.name for entry in scheme.slots]:
        raise Refused(f"the template has no slot {slot!r}")
    doc = _document(given, documents)
    text = documents[doc]
    # The words as the page found them, placed in the document's own text where they are nearest the page's offset
    # (the page's text may differ from the item's by spacing).
    quote, near = given.get("quote", ""), given.get("start", "")
    places = [found.start() for found in re.finditer(re.escape(quote), text)] if quote.strip() else []
    if not places:
        raise Refused(f"“{quote}” is not in document {doc!r}: cite words of its text")
    start = min(places, key=lambda place: abs(place - (int(near) if near.isdecimal() else 0)))
    return {"slot_name": slot, "doc_id": doc, "span_start": start, "span_end": start + len(quote),
            "quoted_text": quote, "span_id": "", "created_by": worker.pk,
            "created_at": timezone.now().isoformat()}
