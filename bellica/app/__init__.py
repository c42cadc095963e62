"""``bellica serve``: the web app players and the umpire use to play a campaign remotely.

:mod:`.server` (the Starlette app, :func:`create_app`), :mod:`.tokens` (sign-in tokens, stored
hashed in the campaign file), :mod:`.csrf` (every POST from the app's own pages), :mod:`.console`
(the umpire's read-only SQL), :mod:`.pages` (HTML), :mod:`.background` (uvicorn: ``bellica serve``).
It sits in the CLI layer: it calls the engine and web_maps as the commands do.
"""
