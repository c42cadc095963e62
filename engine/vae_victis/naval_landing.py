"""Navies leaving the sea: debarking (administration step 3) and loss at sea (step 7).

Debarking (:func:`debark`, administration step 3) is not a move: the order is the clock side from
the navy's hex to a land hex.  Static mistakes (not a navy, no such side, a hex navies may not debark
onto: a terrain other than ``debark_nmp``'s or a Town/City another faction controls) raise
:class:`~bellica.geo.errors.InputError`; a hex that turned hostile (in the ZoC of another faction's
army on land or of its controlled, unbesieged structure; held by an army) or a pool that cannot
pay leaves the navy at sea with a ``debark_refused`` event (the umpire's answer in the thread:
"you can stay as a navy at sea").  Enemy *navies* do not forbid debarking (the seed names armies
and structures).  The cost is paid from the richest zone of the navy's hex that can pay.

At the round's end (:func:`lost_at_sea`) every army on a Sea hex is irrevocably eliminated.

"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from bellica.engine.vae_victis.model import Board, CampaignState, Event
from bellica.engine.vae_victis.naval_superiority import is_navy, zones_of
from bellica.engine.vae_victis.zoc import army_zoc, controller_of, structure_exerts_zoc, structure_zoc
from bellica.geo.errors import InputError

__all__ = [
    "DebarkResult",
    "debark",
    "lost_at_sea",
]


@dataclass(frozen=True)
class DebarkResult:
    state: CampaignState
    """The state with the army landed (unchanged when it stays at sea)."""
    event: Event
    """``navy_debarked`` or ``debark_refused``, in words."""
    nmp: int
    """NMP paid (0 when it stays at sea)."""
    landed: bool
    zone: str | None = None
    """The zone whose pool paid (None when it stays at sea)."""


def debark(
    board: Board,
    state: CampaignState,
    army_id: int,
    clock: int,
    nmp_left: Mapping[str, Mapping[str, int]],
) -> DebarkResult:
    """Debark navy ``army_id`` into the land hex at ``clock`` of its hex (administration step 3).

    ``nmp_left``: {faction: {zone: NMP}} left after movement (and after earlier debarkations: the
    caller takes :attr:`DebarkResult.nmp` off :attr:`DebarkResult.zone`).  Static mistakes raise
    :class:`InputError`; a hex that turned hostile or a pool that cannot pay leaves the navy at sea
    with a ``debark_refused`` event (see the module doc)."""
    armies = {a.id: a for a in state.armies}
    a = armies.get(army_id)
    if a is None:
        raise InputError(f"army {army_id}: no such army (armies: {', '.join(map(str, sorted(armies))) or 'none'})")
    if not is_navy(board, a):
        where = "eliminated" if a.eliminated or a.cell is None else f"on land at {a.cell}"
        raise InputError(f"army {army_id} is not a navy (it is {where}): only a navy on a Coast or Sea hex debarks")
    sides = board.sides.get(a.cell, {})
    if clock not in sides:
        valid = " ".join(str(c) for c in sorted(sides)) or "none"
        raise InputError(f"army {army_id}: hex {a.cell} has no side at clock {clock}; valid clock positions here: {valid}")
    target = sides[clock]
    h = board.hexes[target]
    naval = board.rules.naval
    if h.kind != "land":
        raise InputError(f"army {army_id}: clock {clock} leads to {h.kind} hex {target}: a navy debarks onto a land hex")
    s = board.structure_at(target)
    f = a.faction
    if s is not None:
        owner = controller_of(state, s)
        if owner not in (None, f):
            raise InputError(f"army {army_id}: {s.name} at {target} is controlled by {owner}: a navy debarks only into "
                             f"a Town or City of its own faction or of none")
        cost, what = naval.debark_nmp["structure"], f"{s.kind} {s.name}"
    elif h.terrain in naval.debark_nmp and h.terrain != "structure":
        cost, what = naval.debark_nmp[h.terrain], h.terrain
    else:
        allowed = ", ".join(t for t in naval.debark_nmp if t != "structure")
        raise InputError(f"army {army_id}: hex {target} is {h.terrain}: a navy debarks only onto {allowed} "
                         f"or a Town or City")

    def refused(why: str) -> DebarkResult:
        return DebarkResult(state, Event(state.round, "administration", "debark_refused", {
            "army": army_id, "faction": f, "cell": a.cell, "to": target, "clock": clock, "reason": why,
        }, f"navy {army_id} ({f}) cannot debark into {target} ({what}): {why}; it stays at sea in {a.cell}"),
            0, False)

    holder = next((o for o in state.armies if not o.eliminated and o.cell == target), None)
    if holder is not None:
        return refused(f"army {holder.id} ({holder.faction}) is in that hex")
    by = [f"army {o.id} ({o.faction})" for o in state.armies
          if o.faction != f and not o.eliminated and o.cell is not None and not is_navy(board, o)
          and target in army_zoc(board, o.cell)]
    by += [f"{t.name} ({controller_of(state, t)})" for t in sorted(board.structures.values(), key=lambda t: t.name)
           if structure_exerts_zoc(state, t) and controller_of(state, t) != f and target in structure_zoc(board, t)]
    if by:
        return refused(f"the hex is in the ZoC of {', '.join(by)}")
    have = {z: int(nmp_left.get(f, {}).get(z, 0)) for z in zones_of(board, a.cell)}
    payable = [z for z, v in have.items() if v >= cost]
    if not payable:
        shown = ", ".join(f"{z} {v}" for z, v in sorted(have.items())) or "none (the hex is in no sea zone)"
        return refused(f"debarking costs {cost} NMP but {f} has left: {shown}")
    zone = min(payable, key=lambda z: (-have[z], z))
    new_state = replace(state, armies=tuple(replace(o, cell=target) if o.id == army_id else o for o in state.armies))
    return DebarkResult(new_state, Event(state.round, "administration", "navy_debarked", {
        "army": army_id, "faction": f, "cell": a.cell, "to": target, "clock": clock, "nmp": cost, "zone": zone,
    }, f"navy {army_id} ({f}) debarked from {a.cell} into {target} ({what}), {cost} NMP ({zone}): "
       "it is an army again"), cost, True, zone)


# --- the round's end ---------------------------------------------------------------------------


def lost_at_sea(board: Board, state: CampaignState) -> tuple[CampaignState, tuple[Event, ...]]:
    """Every live army on a Sea (not Coast) hex is irrevocably eliminated (seed: "a navy that does
    end a round in a Sea hex ... will cause its army to be irrevocably eliminated")."""
    events = []
    armies = []
    for a in state.armies:
        if not a.eliminated and a.cell is not None and board.hexes[a.cell].kind == "sea":
            events.append(Event(state.round, "administration", "navy_lost_at_sea", {
                "army": a.id, "faction": a.faction, "cell": a.cell, "strength": a.strength,
            }, f"navy {a.id} ({a.faction}) ended the round on the Sea hex {a.cell}: its army ({a.strength} FP) "
               "is irrevocably eliminated (a navy must end its movement on a Coast hex)"))
            a = replace(a, cell=None, eliminated=True)
        armies.append(a)
    if not events:
        return state, ()
    return replace(state, armies=tuple(armies)), tuple(events)
