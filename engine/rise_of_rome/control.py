"""Changes of control and what follows from them: Inactive powers, Subjects, the instant loss.

The one function that moves a province (:func:`transfer`) settles the consequences
at once, as the seed asks ("determined immediately"):

* a power whose home provinces are all controlled by others becomes Inactive and loses
  every non-home province it controls; each goes back to the power whose home it is
  (the seed: an Inactive power becomes Active again when it regains a home province,
  "which will occur if the rival power controlling it becomes Inactive"), which may in
  turn make that power Active again;
* an Inactive power whose home provinces are all held by one Active power is that
  power's Subject; each Subject created is recorded (Epirus/Macedonia's intervention
  reads it).
"""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.rise_of_rome.model import (Event, Scenario, TurnState, is_active, suzerain)

__all__ = ["PHASE", "settle", "transfer"]

PHASE = "control"


def transfer(scenario: Scenario, state: TurnState, province: str, to: str, *, phase: str = PHASE,
             why: str = "") -> tuple[TurnState, list[Event]]:
    """``to`` takes control of ``province``; then every consequence is settled."""
    before = state
    frm = state.control.get(province)
    control = dict(state.control)
    control[province] = to
    state = replace(state, control=control)
    events = [Event(state.turn, phase, "province_taken",
                    {"province": province, "from": frm, "to": to},
                    f"{to} take{'s' if not to.endswith('s') else ''} control of {province} from {frm}" + (f" ({why})" if why else ""))]
    state, more = settle(scenario, before, state, phase=phase)
    return state, events + more


def settle(scenario: Scenario, before: TurnState, state: TurnState, *, phase: str = PHASE) -> tuple[TurnState, list[Event]]:
    """Apply the Inactive rule until nothing changes; record new Subjects and Rome's loss."""
    events: list[Event] = []
    control = dict(state.control)
    released: set[str] = set()
    while True:
        s = replace(state, control=control)
        newly = [p for p in scenario.nations if p not in released and not is_active(scenario, s, p)
                 and any(control.get(x) == p for x in scenario.provinces)]
        if not newly:
            break
        for p in newly:
            released.add(p)
            for prov, owner in list(control.items()):
                home = scenario.provinces[prov].home_of
                if owner == p and home and home != p:
                    control[prov] = home
                    events.append(Event(state.turn, phase, "province_released",
                                        {"province": prov, "from": p, "to": home},
                                        f"{p} are Inactive and lose {prov}; it returns to {home}"))
    state = replace(state, control=control)
    created = list(state.subjects_created)
    for p in scenario.nations:
        was_active, now_active = is_active(scenario, before, p), is_active(scenario, state, p)
        old_master, master = suzerain(scenario, before, p), suzerain(scenario, state, p)
        if was_active and not now_active:
            events.append(Event(state.turn, phase, "power_inactive", {"power": p},
                                f"{p} control none of their home provinces: they are Inactive"))
        if not was_active and now_active:
            events.append(Event(state.turn, phase, "power_active", {"power": p},
                                f"{p} regain a home province: they are Active again"))
        if master and master != old_master:
            n = len(scenario.homes(p))
            created.append((p, n))
            events.append(Event(state.turn, phase, "subject_created", {"power": p, "master": master, "provinces": n},
                                f"{p} become a Subject Inactive Power of {master} ({n} province{'s' if n > 1 else ''})"))
    state = replace(state, subjects_created=tuple(created))
    player = scenario.player
    if not state.defeated and player in scenario.powers and not is_active(scenario, state, player):
        state = replace(state, defeated=True)
        events.append(Event(state.turn, phase, "player_defeated", {"power": player},
                            f"{player} hold none of their home provinces: the game is lost, in great disgrace"))
    return state, events
