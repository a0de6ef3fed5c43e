from django.urls import path

from designs import views

app_name = "designs"
urlpatterns = [
    path("writing/<int:batch_id>/", views.writing_review, name="writing_review"),
    path("chains/<int:batch_id>/", views.chain_list, name="chains"),
    path("chains/<int:batch_id>/<int:origin>/", views.chain_detail, name="chain"),
]
