"""The Celery app: `celery -A solarena.celery worker -Q hw.<slug>` runs an evaluator."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "solarena.settings")

app = Celery("solarena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["evaluator"])

import ops.inspect  # noqa: E402, F401  (registers `celery inspect pinned_device`)
