"""Django's `{# ... #}` comment ends on its own line: one that spans lines is printed on the page
as text (a submission's evaluations table showed one). Multi-line comments use
{% comment %}...{% endcomment %}; Jinja2's templates (templates/jinja2/) have no such limit."""

from __future__ import annotations

from tests.conftest import ROOT

TEMPLATES = ROOT / "templates"


def test_no_django_template_comment_spans_lines() -> None:
    spanning = []
    for path in TEMPLATES.rglob("*.html"):
        if (TEMPLATES / "jinja2") in path.parents:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.count("{#") > line.count("#}"):
                spanning.append(f"{path.relative_to(ROOT)}:{number}")
    assert not spanning, spanning
