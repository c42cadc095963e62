"""The TOML the app writes for people to fill in (the commit-reveal orders file) is written by
tomli-w, its comments kept and made safe (issue 19, item 2).

A hand-written ``f'faction = "{name}"'`` broke on a quote, a backslash or a newline in a name, and
a comment naming a faction with a newline turned the rest of the name into TOML.
"""

from __future__ import annotations

import tomllib
from types import SimpleNamespace

import pytest

from bellica.geo.toml_text import toml_comment, toml_line

#: A quote, a backslash, a newline that would start a TOML key, a control character, non-ASCII.
NAME = 'Ro"ma\\ Σικελία\nround = 99\x01\x7f'


def test_a_value_and_a_comment_round_trip_whatever_the_name():
    text = "\n".join([toml_comment(f"Orders of {NAME}"), toml_line("faction", NAME), toml_line("round", 3), "",
                      "[armies.9]", toml_comment(f"army 9: hex 85283473fffffff, at {NAME}"),
                      toml_comment(f"besieging {NAME}: {toml_line('assault', NAME)} or lift_siege = true"),
                      toml_line("moves", "")]) + "\n"
    assert tomllib.loads(text) == {"faction": NAME, "round": 3, "armies": {"9": {"moves": ""}}}
    assert all(line.startswith("#") or "=" in line or line.startswith("[") or not line for line in text.splitlines())
    assert "Σικελία" in text  # UTF-8 kept as it is, not escaped


@pytest.fixture
def no_winners(monkeypatch):
    import bellica.engine.vae_victis.rounds.machine as machine

    monkeypatch.setattr(machine, "read_round", lambda c: SimpleNamespace(phase="battles", engagement_rows=lambda: []))


def test_the_administer_form_offers_a_navy_of_any_faction(no_winners):
    """The administration's form is the declared step's (its TOML template is gone with the hand-written
    form): the navies at sea are offered as NAVY=HEX whatever their faction's name, which is never written."""
    from bellica.engine.vae_victis.offers import offered

    con = SimpleNamespace(execute=lambda sql: SimpleNamespace(fetchall=lambda: [(7,), (12,)]))
    campaign = SimpleNamespace(con=con)
    assert offered(campaign, None, "administer", "debarks") == ("7=HEX", "12=HEX")
    assert offered(campaign, None, "administer", "advances") == ()  # no engagement won yet
    assert offered(campaign, NAME, "administer", "debarks") is None  # a faction is offered nothing here
