"""What a Celery worker adds: JSON logs when SOLARENA_LOG_FORMAT=json (Celery's own log setup
steps aside), and the task and evaluation ids on the records of a task (`celery inspect
pinned_device` is in inspect.py)."""

from __future__ import annotations

import logging.config
from typing import Any

from celery import Task
from celery.signals import setup_logging, task_postrun, task_prerun
from django.conf import settings

from .logging import evaluation_id
from .logging import task_id as current_task_id

EVALUATE = "evaluator.tasks.evaluate"
_tokens: dict[str, list[Any]] = {}


def _json_logging(**_: Any) -> None:
    logging.config.dictConfig(settings.LOGGING)


if settings.SOLARENA_LOG_FORMAT == "json":
    # With a receiver connected Celery leaves the root logger to Django's LOGGING.
    setup_logging.connect(_json_logging, weak=False)


@task_prerun.connect
def _enter_task(task_id: str, task: Task, args: tuple[Any, ...] = (), **_: Any) -> None:
    tokens = [current_task_id.set(task_id)]
    if task.name == EVALUATE and args and isinstance(args[0], int):
        tokens.append(evaluation_id.set(int(args[0])))
    _tokens[task_id] = tokens


@task_postrun.connect
def _leave_task(task_id: str, **_: Any) -> None:
    for token in reversed(_tokens.pop(task_id, [])):
        token.var.reset(token)

