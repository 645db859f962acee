"""Problem names as written in the definitions, and the URL-safe slugs made from them.

A name is data, kept as written (SOL-ExecBench's look like
`black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation`); URLs, API paths and the CLI use the
slug, made from the name by one deterministic rule (slug_of), so both name the same problem.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

NAME_MAX = 200
SLUG_MAX = 100
CATEGORY_MAX = 40
_NOT_SLUG = re.compile(r"[^a-z0-9_]+")
# Unicode categories refused in names: control and format characters (invisible or breaking the
# line in a listing), line and paragraph separators, lone surrogates.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def slug_of(name: str, limit: int = SLUG_MAX) -> str:
    """The name in lowercase ASCII: accents dropped, every run of characters other than a-z, 0-9
    and '_' made one '-', '-' trimmed from both ends. Names already in that form keep their
    spelling (so `fused_add_rmsnorm` is its own slug). A slug longer than `limit` is cut and ends
    in 8 hex digits of the name's SHA-256, so two long names that only differ at the end still get
    two slugs."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = _NOT_SLUG.sub("-", ascii_text.lower()).strip("-")
    if len(slug) <= limit:
        return slug
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{slug[:limit - 9].rstrip('-')}-{digest}"


def why_not_a_name(name: object, longest: int = NAME_MAX) -> str | None:
    """Why `name` cannot name a problem (or a category), or None when it can: it must be a
    non-empty string of at most `longest` characters, without control or format characters,
    surrounding spaces or path separators, and with a letter or digit for its slug."""
    if not isinstance(name, str) or not name:
        return "required: a non-empty string"
    if len(name) > longest:
        return f"longer than {longest} characters ({len(name)})"
    bad = next((c for c in name if unicodedata.category(c) in _REFUSED_CATEGORIES), None)
    if bad is not None:
        return f"contains the control or format character {bad!r}"
    if name != name.strip():
        return "begins or ends with white space"
    if "/" in name or "\\" in name:
        return "contains '/' or '\\' (a suite keeps each problem in a folder of its name)"
    if not re.search(r"[a-z0-9]", slug_of(name)):
        return "needs at least one letter or digit (a-z, 0-9) to make its URL slug"
    return None
