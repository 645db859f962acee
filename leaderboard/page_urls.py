"""URLs of the public pages in leaderboard/page_views.py (the boards are in leaderboard/urls.py)."""

from django.urls import path, register_converter

from . import page_views


class AnyText:
    """An agent's name is free text from its manifest: slashes, spaces, even newlines."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AnyText, "anytext")

urlpatterns = [
    path("problems/", page_views.problems, name="problems"),
    path("problems/<str:problem>/", page_views.problem, name="problem"),
    path("u/<str:username>/", page_views.participant, name="participant"),
    path("agents/<str:owner>/<anytext:name>/", page_views.agent, name="agent"),
    path("hardware/", page_views.hardware_list, name="hardware_list"),
    path("hardware/<slug:slug>/", page_views.hardware_detail, name="hardware"),
    path("highlight.css", page_views.highlight_css, name="highlight_css"),
]
