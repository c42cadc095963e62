"""The steps a Vae Victis II log records, read back for re-adjudication (:mod:`engine.core.readjudicate`).

Sealed orders (:mod:`.reveal`): a submission replays with its recorded ``submitted_by`` (none
in a log written before it was recorded), and the reveal at the last submission, at
publication or at the last reveal is that step's own event; only the umpire's reveal, the
deadline, the orders mode, each commitment and each faction's reveal are steps of their own.
"""

from __future__ import annotations

from typing import Any, Sequence

from bellica.engine.core.events import StoredEvent
from bellica.engine.vae_victis.model import Event
from bellica.engine.vae_victis.rounds.administration_step import run_administration
from bellica.engine.vae_victis.rounds.battles_step import declare_retreat, record_result
from bellica.engine.vae_victis.rounds.choices import choices_from_json
from bellica.engine.vae_victis.rounds.initiative_step import publish_initiative, submit_initiative
from bellica.engine.vae_victis.rounds.machine import STAGE_MOVES
from bellica.engine.vae_victis.rounds.movement_step import run_movement
from bellica.engine.vae_victis.rounds.orders_step import orders_from_data, submit_orders
from bellica.engine.vae_victis.rounds.player_choices import CHOICES_KIND, submit_choices
from bellica.engine.vae_victis.rounds.reveal import (
    AFTER_EVERY_DEADLINE, BEFORE_EVERY_DEADLINE, commit_orders, orders_from_canonical, reveal_orders, reveal_round, set_deadline, set_orders_mode,
)
from bellica.engine.vae_victis.rounds.victory_step import run_victory

__all__ = ["recorded_steps", "run_step", "log_key"]


def recorded_steps(events: Sequence[StoredEvent]) -> list[tuple[str, Any]]:
    """The umpire's steps and their inputs, read back from a log (in order)."""
    steps: list[tuple[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    recorded: set[tuple[int, int]] = set()  # (round, engagement) with a result in the log so far
    i = 0
    def source(e) -> str | None:
        # Logs written before put_orders carried ``source`` say it in words.
        if "source" in e.data:
            return e.data["source"]
        if e.text.startswith("initiative received"):
            return "initiative"
        if e.text.startswith("orders received"):
            return "orders"
        return "default"

    while i < len(events):
        e, d = events[i], events[i].data
        if e.phase == "setup":
            pass
        elif e.kind == "put_orders" and source(e) == "initiative":
            steps.append(("initiative", ({int(d["army"]): d["initiative"]}, d.get("submitted_by", ""))))
        elif e.kind == "put_orders" and source(e) == "orders":
            o = orders_from_data(d["army"], d["moves"], d["initiative"], d["lift_siege"], d["assault"], d["transfers"],
                                 d.get("sea_links", ()))
            steps.append(("orders", ({o.army: o}, d.get("submitted_by", ""))))
        elif e.kind == "set_campaign" and d["key"] == "deadline":
            steps.append(("deadline", d["value"]))
        elif e.kind == "set_campaign" and d["key"] == "orders_mode":
            steps.append(("mode", d["value"]))
        elif e.kind == "commit_orders":
            steps.append(("commit", (d["faction"], d["digest"], d["submitted_by"])))
        elif e.kind == "reveal_orders":
            # Its put_orders (source "reveal") and the lock that may follow are the step's own events.
            steps.append(("reveal-orders", (d["faction"], orders_from_canonical(d["orders"]), d["secret"], d["submitted_by"])))
        elif e.kind == "orders_revealed" and d["by"] == "umpire":
            steps.append(("reveal", None))
        elif e.kind == "set_campaign" and d["key"] == "stage" and d["value"] == STAGE_MOVES:
            steps.append(("publish", None))
        elif e.phase == "movement" and ("move", e.round) not in seen:
            seen.add(("move", e.round))
            steps.append(("move", None))
        elif e.kind == "put_result":
            outcomes = {}
            key = (d["round"], d["engagement"])
            # One recording holds each army of the engagement once; a repeated army starts a correction.
            while (i < len(events) and events[i].kind == "put_result"
                   and (events[i].data["round"], events[i].data["engagement"]) == key
                   and int(events[i].data["army"]) not in outcomes):
                outcomes[int(events[i].data["army"])] = (events[i].data["outcome"], int(events[i].data["casualties"]))
                i += 1
            # A second recording of an engagement is a correction (``round result --replace``).
            steps.append(("result", (int(d["engagement"]), outcomes, key in recorded)))
            recorded.add(key)
            continue
        elif e.kind == CHOICES_KIND:
            steps.append(("choose", (d["faction"], choices_from_json(d["choices"]), d.get("submitted_by"))))
        elif e.kind == "retreat":
            steps.append(("retreat", int(d["army"])))
        elif e.kind == "put_note" and d["key"] == "administration_choices":
            steps.append(("administer", choices_from_json(d["value"])))
        elif e.phase == "victory" and ("victory", e.round) not in seen:
            seen.add(("victory", e.round))
            steps.append(("victory", None))
        i += 1
    return steps


#: Each step by its name (machine.STEPS) -> how to run it with the input its log recorded.
_RUNNERS = {
    "initiative": lambda c, x: submit_initiative(c, x[0], submitted_by=x[1], source="the log"),
    # The log recorded that a submission or commitment came before the deadline (replay never reads the clock).
    "orders": lambda c, x: submit_orders(c, x[0], submitted_by=x[1], source="the log", now=BEFORE_EVERY_DEADLINE),
    # The log recorded an accepted deadline, in the form its version wrote: stored as written.
    "deadline": lambda c, x: set_deadline(c, x, recorded=True),
    "mode": lambda c, x: set_orders_mode(c, x),
    "commit": lambda c, x: commit_orders(c, x[0], x[1], submitted_by=x[2], now=BEFORE_EVERY_DEADLINE),
    "reveal-orders": lambda c, x: reveal_orders(c, x[0], x[1], x[2], submitted_by=x[3], source="the log"),
    # The log recorded that the deadline had passed: replay never reads the clock.
    "reveal": lambda c, x: reveal_round(c, now=AFTER_EVERY_DEADLINE),
    "publish": lambda c, x: publish_initiative(c),
    "move": lambda c, x: run_movement(c),
    "result": lambda c, x: record_result(c, *x),
    "retreat": lambda c, x: declare_retreat(c, x),
    # A faction's own choices, then administration with the choices its note recorded (the
    # faction's already in place of the umpire's: merging them again changes nothing).
    "choose": lambda c, x: submit_choices(c, x[0], x[1], submitted_by=x[2], source="the log"),
    "administer": lambda c, x: run_administration(c, x),
    "victory": lambda c, x: run_victory(c),
}


def run_step(campaign, name: str, arg: Any) -> list[Event]:
    return _RUNNERS[name](campaign, arg)


def log_key(e: StoredEvent) -> tuple:
    # ``source`` of put_orders is bookkeeping for re-adjudication, absent from older logs.
    data = {k: v for k, v in e.data.items() if k != "source"} if e.kind == "put_orders" else e.data
    return (e.round, e.phase, e.kind, data, e.text)
