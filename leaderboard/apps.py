from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the receivers)
