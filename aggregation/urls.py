from django.urls import path

from aggregation import views

app_name = "aggregation"
urlpatterns = [
    path("spot-checks/", views.spot_checks, name="spot_checks"),
    path("spot-checks/<int:check_id>/decide/", views.spot_check_decide, name="decide"),
    path("spot-checks/sanction/", views.sanction_below, name="sanction"),
]
