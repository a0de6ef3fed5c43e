from django.urls import path

from hits import views

app_name = "hits"
urlpatterns = [
    path("", views.work_list, name="work_list"),
    path("batches/<int:batch_id>/claim/", views.work_claim, name="claim"),
    path("assignments/<int:assignment_id>/", views.assignment_page, name="assignment"),
    path("assignments/<int:assignment_id>/submit/", views.assignment_submit, name="submit"),
    path("assignments/<int:assignment_id>/draft/", views.assignment_draft, name="draft"),
    path("assignments/<int:assignment_id>/extend/", views.assignment_extend, name="extend"),
    path("assignments/<int:assignment_id>/return/", views.assignment_return, name="return"),
]
