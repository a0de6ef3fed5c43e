from django.urls import path

from chains import views

app_name = "chains"
urlpatterns = [
    path("<int:workflow_id>/", views.workflow_detail, name="workflow"),
    path("chain/<int:chain_id>/", views.chain_detail, name="chain"),
    path("chain/<int:chain_id>/decide/", views.chain_review, name="decide"),
]
