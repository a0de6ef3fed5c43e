"""Project workflows: create a project, keep its uploads, draw its sample, link what its jobs make."""

from __future__ import annotations

import csv
import errno
import io
import shutil
import uuid
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import IO, Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from core.csvfields import allow_fields
from core.errors import InputError
from core.zips import UNREADABLE, unreadable
from filtering.models import Candidate, FilterRun
from hits.models import Batch
from projects.designs import DESIGNS
from projects.models import Member, Project, Role, Sample, Upload
from releases.sampling import balanced_sample

CHUNK = 1 << 20


class ProjectError(InputError):
    """A project request that cannot be done; the message names the field and what to do."""


def project_create(*, name: str, design: str = "semeval", slug: str = "", description: str = "",
                   user: Any = None, budget: Decimal | None = None) -> Project:
    if design not in DESIGNS:
        raise ProjectError(f"unknown design {design!r}; use one of {', '.join(DESIGNS.names())}", field="design")
    slug = slug or slugify(name)[:100]
    if not slug:
        raise ProjectError("give the project a name with letters or digits", field="name")
    creator = user if user is not None and user.pk else None
    try:
        with transaction.atomic():
            project = Project.objects.create(name=name, slug=slug, design=design, description=description,
                                             budget=budget, created_by=creator)
            if creator is not None:  # its creator runs it; without one it is the site's (projects.access)
                Member.objects.create(project=project, user=creator, role=Role.ORGANIZER)
            return project
    except IntegrityError:
        raise ProjectError(f"a project called {slug!r} exists; choose another name", field="slug") from None


# --- uploads ---------------------------------------------------------------------------

def _safe_name(name: str) -> str:
    stem = "".join(char if char.isalnum() or char in "._-" else "-" for char in Path(name).name)[:120]
    return stem.strip(".-") or "upload"


def default_corpus_name(project: Project, filename: str) -> str:
    """The project's slug and the file's name: a corpus name that says where it came from."""
    return slugify(f"{project.slug}-{Path(filename).stem}")[:100] or f"{project.slug}-corpus"


def upload_format(name: str, chosen: str = "") -> str:
    if chosen:
        return chosen
    suffix = Path(name).suffix.lower()
    return {".csv": "csv", ".zip": "txt-dir", ".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl"}.get(
        suffix, "jsonl")


def upload_store(*, project: Project, source: IO[bytes], name: str, kind: str, fmt: str = "", user: Any = None,
                 max_bytes: int | None = None) -> Upload:
    """Copy an uploaded file under UPLOAD_ROOT in chunks (never whole in memory), unpack a zip of .txt
    files, read a CSV's header; refuse what cannot be ingested, naming the file and what to do."""
    max_bytes = max_bytes or settings.UPLOAD_MAX_BYTES
    fmt = upload_format(name, fmt)
    folder = Path(settings.UPLOAD_ROOT) / project.slug
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{uuid.uuid4().hex[:12]}-{_safe_name(name)}"
    size = 0
    try:
        with open(target, "wb") as out:
            while block := source.read(CHUNK):
                size += len(block)
                if size > max_bytes:
                    raise ProjectError(f"the file is larger than {max_bytes:,} bytes; split it into smaller files",
                                       file=name, field="file")
                out.write(block)
        if size == 0:
            raise ProjectError("the file is empty", file=name, field="file")
        columns: list[str] = []
        if fmt == "txt-dir":
            target = _unzip_texts(target, name, max_bytes)
        elif fmt == "csv":
            columns = _csv_header(target, name)
        elif kind == Upload.Kind.RELEASED:
            raise ProjectError("a released Subtask-1 file is a CSV with sentenceID,gold_label,sentence", file=name,
                               field="file")
    except BaseException:
        _remove(target)
        raise
    return Upload.objects.create(project=project, kind=kind, name=name[:255], path=str(target), format=fmt,
                                 size=size, columns=columns, created_by=user if user is not None and user.pk else None)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _csv_header(path: Path, name: str) -> list[str]:
    with open(path, "rb") as handle:
        text = io.TextIOWrapper(handle, encoding="utf-8-sig", errors="strict", newline="")
        try:
            header = next(csv.reader(text), [])
        except UnicodeDecodeError:
            raise ProjectError("the header line is not UTF-8; re-encode the file as UTF-8", file=name, line=1,
                               field="file") from None
        except csv.Error as error:
            raise ProjectError(f"the header line is not CSV ({error})", file=name, line=1, field="file") from None
    columns = [column.strip() for column in header if column.strip()]
    if not columns:
        raise ProjectError("the first line has no column names; put a header line first", file=name, line=1,
                           field="file")
    return columns


