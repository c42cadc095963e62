"""Vae Victis II's steps as data: `bellica round <step>` follows from them (bellica/commands/play.py).

A round (docs/rules/rounds.md): ``initiative`` uses (sealed) and ``publish``; ``orders`` (sealed
until the reveal: the last army's orders, or ``reveal`` after the ``deadline``; or, in
commit-reveal ``mode``, ``commit`` then ``reveal-orders``); ``move`` (movement and the
engagements); ``retreat`` and ``result`` per engagement (``battles`` lists them); a faction's own administration
choices (``choose``, sealed until administration); ``administer``;
``victory``.  ``start`` and ``status`` are the ruleset's own (the round's start line and
``--orders-mode``; the round status and its JSON), ``show`` and ``battles`` read the campaign
only (:data:`~bellica.engine.core.steps.OPENS` ``view``), ``commitment`` reads no campaign
(``offline``).  ``bellica round verify`` is no step of this ruleset: it checks any campaign
(bellica/commands/checks.py).

Each step's ``run`` calls the rules of :mod:`.rounds` and returns their events, or the lines it
tells (the submissions' one-line receipts, a view's lines): :meth:`VaeVictisII.said` prints the
events' words (the bookkeeping notes left out) and the lines as they are.  What a step refuses in
its parameters together (``--faction`` or ``--umpire``, one way of giving orders) is a
:class:`~bellica.engine.core.steps.ParamError`, a usage error; what is wrong inside an item
(``ARMY=VALUE``, a percentage) is bad input, as inside an order (README.md, "Exit codes").

``initiative``, ``orders`` (:mod:`.orders_steps`), ``choose`` and ``retreat`` are ``signed``: they are told who signed them
(:class:`~bellica.engine.core.steps.Signer`), refuse an army the signer does not command (an army
player's token commands some of its faction's) and record the signer as who gave them; their
``ARMY=VALUE`` parameters are keyed by army, so a page draws one field per army the signer
commands (:mod:`.offers`).  ``retreat`` is a side's step the umpire may take too (no
``--faction``: any army, its spelling since the first rounds); a faction's or a token's retreat of
an army it does not command is refused in one line, on the command line and the page alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from bellica.engine.core.steps import SIDE, UMPIRE, Action, Param, ParamError, Signer
from bellica.engine.vae_victis.orders_steps import (COMMIT_PARAMS, FACTION, ORDERS_FILE, ORDERS_PARAMS, REVEAL_PARAMS,
                                                   UMPIRE_FLAG, check_orders_step, commit_step, commitment_step, orders_step,
                                                   preview_step, reveal_orders_step)
from bellica.geo.errors import InputError

__all__ = ["ACTIONS", "army_items", "casualties_of", "shown", "status_data", "submitter"]


def shown(value, width: int = 60) -> str:
    """A user's value quoted for a message, cut short: a pasted file must not become the message."""
    text = str(value)
    return repr(text if len(text) <= width else text[:width] + "...")


def army_items(items: Iterable[str], param_hint: str, example: str = "9=strength") -> dict[int, str]:
    """ARMY=VALUE items by army.  What is wrong inside an item is bad input (exit 1), as in an
    order ("9=3 x 3"): README.md, "Exit codes"."""
    from bellica.geo.files import whole_number

    out: dict[int, str] = {}
    for item in items:
        army_text, sep, value = item.partition("=")
        army = whole_number(army_text)  # ASCII digits only: "٩=3" is not army 9
        if not sep or army is None:
            raise InputError(f"{param_hint} {shown(item)} is not ARMY=VALUE with the army in digits 0-9 (e.g. {example})")
        if army in out:
            raise InputError(f"{param_hint}: army {army} is given twice: give each army once")
        out[army] = value.strip()
    return out


def casualties_of(items: Iterable[str]) -> dict[int, int]:
    """``--casualties`` ARMY=PCT items by army (a whole percentage 0-100); bad input otherwise."""
    from bellica.geo.files import whole_number

    out = {}
    for army, value in army_items(items, "--casualties", "9=25").items():
        pct = whole_number(value)
        if pct is None or pct > 100:
            raise InputError(f"--casualties {army}={value}: {shown(value)} is not a whole percentage 0-100 in digits 0-9 "
                             "(e.g. 9=25)")
        out[army] = pct
    return out


