"""Engine players: a seat played by a bot, behind one interface for every ruleset.

A bot is a :class:`Player`.  It is given a :class:`Seat`, built here and nowhere else:

* the seat's **player view** (:meth:`Ruleset.player_view` for its faction): what a person in
  that seat may read, nothing more (another faction's sealed orders are never in it);
* the **steps open** to the faction now (:meth:`Ruleset.open_actions`) and the values the
  ruleset **offers** for each parameter (:meth:`Ruleset.choices`), as a person's page offers them
  (to a player that reads them: :func:`reads_offers`);
* the ruleset's **aid** (:meth:`Ruleset.bot_aid`): public help a person also has (the static
  board of a hex game, with what is published), never a campaign object;
* its **random source**: :func:`engine.core.rng.stream` keyed by the campaign seed and a label
  (``bot``, kind, faction, round, phase, stage, the log's length) the log records, so the same
  seat at the same position draws the same numbers, replayed or not, and its next step new ones.

It answers with :class:`Answer` s: a declared step's name and its parameters as text, with the
reasons in words.  :func:`play_seat` hands each answer to the step exactly as the web app does
for a person (:func:`~engine.core.steps.parse_input`, then ``action.run(campaign, faction,
...)``): the same parser, the same validation, the same sealed storage and the same log events,
so ``bellica round verify --readjudicate`` replays a bot's orders as it replays anyone's.  A
ruleset that logs the reasons (:attr:`Ruleset.bot_notes`) gets one ``bot_note`` event after
the answers (:func:`note_event`), sealed by its :attr:`~Ruleset.order_seal` like the orders
they explain, and replays it with :func:`with_note_steps` and :func:`replay_note`.

Who plays a seat is kept in the campaign file's ``bot_seats`` table (:func:`set_seats`): one
row per change, newest last (``bot`` NULL gives the seat back to a person), with who changed
it and when; it is not rules state, so it is not in the event log.  :func:`random_steps` is a
random-legal player of any ruleset whose steps and choices are declared as data.

A ruleset of declared steps gets all of this with one line where it registers itself,
``register(with_bots(Cls, "bellica.engine.<ruleset>.bots")())`` (:func:`with_bots`): its bot
kinds are that module's ``BOTS`` (and ``bot_aid``, if it has one), the reasons are logged and
sealed (:class:`NoteSeal`: a faction's own at once, everyone else's once the round is over),
re-adjudication replays them, and the umpire gets a ``bots`` step (:func:`bots_action`) that
lets the bot seats play until a person or the umpire must act (:func:`play_until_waiting`): on
the command line ``bellica <ruleset> bots CAMPAIGN``, on the web app the umpire's button.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Protocol, Sequence

from bellica.engine.core import rng
from bellica.engine.core.events import Event, StoredEvent
from bellica.geo.errors import BellicaError, InputError

__all__ = ["Answer", "Seat", "Player", "Played", "NOTE_KIND", "SEATS_TABLE", "seats", "set_seats", "parse_seats",
           "bot_kinds", "bot_maker", "seat_for", "reads_offers", "play_seat", "take_seat", "play_bots", "note_event",
           "with_note_steps", "replay_note",
           "RandomSteps", "Ranked", "NoteSeal", "with_bots", "bots_action", "play_until_waiting"]

#: The event kind of a bot's reasons (an explanation: it changes no table).
NOTE_KIND = "bot_note"
#: Who plays each seat: one row per change (``bot`` NULL: a person), newest last.
SEATS_TABLE = "bot_seats"
_SEATS_SQL = f"""CREATE TABLE IF NOT EXISTS {SEATS_TABLE} (
    seq INTEGER, faction VARCHAR, bot VARCHAR, set_by VARCHAR, "at" TIMESTAMP)"""


@dataclass(frozen=True)
class Answer:
    """One step a bot takes: the declared step's ``action`` name, its parameters as a person
    would type them (``given``: name -> text or list of texts), and why, in words."""

    action: str
    given: Mapping[str, Any]
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Seat:
    """What a bot may know and decide now (module doc): nothing else reaches it."""

    faction: str
    kind: str
    view: Any  # bellica.schema.view.PlayerView of ``faction``
    actions: tuple  # the declared steps open to the faction now
    offered: Mapping[tuple[str, str], Sequence[str] | None]  # (step, parameter) -> values offered, None: any text
    label: tuple  # the random source's label, recorded with the reasons
    rng: random.Random
    aid: Any = None  # the ruleset's public help for its bots (Ruleset.bot_aid)
    factions: tuple[str, ...] = ()

    def action(self, name: str):
        """The open step ``name``, or None."""
        return next((a for a in self.actions if a.name == name), None)


@dataclass(frozen=True)
class BoardAid:
    """The aid most rulesets give their bots: the campaign's board (its scenario: map, borders, who holds
    what at the start) and its rules, public to a person as the printed map and the rule book."""

    scenario: Any
    rules: Any


def board_aid(campaign, viewer: str) -> BoardAid:
    """A ruleset's ``bot_aid`` when its bots need only the board and the rules (the viewer changes nothing)."""
    return BoardAid(campaign.board, campaign.rules)


