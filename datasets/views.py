"""Researchers' pages: dataset versions with their statistics, exports and downloads."""

from pathlib import Path

from django.contrib import messages
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from config.roles import RESEARCHER, role_required
from dashboard.jobs import job_start
from dashboard.models import Job
from datasets.models import DatasetVersion
from datasets.services import table1, table2


@role_required(RESEARCHER)
def versions(request):
    rows = []
    for version in DatasetVersion.objects.order_by("-created"):
        job = Job.objects.filter(kind=Job.Kind.EXPORT, target=version.pk).first()
        rows.append({"version": version, "table1": table1(version), "table2": table2(version), "job": job,
                     "files": version.results.get("export", {}).get("files", [])})
    return render(request, "datasets/versions.html", {"rows": rows})


@role_required(RESEARCHER)
@require_POST
def export(request, name):
    version = get_object_or_404(DatasetVersion, name=name)
    job = job_start(kind=Job.Kind.EXPORT, target=version.pk, user=request.user)
    job.refresh_from_db()
    messages.info(request, f"Export of {version.name}: {job.state}" + (f", {job.message}" if job.message else ""))
    return redirect("datasets:versions")


@role_required(RESEARCHER)
def download(request, name, filename):
    """A file of the version's last export; only names that export wrote are served."""
    version = get_object_or_404(DatasetVersion, name=name)
    if filename not in version.results.get("export", {}).get("files", []):
        raise Http404(f"{filename} is not a file of the export of {name}")
    path = Path(version.results["export"]["folder"]) / filename
    if not path.is_file():
        raise Http404(f"{filename} of {name} is gone from the export folder; export the version again")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=filename)
