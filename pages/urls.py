"""Every URL of the public HTML pages: the home page, the boards, the problems, participants, agents
and hardware. The submission and account pages are in submissions/urls.py and accounts/urls.py."""

from django.urls import path, register_converter

from . import agent_upload_views, agent_views, board_views, docs_views, frontier_views, home_views, page_views


class AnyText:
    """An agent's name is free text from its manifest: slashes, spaces, even newlines."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AnyText, "anytext")

urlpatterns = [
    path("", home_views.home, name="home"),
    path("favicon.ico", home_views.favicon, name="favicon"),
    path("boards/problems/<str:problem>/<slug:hardware>/", board_views.problem_board, name="problem-board"),
    path("boards/categories/<slug:category>/<slug:hardware>/", board_views.category_board,
         name="category-board"),
    path("boards/agents/<slug:hardware>/", board_views.agent_board, name="agent-board"),
    path("boards/agents/<slug:hardware>/frontier/", frontier_views.agent_frontier, name="agent-frontier"),
    path("problems/", page_views.problems, name="problems"),
    path("problems/<str:problem>/", page_views.problem, name="problem"),
    path("u/<str:username>/", page_views.participant, name="participant"),
    # before the agent's page, whose free-text name would take "<name>/compare" and "<name>/uploads/..."
    path("agents/<str:owner>/<anytext:name>/uploads/<int:upload>/trajectory/", agent_upload_views.trajectory,
         name="agent-trajectory"),
    path("agents/<str:owner>/<anytext:name>/uploads/<int:upload>/publish/", agent_upload_views.publish,
         name="agent-publish"),
    path("agents/<str:owner>/<anytext:name>/compare/", agent_views.agent_compare_page, name="agent-compare"),
    path("agents/<str:owner>/<anytext:name>/", agent_views.agent, name="agent"),
    path("hardware/", page_views.hardware_list, name="hardware_list"),
    path("hardware/<slug:slug>/", page_views.hardware_detail, name="hardware"),
    path("highlight.css", page_views.highlight_css, name="highlight_css"),
    path("docs/", docs_views.docs_index, name="docs"),
    path("docs/<slug:name>/", docs_views.doc, name="doc"),
]
