from django.urls import path

from releases import views

app_name = "releases"
urlpatterns = [
    path("", views.versions, name="versions"),
    path("<slug:name>/export/", views.export, name="export"),
    path("<slug:name>/files/<str:filename>", views.download, name="file"),
]
