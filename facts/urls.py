from django.urls import path

from facts import views

app_name = "facts"
urlpatterns = [
    path("<int:batch_id>/", views.writing_review, name="writing_review"),
]