def _file_faction(c, name: str, where: str) -> str:
    """The campaign's faction an orders file names (any case, a unique beginning); bad input otherwise."""
    from bellica.engine.core.names import matches, refusal

    names = list(c.ruleset.factions(c))
    found = matches(name, names)
    if len(found) != 1:
        raise InputError(f"{where}: {refusal(name, found, names, 'faction')}")
    return found[0]


def status_data(status, campaign=None) -> dict[str, Any]:
    """``bellica round status --json``: a :class:`~.rounds.status.RoundStatus` as data.

    ``{"round", "phase", "stage", "winner", "next", "initiative": {"submitted", "missing"},
    "orders": {"submitted", "missing", "mode", "revealed", "committed"}, "engagements": [...],
    "deadline", "deadline_passed"}``: who has submitted (never what), every faction with live
    armies a key of both mappings when ``campaign`` is given (the web app's umpire page reads
    it too)."""
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round

    def by_faction(ids):
        return {f: sorted(int(a) for a in ids[f]) for f in sorted(ids)}

    live = None
    if campaign is not None:
        live = {}
        for army in read_round(campaign).live_armies():
            live.setdefault(army.faction, []).append(int(army.id))
    ordering = status.phase == "orders"

    def section(missing, given) -> dict[str, Any]:
        if live is None:
            return {"submitted": None if given is None else by_faction(given), "missing": by_faction(missing)}
        if given is None:
            gone = {int(a) for ids in missing.values() for a in ids}
            submitted = {f: [a for a in ids if a not in gone] for f, ids in by_faction(live).items()}
        else:
            submitted = {f: sorted(int(a) for a in given.get(f, ())) for f in sorted(live)}
        return {"submitted": submitted, "missing": {f: sorted(int(a) for a in missing.get(f, ())) for f in sorted(live)}}

    orders = None
    if ordering:
        orders = section(status.missing_orders, getattr(status, "submitted", None))
        orders["mode"] = getattr(status, "orders_mode", "sealed")
        orders["revealed"] = bool(getattr(status, "revealed", False))
        orders["committed"] = sorted(getattr(status, "committed", ()))
    engagements = [{"engagement": int(e), "battle": battle, "armies": [int(a) for a in (army_a, army_b) if a is not None],
                    "assault": assault, "result_recorded": bool(done)}
                   for e, battle, army_a, army_b, assault, done in status.engagements]
    return {
        "round": int(status.round),
        "phase": status.phase,
        "stage": status.stage,
        "winner": status.winner,
        "next": status.next_step,
        "initiative": section(status.missing_initiative, None) if ordering and status.stage == STAGE_INITIATIVE else None,
        "orders": orders,
        "engagements": engagements,
        "deadline": getattr(status, "deadline", None),
        "deadline_passed": bool(getattr(status, "deadline_passed", False)),
    }


def _path(text: str, flag: str) -> Path:
    """The file a parameter names; a name no file can have (a NUL byte) is bad input."""
    if "\x00" in str(text) or not str(text).strip():
        raise InputError(f"{flag} {shown(text)} is not a file name: give the path of a TOML file")
    return Path(text)


