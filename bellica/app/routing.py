"""Which pages a campaign gets: the one page of its ruleset's declared steps.

Every ruleset's campaign gets the generic page of :mod:`.step_forms` (a form per declared step the
viewer may take now, each checked as one types where the step declares a check, its keyed items
plotted on the map where it declares a preview, :mod:`.key_preview`, and the ruleset's own page
sections), and the older spellings of its forms it declares for scripts (:mod:`.older_paths`).
No ruleset is named here.  (Vae Victis II had pages of its own until issue 20 made every front
end follow from the declarations: its ``web_pages`` was ``orders``.)

The shared pages (``/``, ``/signin``, ``/signout``, ``/map``) are :mod:`.server`'s; ``/`` asks
:func:`home_page` for the viewer's page.  Every other path is a route of the generic page, which
opens the campaign per request (a file another process holds answers 503 like any request); an
older path the campaign's ruleset does not declare is 404.
"""

from __future__ import annotations

from starlette.routing import Route

from bellica.app.server import CampaignAccess

__all__ = ["STEPS", "kind_of", "home_page", "by_ruleset"]

#: The kind of pages every ruleset gets.
STEPS = "steps"


def kind_of(ruleset) -> str:
    """The kind of pages of ``ruleset``: :data:`STEPS` (its :attr:`web_pages` may say nothing else)."""
    kind = getattr(ruleset, "web_pages", STEPS)
    if kind != STEPS:
        raise ValueError(f"ruleset {ruleset.name}: web_pages {kind!r} is not {STEPS!r}: every ruleset gets the page of "
                         "its declared steps")
    return kind


def home_page(c, ident, said=None, *, before: int | None = None) -> str:
    """The viewer's page of campaign ``c``, with what their last POST ``said`` (kept by
    :func:`~bellica.app.server.see_page`) and the log's page ending ``before`` an entry."""
    from bellica.app import step_forms
    from bellica.app.server import said_kwargs

    if not c.has_state():  # a campaign served before its start: the umpire starts it from the page
        from bellica.app.start import start_page

        return start_page(c, ident)
    kind_of(c.ruleset)
    return step_forms.home_page(c, ident, **said_kwargs(said), before=before)


def by_ruleset(access: CampaignAccess) -> list[Route]:
    """The routes of every campaign's page, and the older paths the registered rulesets declare."""
    from bellica.app import older_paths, step_forms

    return [*step_forms.routes(access), *older_paths.routes(access)]
