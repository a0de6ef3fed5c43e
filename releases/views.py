"""Researchers' pages: dataset versions with their statistics, exports and downloads."""

from pathlib import Path

from django.contrib import messages
from django.http import FileResponse, Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts import access
from accounts.roles import RESEARCHER, role_required
from jobs.services import job_start
from releases import selectors
from releases.models import DatasetVersion


@role_required(RESEARCHER)
def versions(request):
    readable = access.rows(request.user, DatasetVersion.objects.all(), access.READ)
    return render(request, "releases/versions.html", {"rows": selectors.version_rows(ids=readable.values_list(
        "pk", flat=True))})


@role_required(RESEARCHER)
@require_POST
def export(request, name):
    version = access.get_or_404(request.user, DatasetVersion.objects.all(), access.READ, name=name)
    job = job_start(kind="export", target=version.pk, user=request.user)
    job.refresh_from_db()
    messages.info(request, f"Export of {version.name}: {job.state}" + (f", {job.message}" if job.message else ""))
    return redirect("releases:versions")


@role_required(RESEARCHER)
def download(request, name, filename):
    """A file of the version's last export; only names that export wrote are served."""
    version = access.get_or_404(request.user, DatasetVersion.objects.all(), access.READ, name=name)
    if filename not in version.results.get("export", {}).get("files", []):
        raise Http404(f"{filename} is not a file of the export of {name}")
    path = Path(version.results["export"]["folder"]) / filename
    if not path.is_file():
        raise Http404(f"{filename} of {name} is gone from the export folder; export the version again")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=filename)
