from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from hits.views import mturk_hit_page

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="hits:work_list", permanent=False)),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("work/", include("hits.urls")),
    path("review/spans/", include("annotation.urls")),
    path("review/", include("aggregation.urls")),
    path("qualification/", include("qualification.urls")),
    path("mturk/hits/<int:hit_id>/", mturk_hit_page, name="mturk_hit"),
]
