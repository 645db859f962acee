from django.urls import path

from . import compare_views, views

urlpatterns = [
    path("submit/", views.submit, name="submit"),
    path("submissions/", views.submission_list, name="submissions"),
    path("submissions/<int:submission_id>/", views.submission_detail, name="submission"),
    path("submissions/<int:submission_id>/live/", views.submission_live, name="submission_live"),
    path("submissions/<int:submission_id>/cancel/", views.cancel, name="cancel_submission"),
    path("submissions/<int:submission_id>/publish/", views.publish, name="publish_submission"),
    path("submissions/<int:submission_id>/unpublish/", views.unpublish, name="unpublish_submission"),
    path("compare/", compare_views.compare_page, name="compare_submissions"),
]
