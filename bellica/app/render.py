"""The app's HTML from Jinja2 templates (``bellica/app/templates``), every value autoescaped.

Starlette's :class:`~starlette.templating.Jinja2Templates` holds the environment: autoescaping is
on for every template, so a value put into a page is escaped by the template, never by hand; a
piece of HTML an older page builds itself comes in as :class:`markupsafe.Markup` and is not
escaped twice.  :func:`render` gives a template's text with the request's CSRF check value in
every POST form (:func:`bellica.app.csrf.stamp`), as every page of the app has it.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
from markupsafe import Markup
from starlette.templating import Jinja2Templates

from bellica.app.csrf import stamp

__all__ = ["TEMPLATES", "Markup", "render", "fragment"]

#: The templates of the app; a missing variable is an error, not an empty string.
TEMPLATES = Jinja2Templates(env=jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True))


def fragment(template: str, /, **context) -> Markup:
    """The HTML of ``template`` (a piece of a page: a table, a section), safe to put into another."""
    return Markup(TEMPLATES.get_template(template).render(**context))


def render(template: str, /, **context) -> str:
    """A whole page from ``template``, its POST forms carrying the request's check value."""
    return stamp(TEMPLATES.get_template(template).render(**context))