def _json_line(data) -> str:
    """One JSON document on one line, as every ``--json`` prints it (UTF-8 text kept as is)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=str)


# --- the parameters several steps share (FACTION, UMPIRE_FLAG, ORDERS_FILE: .orders_steps) -----------


def submitter(actor: str | None, umpire: bool) -> tuple[str | None, str]:
    """(faction, submitted_by) of a submission: --faction F (its armies only, recorded as F) or
    --umpire (any army, recorded as "umpire"); one of them is required, never both."""
    if umpire and actor is not None:
        raise ParamError(UMPIRE_FLAG, "give --faction F or --umpire, not both")
    if umpire:
        return None, "umpire"
    if actor is None:
        raise ParamError(FACTION, "say who submits: --faction F (its armies only) or --umpire")
    return actor, actor


def _rounds():
    from bellica.engine.vae_victis import rounds

    return rounds


def _stored(what: str, events) -> str:
    armies = [str(e.data["army"]) for e in events]
    return f"{what} stored (sealed) for arm{'y' if len(armies) == 1 else 'ies'} {', '.join(armies)}"


# --- the steps -------------------------------------------------------------------------------------------


def _start(c, _umpire, *, seed, orders_mode):
    s = c.start(seed=seed)
    if orders_mode is not None:
        _rounds().set_orders_mode(c, orders_mode)
    armies = f", {len(s.tables['armies'])} armies" if "armies" in s.tables else ""
    return [f"{c.path}: campaign started, round {s.campaign('round')}, phase {s.campaign('phase')}{armies}, "
            f"seed {s.campaign('seed')}"]


def _status(c, _umpire, *, as_json):
    s = _rounds().round_status(c)
    return [_json_line(status_data(s, campaign=c))] if as_json else s.lines()


def _signed_by(c, signer, armies, by: str, what: str) -> str:
    """Who gave a player's step (the signer's words), after refusing an army of its faction the
    signer does not command (bad input, exit 1); another faction's army is the rules' to refuse."""
    if signer is None or signer.role != "player":
        return by
    from bellica.engine.vae_victis.rounds.machine import read_round

    factions = {a.id: a.faction for a in read_round(c).state.armies}
    for army in sorted(armies):
        if factions.get(army) == signer.faction and not signer.commands(signer.faction, army):
            raise InputError(f"army {army} is not one you command: {what} for your own armies only")
    return signer.by or by


def _source(signer, form: str) -> str:
    """Where a submission came from, for its messages: the command line, or a page's form."""
    return form if signer is not None and signer.by.startswith("token:") else "the command line"


INITIATIVE_USES = Param("uses", "ARMY=USE items.", required=True, keyed="army", example="9=strength")


def _initiative(c, actor, *, uses, umpire, signer=None):
    faction, by = submitter(actor, umpire)
    by = _signed_by(c, signer, uses, by, "give initiative")
    events = _rounds().submit_initiative(c, uses, faction=faction, submitted_by=by,
                                         source=_source(signer, "the initiative form"))
    return [_stored("initiative", events) + " until publication; moves are given after it"]


def _check_initiative(c, actor, *, uses, umpire, signer=None):
    """The initiative uses checked as :func:`_initiative` would store them, nothing stored."""
    from bellica.engine.vae_victis.order_form import initiative_checked

    faction, by = submitter(actor, umpire)
    _signed_by(c, signer, uses, by, "give initiative")
    if not uses:
        raise ParamError(INITIATIVE_USES, "give an initiative use for at least one army")
    initiative_checked(c, faction, uses, _source(signer, "the initiative form"))
    return []


def _publish(c, _umpire):
    return _rounds().publish_initiative(c)


def _show(c, actor):
    rounds = _rounds()
    faction = c.viewer = actor
    view = rounds.orders_view(c, faction=faction)
    submitters = rounds.order_submitters(c)
    snap = c.snapshot()
    opened = rounds.ORDER_SEAL.opened(int(snap.campaign("round")), snap)
    all_open = opened is None or "moves" in opened  # the battles phase still seals the choices, not the orders
    lines = []
    for army, army_faction, o in view:
        if o is None:
            if army in submitters:
                by = submitters[army]
                lines.append(f"army {army:>3} ({army_faction}): orders in" + (f" from {by}" if by else "")
                             + ", sealed until the reveal")
            else:
                lines.append(f"army {army:>3} ({army_faction}): -")
            continue
        parts = [f"initiative {o.initiative}"]
        if all_open or army_faction == faction:
            parts.append(f"moves \"{' '.join(map(str, o.moves))}\"")
        elif army in submitters:
            by = submitters[army]
            parts.append("orders in" + (f" from {by}" if by else "") + ", sealed until the reveal")
        if o.assault:
            parts.append(f"assault {o.assault}")
        if o.lift_siege:
            parts.append("lift siege")
        parts += [f"transfer {t.fp} FP to army {t.to_army}" for t in o.transfers]
        parts += [f"sea link to {structure} across {zone}" for zone, structure in o.sea_links]
        lines.append(f"army {army:>3} ({army_faction}): " + ", ".join(parts))
    return lines


def _deadline(c, _umpire, *, when):
    return _rounds().set_deadline(c, when)[:1]


def _mode(c, _umpire, *, mode):
    return _rounds().set_orders_mode(c, mode)


