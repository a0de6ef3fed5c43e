from django.contrib import admin
from django.urls import include, path

from dashboard.views import home
from hits.views import mturk_hit_page

urlpatterns = [
    path("", home, name="home"),
    path("dashboard/", include("dashboard.urls")),
    path("datasets/", include("datasets.urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("work/", include("hits.urls")),
    path("review/spans/", include("annotation.urls")),
    path("review/", include("aggregation.urls")),
    path("qualification/", include("qualification.urls")),
    path("mturk/hits/<int:hit_id>/", mturk_hit_page, name="mturk_hit"),
]
