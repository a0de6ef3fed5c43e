"""The organizer's design pages: start from a shipped design file or one's own (pasted, uploaded, or a Potato
project imported), see it checked as it is typed, see the task page for real items as an annotator will, and
make the project; later, download a design batch's answers and labels."""

from __future__ import annotations

import io
import posixpath
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.access import READ
from accounts.roles import ORGANIZER, role_required
from core.errors import CrowdsetError, InputError
from core.zips import UNREADABLE, unreadable
from designs import labelstudio
from designs.items import Record, read_items
from designs.loader import MAX_BYTES, DesignError, decode, load_text
from designs.model import Design
from designs.models import DesignBatch
from designs.potato import Imported, UploadedFolder, import_config
from designs.services import preview_context
from hits.models import Batch
from jobs.services import JobError, job_start
from projects.access import project_view
from projects.models import Project
from projects.selectors import latest_exports
from projects.services import design_project_create, potato_project_create

SHIPPED = Path(__file__).resolve().parents[1] / "designs"
UPLOAD_LIMIT = 50_000_000  # bytes of one Potato upload, unpacked: a folder of text data, not a corpus dump
CONFIG_SUFFIXES = (".yaml", ".yml")


@lru_cache(maxsize=1)
def shipped_designs() -> tuple[dict[str, str], ...]:
    """The design files the project ships: name, title and text, read and checked once per process (they are
    part of the code; a deploy restarts the process)."""
    found = []
    for path in sorted(SHIPPED.glob("*.yaml")):
        source = path.read_text(encoding="utf-8")
        try:
            title = load_text(source, name=path.name).title
        except DesignError:
            continue  # the shipped files are checked by the tests; a broken one is not offered
        found.append({"name": path.stem, "title": title, "source": source})
    return tuple(found)


def _source(request: HttpRequest) -> tuple[str, str]:
    """The design's text and file name: an uploaded file wins over the text box."""
    upload = request.FILES.get("design_file")
    if upload is not None:
        name = Path(upload.name).name
        return decode(upload.read(MAX_BYTES + 1), name=name), name
    return request.POST.get("source", ""), (request.POST.get("file_name") or "design.yaml")


def _records(request: HttpRequest, design: Design) -> tuple[list[Record], str]:
    upload = request.FILES.get("items")
    if upload is None:
        raise InputError("choose the items file (JSON array, JSON Lines, CSV, TSV, or COPA or RTE XML) to go with the "
                         "design",
                         field="items")
    name = Path(upload.name).name
    return read_items(upload.read(), name=name, design=design), name


@role_required(ORGANIZER)
def design_new(request: HttpRequest) -> HttpResponse:
    start = request.GET.get("start", "")
    shipped = shipped_designs()
    context: dict[str, Any] = {"shipped": shipped, "start": start,
                               "source": next((entry["source"] for entry in shipped if entry["name"] == start), ""),
                               "file_name": f"{start}.yaml" if start else "design.yaml", "problems": [],
                               "error": ""}
    if request.method == "POST":
        try:
            source, file_name = _source(request)
            context.update(source=source, file_name=file_name)
            design = load_text(source, name=file_name)
            records, _ = _records(request, design)
            project, _ = design_project_create(source=source, file_name=file_name, records=records,
                                               name=request.POST.get("name", "").strip(), user=request.user,
                                               provider=request.POST.get("provider") or None)
        except DesignError as error:
            context["problems"] = error.problems
        except CrowdsetError as error:
            context["error"] = str(error)
        else:
            return redirect("projects:detail", project.slug)
    return render(request, "projects/design_new.html", context, status=400 if context["problems"] or
                  context["error"] else 200)


@role_required(ORGANIZER)
@require_POST
def design_check(request: HttpRequest) -> JsonResponse:
    """What the editor shows as the organizer types: valid, or each problem with its line."""
    source = request.POST.get("source", "")
    name = Path(request.POST.get("file_name") or "design.yaml").name
    try:
        design = load_text(source, name=name)
    except DesignError as error:
        return JsonResponse({"valid": False, "problems": [problem.as_json() for problem in error.problems]})
    return JsonResponse({"valid": True, "title": design.title, "problems": [],
                         "schemes": [{"name": scheme.name, "type": scheme.annotation_type}
                                     for scheme in design.annotation_schemes]})