class Player(Protocol):
    """A bot: ``decide(seat)`` returns the steps it takes now (none: nothing to do)."""

    def decide(self, seat: Seat) -> list[Answer]: ...


@dataclass(frozen=True)
class Played:
    """What :func:`play_seat` did: the seat, its bot, the label of its draws, its answers and
    the events the steps logged (the note last, when the ruleset logs one)."""

    faction: str
    kind: str
    label: tuple
    answers: tuple[Answer, ...]
    events: tuple = ()
    told: tuple[str, ...] = field(default=())


# --- seats ---------------------------------------------------------------------------------------------


def seats(con) -> dict[str, str]:
    """{faction: bot kind} of the seats a bot plays now (empty: every seat is a person's)."""
    exists = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [SEATS_TABLE]).fetchone()[0]
    if not exists:
        return {}
    out: dict[str, str] = {}
    for faction, bot in con.execute(f"SELECT faction, bot FROM {SEATS_TABLE} ORDER BY seq").fetchall():
        if bot:
            out[faction] = bot
        else:
            out.pop(faction, None)
    return dict(sorted(out.items()))


def bot_kinds(ruleset) -> dict[str, Callable[[], Player]]:
    """The ruleset's bot kinds by name (:meth:`Ruleset.bots`)."""
    return dict(ruleset.bots())


def parse_seats(items: Sequence[str], factions: Sequence[str], kinds: Sequence[str]) -> dict[str, str | None]:
    """``["Carthago=heuristic", "roma=person"]`` -> {faction as the campaign spells it: kind, or
    None for ``person``}; an :class:`InputError` naming the fix otherwise."""
    from bellica.engine.core.names import one_named

    out: dict[str, str | None] = {}
    offered = ", ".join(sorted(kinds)) or "none: this ruleset has no bots"
    for item in items:
        name, sep, kind = str(item).partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise InputError(f"seat {item!r} is not FACTION=KIND: give e.g. Carthago=heuristic (kinds: {offered}, "
                             "or person)")
        faction = one_named(name.strip(), list(factions), what="faction", where="seat")
        kind = kind.strip().lower()
        if kind != "person" and kind not in kinds:
            raise InputError(f"seat {item!r}: no bot {kind!r} for this ruleset: use one of {offered}, or person")
        if faction in out:
            raise InputError(f"seat {faction} is given twice: give each seat once")
        out[faction] = None if kind == "person" else kind
    return out


def set_seats(campaign, chosen: Mapping[str, str | None], *, by: str = "umpire") -> list[str]:
    """Record who plays each seat of ``chosen`` ({faction: bot kind, None: a person}); returns
    one line per seat changed.  A row per change, so the table is the seats' own log."""
    con = campaign.con
    known = seats(con)
    lines = []
    with campaign.transaction():
        con.execute(_SEATS_SQL)
        seq = con.execute(f"SELECT coalesce(max(seq), 0) FROM {SEATS_TABLE}").fetchone()[0]
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        for faction, kind in sorted(chosen.items()):
            if known.get(faction) == kind:
                continue
            seq += 1
            con.execute(f"INSERT INTO {SEATS_TABLE} VALUES (?, ?, ?, ?, ?)", [seq, faction, kind, by, now])
            lines.append(f"{faction}: played by the {kind} bot" if kind else f"{faction}: played by a person")
    return lines


