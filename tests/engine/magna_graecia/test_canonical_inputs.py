"""Issue 22, item 3: a list the log records is in one canonical order, so that
`bellica round verify --readjudicate` never fails on an input the engine itself stored.

An exchange's elements (and a result's losses) were recorded in the order typed, while the
log's JSON reads them back sorted: the step's words ("command 36 passes {...}") differed on
re-adjudication.  They are now sorted where the input is resolved (inputs._resolve).
"""

from __future__ import annotations

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.magna_graecia.ruleset import play

from .test_campaign import campaign, fresh  # noqa: F401 (fixtures)


def test_an_exchange_typed_out_of_order_readjudicates(campaign):  # noqa: F811
    with Campaign.open(campaign) as c:
        c.start(seed=1)
        play(c, "exchange", {"side": "Syracuse", "from": 36, "to": 37, "elements": {"Sp(O)": 1, "Ps(O)": 1}})
        text = [e.text for e in c.events() if e.kind == "exchanged"]
        assert text == ["command 36 passes {'Ps(O)': 1, 'Sp(O)': 1} to command 37 at Syracuse"]
        c.verify()
    readjudicate(campaign)
