"""A faction's own administration choices (issue 21, item 2): its navies' debarkations, its winners'
advances, the sieges its armies start, the structures it surrenders or whose siege it takes over.

The seed leaves these to the players (its umpire asked them after movement and battles); the
umpire's choices box holds them too, for players who send them by other means.  A faction gives
them in the battles phase, any time before administration runs, as often as it likes (the last
counts), for its own armies and structures only:

* they are read by the administration choices' own parser (:func:`.choices.parse_choices_text`,
  the page builds that text from its lists) and checked by the umpire's own checks
  (:func:`.administration_step.spelled_choices`, :func:`.administration_step.check_choices`),
  so a choice the umpire could not give is refused the same way, nothing stored;
* they are logged as a ``choices_given`` event (an explanation kind: no table holds them, so the
  SQL console reads them only through the sealed log) and sealed like orders
  (:data:`.orders_step.ORDER_SEAL`): nobody but the faction, the umpire included, reads them
  before administration runs; everyone sees who has chosen;
* administration takes them over the umpire's (:func:`merged_choices`): for a faction that chose,
  its armies' advances, debarkations and siege starts are its own, the umpire's for them set
  aside; the ``administration_choices`` note records what ran, so ``round verify --readjudicate``
  replays the submission (:mod:`.recorded`) and then administration with the same result.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.engine.vae_victis.model import Event
from bellica.engine.vae_victis.rounds.choices import AdminChoices, choices_from_json
from bellica.engine.vae_victis.rounds.machine import event, read_round, require
from bellica.geo.errors import InputError

__all__ = ["CHOICES_KIND", "submit_choices", "faction_choices", "choosers", "merged_choices", "own_problems",
           "outcome_problems", "results_so_far"]

#: The log's event kind of a faction's choices (no reducer: the log alone holds them).
CHOICES_KIND = "choices_given"


def own_problems(state, board, faction: str, choices: AdminChoices) -> list[str]:
    """What ``choices`` name that is not ``faction``'s to choose: another faction's army, a
    structure it does not control surrendered, one it controls "taken over"."""
    problems = []
    factions = {a.id: a.faction for a in state.armies}
    named = [("advance", a) for a in choices.advances] + [("debark", a) for a in choices.debarks] + \
            [("siege", a) for a in choices.siege_starts]
    for what, army in sorted(named, key=lambda x: x[1]):
        owner = factions.get(army)
        if owner is not None and owner != faction:
            problems.append(f"{what}: army {army} is {owner}'s, not {faction}'s: choose for your own armies only")
    for name in sorted(choices.surrenders):
        s = board.structures.get(name)
        held = state.control.get(name, s.start_controller) if s is not None else None
        if s is not None and held != faction:
            problems.append(f"surrender: {name} is not {faction}'s to surrender (its controller is {held or 'nobody'})")
    for name in sorted(choices.take_overs):
        s = board.structures.get(name)
        if s is not None and state.control.get(name, s.start_controller) == faction:
            problems.append(f"take-over: {name} is {faction}'s own: a faction besieges another's structure")
    return problems


def results_so_far(r) -> tuple[dict[int, set[str]], set[int]]:
    """({winner: the hexes of the losers it beat}, the losers) of the round's recorded results:
    where a winner may advance (step 2 takes only a hex a loser it fought vacates) and which
    armies administration removes."""
    beaten: dict[int, set[str]] = {}
    lost: set[int] = set()
    for row in r.engagement_rows():
        results = r.results_for(row[2])
        fought = [a for a in (row[3], row[4]) if a is not None]
        losers = {a for a in fought if a in results and results[a][3] == "loss"}
        lost |= losers
        for a in fought:
            if a in results and results[a][3] == "win":
                beaten.setdefault(a, set()).update(r.state.army(o).cell for o in losers if o != a)
    return beaten, lost


def outcome_problems(board, r, choices: AdminChoices) -> list[str]:
    """What the round's recorded results rule out of ``choices`` (advance only into the adjacent
    hex of a loser the army beat; no siege by an army that lost, which administration removes; a
    siege the rules refuse now), so a choice the umpire cannot set aside never stops
    administration (:func:`~engine.vae_victis.sieges.siege_refusal`, step 2's own rule)."""
    from bellica.engine.vae_victis.rounds.administration_step import resolve_advance
    from bellica.engine.vae_victis.sieges import siege_refusal

    beaten, lost = results_so_far(r)
    problems = []
    for army, target in sorted(choices.advances.items()):
        if army not in beaten:
            problems.append(f"advance: army {army} has no win recorded this round: choose its advance once it has")
            continue
        try:
            cell = resolve_advance(board, r.state, army, target)
        except InputError:
            continue  # check_choices words it
        if cell not in beaten[army]:
            problems.append(f"advance: army {army} advances only into the hex of a loser it beat, next to it")
    for army, name in sorted(choices.siege_starts.items()):
        why = "it lost its engagement and is removed in administration" if army in lost else (
            siege_refusal(board, r.state, army, name) if name in board.structures else None)
        if why:
            problems.append(f"siege: army {army} cannot siege {name}: {why}")
    return problems


def submit_choices(campaign, faction: str, choices: AdminChoices, *, submitted_by: str | None = None,
                   source: str = "the choices form") -> list[Event]:
    """Store ``faction``'s administration choices for this round (sealed until administration),
    replacing any it gave before; refused (:class:`InputError`, one line, nothing stored) unless
    the battles phase is on, every name is one the umpire's choices would take, and every army and
    structure named is the faction's to choose for."""
    from bellica.engine.vae_victis.rounds.administration_step import check_choices, spelled_choices

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "choose")
        board = campaign.board
        if faction not in board.factions:
            raise InputError(f"unknown faction {faction!r}: use one of {', '.join(sorted(board.factions))}")
        choices = spelled_choices(board, choices)
        problems = own_problems(r.state, board, faction, choices) + outcome_problems(board, r, choices)
        if problems:
            raise InputError(f"{source}: choices refused, nothing stored: " + "; ".join(problems))
        try:
            check_choices(board, r.state, choices)
        except InputError as err:
            raise InputError(f"{source}: {err}") from None
        by = submitted_by if submitted_by is not None else faction
        data = {"round": r.round, "faction": faction, "choices": choices.to_json(), "submitted_by": by}
        ev = event(r.round, "battles", CHOICES_KIND, data, f"administration choices given by {faction}"
                   + (f" ({by})" if by and by != faction else ""))
        campaign.append([ev], before=r.snap)
    return [ev]


