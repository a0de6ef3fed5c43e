from django.urls import path

from projects import design_views, people_views, views

app_name = "projects"
urlpatterns = [
    path("", views.project_list, name="list"),
    path("designs/new/", design_views.design_new, name="design_new"),
    path("designs/check.json", design_views.design_check, name="design_check"),
    path("designs/preview/", design_views.design_preview, name="design_preview"),
    path("designs/potato/", design_views.potato_import, name="potato_import"),
    path("<slug:slug>/", views.project_detail, name="detail"),
    path("<slug:slug>/status.json", views.project_status, name="status"),
    path("<slug:slug>/jobs/<int:job_id>/cancel/", views.job_cancel_view, name="job_cancel"),
    path("<slug:slug>/people/", people_views.people_page, name="people"),
    path("<slug:slug>/people/invite/", people_views.invite_people, name="invite_people"),
    path("<slug:slug>/people/link/", people_views.join_link, name="join_link"),
    path("<slug:slug>/people/invites.csv", people_views.invites_csv, name="invites_csv"),
    path("<slug:slug>/people/invites/<int:invite_id>/withdraw/", people_views.invite_withdraw,
         name="invite_withdraw"),
    path("<slug:slug>/people/<int:member_id>/<slug:state>/", people_views.member_state, name="member_state"),
    path("<slug:slug>/corpus/", views.upload, name="upload"),
    path("<slug:slug>/corpus/<int:upload_id>/columns/", views.upload_columns, name="upload_columns"),
    path("<slug:slug>/corpus/refused/<int:job_id>/", views.refused_download, name="refused_download"),
    path("<slug:slug>/filter/", views.filter_view, name="filter"),
    path("<slug:slug>/sample/", views.sample, name="sample"),
    path("<slug:slug>/qualification/", views.qualification, name="qualification"),
    path("<slug:slug>/qualification/items/<int:item_id>/", views.test_item, name="test_item"),
    path("<slug:slug>/batches/new/", views.batch_new, name="batch_new"),
    path("<slug:slug>/batches/estimate.json", views.estimate, name="estimate"),
    path("<slug:slug>/batches/<int:batch_id>/", views.batch_detail, name="batch"),
    path("<slug:slug>/batches/<int:batch_id>/export.zip", design_views.design_export, name="design_export"),
    path("<slug:slug>/batches/<int:batch_id>/publish/", views.publish, name="publish"),
    path("<slug:slug>/batches/<int:batch_id>/<slug:action>/", views.batch_action, name="batch_action"),
    path("<slug:slug>/aggregations/<int:run_id>/", views.aggregation, name="aggregation"),
    path("<slug:slug>/versions/new/", views.version_new, name="version_new"),
    path("<slug:slug>/versions/<slug:name>/", views.version, name="version"),
    path("<slug:slug>/versions/<slug:name>/words.png", views.version_plot, name="version_plot"),
]
