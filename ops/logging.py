"""JSON-lines logs (SOLARENA_LOG_FORMAT=json): one object per record on standard error, with the
request id of a web request and the task and evaluation ids of a Celery task where known."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter as BaseJsonFormatter

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
task_id: ContextVar[str | None] = ContextVar("task_id", default=None)
evaluation_id: ContextVar[int | None] = ContextVar("evaluation_id", default=None)
CONTEXT = {"request_id": request_id, "task_id": task_id, "evaluation_id": evaluation_id}


class ContextFilter(logging.Filter):
    """Puts the current request, task and evaluation ids on every record that passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in CONTEXT.items():
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        if record.request_id is None:  # type: ignore[attr-defined]
            # Django logs a 4xx/5xx response once the middleware has returned, naming the request.
            record.request_id = getattr(getattr(record, "request", None), "request_id", None)
        return True


class JsonFormatter(BaseJsonFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", "%(levelname)s %(name)s %(message)s %(process)d")
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        super().__init__(*args, **kwargs)

    def add_fields(self, log_record: dict[str, Any], record: logging.LogRecord,
                   message_dict: dict[str, Any]) -> None:
        log_record["time"] = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        super().add_fields(log_record, record, message_dict)

    def process_log_record(self, log_record: dict[str, Any]) -> dict[str, Any]:
        # Django puts the request object itself on some records; its id and path say enough.
        return {key: value for key, value in log_record.items()
                if value is not None and key not in ("request", "server_time")}


def json_config(level: str) -> dict[str, Any]:
    """The LOGGING setting for JSON lines: everything at `level` and above through one handler."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "ops.logging.ContextFilter"}},
        "formatters": {"json": {"()": "ops.logging.JsonFormatter"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json",
                                "filters": ["context"]}},
        "root": {"handlers": ["stderr"], "level": level},
        # Django's own loggers keep their levels but write through the root's handler only.
        "loggers": {"django": {"handlers": [], "propagate": True},
                    "django.server": {"handlers": [], "propagate": True}},
    }
