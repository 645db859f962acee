"""The board pages (leaderboard/board_views.py)."""

from django.urls import path

from . import board_views

urlpatterns = [
    path("boards/problems/<str:problem>/<slug:hardware>/", board_views.problem_board, name="problem-board"),
    path("boards/categories/<slug:category>/<slug:hardware>/", board_views.category_board,
         name="category-board"),
    path("boards/agents/<slug:hardware>/", board_views.agent_board, name="agent-board"),
]
