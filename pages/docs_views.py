"""The project's docs/ served as pages (/docs/, /docs/<name>/): the same Markdown files the
repository holds, rendered like problem descriptions (pages/markdown.py); a link from one doc to
another (`scoring.md`) leads to its page."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from .markdown import render_markdown
from .page_cache import public_page

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
_DOC_LINK = re.compile(r"\]\((?:\./|docs/)?([a-z][a-z0-9-]*)\.md(#[^)\s]*)?\)")  # [text](scoring.md)
_DOC_MENTION = re.compile(r"(?<![`\w/\[])docs/([a-z][a-z0-9-]*)\.md\b")  # docs/scoring.md in prose


@functools.cache
def documents() -> dict[str, str]:
    """Name -> title of every doc (its first heading), in the folder's order."""
    found = {}
    for path in sorted(DOCS_DIR.glob("*.md")):
        first = path.read_text(encoding="utf-8").lstrip().splitlines()[:1]
        found[path.stem] = first[0].lstrip("# ").strip() if first else path.stem
    return found


@functools.cache
def rendered(name: str) -> SafeString:
    """A doc's HTML, its links to other docs, and their names in its prose, made links to their
    pages."""
    text = (DOCS_DIR / f"{name}.md").read_text(encoding="utf-8")
    text = _DOC_LINK.sub(lambda m: f"](/docs/{m.group(1)}/{m.group(2) or ''})", text)
    known = documents()
    return render_markdown(_DOC_MENTION.sub(
        lambda m: f"[{m.group(0)}](/docs/{m.group(1)}/)" if m.group(1) in known else m.group(0), text))


@public_page()
def docs_index(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/docs.html", {"documents": documents()})


@public_page()
def doc(request: HttpRequest, name: str) -> HttpResponse:
    title = documents().get(name)
    if title is None:
        return render(request, "pages/error.html", {"title": "Not found", "message": f"No document is named "
                                                    f"{name!r}; /docs/ lists them."}, status=404)
    return render(request, "pages/doc.html", {"title": title, "body": rendered(name)})
