"""A board's rows are made as HTML in Python (pages.board_views.rows_html), not by a template loop:
the same bytes the template they replace gave, every text escaped."""

from __future__ import annotations

from django.template import Context, Template

from pages.board_views import Cell, Line, rows_html

# templates/pages/_board_rows.html as it was, included by board_page.html
TEMPLATE = (
    '{% for line in lines %}<tr{% if line.unscored %} class="unscored"{% endif %}>'
    "{% for cell in line.cells %}"
    '<td{% if cell.css %} class="{{ cell.css }}"{% endif %}>{% if cell.url %}<a href="{{ cell.url }}">'
    "{{ cell.text }}</a>{% else %}{{ cell.text }}{% endif %}</td>{% endfor %}</tr>{% if not forloop.last %}\n"
    "    {% endif %}{% endfor %}")


def test_rows_are_the_bytes_the_template_gave() -> None:
    lines = [
        Line([Cell("1", "num"), Cell("<b>ada</b> & 'co'", "", "/u/%3Cb%3E/?a=1&b=\"2\""),
              Cell("0.500", "num")], False),
        Line([Cell("–"), Cell("no valid score", "num unscored"), Cell("2026-12-01 10:00", "num time")], True),
        Line([Cell("", ""), Cell("x", "", "")], False),
    ]
    assert rows_html(lines) == Template(TEMPLATE).render(Context({"lines": lines}))


def test_no_rows_is_empty() -> None:
    assert rows_html([]) == "" == Template(TEMPLATE).render(Context({"lines": []}))
