"""The releases app's job kinds."""

from django.conf import settings

from jobs.registry import JOB_KINDS, JobKind
from releases.services import dataset_export


def run_export(job, version):
    written = dataset_export(version=version, folder=settings.EXPORT_ROOT / version.name)
    return f"{len(written)} files written", {"files": written}


JOB_KINDS.register("export", JobKind("export", "export", "releases.DatasetVersion", run_export))
