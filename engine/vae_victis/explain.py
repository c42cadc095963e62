"""Events in words, for ``bellica log`` and for the text stored with each event.

The words are computed when an event is recorded and stored in ``events.text``,
so the log reads the same later even if structure names were to change.  The
rules modules write their own text; this module words the state kinds of
:mod:`engine.core.state` and :mod:`engine.vae_victis.state` and gives any event without
text a readable fallback.  (What a faction may not read yet, sealed orders, is
:data:`engine.vae_victis.rounds.ORDER_SEAL`.)

``names`` maps a cell to the structure standing in it, so a move reads
"army 3 (Carthago) moves from Panormus to 85...fff" instead of two H3 ids.
"""

from __future__ import annotations

from typing import Any, Mapping

from bellica.engine.vae_victis.model import Event

__all__ = ["describe", "place"]


def place(cell: str | None, names: Mapping[str, str] | None = None) -> str:
    """A cell as the log shows it: the structure's name when one stands there, else the H3 id."""
    if cell is None:
        return "off the map"
    if names and cell in names:
        return names[cell]
    return cell


def _army(data: Mapping[str, Any]) -> str:
    faction = data.get("faction")
    return f"army {data['army']}" + (f" ({faction})" if faction else "")


def describe(event: Event, names: Mapping[str, str] | None = None) -> str:
    """One line of words for ``event`` (its own ``text`` when it has one)."""
    if event.text:
        return event.text
    d = event.data
    k = event.kind
    if k == "campaign_started":
        return f"campaign started with seed {d['seed']} and {d['armies']} armies"
    if k == "set_campaign":
        key, value = d["key"], d["value"]
        if key == "round":
            return f"round {value} begins"
        if key == "phase":
            return f"phase: {value}"
        if key == "stage":
            return f"orders stage: {value}"
        if key == "winner":
            return f"{value} wins the campaign" if value else "no winner"
        return f"campaign {key} = {value}"
    if k == "set_army":
        was = d.get("was")
        who = _army(d)
        if was is None:
            return f"{who} placed at {place(d['cell'], names)} with {d['strength']} FP"
        parts = []
        if d["eliminated"] and not was["eliminated"]:
            parts.append(f"{who} is irrevocably eliminated")
        elif d["cell"] != was["cell"]:
            parts.append(f"{who} moves from {place(was['cell'], names)} to {place(d['cell'], names)}")
        if d["strength"] != was["strength"]:
            delta = d["strength"] - was["strength"]
            parts.append(f"{who} strength {was['strength']} {'+' if delta > 0 else '-'} {abs(delta)} = {d['strength']} FP")
        return "; ".join(parts) or f"{who} unchanged"
    if k == "set_control":
        if "was" not in d:
            return f"{d['structure']} starts controlled by {d['controller'] or 'nobody'}"
        return f"{d['structure']} passes from {d['was'] or 'nobody'} to {d['controller'] or 'nobody'}"
    if k == "set_siege":
        armies = ", ".join(str(a) for a in d["armies"])
        if "was" not in d:
            return (
                f"{d['faction']} begins the siege of {d['structure']} with army {armies}: "
                f"Resilience {d['resilience']}"
            )
        was = d["was"]
        if was["faction"] != d["faction"]:
            return f"{d['faction']} takes over the siege of {d['structure']} at Resilience {d['resilience']}"
        return f"siege of {d['structure']}: Resilience {was['resilience']} -> {d['resilience']} (armies {armies})"
    if k == "drop_siege":
        return f"the siege of {d['structure']} ends"
    if k == "set_vp":
        if "was" not in d:
            return f"{d['faction']} starts with {d['vp']} VP"
        delta = d["vp"] - d["was"]
        return f"{d['faction']} {'+' if delta >= 0 else '-'}{abs(delta)} VP, now {d['vp']}"
    if k == "put_orders":
        parts = [f"orders for army {d['army']} (round {d['round']})"]
        if d.get("initiative"):
            parts.append(f"initiative: {d['initiative']}")
        if d.get("moves") is not None:
            parts.append(f"moves: {d['moves'] or '(none)'}")
        if d.get("assault"):
            parts.append(f"assault {d['assault']}")
        if d.get("lift_siege"):
            parts.append("lift siege")
        for t in d.get("transfers") or []:
            parts.append(f"transfer {t['fp']} FP to army {t['to_army']}")
        return ", ".join(parts)
    if k == "put_engagement":
        if d.get("army_b") is None:
            return f"engagement {d['engagement']} (battle {d['battle']}): army {d['army_a']} assaults {d['assault']}"
        return f"engagement {d['engagement']} (battle {d['battle']}): army {d['army_a']} v army {d['army_b']}"
    if k == "drop_engagement":
        return f"engagement {d['engagement']} of round {d['round']} withdrawn from the list"
    if k == "put_result":
        return f"engagement {d['engagement']}: army {d['army']} {d['outcome']}, {d['casualties']}% casualties"
    if k == "put_note":
        return f"noted {d['key']} for round {d['round']}"
    return f"{k}: " + ", ".join(f"{key}={value}" for key, value in sorted(d.items()))
