from django.urls import path

from designs import event_views

app_name = "events"
urlpatterns = [
    path("<int:assignment_id>/<str:scheme_name>/", event_views.shared_events, name="shared"),
]
