from django.urls import path

from qualification import views

app_name = "qualification"
urlpatterns = [
    path("<slug:name>/", views.take, name="take"),
    path("<slug:name>/attempts/<int:attempt_id>/submit/", views.submit, name="submit"),
    path("<slug:name>/attempts/<int:attempt_id>/", views.result, name="result"),
    path("<slug:name>/pool/", views.pool, name="pool"),
    path("<slug:name>/prolific/", views.prolific_start, name="prolific_start"),
]
