from django.urls import path

from annotation import views

app_name = "annotation"
urlpatterns = [
    path("", views.review_list, name="review_list"),
    path("<int:annotation_id>/", views.review_detail, name="review"),
]