def _unzip_texts(archive: Path, name: str, max_bytes: int) -> Path:
    """The .txt files of a zip, unpacked into a folder of their own; paths that would leave it are refused."""
    folder = archive.with_suffix("")
    member = None
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [m for m in bundle.infolist() if not m.is_dir() and m.filename.lower().endswith(".txt")]
            if not members:
                raise ProjectError("the zip holds no .txt files", file=name, field="file")
            if sum(m.file_size for m in members) > max_bytes:
                raise ProjectError(f"the .txt files unpack to more than {max_bytes:,} bytes; split the zip",
                                   file=name, field="file")
            for member in members:
                relative = PurePosixPath(member.filename)
                if relative.is_absolute() or ".." in relative.parts:
                    raise ProjectError(f"{member.filename!r} would unpack outside its folder", file=name,
                                       field="file")
                destination = folder.joinpath(*relative.parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                with bundle.open(member) as source, open(destination, "wb") as out:
                    shutil.copyfileobj(source, out, CHUNK)
    except Exception as error:
        shutil.rmtree(folder, ignore_errors=True)  # nothing half-unpacked stays behind
        # A refusal above, or the disk rather than the zip (a damaged member's offsets make the seek in it invalid).
        if not isinstance(error, UNREADABLE) and not (isinstance(error, OSError) and error.errno == errno.EINVAL):
            raise
        said = (unreadable(error, member.filename) if member else
                "not a zip file that can be opened; upload .jsonl, .csv or a .zip of .txt files")
        raise ProjectError(said, file=name, field="file") from None
    finally:
        archive.unlink(missing_ok=True)
    return folder


def upload_records(upload: Upload) -> int:
    """How many documents the upload holds, counted without keeping them: for the ingest's progress."""
    path = Path(upload.path)
    if upload.format == "txt-dir":
        return sum(1 for _ in path.rglob("*.txt"))
    with open(path, "rb") as handle:
        if upload.format == "csv":
            text = io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline="")
            try:
                return max(0, sum(1 for _ in csv.reader(text)) - 1)
            except csv.Error:
                return 0
        return sum(1 for line in handle if line.strip())


# --- the sample -------------------------------------------------------------------------

def sample_preview(*, run: FilterRun, size: int, seed: int = 0) -> tuple[list[int], dict[str, Any]]:
    if size < 1:
        raise ProjectError("sample at least one candidate", field="size")
    pairs = list(Candidate.objects.filter(run=run).values_list("pk", "sentence__document__domain"))
    if not pairs:
        raise ProjectError(f"filter run {run.pk} has no candidates; run the filter over a corpus first", field="run")
    return balanced_sample(pairs, size, seed=seed)


def sample_create(*, project: Project, run: FilterRun, size: int, seed: int = 0) -> Sample:
    chosen, report = sample_preview(run=run, size=size, seed=seed)
    return Sample.objects.create(project=project, run=run, size=size, seed=seed, candidate_ids=chosen, report=report)


def project_budgets(batch: Batch) -> list[tuple[str, Decimal, list[int]]]:
    """The budgets of the projects a batch belongs to, each with every batch it covers (registered in
    hits.extensions.BUDGETS). Called inside the payment's transaction: the project rows are locked, so two
    batches of one project never both spend its last money."""
    found = []
    budgeted = Project.objects.filter(batches=batch, budget__isnull=False).order_by("pk")
    for project in budgeted.select_for_update(of=("self",)):
        ids = list(project.batches.values_list("pk", flat=True))
        found.append((f"project {project.slug}", Decimal(project.budget or 0), ids))
    return found


# --- design files ------------------------------------------------------------------------

