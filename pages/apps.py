from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "pages"

    def ready(self) -> None:
        from solarena import changes

        from .remakes import remake_boards

        changes.moved.connect(remake_boards, dispatch_uid="pages.remake_boards")
