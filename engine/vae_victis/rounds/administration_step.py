"""Phase 4, administration: the nine administration steps with the umpire's and players' choices."""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.vae_victis.model import Board, CampaignState, Event, Phase
from bellica.engine.vae_victis.rounds.battles_step import engagements_and_results
from bellica.engine.vae_victis.rounds.choices import AdminChoices
from bellica.engine.vae_victis.rounds.machine import StepRefused, event, names, read_round, require
from bellica.engine.vae_victis.rounds.orders_step import row_to_orders
from bellica.engine.vae_victis.state import save_state
from bellica.geo.errors import InputError
from bellica.geo.files import whole_number

__all__ = ["check_choices", "resolve_advance", "run_administration"]


def resolve_advance(board: Board, state: CampaignState, army: int, target: str | int, what: str = "advance") -> str:
    """A clock position, structure name or H3 cell -> the cell the winner advances into (or, with
    ``what="debark"``, the land hex a navy debarks into)."""
    try:
        a = state.army(army)
    except KeyError:
        raise InputError(f"{what}: there is no army {army}") from None
    if a.cell is None:
        raise InputError(f"{what}: army {army} is not on the map")
    clock = target if isinstance(target, int) and not isinstance(target, bool) else whole_number(target)
    if clock is not None:  # ASCII digits only: "٩" is not clock 9
        sides = board.sides.get(a.cell, {})
        if clock not in sides:
            raise InputError(
                f"{what}: army {army} in hex {a.cell} has no side at clock {clock}; valid: {' '.join(map(str, sorted(sides)))}"
            )
        return sides[clock]
    if target in board.structures:
        return board.structures[target].cell
    if target in board.hexes:
        return target
    raise InputError(f"{what}: {target!r} (army {army}) is neither a clock position, a structure nor a hex of the map"
                     + _hint(str(target), board.structures))


def _hint(name: str, known) -> str:
    import difflib

    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_debarks(board: Board, state: CampaignState, choices: AdminChoices, problems: list[str]) -> dict[int, int]:
    """The debark orders as clock sides of each navy's hex (problems appended in words)."""
    from bellica.engine.vae_victis.naval import debark, is_navy

    out: dict[int, int] = {}
    for army, target in sorted(choices.debarks.items()):
        try:
            cell = resolve_advance(board, state, army, target, "debark")
        except InputError as e:
            problems.append(str(e))
            continue
        a = state.army(army)
        if not is_navy(board, a):
            problems.append(f"debark: army {army} is not a navy (it is on land at {a.cell}); only armies at sea debark")
            continue
        clocks = [k for k, n in board.sides.get(a.cell, {}).items() if n == cell]
        if not clocks:
            problems.append(f"debark: {target!r} is not next to navy {army} at {a.cell}; give a clock side of its hex "
                            f"({' '.join(map(str, sorted(board.sides.get(a.cell, {}))))})")
            continue
        try:  # the mistakes the map alone rules out (terrain, another faction's town), before any step runs
            debark(board, state, army, clocks[0], {})
        except InputError as e:
            problems.append(f"debark: {e}")
            continue
        out[army] = clocks[0]
    return out


def check_choices(board: Board, state: CampaignState, choices: AdminChoices) -> tuple[dict[int, str], dict[int, int]]:
    """Every name in the choices checked before any administration step runs; the advances
    resolved to cells and the debarkations to clock sides of each navy's hex.

    A name that matches nothing (``--take-over Atlantis``) would otherwise be ignored while
    the whole phase runs and moves on to victory, using up the step the umpire meant to take
    with the right name.  All problems are raised together as one :class:`InputError` line.
    Whether a named siege can start or a structure can surrender *after* the earlier steps is
    still the rules' to say (:mod:`engine.vae_victis.sieges`), inside the same transaction.
    """
    problems: list[str] = []
    armies = {a.id: a for a in state.armies}
    besieged = {s.structure for s in state.sieges}
    known = ", ".join(map(str, sorted(armies))) or "none"

    def structure(name: str, what: str) -> bool:
        if name in board.structures:
            return True
        problems.append(f"{what}: there is no structure {name!r}{_hint(name, board.structures)}")
        return False

    advances: dict[int, str] = {}
    for army, target in sorted(choices.advances.items()):
        try:
            advances[army] = resolve_advance(board, state, army, target)
        except InputError as e:
            problems.append(str(e))
    for army, name in sorted(choices.siege_starts.items()):
        a = armies.get(army)
        if a is None:
            problems.append(f"siege: there is no army {army} (armies: {known})")
        elif a.eliminated or a.cell is None:
            problems.append(f"siege: army {army} is not on the map")
        structure(name, f"siege by army {army}")
    for name in sorted(choices.take_overs):
        if structure(name, "take-over") and name not in besieged:
            problems.append(f"take-over: {name} is not besieged, there is no siege to take over"
                            + (f" (besieged: {', '.join(sorted(besieged))})" if besieged else ""))
    starting = set(choices.siege_starts.values())
    for name in sorted(choices.surrenders):
        if structure(name, "surrender") and name not in besieged | starting:
            problems.append(f"surrender: {name} is not besieged (nor named in a siege start), so it cannot surrender")
    debarks = check_debarks(board, state, choices, problems)
    if problems:
        raise InputError("administration choices refused, nothing was run: " + "; ".join(problems))
    return advances, debarks


