"""The values a page offers for Vae Victis II's umpire steps (:meth:`VaeVictisII.choices`).

A page draws one form per declared step (bellica/app/step_forms.py) and asks the ruleset what to
offer in each field: here the round's engagements and their armies for ``result``, and the winners and
the navies at sea for an administration's advances and debarkations.  Only a help: the step itself still checks what is posted.

Only the umpire is offered anything here.  Everything offered is public once movement has run
(the engagements, who fights whom, the results), so the offer gives away nothing the umpire's page
does not show anyway; a faction's own forms are not made from these (its order form is its own).
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["offered"]


def _fighting(r) -> list[int]:
    """The armies of this round's engagements, in order."""
    return sorted({a for row in r.engagement_rows() for a in (row[3], row[4]) if a is not None})


def _winners(r) -> list[int]:
    return sorted(army for row in r.engagement_rows() for army, res in r.results_for(row[2]).items()
                  if res[3] == "win")


def _battles_offer(r, step: str, param: str) -> Sequence[str] | None:
    rows = r.engagement_rows()
    if step == "result" and param == "engagement":
        awaiting = [row[2] for row in rows if not r.results_for(row[2])]
        return tuple(str(n) for n in (awaiting or [row[2] for row in rows]))  # all of them: a correction
    if step == "result" and param == "winner":
        defended = any(row[4] is None for row in rows)  # an assault: its defender may win
        return tuple(str(a) for a in _fighting(r)) + (("defender",) if defended else ())
    if step == "result" and param == "casualties":
        return tuple(f"{a}=PCT" for a in _fighting(r))
    if step == "administer" and param == "advances":
        return tuple(f"{a}=HEX" for a in _winners(r))
    return None


def _at_sea(campaign) -> tuple[str, ...]:
    """The navies at sea, of every faction, each ``NAVY=HEX`` (the hex its army debarks into)."""
    try:
        rows = campaign.con.execute("SELECT army FROM navies ORDER BY army").fetchall()
    except Exception:  # a campaign without the naval views (built at the start): none to offer
        return ()
    return tuple(f"{int(army)}=HEX" for (army,) in rows)


def offered(campaign, viewer: str | None, step: str, param: str) -> Sequence[str] | None:
    """What a page offers the umpire (``viewer`` None) for ``param`` of ``step`` now, or None (any text)."""
    from bellica.engine.vae_victis.rounds.machine import read_round

    if viewer is not None or step not in ("result", "administer"):
        return None
    r = read_round(campaign)
    if r.phase != "battles":
        return None
    if step == "administer" and param == "debarks":
        return _at_sea(campaign)
    return _battles_offer(r, step, param)
