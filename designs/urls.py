from django.urls import path

from designs import views

app_name = "designs"
urlpatterns = [
    path("<int:batch_id>/", views.writing_review, name="writing_review"),
]
