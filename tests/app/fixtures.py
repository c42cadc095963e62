"""A tiny started campaign with app tokens, for the app's tests (the field of tests/cli/test_sealed_cli.py)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from tests.engine.boards import sketch
from tests.engine.test_rounds import FIELD, WATER
from tests.engine.test_state import make_campaign

PLACEMENTS = ((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia"))


#: What :func:`field_campaign` has written in this test process: its arguments' repr -> (the file, its tokens).
_WRITTEN: dict[str, tuple[Path, dict[str, str]]] = {}


def field_campaign(path: Path, *, placements=PLACEMENTS, structures=FIELD, publish: bool = True,
                   orders_mode: str | None = None, players=None) -> dict[str, str]:
    """Write a started campaign at ``path`` (in ``orders_mode`` if given; initiative published
    unless ``publish`` is false) and issue its tokens: {name: token} (umpire, carthago, roma, syracusae,
    and the army players of ``players``, {name: (faction, armies)}).

    Written once a test process for the same arguments (0.5 s of CPU), then copied (each test its
    own file, with the same tokens)."""
    key = repr((placements, structures, publish, orders_mode, players))
    if key not in _WRITTEN:
        folder = tempfile.mkdtemp(prefix="field-campaign-")
        atexit.register(shutil.rmtree, folder, True)
        first = Path(folder) / "field.duckdb"
        _WRITTEN[key] = first, _write_field_campaign(first, placements=placements, structures=structures,
                                                     publish=publish, orders_mode=orders_mode, players=players)
    first, tokens = _WRITTEN[key]
    shutil.copyfile(first, path)
    return dict(tokens)


def _write_field_campaign(path: Path, *, placements, structures, publish: bool, orders_mode: str | None,
                          players) -> dict[str, str]:
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds

    m = sketch(radius=4, structures=structures, water=WATER)
    c, m = make_campaign(path, placements=placements, m=m)
    c.start(seed=11)
    c.close()
    with Campaign.open(path) as c:
        if orders_mode is not None:
            rounds.set_orders_mode(c, orders_mode)
        if publish:
            rounds.publish_initiative(c)
        return {i.name: i.token for i in issue_tokens(c, players)}