def faction_choices(campaign, rnd: int | None = None) -> dict[str, tuple[AdminChoices, str]]:
    """{faction: (its last choices, who gave them)} of a round (default: the current one), from the
    raw log: the engine's own reading, for administration; pages read :func:`choosers`."""
    rnd = read_round(campaign).round if rnd is None else rnd
    out: dict[str, tuple[AdminChoices, str]] = {}
    for ev in campaign.events(round=rnd):
        if ev.kind == CHOICES_KIND:
            out[ev.data["faction"]] = (choices_from_json(ev.data["choices"]), ev.data.get("submitted_by", ""))
    return out


def choosers(campaign, rnd: int | None = None) -> dict[str, str]:
    """{faction: who gave its choices} of a round: public (who, never what)."""
    return {f: by for f, (_c, by) in faction_choices(campaign, rnd).items()}


def merged_choices(umpire: AdminChoices, given: Mapping[str, AdminChoices], factions: Mapping[int, str],
                   board=None, control: Mapping[str, str | None] | None = None) -> AdminChoices:
    """The umpire's choices with each choosing faction's own in place of the umpire's for its
    armies (``factions``: army -> faction) and the structures it controls (``control``, the
    board's start controllers where unset).  Applying it twice gives the same choices, so a
    replayed administration (its note holds the merged choices) runs as the first did."""
    if not given:
        return umpire

    def held(name: str) -> str | None:
        if control is not None and name in control:
            return control[name]
        s = board.structures.get(name) if board is not None else None
        return s.start_controller if s is not None else None

    def armies(field: str) -> dict:
        kept = {a: v for a, v in getattr(umpire, field).items() if factions.get(a) not in given}
        for own in given.values():
            kept.update(getattr(own, field))
        return dict(sorted(kept.items()))

    surrenders = {s for s in umpire.surrenders if held(s) not in given}
    take_overs = set(umpire.take_overs)
    for own in given.values():
        surrenders |= own.surrenders
        take_overs |= own.take_overs
    return replace(umpire, advances=armies("advances"), siege_starts=armies("siege_starts"),
                   debarks=armies("debarks"), surrenders=frozenset(surrenders), take_overs=frozenset(take_overs))