# --- a seat's decision --------------------------------------------------------------------------------------


def _label(kind: str, faction: str, view, at: int) -> tuple:
    status = view.status if isinstance(view.status, Mapping) else {}
    return ("bot", kind, faction, int(view.round or 0), str(view.phase or ""), str(status.get("stage") or ""), at)


def seat_for(campaign, faction: str, kind: str, *, actions: Sequence | None = None, offers: bool = True) -> Seat:
    """The :class:`Seat` of ``faction`` now, for a bot of ``kind`` (module doc); ``actions``: the
    steps open to it, when the caller has just asked the ruleset (:meth:`Ruleset.open_actions`);
    ``offers``: False for a player that never reads the values offered (:func:`reads_offers`),
    whose seat then holds none (asking the ruleset for every parameter of every step costs more
    than the decision)."""
    ruleset = campaign.ruleset
    view = ruleset.player_view(campaign, faction)
    actions = tuple(ruleset.open_actions(campaign, faction) if actions is None else actions)
    offered = {(a.name, p.name): ruleset.choices(campaign, faction, a, p) for a in actions for p in a.params} if offers else {}
    at = campaign.con.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]  # the log's length
    label = _label(kind, faction, view, int(at))
    return Seat(faction, kind, view, actions, offered, label, rng.stream(campaign.seed(), *label),
                ruleset.bot_aid(campaign, faction), tuple(ruleset.factions(campaign)))


def play_seat(campaign, faction: str, kind: str | None = None) -> Played:
    """Let the bot of ``faction``'s seat (``kind``; default: the seat's, :func:`seats`) decide, and
    take its answers as the faction's own steps (module doc).  A step refused is refused as a
    person's would be (its error, nothing of that step stored)."""
    kind = kind or seats(campaign.con).get(faction)
    if kind is None:
        raise InputError(f"{faction}'s seat is played by a person: give it to a bot first "
                         "(`bellica campaign bot CAMPAIGN FACTION=KIND`)")
    player = bot_maker(campaign.ruleset, kind)()
    return take_seat(campaign, seat_for(campaign, faction, kind, offers=reads_offers(player)), player)


def reads_offers(player) -> bool:
    """Whether ``player`` reads the values a seat offers (:attr:`Seat.offered`): a player says it
    does not with a class attribute ``reads_offers = False`` (the ranked heuristics)."""
    return bool(getattr(player, "reads_offers", True))


def bot_maker(ruleset, kind: str) -> Callable[[], Player]:
    """What makes a bot of ``kind`` for ``ruleset``; an unknown kind is one line naming the kinds."""
    makers = bot_kinds(ruleset)
    if kind not in makers:
        raise InputError(f"no bot {kind!r} for {ruleset.name}: use one of {', '.join(sorted(makers)) or 'none'}")
    return makers[kind]


def take_seat(campaign, seat: Seat, player, *, tell: bool = True) -> Played:
    """``player`` decides on ``seat`` and its answers are taken as the seat's faction's own steps,
    then its reasons logged where the ruleset logs them (a ``bot_note``).  :func:`play_seat` and
    the simulated games (:func:`bellica.engine.core.simulate.play_seats`) both play a seat through
    here.  ``tell``: also the lines the steps tell the faction (:attr:`Played.told`; a game that
    nobody reads skips them)."""
    ruleset = campaign.ruleset
    answers, events = _decide_and_take(campaign, seat, player)
    if answers and ruleset.bot_notes:
        note = note_event(campaign, seat.faction, seat.kind, seat.label, answers)
        with campaign.transaction():
            campaign.append([note], before=campaign.snapshot())
        events.append(note)
    told = ()
    if tell:
        told = tuple(line for line in ruleset.said(campaign, [e for e in events if not _is_note(e)], seat.faction) if line)
    return Played(seat.faction, seat.kind, seat.label, answers, tuple(events), told)


