from django.contrib import admin
from django.urls import include, path

from leaderboard import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include("accounts.urls")),
    path("", include("submissions.urls")),
    path("", include("leaderboard.urls")),
    path("", include("leaderboard.page_urls")),
    path("api/v1/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("", include("ops.urls")),
]
