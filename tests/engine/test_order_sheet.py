"""The play-by-email orders sheet (engine/vae_victis/order_sheet.py) is valid TOML whatever the names."""

from __future__ import annotations

import tomllib

import shapely

from bellica.engine.core.view import feature_layer
from bellica.engine.vae_victis.order_sheet import order_sheet
from bellica.engine.vae_victis.orders import parse_orders_text
from bellica.schema.view import PlayerView

NASTY = 'Ro"ma\\ \u00e6 \u2603\x01\x7f\nnext = "line"'


def _view(faction: str, structure: str, phase: str = "movement") -> PlayerView:
    here = shapely.Point(12.5, 41.9)
    armies = feature_layer("armies", "Point", [
        (here, {"id": 9, "faction": faction, "strength": 1600, "cell": "851e9b0ffffffff", "kind": "land",
                "navy": False, "zones": "", "structure": structure}),
        (here, {"id": 4, "faction": "carthago", "strength": None, "cell": "851e9b0ffffffff", "kind": "land",
                "navy": False, "zones": "", "structure": None})])
    sieges = feature_layer("sieges", "Point", [(here, {"structure": structure, "faction": faction, "resilience": 3,
                                                       "armies": "9"})])
    return PlayerView("vae-victis-ii", faction, 3, phase, {}, (armies, sieges))


def test_names_with_quotes_backslashes_newlines_and_unicode_round_trip():
    name, text = order_sheet(_view(NASTY, NASTY), 'camp"aign\n.duckdb')
    assert name == "orders-round-4.toml"
    doc = tomllib.loads(text)
    assert doc["faction"] == NASTY and doc["round"] == 4
    assert doc["armies"] == {"9": {"moves": ""}}  # only the viewer's own army, and no key smuggled in a name
    assert "next" not in doc


def test_the_sheet_reads_back_as_orders():
    _name, text = order_sheet(_view("roma", "Capua", phase="orders"), "c.duckdb")
    orders = parse_orders_text(text, "sheet")
    assert orders.faction == "roma" and orders.round == 3 and list(orders.orders) == [9]
    assert "# besieging Capua (Resilience 3): assault = \"Capua\" or lift_siege = true" in text
    assert "army 9, 1600 FP: hex 851e9b0ffffffff (land), at Capua" in text
