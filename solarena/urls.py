from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("pages.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("submissions.urls")),
    path("api/v1/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("", include("ops.urls")),
]
