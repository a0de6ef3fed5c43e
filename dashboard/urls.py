from django.urls import path

from dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.index, name="index"),
    path("jobs/", views.start, name="start"),
    path("status.json", views.status, name="status"),
    path("runs/<int:run_id>/workers.png", views.plot_workers, name="plot_workers"),
    path("runs/<int:run_id>/agreement.png", views.plot_agreement, name="plot_agreement"),
]