@role_required(ORGANIZER)
@require_POST
def design_preview(request: HttpRequest) -> HttpResponse:
    """The task page for the first items, as an annotator will see it; nothing is saved."""
    try:
        source, file_name = _source(request)
        design = load_text(source, name=file_name)
        records, items_name = _records(request, design)
    except DesignError as error:
        return render(request, "projects/design_preview.html", {"problems": error.problems}, status=400)
    except CrowdsetError as error:
        return render(request, "projects/design_preview.html", {"error": str(error)}, status=400)
    return render(request, "projects/design_preview.html", preview_context(design, records, items_name))


# --- Potato -------------------------------------------------------------------------------------

def _uploaded(request: HttpRequest) -> dict[str, bytes]:
    """The uploaded files by their path: each file as it came, a zip unpacked. Paths leaving the folder, and
    more than UPLOAD_LIMIT bytes in all, are refused by name."""
    files: dict[str, bytes] = {}
    total = 0
    for upload in request.FILES.getlist("files"):
        name = Path(upload.name).name
        data = upload.read(UPLOAD_LIMIT + 1)
        total += len(data)
        if name.lower().endswith(".zip"):
            try:
                archive = zipfile.ZipFile(io.BytesIO(data))
                entries = [entry for entry in archive.infolist() if not entry.is_dir()]
            except UNREADABLE:
                raise InputError("is not a zip file that can be opened; zip the project's folder again",
                                 file=name) from None
            for entry in entries:
                path = posixpath.normpath(entry.filename.replace("\\", "/"))
                if path.startswith(("/", "../")) or path == "..":
                    raise InputError(f"holds {entry.filename!r}, a path outside the folder; zip the folder itself",
                                     file=name)
                if "__MACOSX" in path.split("/"):
                    continue
                total += entry.file_size
                if total > UPLOAD_LIMIT:
                    break
                try:
                    files[path] = archive.read(entry)
                except UNREADABLE as error:
                    raise InputError(unreadable(error, entry.filename), file=name) from None
        else:
            files[name] = data
        if total > UPLOAD_LIMIT:
            raise InputError(f"the upload holds more than {UPLOAD_LIMIT // 1_000_000} MB; upload the config and the "
                             f"data files it names", file=name)
    if not files:
        raise InputError("choose the Potato config and its data files, or a zip of its folder", field="files")
    return files


def _configs(files: dict[str, bytes]) -> list[str]:
    """The uploaded files that are Potato configs: the YAML files that declare annotation_schemes."""
    found = [path for path in files if path.lower().endswith(CONFIG_SUFFIXES)
             and b"annotation_schemes" in files[path]]
    if not found:
        raise InputError("none of the uploaded files is a Potato config (a .yaml file with annotation_schemes)",
                         field="files")
    return sorted(found)


def potato_imports(files: dict[str, bytes]) -> list[Imported]:
    """Each config among the files, read with the files beside it (its folder is where its paths start)."""
    found = []
    for path in _configs(files):
        folder = posixpath.dirname(path)
        beside = {posixpath.relpath(name, folder or "."): data for name, data in files.items()
                  if not folder or name.startswith(folder + "/")}
        found.append(import_config(files[path], name=path, folder=UploadedFolder(beside)))
    return found


@role_required(ORGANIZER)
@require_POST
def potato_import(request: HttpRequest) -> HttpResponse:
    """Check (the same report as `design import-potato --check`) or import uploaded Potato projects."""
    wants_json = "application/json" in request.headers.get("Accept", "")
    importing = request.POST.get("action") == "import"
    try:
        imports = potato_imports(_uploaded(request))
    except CrowdsetError as error:
        if wants_json:
            return JsonResponse({"error": str(error), "reports": []}, status=400)
        return render(request, "projects/potato_report.html", {"error": str(error), "reports": []}, status=400)
    reports = []
    for found in imports:
        line = found.as_json()
        if importing and found.ok and found.design is not None:
            try:
                project, batch = potato_project_create(imported=found, user=request.user)
            except CrowdsetError as error:
                line["ok"], line["errors"] = False, [f"{found.config}: {error}"]
            else:
                line.update(project=project.pk, url=reverse("projects:detail", args=[project.slug]), batch=batch.pk)
        reports.append({**line, "notes": found.notes})
    if importing and len(reports) == 1 and "project" in reports[0]:
        return redirect(reports[0]["url"])
    if wants_json:
        return JsonResponse({"reports": reports})
    return render(request, "projects/potato_report.html", {"reports": reports, "importing": importing})


