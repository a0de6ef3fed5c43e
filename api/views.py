"""The API's views: thin, over the same selectors, services and jobs as the pages."""

from pathlib import Path
from typing import Any

from django.http import FileResponse, Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from aggregation.models import AggregationRun
from aggregation.services import span_agreement_shown
from api import serializers
from api.permissions import IsOrganizer, IsResearcher
from core.errors import CrowdsetError
from hits.adaptive import adaptive_savings
from hits.models import Assignment, Batch, Hit
from hits.selectors import batch_rows
from hits.services import assignment_approve, assignment_reject
from jobs.models import Job
from jobs.services import job_progress, job_start
from projects.designs import project_steps
from projects.models import Project
from projects.selectors import project_context
from releases.models import DatasetVersion
from releases.selectors import version_rows


def _started(job: Job) -> Response:
    return Response(serializers.JobSerializer(_with_progress(job)).data, status=status.HTTP_202_ACCEPTED)


def _with_progress(job: Job) -> Job:
    found = job_progress(job) if job.is_live else None
    job.progress = list(found) if found else None
    return job


def _start(kind: str, target: int, request) -> Response:
    try:
        return _started(job_start(kind=kind, target=target, user=request.user))
    except CrowdsetError as error:
        return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)


class ProjectViewSet(viewsets.ReadOnlyModelViewSet):
    """Projects, with their steps (state, numbers) when one is read."""

    permission_classes = [IsOrganizer]
    serializer_class = serializers.ProjectSerializer
    queryset = Project.objects.prefetch_related("batches", "aggregations", "versions").order_by("pk")
    lookup_field = "slug"

    @extend_schema(responses=serializers.StepSerializer(many=True))
    @action(detail=True)
    def steps(self, request, slug=None):
        steps = project_steps(project_context(self.get_object()))
        return Response(serializers.StepSerializer(steps, many=True).data)


class _FiguresViewSet(viewsets.ReadOnlyModelViewSet):
    """Read-only objects with figures worked out for a whole page at once by `_annotated` (a few grouped
    queries), not per object by the serializer."""

    def _annotated(self, objects: list[Any]) -> list[Any]:
        raise NotImplementedError  # each view set says which figures its objects carry

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self._annotated(list(page)), many=True).data)

    def retrieve(self, request, *args, **kwargs):
        return Response(self.get_serializer(self._annotated([self.get_object()])[0]).data)


@extend_schema_view(list=extend_schema(parameters=[OpenApiParameter("project", str,
                                                                    description="a project's slug")]))
class BatchViewSet(_FiguresViewSet):
    """Batches with their progress and cost; publish and sync start jobs."""

    permission_classes = [IsOrganizer]
    serializer_class = serializers.BatchSerializer

    def get_queryset(self):
        batches = Batch.objects.order_by("pk")
        project = self.request.query_params.get("project")
        return batches.filter(projects__slug=project) if project else batches

    def _annotated(self, batches):
        for row in batch_rows(batches):
            batch = row["batch"]
            batch.hits_total, batch.hits_published = row["hits"]["total"], row["hits"]["published"]
            batch.assignments, batch.spent, batch.estimate = row["states"], row["spent"], row["estimate"]
            savings = adaptive_savings(batch) if batch.adaptive else None
            batch.adaptive_savings = {**savings, "saved_money": str(savings["saved_money"])} if savings else None
            batch.span_agreement = span_agreement_shown(batch)
        return batches

    @extend_schema(request=None, responses={202: serializers.JobSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):
        return _start("publish", self.get_object().pk, request)

    @extend_schema(request=None, responses={202: serializers.JobSerializer})
    @action(detail=True, methods=["post"])
    def sync(self, request, pk=None):
        return _start("sync", self.get_object().pk, request)


class HitViewSet(viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsOrganizer]
    serializer_class = serializers.HitSerializer

    @extend_schema(parameters=[OpenApiParameter("batch", int)])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        hits = Hit.objects.prefetch_related("hit_items").order_by("batch", "index")
        batch = self.request.query_params.get("batch")
        return hits.filter(batch_id=batch) if batch and batch.isdigit() else hits


class AssignmentViewSet(viewsets.ReadOnlyModelViewSet):
    """Assignments with their answers; approve and reject go to the provider."""

    permission_classes = [IsOrganizer]
    serializer_class = serializers.AssignmentSerializer

    @extend_schema(parameters=[OpenApiParameter("batch", int), OpenApiParameter("state", str)])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        assignments = Assignment.objects.select_related("worker__user").order_by("pk")
        batch, state = self.request.query_params.get("batch"), self.request.query_params.get("state")
        if batch and batch.isdigit():
            assignments = assignments.filter(hit__batch_id=batch)
        return assignments.filter(state=state) if state else assignments

    def _review(self, request, approve):
        serializer = serializers.ReviewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        feedback = serializer.validated_data.get("feedback", "")
        assignment = self.get_object()
        try:
            if approve:
                assignment_approve(assignment=assignment, feedback=feedback)
            else:
                assignment_reject(assignment=assignment, feedback=feedback)
        except CrowdsetError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(assignment).data)

    @extend_schema(request=serializers.ReviewSerializer, responses=serializers.AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        return self._review(request, approve=True)

    @extend_schema(request=serializers.ReviewSerializer, responses=serializers.AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._review(request, approve=False)


class AggregationViewSet(viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsResearcher]
    serializer_class = serializers.AggregationSerializer
    queryset = AggregationRun.objects.order_by("pk")


class VersionViewSet(_FiguresViewSet):
    """Dataset versions with Tables 1 and 2 and their files; export starts a job, files download."""

    permission_classes = [IsResearcher]
    serializer_class = serializers.VersionSerializer
    queryset = DatasetVersion.objects.order_by("pk")
    lookup_field = "name"

    def _annotated(self, versions):
        rows = {row["version"].pk: row for row in version_rows(ids=[v.pk for v in versions])}
        for version in versions:
            row = rows[version.pk]
            version.table1, version.table2, version.files = row["table1"], row["table2"], row["files"]
        return versions

    @extend_schema(request=None, responses={202: serializers.JobSerializer})
    @action(detail=True, methods=["post"])
    def export(self, request, name=None):
        return _start("export", self.get_object().pk, request)

    @extend_schema(responses={(200, "application/octet-stream"): bytes})
    @action(detail=True, url_path=r"files/(?P<filename>[^/]+)")
    def files(self, request, name=None, filename=None):
        """A file of the version's last export; only names that export wrote are served."""
        version = self.get_object()
        export = version.results.get("export", {})
        if filename not in export.get("files", []):
            raise Http404(f"{filename} is not a file of the export of {version.name}")
        path = Path(export["folder"]) / filename
        if not path.is_file():
            raise Http404(f"{filename} of {version.name} is gone; export the version again")
        return FileResponse(open(path, "rb"), as_attachment=True, filename=filename)


class JobViewSet(mixins.RetrieveModelMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Jobs, to follow what a POST started."""

    permission_classes = [IsOrganizer | IsResearcher]
    serializer_class = serializers.JobSerializer
    queryset = Job.objects.order_by("-pk")

    def get_object(self):
        return _with_progress(super().get_object())

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer([_with_progress(j) for j in page], many=True).data)
