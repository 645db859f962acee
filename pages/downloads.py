"""Files the pages offer for download: CSV text whose cells a spreadsheet never runs as formulas,
sent as an attachment with a safe file name."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.http import HttpResponse

# Text a spreadsheet would run as a formula when a cell starts with it.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value  # shown as text by spreadsheets, never evaluated
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_value(value) for value in row])
    return out.getvalue()


def download(text: str, content_type: str, name: str, extension: str) -> HttpResponse:
    filename = re.sub(r"[^A-Za-z0-9._-]+", "_", name) + f".{extension}"
    return HttpResponse(text, content_type=f"{content_type}; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})
