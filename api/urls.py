"""/api/v1/: the version is in the prefix; a new one would mount beside it."""

from csp.decorators import csp_replace
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import agent_frontier, agents, boards, compare, profile_reports, traces, views

# Swagger UI: drf-spectacular's page starts it with an inline script and loads it from its CDN.
SWAGGER_CDN = "https://cdn.jsdelivr.net"
SWAGGER_POLICY = {"script-src": ["'self'", "'unsafe-inline'", SWAGGER_CDN],
                  "style-src": ["'self'", "'unsafe-inline'", SWAGGER_CDN],
                  "img-src": ["'self'", "data:", SWAGGER_CDN]}

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("problems", views.ProblemViewSet, basename="problem")
router.register("hardware", views.HardwareViewSet, basename="hardware")
router.register("submissions", views.SubmissionViewSet, basename="submission")
router.register("agent-submissions", views.AgentSubmissionViewSet, basename="agent-submission")

urlpatterns = [
    # before the router's agent-submissions/{id}/, which would take "compare" for an id
    path("agent-submissions/compare/", agents.AgentCompareView.as_view(), name="agent-submissions-compare"),
    path("agent-submissions/<int:pk>/results/", agents.UploadResultsView.as_view(),
         name="agent-submission-results"),
    path("agent-submissions/<int:pk>/trajectory/", agents.TrajectoryView.as_view(),
         name="agent-submission-trajectory"),
    path("agents/", agents.AgentResultsView.as_view(), name="agent-document"),
    path("agents/frontier/", agent_frontier.AgentFrontierView.as_view(), name="agent-frontier-api"),
    path("", include(router.urls)),
    path("leaderboards/agents/", agents.AgentBoardView.as_view(), name="agent-leaderboard"),
    path("compare/", compare.CompareView.as_view(), name="compare"),
    path("evaluations/<int:pk>/trace/", traces.EvaluationTraceView.as_view(), name="evaluation-trace"),
    path("submissions/<int:pk>/profile/<slug:hardware>/<str:workload>.ncu-rep",
         profile_reports.ProfileReportView.as_view(), name="submission-profile-report"),
    path("leaderboards/categories/<slug:category>/<slug:hardware>/", boards.CategoryBoardView.as_view(),
         name="category-leaderboard"),
    path("leaderboards/<str:problem>/<slug:hardware>/", views.LeaderboardView.as_view(), name="leaderboard"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", csp_replace(SWAGGER_POLICY)(SpectacularSwaggerView.as_view(url_name="api-schema")),
         name="api-docs"),
]