def spelled_choices(board: Board, choices: AdminChoices) -> AdminChoices:
    """``choices`` with every structure name the board's spelling, by the one matcher of every
    ruleset (:mod:`engine.core.names`: any case, a unique beginning); a name fitting several is
    refused with them (one :class:`InputError` line), a name fitting none is left for
    :func:`check_choices` to refuse with its nearest spelling."""
    from bellica.engine.core.names import matches, refusal

    options = sorted(board.structures)
    problems: list[str] = []

    def spell(name, what: str):
        found = matches(name, options) if isinstance(name, str) else []
        if len(found) > 1:
            problems.append(f"{what}: {refusal(name, found, options, 'structure')}")
        return found[0] if len(found) == 1 else name

    out = replace(choices, siege_starts={a: spell(n, f"siege by army {a}") for a, n in choices.siege_starts.items()},
                  take_overs=frozenset(spell(n, "take-over") for n in choices.take_overs),
                  surrenders=frozenset(spell(n, "surrender") for n in choices.surrenders))
    if problems:
        raise InputError("administration choices refused, nothing was run: " + "; ".join(problems))
    return out


def _set_aside(r, faction: str, problems: list[str]) -> Event:
    return event(r.round, "administration", "choices_set_aside", {"faction": faction, "problems": problems},
                 f"{faction}'s own administration choices are set aside ({'; '.join(problems)}): "
                 "the umpire's stand for its armies")


def _with_players(campaign, r, board: Board, choices: AdminChoices) -> tuple[AdminChoices, list[Event], list[str]]:
    """The umpire's ``choices`` with each faction's own (:mod:`.player_choices`) in their place for
    its armies and structures (the rules gave that faction the choice), the events of the factions'
    choices set aside (a result corrected after them rules them out), and the factions merged."""
    from bellica.engine.vae_victis.rounds.player_choices import faction_choices, merged_choices, outcome_problems

    given, events = {}, []
    for faction, (ch, _by) in sorted(faction_choices(campaign, r.round).items()):
        problems = outcome_problems(board, r, ch)
        if problems:
            events.append(_set_aside(r, faction, problems))
            continue
        given[faction] = ch
    merged = merged_choices(choices, given, {a.id: a.faction for a in r.state.armies}, board, r.state.control)
    return merged, events, sorted(given)


def _inputs(r, board: Board, choices: AdminChoices):
    """The administration's inputs from the stored round and ``choices`` (checked first)."""
    from bellica.engine.vae_victis.administration import AdminInputs
    from bellica.engine.vae_victis.naval import blockaded_structures

    advances, debarks = check_choices(board, r.state, choices)
    engagements, results = engagements_and_results(r)
    orders = {a: row_to_orders(row) for a, row in r.orders_rows().items()}
    movement = r.note("movement") or {"paths": {}}
    retreats = r.note("retreats") or {"pairs": []}
    return AdminInputs(
        start_state=r.start_state(),
        engagements=engagements,
        results=results,
        retreats=tuple(tuple(p) for p in retreats["pairs"]),
        paths={int(k): tuple(v) for k, v in movement["paths"].items()},
        advances=advances,
        siege_starts=dict(choices.siege_starts),
        lifts=frozenset(a for a, o in orders.items() if o.lift_siege),
        take_overs=frozenset(choices.take_overs),
        surrenders=frozenset(choices.surrenders),
        transfers={a: tuple(o.transfers) for a, o in orders.items() if o.transfers},
        blockaded=frozenset(blockaded_structures(board, r.state)),
        debarks=debarks,
        nmp_left=(r.note("naval") or {}).get("nmp_left", {}),
    )


def _administered(campaign, r, board: Board, umpire: AdminChoices):
    """(the choices that ran, the set-aside events, the administration's result).  A faction's
    choice the rules refuse in the middle of administration (the position moved on in its earlier
    steps) must not stop it, since the umpire cannot take it out: then every faction's choices are
    set aside, with the refusal, and the umpire's run; a refusal of the umpire's own is raised."""
    from bellica.engine.vae_victis.administration import administer

    choices, set_aside, given = _with_players(campaign, r, board, umpire)
    try:
        return choices, set_aside, administer(board, r.state, _inputs(r, board, choices))
    except InputError as err:
        if not given:
            raise
        set_aside += [_set_aside(r, f, [f"administration refused them: {err}"]) for f in given]
    return umpire, set_aside, administer(board, r.state, _inputs(r, board, umpire))


def run_administration(campaign, choices: AdminChoices | None = None) -> list[Event]:
    """Phase 4: the nine administration steps (:func:`engine.vae_victis.administration.administer`).

    Refused until every engagement of the round has a result.  A faction's own choices given
    this round (:func:`.player_choices.submit_choices`) stand for its armies in place of the
    umpire's.  The choices that ran are recorded (note ``administration_choices``) with the
    changes they led to.
    """
    choices = choices or AdminChoices()
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "administer")
        pending = [row[2] for row in r.engagement_rows()
                   if sorted(r.results_for(row[2])) != sorted(a for a in (row[3], row[4]) if a is not None)]
        if pending:
            raise StepRefused(
                f"cannot run administration: engagement{'s' if len(pending) > 1 else ''} {', '.join(map(str, pending))} "
                f"ha{'ve' if len(pending) > 1 else 's'} no result; record {'them' if len(pending) > 1 else 'it'} with `bellica round result`"
            )
        board: Board = campaign.board
        choices, set_aside, result = _administered(campaign, r, board, spelled_choices(board, choices))
        done = replace(result.state, phase=Phase.VICTORY)
        note = event(r.round, "administration", "put_note", {"round": r.round, "key": "administration_choices", "value": choices.to_json()})
        campaign.append([note, *set_aside], before=r.snap)
        save_state(campaign, done, events=result.events, phase="administration", names=names(campaign))
    return [note, *set_aside] + list(result.events)