def _take(campaign, seat: Seat, answers: Sequence[Answer]) -> list:
    """Run each answer as the seat's faction takes the step (the web app's path for a person)."""
    from bellica.engine.core.steps import parse_input

    word = campaign.ruleset.faction_flag.lstrip("-")
    events: list = []
    for answer in answers:
        action = seat.action(answer.action)
        if action is None:
            raise BellicaError(f"the {seat.kind} bot of {seat.faction} took {answer.action!r}, a step not open to it now")
        typed = parse_input(action, answer.given, seat.factions, word)
        events += action.run(campaign, seat.faction, **typed)
    return events


def _decide_and_take(campaign, seat: Seat, player) -> tuple[tuple[Answer, ...], list]:
    """The player's answers and their events.  A player that draws (``tries`` > 1, one answer a
    draw) draws again from the same stream when a step refuses its draw (a refused step stores
    nothing); when every draw is refused it takes no step if it ``gives_up``, else the refusal stands."""
    tries = max(1, int(getattr(player, "tries", 1)))
    for attempt in range(tries):
        answers = tuple(player.decide(seat))
        try:
            return answers, _take(campaign, seat, answers)
        except InputError:
            if attempt + 1 < tries:
                continue
            if getattr(player, "gives_up", False):
                return (), []
            raise
    return (), []


def play_bots(campaign) -> list[Played]:
    """Play every bot seat that has a step open now (in the order of the factions' names)."""
    out = []
    for faction, kind in seats(campaign.con).items():
        if campaign.ruleset.open_actions(campaign, faction):
            played = play_seat(campaign, faction, kind)
            if played.answers:
                out.append(played)
    return out


# --- the reasons in the log, and their replay ---------------------------------------------------------------


def _is_note(e) -> bool:
    return not isinstance(e, str) and getattr(e, "kind", None) == NOTE_KIND


def note_event(campaign, faction: str, kind: str, label: tuple, answers: Sequence[Answer]) -> Event:
    """The ``bot_note`` event of a seat's answers: the bot, the label of its draws, the steps it
    took and its reasons (``carries``: the steps, for the ruleset's seal)."""
    snap = campaign.snapshot()
    rnd, phase = int(snap.campaign("round")), str(snap.campaign("phase"))
    reasons = [r for a in answers for r in a.reasons]
    data = {"faction": faction, "bot": kind, "round": rnd, "label": list(label),
            "steps": sorted({a.action for a in answers}), "reasons": reasons}
    text = f"{faction}, played by the {kind} bot: " + ("; ".join(reasons) if reasons else "no reason given")
    return Event(rnd, phase, NOTE_KIND, data, text)


def with_note_steps(events: Sequence[StoredEvent], recorded: Callable[[Sequence[StoredEvent]], list]) -> list:
    """A log's recorded steps (``recorded``: the ruleset's reader) with each ``bot_note`` as a step
    ``("bot-note", event)`` where the log has it, for :func:`replay_note`."""
    plain = [e for e in events if e.kind != NOTE_KIND]
    steps = list(recorded(plain))
    notes, before = [], 0
    for i, e in enumerate(events):
        if e.kind == NOTE_KIND:
            notes.append((len(recorded(plain[:i - before])), e))
            before += 1
    for shift, (at, e) in enumerate(notes):
        steps.insert(at + shift, ("bot-note", e))
    return steps


def replay_note(campaign, e) -> list[Event]:
    """Log again the ``bot_note`` ``e`` a log recorded (re-adjudication: its reasons are its input)."""
    note = Event(e.round, e.phase, NOTE_KIND, dict(e.data), e.text)
    with campaign.transaction():
        campaign.append([note], before=campaign.snapshot())
    return [note]


# --- a random-legal player of declared steps -----------------------------------------------------------------