def _labelstudio_upload(request: HttpRequest) -> tuple[bytes, str, bytes, str]:
    """The config (pasted, or uploaded as a file) and the tasks file of a Label Studio import."""
    pasted = request.POST.get("config", "").strip()
    upload = request.FILES.get("config_file")
    if upload is not None:
        config, name = upload.read(UPLOAD_LIMIT + 1), Path(upload.name).name
    else:
        config, name = pasted.encode("utf-8"), "config.xml"
    if not config:
        raise InputError("paste the labeling config, or upload its .xml file", field="config")
    tasks = request.FILES.get("tasks")
    if tasks is None:
        raise InputError("upload the tasks (a JSON list, JSON Lines, CSV or TSV file)", field="tasks")
    data = tasks.read(UPLOAD_LIMIT + 1)
    if max(len(config), len(data)) > UPLOAD_LIMIT:
        raise InputError(f"is over {UPLOAD_LIMIT // 1_000_000} MB; a labeling project's text is far less",
                         file=name if len(config) > UPLOAD_LIMIT else Path(tasks.name).name)
    return config, name, data, Path(tasks.name).name


@role_required(ORGANIZER)
@require_POST
def labelstudio_import(request: HttpRequest) -> HttpResponse:
    """Check (the report of `design import-labelstudio --check`) or import a Label Studio config and its tasks."""
    wants_json = "application/json" in request.headers.get("Accept", "")
    importing = request.POST.get("action") == "import"
    try:
        config, name, tasks, tasks_name = _labelstudio_upload(request)
    except CrowdsetError as error:
        if wants_json:
            return JsonResponse({"error": str(error), "reports": []}, status=400)
        return render(request, "projects/potato_report.html", {"error": str(error), "reports": [],
                                                                "tool": "Label Studio"}, status=400)
    found = labelstudio.import_project(config, name=name, tasks=tasks, tasks_name=tasks_name,
                                       title=request.POST.get("title", "")[:200])
    line = {**found.as_json(), "warnings": found.warnings, "notes": found.notes}
    if importing and found.ok:
        try:
            project, _ = potato_project_create(imported=found, user=request.user)
        except CrowdsetError as error:
            line["ok"], line["errors"] = False, [f"{name}: {error}"]
        else:
            return redirect(reverse("projects:detail", args=[project.slug]))
    if wants_json:
        return JsonResponse({"reports": [line]})
    return render(request, "projects/potato_report.html", {"reports": [line], "importing": importing,
                                                            "tool": "Label Studio"})


# --- export ---------------------------------------------------------------------------------------

@project_view(READ)
def design_export(request: HttpRequest, project: Project, batch_id: int) -> HttpResponse:
    """A design batch's latest export (every format, one zip), as the export job wrote it: read from the disk as it
    is sent, so the link answers at once whatever the batch's size."""
    batch = get_object_or_404(Batch, pk=batch_id, projects=project)
    get_object_or_404(DesignBatch, batch=batch)
    job = next((job for job in latest_exports(project) if job.options.get("batch") == batch.pk), None)
    path = settings.EXPORT_ROOT / job.result.get("file", "") if job is not None else None
    if path is None or not path.is_file():
        messages.info(request, f"Batch {batch.pk} has no export yet: press Export on the project's Export step.")
        return redirect(reverse("projects:detail", args=[project.slug]) + "#step-export")
    return FileResponse(path.open("rb"), as_attachment=True, filename=f"{project.slug}-batch-{batch.pk}.zip",
                        content_type="application/zip")


@project_view(READ)
@require_POST
def design_export_start(request: HttpRequest, project: Project, batch_id: int) -> HttpResponse:
    """Start the export job of a design batch; the project page follows it and links the zip when it is written."""
    batch = get_object_or_404(Batch, pk=batch_id, projects=project)
    get_object_or_404(DesignBatch, batch=batch)
    try:
        job = job_start(kind="project-export", target=project.pk, options={"batch": batch.pk}, user=request.user)
    except (JobError, CrowdsetError) as error:
        messages.error(request, str(error))
    else:
        if job.options.get("batch") != batch.pk:
            messages.warning(request, f"Job {job.pk} is exporting batch {job.options.get('batch')}; export this "
                                      f"one when it ends.")
        else:
            messages.info(request, f"Job {job.pk} is writing the export; this page links it when it is done.")
    return redirect(reverse("projects:detail", args=[project.slug]) + "#step-export")
