"""Problem descriptions: Markdown rendered to HTML, then sanitized.

markdown-it-py renders CommonMark with raw HTML off (a tag in the text comes out as text) and
refuses javascript:/vbscript:/data: links; nh3 then keeps only the tags and attributes a
description needs, so nothing that runs can reach the page even if a rule of the first is loosened.
"""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from .highlight import highlight

TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code",
        "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
        "div", "span", "sup", "sub"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"},
              "div": {"class"}, "span": {"class"}, "pre": {"class"}, "code": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}


def _fence(code: str, language: str, _attrs: str) -> str:
    return str(highlight(code, language or "text"))


_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _fence}).enable(
    ["table", "strikethrough"])


def render_markdown(text: str) -> SafeString:
    """Library output, marked safe as it is: markdown-it's HTML, sanitized by nh3 (no HTML is built
    here)."""
    html = _MARKDOWN.render(text or "")
    return mark_safe(nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES,
                               link_rel="nofollow noopener noreferrer",
                               filter_style_properties={"text-align"}))