class RandomSteps:
    """A random-legal player of any ruleset whose steps are declared as data: one open step,
    drawn, with each parameter drawn among the values the ruleset offers (a flag: on or off; an
    optional one left out half the time; a value the ruleset does not offer: left out, or the
    example when required).  The ruleset's
    own step decides what is legal: a draw it refuses stores nothing, and :func:`play_seat`
    draws again from the same stream, up to :attr:`tries` times, so what is logged is legal."""

    #: Steps never drawn (views, and what ends a player's say).
    skip: frozenset = frozenset()
    #: Draws before it gives up and takes no step (every one refused, nothing stored).
    tries: int = 40
    gives_up: bool = True

    def decide(self, seat: Seat) -> list[Answer]:
        steps = [a for a in seat.actions if a.name not in self.skip and a.opens == "step"]
        if not steps:
            return []
        action = seat.rng.choice(steps)
        given: dict[str, Any] = {}
        for p in action.params:
            values = seat.offered.get((action.name, p.name))
            if p.kind == "flag":
                given[p.name] = "on" if seat.rng.random() < 0.5 else ""
            elif values and not p.required and seat.rng.random() < 0.5:
                continue  # an optional field left empty, as a person may (some offers only begin a value)
            elif values:
                pick = [seat.rng.choice(list(values))]
                given[p.name] = pick if p.many else pick[0]
            elif p.required and p.example:
                given[p.name] = p.example
        shown = ", ".join(f"{k}={v}" for k, v in given.items() if v not in ("", None, []))
        return [Answer(action.name, given, (f"drew {action.name}" + (f" with {shown}" if shown else "")
                                            + " among the steps and values offered",))]


# --- a player that ranks its answers -----------------------------------------------------------------------------


class Ranked:
    """A player that ranks what it would do (:meth:`candidates`, best first) and takes the first
    the ruleset's step accepts: :func:`play_seat` asks again when a step refuses one (nothing of
    it stored), and the next call gives the next candidate.  A reader follows the choice from
    the reasons; the ranking is the bot's, the legality the ruleset's alone."""

    #: Candidates tried before the refusal stands (each is one call of :meth:`decide`).
    tries: int = 12
    gives_up: bool = True
    #: A ranking reads the view and the aid, never the values offered (:func:`reads_offers`).
    reads_offers: bool = False

    def __init__(self) -> None:
        self._asked = 0
        self._ranked: list[list[Answer]] | None = None

    def candidates(self, seat: Seat) -> list[list[Answer]]:  # pragma: no cover - the subclasses' own
        raise NotImplementedError

    def decide(self, seat: Seat) -> list[Answer]:
        if self._ranked is None:
            # No step open, or no aid (a campaign not started): nothing to rank, whatever the ruleset.
            ready = seat.aid is not None and bool(seat.actions)
            self._ranked = [c for c in self.candidates(seat) if c] if ready else []
        at, self._asked = self._asked, self._asked + 1
        return list(self._ranked[at]) if at < len(self._ranked) else []


# --- the seal of the reasons of a ruleset that declares its steps --------------------------------------------------


def _note_data(data: Mapping) -> bool:
    return "bot" in data and "reasons" in data and "faction" in data


