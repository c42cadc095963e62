"""A Magna Graecia campaign on the web map (web_maps/magna_graecia_layers.py): the node map with the
places coloured by owner and the counters as one side may see them; nothing of another side's
secrets (its elements, its fleet's naval points) reaches that side's page."""

from __future__ import annotations

import pytest

from tabula.engine.core.campaign import Campaign
from tabula.geo.errors import InputError
from tabula.web_maps.assets import remote_urls
from tabula.web_maps.terrain_map import render_terrain_map
from tests.web_maps.synthetic import layer_payloads

#: What only Carthage (and the umpire) may read: its commands' elements and its fleet's naval points.
CARTHAGE_SECRETS = ("Bd(F) 2", "Sp(I) 6", "LH(O) 4", "10 NP")
SYRACUSE_SECRETS = ("Art(O) 1", "Sp(O) 8", "LH(O) 2", "20 NP")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from tabula.demo_magna_graecia import build_demo_campaign, play_turn

    path = build_demo_campaign(tmp_path_factory.mktemp("mg-map") / "d.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=397)
        play_turn(c)  # Syracuse marches
    return path


def _page(campaign, tmp_path, faction=None) -> str:
    out = render_terrain_map(campaign, tmp_path / f"{faction or 'umpire'}.html", faction=faction)
    return out.read_text(encoding="utf-8")


def test_a_side_sees_its_own_strength_and_only_the_others_presence(campaign, tmp_path):
    page = _page(campaign, tmp_path, "Syracuse")
    assert not remote_urls(page)
    assert "view of Syracuse" in page
    for secret in CARTHAGE_SECRETS:
        assert secret not in page
    for own in SYRACUSE_SECRETS:
        assert own in page
    points = [p for payload in layer_payloads(page, "point_layer") for p in payload]
    carthage = [p for p in points if p.get("shape") in ("army", "navy") and p["tip"][0][1] == "Carthage"]
    assert carthage and all("sub" not in p for p in carthage)  # presence, not composition
    page = _page(campaign, tmp_path, "carth")
    for secret in SYRACUSE_SECRETS:
        assert secret not in page
    for own in CARTHAGE_SECRETS:
        assert own in page


def test_the_umpire_sees_everything_and_places_take_their_owners_colour(campaign, tmp_path):
    from tabula.web_maps.magna_graecia_layers import SIDE_COLOURS

    page = _page(campaign, tmp_path)
    for secret in CARTHAGE_SECRETS + SYRACUSE_SECRETS:
        assert secret in page
    places = {p["tip"][0][1]: p for payload in layer_payloads(page, "point_layer") for p in payload
              if p.get("shape") == "circle" and p.get("tip")}
    assert places["Motya"]["colour"] == SIDE_COLOURS[1] and places["Syracuse"]["colour"] == SIDE_COLOURS[0]


def test_an_unknown_side_is_one_line(campaign, tmp_path):
    with pytest.raises(InputError, match="--faction 'Athens' is no side of this campaign"):
        _page(campaign, tmp_path, "Athens")
