"""Source code as highlighted HTML, done on the server with Pygments (no script in the page)."""

from __future__ import annotations

from functools import cache

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

CSS_CLASS = "highlight"
_FORMATTER = HtmlFormatter(cssclass=CSS_CLASS, nowrap=True)
_LEXERS = {"python": "python", "triton": "python", "cuda": "cuda", "c++": "cpp", "cpp": "cpp"}


def highlight(source: str, language: str = "python") -> SafeString:
    """`source` as <pre class="highlight"><code>...</code></pre> (templates/pages/_highlight.html).
    The tokens are Pygments' own HTML, library output marked safe as it is: Pygments escapes every
    token, so the result is safe whatever the source holds."""
    body = mark_safe(pygments_highlight(source, _lexer(language), _FORMATTER))
    return render_to_string("pages/_highlight.html", {"css_class": CSS_CLASS, "body": body})


def _lexer(language: str):
    try:
        return get_lexer_by_name(_LEXERS.get(language.lower(), language.lower()))
    except ClassNotFound:
        return get_lexer_by_name("text")


@cache
def css() -> str:
    """The highlighting colours: Pygments' stylesheet, served as /highlight.css."""
    rules = _FORMATTER.get_style_defs(f".{CSS_CLASS}").splitlines()
    # Pygments adds a few unscoped rules (pre, line numbers); only ours are kept.
    return "\n".join(rule for rule in rules if rule.startswith(f".{CSS_CLASS}"))