def _reveal(c, _umpire):
    return _rounds().reveal_round(c)


def _move(c, _umpire):
    return _rounds().run_movement(c)


def _battles(c, _umpire):
    return _rounds().battle_sheet(c)


def _retreat(c, actor, *, army, signer=None):
    """Each army of ``army`` retreats rather than fight.  A player (a faction on the command line, a
    token on a page) retreats only the armies it commands: the seed lets an army's commander choose
    to retreat, never another's; the umpire (no faction) any army, for players who send it otherwise."""
    armies = list(dict.fromkeys(army))
    if actor is not None or (signer is not None and signer.role == "player"):
        from bellica.engine.vae_victis.rounds.machine import read_round

        who = signer if signer is not None else Signer("player", actor, by=actor)
        factions = {a.id: a.faction for a in read_round(c).state.armies}
        for a in armies:  # all checked before any is declared: a refusal stores nothing
            if not who.commands(factions.get(a), a):
                raise InputError(f"army {a} is not one you command: you may retreat only your own armies")
    return [ev for a in armies for ev in _rounds().declare_retreat(c, a)]


WINNER = Param("winner", "The winning army, or `defender` when an assault fails.", flag="--winner")


def _result(c, _umpire, *, engagement, winner, draw, casualties, replace):
    from bellica.geo.files import whole_number

    if draw == (winner is not None):
        raise ParamError(WINNER, "give either --winner ARMY (or `defender`) or --draw")
    pct = casualties_of(casualties)
    won = "draw" if draw else "defender" if winner == "defender" else whole_number(winner)
    if won is None:
        raise ParamError(WINNER, f"{shown(winner)}: name an army given in --casualties (digits 0-9), or `defender`")
    rounds = _rounds()
    return rounds.record_result(c, engagement, rounds.result_outcomes(won, pct), correction=replace)


CHOICES = Param("choices_file", "TOML file of umpire/player choices (format: docs/rules/rounds.md).", flag="--choices",
                metavar="FILE", server_file=True)


def _choices_of(c, choices_file, advances, sieges, take_overs, surrenders, debarks):
    """The administration choices of ``--choices FILE`` or of the options (not both), hex names
    turned into cells: the umpire's and a faction's alike."""
    from bellica.engine.vae_victis.hex_names import named_hexes

    rounds = _rounds()
    if choices_file is not None and (advances or sieges or take_overs or surrenders or debarks):
        raise ParamError(CHOICES, "give choices either in --choices FILE or as options, not both")
    if choices_file is not None:
        choices = rounds.load_choices(_path(choices_file, "--choices"))
    else:
        choices = rounds.AdminChoices(
            advances=dict(advances), siege_starts=dict(sieges), take_overs=frozenset(take_overs),
            surrenders=frozenset(surrenders), debarks=dict(debarks),
        )
    return named_hexes(c, choices)


#: The choices file's text, as a script posts it (``/umpire/administer``); a page draws the options.
CHOICES_TEXT = Param("choices_text", "The choices as a choices file writes them (TOML: docs/rules/rounds.md).",
                     flag="--choices-text", multiline=True, on_page=False)


def _administer(c, _umpire, *, choices_file, advances, sieges, take_overs, surrenders, debarks, choices_text):
    if choices_text is not None and (choices_file is not None or advances or sieges or take_overs or surrenders or debarks):
        raise ParamError(CHOICES_TEXT, "give choices either as a choices file's text or as options, not both")
    if choices_text is not None:
        from bellica.engine.vae_victis.hex_names import named_hexes

        choices = named_hexes(c, _rounds().parse_choices_text(choices_text, "the administration form"))
    else:
        choices = _choices_of(c, choices_file, advances, sieges, take_overs, surrenders, debarks)
    return _rounds().run_administration(c, choices)


def _choose(c, actor, *, choices_file, advances, sieges, take_overs, surrenders, debarks, signer=None):
    from bellica.engine.vae_victis.order_form import own_choices

    choices = _choices_of(c, choices_file, advances, sieges, take_overs, surrenders, debarks)
    by = actor
    if signer is not None and signer.role == "player":  # its own armies only; an army token keeps the others'
        choices = own_choices(c, actor, lambda a: signer.commands(a.faction, a.id), signer.armies is None, choices)
        by = signer.by or actor
    return _rounds().submit_choices(c, actor, choices, submitted_by=by,
                                    source=str(choices_file) if choices_file else _source(signer, "the choices form"))


