from django.contrib import admin
from django.urls import include, path

from accounts.views import api_token, home
from hits.prolific_views import prolific_hook, prolific_start
from hits.views import mturk_hit_page
from projects.people_views import join

urlpatterns = [
    path("", home, name="home"),
    path("dashboard/", include("dashboard.urls")),
    path("projects/", include("projects.urls")),
    path("datasets/", include("releases.urls")),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("accounts/token/", api_token, name="api_token"),
    path("join/<str:token>/", join, name="join"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("work/events/", include("designs.event_urls")),
    path("work/", include("hits.urls")),
    path("review/spans/", include("annotation.urls")),
    path("review/", include("designs.urls")),
    path("review/", include("aggregation.urls")),
    path("qualification/", include("qualification.urls")),
    path("mturk/hits/<int:hit_id>/", mturk_hit_page, name="mturk_hit"),
    path("prolific/start/", prolific_start, name="prolific_start"),
    path("prolific/hooks/", prolific_hook, name="prolific_hook"),
]

handler404 = "api.views.not_found"
