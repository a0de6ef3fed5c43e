"""Who is working: an in-house annotator (a site user in the annotator group), or a participant a provider
sent here (Prolific) bound to this browser session after the provider confirmed their submission. Pages
that serve both take `worker_required` and read `request.worker`."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

from accounts.roles import ANNOTATOR, has_role
from hits.models import Worker
from hits.services import worker_for_user

SESSION_KEY = "crowd_worker"


def bind_worker(request, worker, **context):
    """Bind `worker` to this session (a new session key, as a login does); `context` says for what
    (e.g. {"submission": ..., "study": ...})."""
    request.session.cycle_key()
    request.session[SESSION_KEY] = {"worker": worker.pk, **context}


def bound(request):
    """(worker, context) of the participant bound to this session, or (None, {})."""
    found = request.session.get(SESSION_KEY)
    if not found:
        return None, {}
    worker = Worker.objects.filter(pk=found.get("worker")).first()
    return worker, found


def worker_required(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        worker, _ = bound(request)
        if worker is None:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, ANNOTATOR):
                raise PermissionDenied(f"this page is for the {ANNOTATOR} role")
            worker = worker_for_user(request.user)
        request.worker = worker
        return view(request, *args, **kwargs)

    return wrapped