#: The administration choices' parameters, the umpire's (administer) and a faction's (choose).
CHOICE_PARAMS = (
    CHOICES,
    Param("advances", "ARMY=HEX: a winner advances (clock position, H3 cell, structure, or hex name like "
                      "'Gela 5').", flag="--advance", keyed="army", example="14=9"),
    Param("sieges", "ARMY=STRUCTURE: the army starts (or joins) a siege.", flag="--siege", keyed="army",
          example="4=Gela"),
    Param("take_overs", "STRUCTURE: continue another faction's siege of it.", flag="--take-over", many=True),
    Param("surrenders", "STRUCTURE: its controller surrenders it.", flag="--surrender", many=True),
    Param("debarks", "NAVY=HEX: the navy debarks its army (clock position, H3 cell, structure or hex name); "
                     "others stay at sea.", flag="--debark", keyed="army", example="6=3"),
)


def _victory(c, _umpire):
    return _rounds().run_victory(c)


ACTIONS = (
    Action("start", "Start the campaign from its scenario (Vae Victis II: armies from `placements`, control from "
                    "`structures`), round 1.", _start, UMPIRE, (
        Param("seed", "The campaign's random seed (default 1); recorded in the campaign table.", "whole", "--seed"),
        Param("orders_mode", "How orders are taken (docs/sealed-orders.md; default sealed).", "choice", "--orders-mode",
              choices=("sealed", "commit-reveal")),
    ), opens="start", example="bellica round start punic.duckdb --seed 264"),
    Action("status", "Where the round stands and the next command.", _status, UMPIRE, (
        Param("as_json", "One JSON object: round, phase, stage, who has submitted (never what), engagements, next, "
                         "deadline.", "flag", "--json"),
    ), opens="view", example="bellica round status punic.duckdb --json"),
    Action("initiative", "Step 1.1: initiative uses as ARMY=USE, USE being `strength` or a sea zone (sealed).",
           _initiative, SIDE, (
               INITIATIVE_USES,
               UMPIRE_FLAG,
           ), umpire_too=True, signed=True, check=_check_initiative, actor_help="The submitting faction: its armies only (or --umpire).",
           example="bellica round initiative punic.duckdb --faction Roma 9=strength \"10=Mare Tyrrhenum\""),
    Action("publish", "Step 1.2: open the initiative uses (default: strength) and publish naval superiority.", _publish,
           example="bellica round publish punic.duckdb"),
    Action("orders", "Step 1.3: movement, siege, assault and transfer orders, sealed from everyone (the umpire too) "
                     "until the reveal: the last army's orders, or `bellica round reveal` after the deadline.",
           orders_step, SIDE, ORDERS_PARAMS,
           details="Give a file, or ARMY=MOVES items (and --sea-links ARMY=ZONE:STRUCTURE), or --army with "
                   "--moves and the other options.\nNothing is stored unless every order is legal.",
           umpire_too=True, signed=True, check=check_orders_step, preview=preview_step,
           actor_help="The submitting faction: its armies only (default: the file's `faction`; or --umpire).",
           example="bellica round orders punic.duckdb --faction Roma \"9=3 3 5 0 5\" \"10=0\""),
    Action("show", "This round's orders; before the reveal only your faction's (the umpire sees who submitted, not "
                   "what).", _show, SIDE, umpire_too=True, opens="view",
           actor_help="Show the orders as this faction may see them (default: the umpire's view).",
           example="bellica round show punic.duckdb --faction Carthago"),
    Action("deadline", "The current round's orders deadline, ISO-8601 in UTC; after it `bellica round reveal` may "
                       "reveal.", _deadline, UMPIRE, (
               Param("when", "The deadline, ISO-8601 in UTC.", "time", required=True, metavar="WHEN",
                     example="2030-06-01T18:00:00Z"),
           ), details="It may not be before the campaign started nor more than 10 years from now.",
           example="bellica round deadline punic.duckdb 2030-06-01T18:00:00Z"),
    Action("mode", "How orders are taken from this round on: sealed (default) or commit-reveal (before the round's "
                   "first order).", _mode, UMPIRE, (
               Param("mode", "sealed or commit-reveal.", "choice", choices=("sealed", "commit-reveal"), required=True),
           ), example="bellica round mode punic.duckdb commit-reveal"),
    Action("reveal", "After the deadline: armies without orders stand still (default orders) and the orders are "
                     "revealed.", _reveal, example="bellica round reveal punic.duckdb"),
    Action("commitment", "Print the commitment (SHA-256) of an orders file and a secret, offline: no campaign is read.",
           commitment_step, UMPIRE, (
               Param("orders_file", "The faction's TOML orders file (format: engine/vae_victis/orders.py).",
                     flag="--file", required=True, metavar="FILE", server_file=True, example="roma.toml"),
               Param("secret", "A long random secret, kept until the reveal.", flag="--secret", required=True),
           ), opens="offline", example="bellica round commitment --file roma.toml --secret 5f0c..."),
    Action("commit", "Commit-reveal mode: store a faction's commitment to its orders (only the digest).", commit_step,
           SIDE, COMMIT_PARAMS, actor_help="The committing faction.",
           details="Give the digest (made on your machine: `bellica round commitment`, or a page's own script), "
                   "or have it computed here from --file FILE, or ARMY=MOVES items, with --secret S.",
           example="bellica round commit punic.duckdb --faction Roma --digest 3a7b..."),
    Action("reveal-orders", "Commit-reveal mode: reveal a faction's orders; refused (\"tampered\") unless they give its "
                            "commitment.", reveal_orders_step, SIDE, REVEAL_PARAMS, actor_help="The revealing faction.",
           example="bellica round reveal-orders punic.duckdb --faction Roma --file roma.toml --secret 5f0c..."),
    Action("move", "Phase 2: simultaneous movement, then the engagements of phase 3.", _move,
           example="bellica round move punic.duckdb"),
    Action("battles", "Phase 3: the engagements, their Field of Glory II set-up and recorded results.", _battles,
           opens="view", example="bellica round battles punic.duckdb"),
    Action("retreat", "Phase 3: ARMY retreats rather than fight (before any engagement is fought).", _retreat, SIDE, (
        Param("army", "The army retreating (or armies).", "whole", required=True, many=True, example="7"),
    ), umpire_too=True, signed=True, umpire_page=True,
           actor_help="The retreating faction: its own armies only (default: the umpire, any army).",
           example="bellica round retreat punic.duckdb 7"),
    Action("result", "Phase 3: record an engagement's result (once: a second time needs --replace).", _result, UMPIRE, (
        Param("engagement", "The engagement's number (`bellica round status` lists them).", "whole", required=True,
              example="1"),
        WINNER,
        Param("draw", "The engagement was drawn.", "flag", "--draw"),
        Param("casualties", "ARMY=PCT, casualties as FoG II shows them (each army).", flag="--casualties", many=True,
              required=True, example="9=25"),
        Param("replace", "Correct a result already recorded (until administration); the log keeps the old one as a "
                         "correction.", "flag", "--replace"),
    ), example="bellica round result punic.duckdb 1 --winner 9 --casualties 9=25 --casualties 4=48"),
    Action("choose", "Phase 3: a faction's own administration choices (its navies' debarkations, its winners' "
                     "advances, its sieges, its surrenders), sealed until administration, where they stand for its "
                     "armies in place of the umpire's.", _choose, SIDE, CHOICE_PARAMS,
           details="Choices come from --choices FILE or the options (not both); the last given counts.",
           actor_help="The choosing faction: its own armies and structures only.", signed=True,
           example="bellica round choose punic.duckdb --faction Roma --debark 10=3"),
    Action("administer", "Phase 4: the nine administration steps (refused until every engagement has a result).",
           _administer, UMPIRE, (*CHOICE_PARAMS, CHOICES_TEXT),
           details="Choices come from --choices FILE or the options (not both); a faction's own choices "
                   "(`bellica round choose`) stand for its armies.",
           example="bellica round administer punic.duckdb --siege 4=Gela --advance 14=9 --debark 6=3"),
    Action("victory", "Victory points and the five victory conditions; starts the next round unless someone won.",
           _victory, example="bellica round victory punic.duckdb"),
)