class NoteSeal:
    """A ruleset's seal (``inner``; None: it seals nothing) with the bots' reasons sealed too: a
    ``bot_note`` is its faction's at once and everyone's (the umpire too) once its round is over
    or the campaign has a winner.  The reasons say why a bot moved, which is more than the moves
    show another side (where it is going next); after the round the moves have shown it."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __getattr__(self, name):  # anything else of the ruleset's own seal
        if self.inner is None:
            raise AttributeError(name)
        return getattr(self.inner, name)

    @staticmethod
    def _open(data: Mapping, snap) -> bool:
        over = snap.campaign("winner") or snap.campaign("phase") in ("over", "done")
        return bool(over) or int(snap.campaign("round") or 0) > int(data.get("round") or 0)

    def is_order(self, kind: str, data: Mapping) -> bool:
        return kind == NOTE_KIND or (self.inner is not None and self.inner.is_order(kind, data))

    def hides(self, viewer, kind: str, data: Mapping, snap) -> bool:
        if kind == NOTE_KIND:
            return not (viewer is not None and viewer == data.get("faction")) and not self._open(data, snap)
        return self.inner is not None and self.inner.hides(viewer, kind, data, snap)

    def public(self, data: Mapping) -> Mapping:
        if _note_data(data):
            return {"faction": data["faction"], "bot": data["bot"], "round": data.get("round")}
        return self.inner.public(data)

    def text(self, data: Mapping) -> str:
        if _note_data(data):
            return f"{data['faction']}, played by the {data['bot']} bot, gave its reasons (sealed until the round is over)"
        return self.inner.text(data)


# --- the umpire's step: let the bots play --------------------------------------------------------------------------

#: The most steps one ``bots`` step lets the bots take (a bot that keeps taking steps is a bug: stop).
MAX_BOT_STEPS = 400


def play_until_waiting(campaign, *, limit: int = MAX_BOT_STEPS) -> list[Played]:
    """Let every bot seat play (:func:`play_bots`) again and again until none has a step to give
    (a person or the umpire must act, or the campaign is over); at most ``limit`` steps."""
    out: list[Played] = []
    while len(out) < limit:
        played = play_bots(campaign)
        if not played:
            break
        out += played
    return out


def _let_bots_play(campaign, _umpire) -> list[str]:
    ruleset = campaign.ruleset
    if not seats(campaign.con):
        kinds = ", ".join(sorted(bot_kinds(ruleset))) or "none"
        raise InputError("no seat of this campaign is played by a bot: give one with "
                         f"`bellica campaign bot CAMPAIGN FACTION=KIND` (kinds: {kinds})")
    played = play_until_waiting(campaign)
    if not played:
        return _said(campaign, ["no bot has a step to give now: a person or the umpire is to act"])
    lines = []
    for p in played:  # as the umpire may read them: sealed orders stay sealed
        said = [line for line in ruleset.said(campaign, [e for e in p.events if not _is_note(e)], None) if line]
        lines += [f"{p.faction}, played by the {p.kind} bot:", *(f"  {line}" for line in said)]
    lines.append(f"{len(played)} bot steps; the bots' reasons are in the log, sealed until the round is over")
    return _said(campaign, lines)


def _said(campaign, lines: Sequence[str]) -> list[Event]:
    """What the step tells the umpire, as events a ruleset's ``said`` reads (never logged: the
    bots' own steps logged theirs)."""
    snap = campaign.snapshot()
    rnd, phase = int(snap.campaign("round") or 0), str(snap.campaign("phase") or "")
    return [Event(rnd, phase, "bots_said", {}, line) for line in lines]


def bots_action(ruleset):
    """The umpire's ``bots`` step of ``ruleset`` (a declared step: a command and a web button)."""
    from bellica.engine.core.steps import UMPIRE, Action

    return Action(
        "bots", "Let the bots play: every seat a bot holds takes its steps until a person or the umpire must act.",
        _let_bots_play, UMPIRE,
        details="Each bot reads only its faction's player view and takes its steps as the faction would; they are "
                "validated and logged like a person's, with the bot's reasons sealed beside them "
                "(`bellica campaign bot` seats a bot).",
        example=f"bellica {ruleset.command_group} bots {ruleset.example_campaign}")


# --- one line to give a ruleset of declared steps its bots -----------------------------------------------------------


def with_bots(cls, module: str):
    """A subclass of the ruleset class ``cls`` whose bots are ``module``'s ``BOTS`` (module doc)."""
    import importlib

    def bots_module():
        return importlib.import_module(module)

    class WithBots(cls):
        bot_notes = True
        order_seal = NoteSeal(getattr(cls, "order_seal", None))

        def bots(self):
            return dict(bots_module().BOTS)

        def bot_aid(self, campaign, viewer: str):
            aid = getattr(bots_module(), "bot_aid", None)
            return aid(campaign, viewer) if aid is not None else None

        def actions(self) -> tuple:
            own = tuple(super().actions())
            return own if any(a.name == "bots" for a in own) else own + (bots_action(self),)

        def may_take(self, campaign, snap, action, viewer) -> bool:
            if action.name != "bots":
                return super().may_take(campaign, snap, action, viewer)
            return viewer is None and any(self.open_actions(campaign, f) for f in seats(campaign.con))

        def recorded_steps(self, events):
            return with_note_steps(events, super().recorded_steps)

        def run_step(self, campaign, name: str, arg):
            return replay_note(campaign, arg) if name == "bot-note" else super().run_step(campaign, name, arg)

    WithBots.__name__, WithBots.__qualname__, WithBots.__module__ = cls.__name__, cls.__qualname__, cls.__module__
    return WithBots
