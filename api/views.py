"""The API's views: thin, over the same selectors, services and jobs as the pages."""

from pathlib import Path
from typing import Any

from django.http import FileResponse, Http404, HttpResponsePermanentRedirect, JsonResponse
from django.urls import resolve
from django.views.defaults import page_not_found
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from accounts import access
from aggregation.models import AggregationRun
from aggregation.services import span_agreement_shown
from api import serializers
from api.inputs import LARGEST_ID, SLUG, id_parameter, is_whole, query_choice, query_id, query_slug
from api.permissions import IsOrganizer, IsResearcher
from core.errors import CrowdsetError
from designs.models import batch_designs
from hits.models import Assignment, Batch, Hit
from hits.selectors import batch_rows
from hits.services import assignment_approve, assignment_reject
from hits.services.adaptive import adaptive_savings
from hits.tasks import bonus_request
from jobs.models import Job
from jobs.selectors import jobs_visible
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


class Scoped:
    """Only what the caller may act on (accounts.access): a list shows it, and a detail of anything else is a 404,
    as if it did not exist."""

    access_action = access.MANAGE

    def get_queryset(self):
        return access.rows(self.request.user, super().get_queryset(), self.access_action)


class CheckedLookup:
    """A path id that is not a whole number in the id range (or a slug with characters no slug has) is
    404 before any query: the database is never asked with a value it would choke on."""

    def get_object(self):
        value = self.kwargs.get(self.lookup_url_kwarg or self.lookup_field, "")
        if not LOOKUPS[self.lookup_field](value):
            raise NotFound(f"no {self.basename} {value[:40]!r}")
        return super().get_object()


LOOKUPS = {"pk": lambda value: is_whole(value, low=1, high=LARGEST_ID),
           "slug": lambda value: bool(SLUG.fullmatch(value)), "name": lambda value: bool(SLUG.fullmatch(value))}


class ProjectViewSet(Scoped, CheckedLookup, viewsets.ReadOnlyModelViewSet):
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


class _FiguresViewSet(CheckedLookup, viewsets.ReadOnlyModelViewSet):
    """Read-only objects with figures worked out for a whole page at once by `_annotated` (a few grouped
    queries), not per object by the serializer."""

    def _annotated(self, objects: list[Any]) -> list[Any]:
        raise NotImplementedError  # each view set says which figures its objects carry

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(self._annotated(list(page)), many=True).data)

    def retrieve(self, request, *args, **kwargs):
        return Response(self.get_serializer(self._annotated([self.get_object()])[0]).data)


@extend_schema_view(list=extend_schema(parameters=[OpenApiParameter("project", str, pattern=SLUG.pattern,
                                                                    description="a project's slug")]))
class BatchViewSet(Scoped, _FiguresViewSet):
    """Batches with their progress and cost; publish and sync start jobs."""

    permission_classes = [IsOrganizer]
    serializer_class = serializers.BatchSerializer
    queryset = Batch.objects.all()

    def get_queryset(self):
        batches = super().get_queryset().order_by("pk")
        project = query_slug(self.request, "project")
        return batches.filter(projects__slug=project) if project is not None else batches

    def _annotated(self, batches):
        designs = batch_designs([batch.pk for batch in batches])  # one query for the span batches among them
        for row in batch_rows(batches):
            batch = row["batch"]
            batch.hits_total, batch.hits_published = row["hits"]["total"], row["hits"]["published"]
            batch.assignments, batch.spent, batch.estimate = row["states"], row["spent"], row["estimate"]
            savings = adaptive_savings(batch) if batch.adaptive else None
            batch.adaptive_savings = {**savings, "saved_money": str(savings["saved_money"])} if savings else None
            design = designs.get(batch.pk)
            batch.span_agreement = span_agreement_shown(batch, list(design[0].components) if design else [])
        return batches

    @extend_schema(request=None, responses={202: serializers.JobSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):
        return _start("publish", self.get_object().pk, request)

    @extend_schema(request=None, responses={202: serializers.JobSerializer})
    @action(detail=True, methods=["post"])
    def sync(self, request, pk=None):
        return _start("sync", self.get_object().pk, request)


class HitViewSet(Scoped, CheckedLookup, viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsOrganizer]
    serializer_class = serializers.HitSerializer
    queryset = Hit.objects.all()

    @extend_schema(parameters=[id_parameter("batch", "only this batch's HITs")])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        hits = super().get_queryset().prefetch_related("hit_items").order_by("batch", "index")
        if self.action != "list":
            return hits
        batch = query_id(self.request, "batch")
        return hits.filter(batch_id=batch) if batch is not None else hits


class AssignmentViewSet(Scoped, CheckedLookup, viewsets.ReadOnlyModelViewSet):
    """Assignments with their answers; approve and reject go to the provider; a bonus is claimed within the
    budgets and paid once."""

    permission_classes = [IsOrganizer]
    serializer_class = serializers.AssignmentSerializer
    queryset = Assignment.objects.all()

    @extend_schema(parameters=[id_parameter("batch", "only this batch's assignments"),
                               OpenApiParameter("state", str, enum=Assignment.State.values)])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def get_queryset(self):
        assignments = super().get_queryset().select_related("worker__user", "hit__batch").order_by("pk")
        if self.action != "list":
            return assignments
        batch = query_id(self.request, "batch")
        state = query_choice(self.request, "state", Assignment.State.values)
        if batch is not None:
            assignments = assignments.filter(hit__batch_id=batch)
        return assignments.filter(state=state) if state is not None else assignments

    @extend_schema(request=serializers.BonusSerializer, responses={202: serializers.PaymentSerializer})
    @action(detail=True, methods=["post"])
    def bonus(self, request, pk=None):
        """Claim a bonus in the ledger (refused over the batch's or the project's budget, with the amounts) and
        pay it at the provider; the same assignment and reason again is the same payment, paid once."""
        serializer = serializers.BonusSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        assignment = self.get_object()
        try:
            payment = bonus_request(assignment=assignment, **serializer.validated_data)
        except CrowdsetError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(serializers.PaymentSerializer(payment).data, status=status.HTTP_202_ACCEPTED)

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


class AggregationViewSet(Scoped, CheckedLookup, viewsets.ReadOnlyModelViewSet):
    permission_classes = [IsResearcher]
    access_action = access.READ
    serializer_class = serializers.AggregationSerializer
    queryset = AggregationRun.objects.order_by("pk")


class VersionViewSet(Scoped, _FiguresViewSet):
    """Dataset versions with Tables 1 and 2 and their files; export starts a job, files download."""

    permission_classes = [IsResearcher]
    access_action = access.READ
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


class JobViewSet(CheckedLookup, mixins.RetrieveModelMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Jobs, to follow what a POST started."""

    permission_classes = [IsOrganizer | IsResearcher]
    serializer_class = serializers.JobSerializer
    queryset = Job.objects.order_by("-pk")

    def get_queryset(self):
        return jobs_visible(self.request.user, super().get_queryset())

    def get_object(self):
        return _with_progress(super().get_object())

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer([_with_progress(j) for j in page], many=True).data)


def not_found(request, exception=None):
    """A path no route takes: JSON under /api/ (what the API's schema promises; the API's last route, and
    Django's 404 handler for the rest of the site), the site's page elsewhere."""
    if request.path.startswith("/api/"):
        if not request.path.endswith("/") and resolve(request.path + "/").func is not not_found:
            return HttpResponsePermanentRedirect(request.get_full_path().replace(request.path, request.path + "/", 1))
        return JsonResponse({"detail": f"no such path {request.path[:200]}"}, status=404)
    return page_not_found(request, exception)