def design_project_create(*, source: str, file_name: str, records: list, name: str = "", stage: str = "",
                          provider: str | None = None, user: Any = None, seed: int = 0, slug: str = "",
                          free_slug: bool = False) -> tuple[Project, Batch]:
    """A project from a design file's text and its items: the design saved as a version (of `slug`, by
    default the file's name), a draft batch of its HITs, both linked to the project. All or nothing.
    `free_slug` numbers the project's slug (-2, -3, ...) when its name is taken, for imports of many."""
    from designs.loader import load_text
    from designs.services import design_batch_create, design_version_save
    from designs.stages import workflow_batches

    design = load_text(source, name=file_name)
    stage = stage or (design.stages[0].name if design.stages else "")
    stem = Path(file_name).stem
    with transaction.atomic():
        version = design_version_save(source=source, slug=slug or slugify(stem)[:60] or "design", name=file_name,
                                      created_by=user)
        name = name or design.title
        project_slug = slugify(name)[:90]
        if free_slug:
            project_slug = _free(project_slug, Project.objects.values_list("slug", flat=True), "slug")
        project = project_create(name=name, slug=project_slug, design="design-file", description=design.description,
                                 user=user)
        batch = design_batch_create(version=version, records=records, name=f"{project.name} ({stem})", stage=stage,
                                    provider=provider, created_by=user, seed=seed)
        project.batches.add(*workflow_batches(batch).values())  # a multi-stage design's later stages too
    return project, batch


def _free(name: str, taken: Any, field: str) -> str:
    """`name`, or `name-2`, `name-3`, … the first that no row of `taken` (a values_list of `field`) has yet."""
    used = set(taken.filter(**{f"{field}__startswith": name}))
    found, number = name, 2
    while found in used:
        found, number = f"{name}-{number}", number + 1
    return found


def potato_project_create(*, imported: Any, provider: str | None = None, user: Any = None) -> tuple[Project, Batch]:
    """An imported Potato project (designs.potato.Imported, ok) as a project: its design stored as a version
    named by its title, the project's slug numbered when the title is taken."""
    name = slugify(imported.design.title)[:60] or "potato"
    with transaction.atomic():
        test = None
        if imported.training:
            # Potato's training round: the design's screening test, made first (a batch's requirements name it),
            # under a name no other project's test has.
            from qualification.models import QualificationTest
            from qualification.services import design_test_create

            test_name = _free(imported.raw["qualification"]["test"],
                              QualificationTest.objects.values_list("name", flat=True), "name")
            imported.raw["qualification"]["test"] = test_name
            test = design_test_create(name=test_name, title=f"{imported.design.title}: practice round",
                                      design_source=imported.source(), items=imported.training,
                                      instructions=imported.design.instructions,
                                      pass_threshold=imported.raw["qualification"]["min_score"],
                                      rules=imported.training_rules)
        project, batch = design_project_create(source=imported.source(), file_name=f"{name}.yaml",
                                               records=imported.records, provider=provider, user=user,
                                               free_slug=True)
        from designs.models import OutsideAnswer
        from designs.services import outside_answers_store

        if imported.given:
            outside_answers_store(batch=batch, given=imported.given, source=imported.given_source)
        if imported.predicted:
            outside_answers_store(batch=batch, given=imported.predicted, source=OutsideAnswer.MODEL)
        if test is not None:
            project.tests.add(test)
    return project, batch


def refused_rows(upload: Upload, lines: list[int]) -> Iterator[bytes]:
    """The refused documents of an ingest as a file of the upload's own format (a CSV keeps its header line),
    to fix and upload again. Streamed: the upload may be large."""
    wanted = set(lines)
    if upload.format == "csv":
        allow_fields(settings.UPLOAD_MAX_BYTES)
        # surrogateescape both ways: a row refused for its bad bytes comes back with the same bytes.
        with open(upload.path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            reader = csv.reader(handle)
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            start = 1
            try:
                for number, row in enumerate(reader):
                    if number == 0 or start in wanted:
                        writer.writerow(row)
                        yield out.getvalue().encode("utf-8", errors="surrogateescape")
                        out.seek(0)
                        out.truncate()
                    start = reader.line_num + 1
            except csv.Error:
                return  # a quote never closed: the rest of the file was one refused record, named on the page
        return
    with open(upload.path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if number in wanted:
                yield line if line.endswith(b"\n") else line + b"\n"
