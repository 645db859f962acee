"""The API's JSON parser: DRF's, with the limit on nesting of evaluator.bounded_json."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from evaluator import bounded_json


class BoundedJSONParser(JSONParser):
    """A body nested past bounded_json.MAX_DEPTH is a 400 naming the limit, not a 500 (DRF's parser
    lets Python's RecursionError through)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(bounded_json.too_deep_message("request body")) from None
        try:
            bounded_json.check_depth(data, "request body")
        except bounded_json.TooDeep as exc:
            raise ParseError(str(exc)) from None
        return data
