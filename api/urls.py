from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from api import views

router = DefaultRouter()
router.register("projects", views.ProjectViewSet, basename="project")
router.register("batches", views.BatchViewSet, basename="batch")
router.register("hits", views.HitViewSet, basename="hit")
router.register("assignments", views.AssignmentViewSet, basename="assignment")
router.register("aggregations", views.AggregationViewSet, basename="aggregation")
router.register("versions", views.VersionViewSet, basename="version")
router.register("jobs", views.JobViewSet, basename="job")

app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("", include(router.urls)),
    # Anything else under /api/ is a JSON 404, as the schema says, with DEBUG on or off.
    re_path(r"^.*$", views.not_found),
]
