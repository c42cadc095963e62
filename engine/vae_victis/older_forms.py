"""The older spellings of Vae Victis II's page forms, which scripts may still post, taken to the
declared steps (:attr:`VaeVictisII.older_paths`, :meth:`VaeVictisII.older_form`).

Before issue 20 the app drew its own order form: ``/orders`` (fields ``moves-ARMY``, ``sea-ARMY``,
``sea-pick-ARMY``; in the initiative stage ``initiative-ARMY``), ``/api/check`` and ``/api/preview``
(``army``, ``moves``) for a player; ``/umpire/step`` (the step in a field), ``/umpire/deadline``
(``tz``, ``offset``), ``/umpire/result`` (``casualties-ARMY``), ``/umpire/administer`` (the choices
file's text) for the umpire; ``/retreat``, ``/choices`` (``debark-ARMY``, ...), ``/commit`` and
``/reveal-orders``.  Each is now one of the declared steps with its fields renamed here; the step
itself checks everything, as when a page posts it.  What the older form ignored (another's
army's field) is ignored still.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["OLDER_PATHS", "older_answer", "older_form"]

PLAYER, BOTH = ("player",), ("player", "umpire")

#: path -> (what it does: a declared step taken, checked or previewed; who may post it).
OLDER_PATHS = {
    "/orders": ("step", PLAYER), "/api/check": ("check", PLAYER), "/api/preview": ("preview", PLAYER),
    "/umpire/step": ("step", BOTH), "/umpire/deadline": ("step", BOTH), "/umpire/result": ("step", BOTH),
    "/umpire/administer": ("step", BOTH), "/retreat": ("step", BOTH), "/choices": ("step", BOTH),
    "/commit": ("step", BOTH), "/reveal-orders": ("step", BOTH),
}


def _initiative_stage(c) -> bool:
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round

    return read_round(c).stage == STAGE_INITIATIVE


def _initiative_fields(form: Mapping) -> dict:
    """``initiative-ARMY`` as the initiative step's ``uses-ARMY``."""
    return {"uses-" + k.removeprefix("initiative-"): v for k, v in form.items() if k.startswith("initiative-")}


def _order_fields(c, signer, form: Mapping) -> dict:
    """``moves-ARMY`` and ``sea-ARMY`` of the armies the signer commands (that form ignored the
    others, and so does this), a link chosen in ``sea-pick-ARMY`` added to ``sea-ARMY``."""
    from bellica.engine.vae_victis.order_form import sea_links
    from bellica.engine.vae_victis.rounds.machine import read_round

    mine = {str(a.id) for a in read_round(c).live_armies() if signer.commands(a.faction, a.id)}
    out: dict = {}
    for name in ("moves", "sea"):
        out.update({k: v for k, v in form.items() if k.startswith(f"{name}-") and k[len(name) + 1:] in mine})
    for k, picked in form.items():
        army, picked = k.removeprefix("sea-pick-"), str(picked).strip()
        if k.startswith("sea-pick-") and army in mine and picked:
            links = sea_links(str(out.get(f"sea-{army}", "")))
            out[f"sea-{army}"] = "; ".join(links + ([picked] if picked not in links else []))
    return out


def _orders(c, signer, form: Mapping) -> tuple[str, dict]:
    from bellica.geo.errors import InputError

    if _initiative_stage(c):  # initiative uses only, never moves: no army's orders are in before publication
        fields = _initiative_fields(form)
        if not fields:
            raise InputError("the initiative stage takes initiative uses only (fields initiative-ARMY); moves come "
                             "after the umpire publishes naval superiority")
        return "initiative", fields
    fields = _order_fields(c, signer, form)
    if not any(k.startswith("moves-") for k in fields):
        raise InputError("the form gives no orders: it names none of your armies (fields moves-ARMY)")
    return "orders", fields


def _choice_fields(given: Mapping) -> dict:
    """``debark-ARMY``, ``advance-ARMY``, ``siege-ARMY`` and the boxes ``surrender-NAME``,
    ``takeover-NAME`` as the choose step's (``debarks-ARMY``, ...; ``surrenders``, ``take_overs``)."""
    keyed = {"debark-": "debarks-", "advance-": "advances-", "siege-": "sieges-"}
    boxes = {"surrender-": "surrenders", "takeover-": "take_overs"}
    out: dict = {}
    for k, v in given.items():
        old = next((o for o in (*keyed, *boxes) if k.startswith(o)), None)
        if old in keyed:
            out[keyed[old] + k.removeprefix(old)] = v
        elif old in boxes:
            if v:
                out.setdefault(boxes[old], []).append(k.removeprefix(old))
        else:
            out[k] = v
    return out


def _result_fields(given: Mapping) -> dict:
    """``casualties-ARMY`` (PCT each) and a ``winner`` of ``draw`` as the result step's fields."""
    out = {k: v for k, v in given.items() if not k.startswith("casualties-")}
    out["casualties"] = [f"{k.removeprefix('casualties-')}={str(v).strip()}" for k, v in given.items()
                         if k.startswith("casualties-")]
    if str(out.get("winner", "")).strip() == "draw":
        out.pop("winner")
        out["draw"] = "on"
    return out


def older_form(c, signer, path: str, given: Mapping[str, Any]) -> tuple[str, dict]:
    """(the declared step, its fields) of an older form's ``given`` fields posted to ``path``."""
    given = dict(given)
    if path in ("/orders", "/api/check"):
        return _orders(c, signer, given)
    simple = {"/retreat": "retreat", "/commit": "commit", "/reveal-orders": "reveal-orders"}
    if path in simple:
        return simple[path], given
    if path == "/api/preview":
        return "orders", {"key": given.get("army", ""), "text": given.get("moves", "")}
    if path == "/umpire/step":
        step = given.pop("step", "")
        return (step[-1] if isinstance(step, list) else str(step)), given
    if path == "/umpire/deadline":
        renamed = {"tz": "when_tz", "offset": "when_offset"}
        return "deadline", {renamed.get(k, k): v for k, v in given.items()}
    if path == "/umpire/result":
        return "result", _result_fields(given)
    if path == "/umpire/administer":
        return "administer", {("choices_text" if k == "choices" else k): v for k, v in given.items()}
    return "choose", _choice_fields(given)  # /choices


def older_answer(c, path: str, step: str, fields: Mapping[str, Any]) -> dict | None:
    """What ``/orders`` answered scripts asking for JSON: the armies given, and whether the round's
    orders are now revealed; None for any other path (the step's own JSON)."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.reveal import is_locked

    if path != "/orders":
        return None
    if step == "initiative":
        return {"initiative": sorted(int(k.removeprefix("uses-")) for k in fields), "revealed": False}
    return {"stored": sorted(int(k.removeprefix("moves-")) for k in fields if k.startswith("moves-")),
            "revealed": is_locked(read_round(c))}
