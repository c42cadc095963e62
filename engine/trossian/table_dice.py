"""Dice rolled at the table (issue 22): the umpire's ``roll`` step enters a die under the label the
rules will roll it by (``courier/1806/2/74/Budjak/pass``), and every later step rolls that die as
entered instead of drawing it from the seed (the core's dice: an entered die is used and logged
"(entered)").  Every die of the rules can be entered: a courier's passage and fate, a chance card's
schedule, draw and effect, a sea fight, a navy's losses, a battle's attrition.

The entered dice are round notes of round 0 (``table_dice/NATION`` for a die that is a nation's
secret, a courier's or a card schedule's, sealed from the others like the roll itself;
``table_dice`` for a public one).  Entering a label again replaces its face (a die refused when
rolled, a face above the die's, can be corrected)."""

from __future__ import annotations

import json
from typing import Mapping

from bellica.engine.core.events import Event
from bellica.engine.core.names import named
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError
from bellica.geo.files import whole_number

__all__ = ["LABELS", "NOTE", "roll_label", "table_dice"]

NOTE = "table_dice"

#: The dice the rules roll, by kind: the parts after the kind (alternatives: a tuple of forms).
LABELS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "attrition": (("YEAR", "PHASE", "BATTLE", "UNIT"),),
    "courier": (("YEAR", "PHASE", "COURIER", "PLACE", "pass|fate"),),
    "cards": (("YEAR", "NATION", "0"), ("YEAR", "NATION", "CARD", "ATTEMPT")),
    "card": (("YEAR", "PHASE", "NATION", "N"),),
    "card-effect": (("YEAR", "PHASE", "NATION", "CARD"), ("YEAR", "PHASE", "NATION", "CARD", "army|unit|navy|roll")),
    "sea": (("YEAR", "PHASE", "LANE", "ATTEMPT", "NAVY"),),
    "sea-loss": (("YEAR", "PHASE", "NAVY", "UNIT|navy"),),
}


def _forms() -> str:
    return ", ".join(f"{k}/" + "/".join(f) for k, forms in LABELS.items() for f in forms)


def table_dice(snap: Snapshot) -> dict[str, int]:
    """Every die entered at the table (label key -> face)."""
    out: dict[str, int] = {}
    for (rnd, key), row in sorted(snap.tables["round_notes"].items()):
        if int(rnd) == 0 and (key == NOTE or str(key).startswith(NOTE + "/")):
            out.update({str(k): int(v) for k, v in json.loads(row[2]).items()})
    return out


def roll_label(scenario, rules, state, label: str) -> tuple[str, int | None]:
    """(the label as the rules will roll it, names spelled as the campaign spells them; the die's
    faces where the label says them, else None), or one line why no roll of the campaign has it."""
    parts = [p.strip() for p in str(label or "").strip().strip("/").split("/")]
    kind = parts[0].lower() if parts else ""
    forms = [f for f in LABELS.get(kind, ()) if len(f) == len(parts) - 1]
    if not forms:
        raise InputError(f"roll label {label!r}: give one the rules roll: {_forms()}")
    form = forms[0]  # each kind's forms differ in length
    where = f"roll label {label!r}:"
    out = [kind]
    for what, text in zip(form, parts[1:]):
        if what == "YEAR":
            year = whole_number(text)
            if year is None or year < state.year:
                raise InputError(f"{where} year {text!r} is not this year ({state.year}) or a later one")
            out.append(str(year))
        elif what == "PHASE":
            if text != "-1" and whole_number(text) is None:
                raise InputError(f"{where} phase {text!r} is not a phase number (0-8, -1 winter)")
            out.append(text if text == "-1" else str(whole_number(text)))
        elif what == "NATION":
            out.append(named(text, list(scenario.nations), where, "no nation of this campaign"))
        elif what == "PLACE":
            out.append(named(text, list(scenario.provinces) + list(scenario.lanes), where,
                             "not a province or sea lane of this campaign"))
        elif what == "LANE":
            out.append(named(text, list(scenario.lanes), where, "not a sea lane of this campaign"))
        elif what == "CARD":
            if kind == "cards":
                if whole_number(text) is None:
                    raise InputError(f"{where} {text!r} is not a card's number")
                out.append(str(whole_number(text)))
            else:
                out.append(named(text, [str(c["key"]) for c in scenario.cards], where, "not a card of this campaign"))
        elif "|" in what:
            out.append(named(text, what.split("|"), where, f"not {' or '.join(what.split('|'))}"))
        else:  # a number: a battle, unit, courier, navy, attempt, draw
            if whole_number(text) is None:
                raise InputError(f"{where} {text!r} is not a whole number ({what})")
            out.append(str(whole_number(text)))
    sides = {"attrition": 6, "courier": rules.couriers.die, "cards": rules.cards.die, "card": len(scenario.cards),
             "sea": rules.navies.battle_die, "sea-loss": 6}.get(kind)
    if kind == "card-effect" and out[-1] == "roll":
        sides = 6
    return "/".join(out), sides


def roll_events(snap: Snapshot, scenario, rules, state, rnd: int, phase: str, label: str, value,
                owner_of) -> tuple[dict, str, list[Event]]:
    """(the ``roll`` step's input, its words, the note event storing the die) for ``label`` = ``value``;
    ``owner_of(label tuple)``: the nation the die is a secret of (None: public)."""
    key, sides = roll_label(scenario, rules, state, label)
    face = value if isinstance(value, int) and not isinstance(value, bool) else whole_number(str(value).strip())
    if face is None or face < 1 or (sides is not None and face > sides):
        most = sides or "the die's faces"
        raise InputError(f"roll {key} = {value!r}: give a whole number from 1 to {most}")
    owner = owner_of(tuple(key.split("/")))
    note_key = f"{NOTE}/{owner}" if owner else NOTE
    row = snap.tables["round_notes"].get((0, note_key))
    held = dict(json.loads(row[2])) if row else {}
    again = key in held
    held[key] = face
    arg = {"label": key, "value": face, **({"nation": owner} if owner else {})}
    words = f"die {key} = {face} (rolled at the table{', replacing ' + str(table_dice(snap)[key]) if again else ''})"
    note = Event(rnd, phase, "put_note", {"round": 0, "key": note_key, "value": dict(sorted(held.items())),
                                          **({"nation": owner} if owner else {})}, words)
    return arg, words, [note]
