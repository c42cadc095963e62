"""Truly sealed, simultaneous orders: the reveal, the deadline, and commit-reveal mode (docs/sealed-orders.md).

Two modes (campaign key ``orders_mode``):

* ``sealed`` (default): step 1.3 orders are stored when submitted, and nobody -- no other
  faction, not the umpire -- reads them through any bellica interface until the round's
  *reveal*: in the transaction of the submission that brings in the last live army's
  orders (after publication; if every army's orders are in before it, at publication),
  or when the umpire runs ``bellica round reveal`` once the round's deadline has passed
  (armies without orders then stand still, recorded as default orders).  After the
  reveal no order of the round changes.
* ``commit-reveal``: a faction stores only :func:`orders_commitment` (a SHA-256 digest of
  its orders and a secret).  When every faction with live armies has committed (or the
  umpire reveals after the deadline) the reveal window opens; each faction then reveals
  its orders and secret, which must give its digest ("tampered" otherwise, nothing
  stored) and pass the engine's validator.  When every army has orders the round is
  locked; after the deadline the umpire's reveal makes every army still without orders
  stand still (a faction that never committed, never revealed, or whose revealed orders
  were illegal -- the digest binds them, so it cannot send others).

State: the campaign keys ``orders_mode``, ``deadline`` (ISO-8601 UTC, ``...Z``) and
``deadline_round`` (a deadline holds for the round it was set in only), and the round notes
``commitments`` ({faction: digest}), ``reveals`` ({faction: who}) and ``orders_revealed``
({"by", "closed"}: ``closed`` false while a commit-reveal window waits for reveals).
No round note ever holds an unrevealed order, so the SQL console seals only ``orders`` (its
``events`` are the viewer's log: :mod:`bellica.engine.core.console`, :func:`sealed_round`).
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping

from bellica.engine.core.state import ReplayMismatch
from bellica.engine.vae_victis.model import ArmyOrders, Event, Phase, Transfer
from bellica.engine.vae_victis.rounds.machine import STAGE_MOVES, Round, armies_text, event, read_round, require
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import inline

__all__ = [
    "SEALED", "COMMIT_REVEAL", "MODES", "REVEAL_NOTE", "orders_mode", "deadline_of", "parse_deadline", "read_deadline",
    "format_deadline", "DEADLINE_HORIZON_YEARS",
    "is_revealed", "is_locked", "refuse_if_revealed", "reveal_if_complete", "set_deadline", "set_orders_mode",
    "reveal_round", "canonical_orders", "orders_from_canonical", "orders_commitment", "commit_orders", "reveal_orders",
    "sealed_round", "OPENS", "AFTER_EVERY_DEADLINE", "BEFORE_EVERY_DEADLINE", "refuse_after_deadline",
]

SEALED = "sealed"
COMMIT_REVEAL = "commit-reveal"
MODES = (SEALED, COMMIT_REVEAL)
REVEAL_NOTE = "orders_revealed"
COMMITMENTS_NOTE = "commitments"
REVEALS_NOTE = "reveals"
#: The tables that hold orders before the reveal (the SQL console refuses them until then).
#: Re-adjudication's "now": a recorded umpire reveal was made after its deadline, so replay never reads the clock.
AFTER_EVERY_DEADLINE = datetime.max.replace(tzinfo=timezone.utc)
#: ... and a recorded submission or commitment was taken before it.
BEFORE_EVERY_DEADLINE = datetime.min.replace(tzinfo=timezone.utc)
DEFAULT_BY = "umpire (deadline)"


# --- where the round stands ---------------------------------------------------------------------


def orders_mode(snap) -> str:
    return snap.campaign("orders_mode") or SEALED


def deadline_of(snap) -> datetime | None:
    """The deadline of the campaign's current round (None: none set for it)."""
    value, rnd = snap.campaign("deadline"), snap.campaign("deadline_round")
    if not value or rnd is None:
        return None
    try:
        current = int(rnd) == int(snap.campaign("round"))
    except (TypeError, ValueError):
        raise ReplayMismatch(f"the stored deadline round {rnd!r} is not a round number: the campaign file was edited "
                             "outside bellica; restore it from a copy (`bellica round verify` names the change)") from None
    return read_deadline(value) if current else None


#: The latest deadline accepted, in years from now: a round's orders are due in days or weeks, and
#: ten years covers any pause of a campaign by post while still refusing a mistyped century.
DEADLINE_HORIZON_YEARS = 10

#: The form bellica stores.  Before this check, years below 1000 were written without leading zeros
#: (strftime's %Y on glibc: "1-01-01T00:00:00Z"), which ``datetime.fromisoformat`` refuses.
_STORED = re.compile(r"(\d{1,4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z")


def format_deadline(when: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` in UTC, the year always four digits (strftime's %Y is not, below 1000)."""
    w = when.astimezone(timezone.utc)
    return f"{w.year:04d}-{w.month:02d}-{w.day:02d}T{w.hour:02d}:{w.minute:02d}:{w.second:02d}Z"


def read_deadline(value) -> datetime:
    """A stored deadline as a UTC time: any form a version of bellica stored reads; a value none
    stored (edited outside bellica) is one line naming it, never a traceback."""
    text = str(value).strip()
    match = _STORED.fullmatch(text)
    try:
        if match:
            return datetime(*(int(g) for g in match.groups()), tzinfo=timezone.utc)
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        if when.tzinfo is not None:
            return when.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        pass
    raise ReplayMismatch(f"the stored deadline {text!r} is not a UTC time bellica writes: the campaign file was edited "
                         "outside bellica; restore it from a copy (`bellica round verify` names the change)")


def _example(now: datetime) -> str:
    return format_deadline((now + timedelta(days=1)).replace(hour=18, minute=0, second=0, microsecond=0))


def parse_deadline(text: str, *, earliest: datetime | None = None, now: datetime | None = None) -> str:
    """An ISO-8601 UTC time as stored (``YYYY-MM-DDTHH:MM:SSZ``); a bad or zone-less time, one
    before ``earliest`` (the campaign's start) or more than :data:`DEADLINE_HORIZON_YEARS` after
    ``now`` (the clock) is refused."""
    t = str(text).strip()
    now = now or datetime.now(timezone.utc)
    fix = f"write it in UTC like {_example(now)}"
    try:
        when = datetime.fromisoformat(t.replace("Z", "+00:00") if t.endswith(("Z", "z")) else t)
    except ValueError:
        raise InputError(f"deadline {t!r} is not an ISO-8601 time: {fix}") from None
    if when.tzinfo is None or when.utcoffset().total_seconds() != 0:
        raise InputError(f"deadline {t!r} is not in UTC: write it with Z, like {_example(now)}")
    when = when.replace(microsecond=0)
    if earliest is not None and when < earliest.replace(microsecond=0):
        raise InputError(f"deadline {t!r} is before the campaign started ({format_deadline(earliest)}): "
                         f"give a later time, {fix}")
    latest = _years_after(now, DEADLINE_HORIZON_YEARS)
    if when > latest:
        raise InputError(f"deadline {t!r} is more than {DEADLINE_HORIZON_YEARS} years ahead (after "
                         f"{format_deadline(latest)}): give a nearer time, {fix}")
    return format_deadline(when)


def _years_after(when: datetime, years: int) -> datetime:
    try:
        return when.replace(year=when.year + years)
    except ValueError:  # 29 February in a year that has none
        return when.replace(year=when.year + years, day=28)


def _started_at(campaign) -> datetime | None:
    """When the campaign started: its log's first recorded time (stored as naive UTC)."""
    at = campaign.con.execute('SELECT min("at") FROM events').fetchone()[0]
    return at.replace(tzinfo=timezone.utc) if isinstance(at, datetime) else None


def _note(r: Round, key: str):
    return r.note(key)


def is_revealed(r: Round) -> bool:
    """Whether the round's orders are open to everyone: its reveal (a commit-reveal window counts:
    only revealed orders are stored then).  A file from before the reveal was recorded counts a
    sealed round whose every army has orders (after publication) as revealed."""
    if _note(r, REVEAL_NOTE) is not None:
        return True
    return orders_mode(r.snap) == SEALED and r.stage == STAGE_MOVES and not r.missing(2)


def is_locked(r: Round) -> bool:
    """Whether no order of the round may change any more."""
    note = _note(r, REVEAL_NOTE)
    if note is not None:
        return bool(note.get("closed", True))
    return is_revealed(r)


def refuse_if_revealed(r: Round, source: str) -> None:
    if r.state.phase is Phase.ORDERS and is_locked(r):
        raise InputError(f"{source}: refused, nothing stored: round {r.round}'s orders were revealed; "
                         "no order of the round changes after the reveal")


def refuse_after_deadline(r: Round, now: datetime | None, source: str) -> None:
    """Orders and commitments close at the round's deadline: a later one is refused, nothing stored
    (the umpire then reveals, and armies without orders stand still)."""
    deadline = deadline_of(r.snap)
    if deadline is None:
        return
    if (now or datetime.now(timezone.utc)) >= deadline:
        raise InputError(f"{source}: refused, nothing stored: round {r.round}'s deadline "
                         f"{format_deadline(deadline)} has passed; the umpire reveals the orders "
                         "(`bellica round reveal`) and armies without orders stand still")


def _reveal_events(r: Round, by: str, *, closed: bool, defaults=(), text: str) -> list[Event]:
    data = {"round": r.round, "by": by, "closed": closed, "defaults": sorted(defaults)}
    return [event(r.round, "orders", "orders_revealed", data, text),
            event(r.round, "orders", "put_note", {"round": r.round, "key": REVEAL_NOTE, "value": {"by": by, "closed": closed}})]


def reveal_if_complete(campaign, snap) -> list[Event]:
    """In sealed mode, after publication: reveal and lock the round once every live army has orders
    (called inside the step's transaction, so the reveal is part of the last submission)."""
    from bellica.engine.vae_victis.rounds.machine import round_of

    r = round_of(snap)
    if (orders_mode(snap) != SEALED or r.stage != STAGE_MOVES or r.missing(2)
            or _note(r, REVEAL_NOTE) is not None):
        return []
    events = _reveal_events(r, "last submission", closed=True,
                            text=f"round {r.round}'s orders are revealed to every faction and locked: every army's orders are in")
    campaign.append(events, before=snap)
    return events


# --- the umpire's steps -----------------------------------------------------------------------------


def set_deadline(campaign, when: str, *, recorded: bool = False, now: datetime | None = None) -> list[Event]:
    """``bellica round deadline``: the current round's orders deadline (UTC), logged.  ``recorded``:
    replaying a log, whose value was accepted when it was set: stored as written (an older version
    may have written it in another form), its window not checked again (replay never reads the clock)."""
    value = str(when) if recorded else parse_deadline(when, now=now)
    if recorded:
        read_deadline(value)
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "deadline")
        if not recorded:
            value = parse_deadline(when, earliest=_started_at(campaign), now=now)
        events = [
            event(r.round, "orders", "set_campaign", {"key": "deadline", "value": value, "was": r.snap.campaign("deadline")},
                  f"the umpire sets round {r.round}'s orders deadline: {value}"),
            event(r.round, "orders", "set_campaign",
                  {"key": "deadline_round", "value": str(r.round), "was": r.snap.campaign("deadline_round")},
                  f"the deadline holds for round {r.round}"),
        ]
        campaign.append(events, before=r.snap)
    return events


def set_orders_mode(campaign, mode: str) -> list[Event]:
    """``bellica round mode`` (or ``round start --orders-mode``): sealed or commit-reveal, before
    any step 1.3 order or commitment of the round."""
    if mode not in MODES:
        raise InputError(f"orders mode {mode!r} is not one of {', '.join(MODES)}")
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "mode")
        given = [a for a, row in r.orders_rows().items() if row[2] is not None]
        if given or _note(r, COMMITMENTS_NOTE):
            raise InputError(f"cannot set the orders mode: round {r.round} already has orders or commitments; "
                             "set it before the round's first order")
        was = orders_mode(r.snap)
        events = [event(r.round, "orders", "set_campaign", {"key": "orders_mode", "value": mode, "was": r.snap.campaign("orders_mode")},
                        f"orders are taken in {mode} mode from round {r.round}" + ("" if was != mode else " (unchanged)"))]
        campaign.append(events, before=r.snap)
    return events


def _deadline_passed(r: Round, now: datetime | None, what: str) -> None:
    deadline = deadline_of(r.snap)
    if deadline is None:
        raise InputError(f"cannot {what}: round {r.round} has no deadline; set one with `bellica round deadline`")
    now = now or datetime.now(timezone.utc)
    if now < deadline:
        raise InputError(f"cannot {what}: round {r.round}'s deadline {format_deadline(deadline)} has not passed")


def _default_events(r: Round) -> tuple[list[Event], list[int]]:
    from bellica.engine.vae_victis.rounds.orders_step import orders_data

    events, ids = [], []
    rows = r.orders_rows()
    for a in r.live_armies():
        row = rows.get(a.id)
        if row is not None and row[2] is not None:
            continue
        o = ArmyOrders(army=a.id, initiative=(row[3] if row is not None and row[3] else "strength"))
        data = orders_data(r.round, o, moves_given=True, source="default")
        data["submitted_by"] = DEFAULT_BY
        events.append(event(r.round, "orders", "put_orders", data,
                            f"army {a.id} ({a.faction}) has no orders at the deadline: it stands still (default orders)"))
        ids.append(a.id)
    return events, ids


def reveal_round(campaign, *, now: datetime | None = None) -> list[Event]:
    """``bellica round reveal``: once the round's deadline has passed, every live army still without
    orders stands still (default orders, logged as such) and the round's orders are revealed and
    locked.  In commit-reveal mode, before the window opened this opens it (factions that
    committed may still reveal; a second reveal closes it); after, it closes it."""
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "reveal")
        mode = orders_mode(r.snap)
        if is_locked(r):
            raise InputError(f"round {r.round}'s orders are already revealed: run movement (`bellica round move`)")
        _deadline_passed(r, now, "reveal the orders")
        if mode == SEALED:
            defaults, ids = _default_events(r)
            text = f"the deadline passed: round {r.round}'s orders are revealed to every faction and locked" + (
                f"; {len(ids)} arm{'y' if len(ids) == 1 else 'ies'} without orders stand still" if ids else "")
            events = defaults + _reveal_events(r, "umpire", closed=True, defaults=ids, text=text)
        else:
            window_open = _note(r, REVEAL_NOTE) is not None
            committed = set(_note(r, COMMITMENTS_NOTE) or {})
            if window_open:
                defaults, ids = _default_events(r)
            else:
                # Factions that never committed stand still; the others may still reveal.
                defaults, ids = _default_events(r)
                keep = {a.id for a in r.live_armies() if a.faction not in committed}
                pairs = [(e, i) for e, i in zip(defaults, ids) if i in keep]
                defaults, ids = [e for e, _ in pairs], [i for _, i in pairs]
            waiting = [] if window_open else sorted(committed - set(_note(r, REVEALS_NOTE) or {}))
            closed = not waiting
            text = (f"the deadline passed: round {r.round}'s orders are "
                    + ("locked" if closed else f"open for reveals by {', '.join(waiting)}")
                    + (f"; {len(ids)} arm{'y' if len(ids) == 1 else 'ies'} without orders stand still" if ids else ""))
            events = defaults + _reveal_events(r, "umpire", closed=closed, defaults=ids, text=text)
        campaign.append(events, before=r.snap)
    return events


# --- commit-reveal --------------------------------------------------------------------------------


def canonical_orders(orders: Mapping[int, ArmyOrders]) -> list[dict]:
    """The documented canonical form of a faction's orders (docs/sealed-orders.md): one object per
    army, sorted by army, every field present."""
    return [
        {"army": int(o.army), "moves": [int(m) for m in o.moves], "initiative": o.initiative or "strength",
         "lift_siege": bool(o.lift_siege), "assault": o.assault,
         "transfers": [[int(t.to_army), int(t.fp)] for t in o.transfers],
         "sea_links": [[str(z), str(s)] for z, s in o.sea_links]}
        for _army, o in sorted(orders.items())
    ]


def orders_from_canonical(items) -> dict[int, ArmyOrders]:
    return {
        int(d["army"]): ArmyOrders(army=int(d["army"]), moves=tuple(int(m) for m in d["moves"]), initiative=d["initiative"],
                                   lift_siege=bool(d["lift_siege"]), assault=d["assault"],
                                   transfers=tuple(Transfer(int(t), int(f)) for t, f in d["transfers"]),
                                   sea_links=tuple((str(z), str(s)) for z, s in d["sea_links"]))
        for d in items
    }


def orders_commitment(orders: Mapping[int, ArmyOrders], secret: str) -> str:
    """SHA-256 (hex) of the UTF-8 canonical JSON ``{"orders": canonical_orders(orders), "secret": secret}``
    (keys sorted, separators ``,`` and ``:``, non-ASCII kept): what a faction commits to."""
    if not orders:
        raise InputError("the orders to commit hold no army: give at least one army's moves")
    if not secret:
        raise InputError("the secret is empty: choose a long random one (e.g. `python -c \"import secrets; print(secrets.token_hex(16))\"`)")
    try:
        secret.encode("utf-8")
    except UnicodeEncodeError as e:
        # A byte that is not UTF-8 on the command line reaches Python as a lone surrogate: the digest
        # is defined over UTF-8 text, so such a secret has none.
        raise InputError(f"the secret is not UTF-8 text (position {e.start}): choose one of letters and digits "
                         "(e.g. `python -c \"import secrets; print(secrets.token_hex(16))\"`)") from None
    text = json.dumps({"orders": canonical_orders(orders), "secret": secret}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def _live_factions(r: Round) -> list[str]:
    return sorted({a.faction for a in r.live_armies()})


def _require_mode(r: Round, what: str) -> None:
    if orders_mode(r.snap) != COMMIT_REVEAL:
        raise InputError(f"cannot {what}: this campaign takes sealed orders (`bellica round orders`); "
                         "commit-reveal mode is set with `bellica round mode`")


def commit_orders(campaign, faction: str, digest: str, *, submitted_by: str | None = None,
                  now: datetime | None = None) -> list[Event]:
    """A faction's commitment (a digest from :func:`orders_commitment`); replaces its earlier one
    until the reveal window opens, which happens when every faction with live armies has committed,
    or the round's deadline passes (``now``: the clock, for tests and replay)."""
    digest = str(digest).strip().lower()
    if not _DIGEST.match(digest):
        raise InputError(f"commitment {digest!r} is not a SHA-256 digest (64 hex digits): compute it with `bellica round commitment`")
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "commit")
        _require_mode(r, "take a commitment")
        if _note(r, REVEAL_NOTE) is not None:
            raise InputError(f"refused, nothing stored: round {r.round}'s reveal window is open; commitments are closed")
        refuse_after_deadline(r, now, f"{faction}'s commitment")
        live = _live_factions(r)
        if faction not in live:
            raise InputError(f"{faction} has no live army in round {r.round}: it has no orders to commit")
        by = submitted_by if submitted_by is not None else faction
        commitments = dict(_note(r, COMMITMENTS_NOTE) or {})
        commitments[faction] = digest
        events = [
            event(r.round, "orders", "commit_orders", {"round": r.round, "faction": faction, "digest": digest, "submitted_by": by},
                  f"{faction} commits to its round {r.round} orders (digest {digest[:16]}) from {by}"),
            event(r.round, "orders", "put_note", {"round": r.round, "key": COMMITMENTS_NOTE, "value": commitments}),
        ]
        if set(live) <= set(commitments):
            events += _reveal_events(r, "commitments", closed=False,
                                     text=f"every faction has committed: round {r.round}'s reveal window opens (`bellica round reveal-orders`)")
        campaign.append(events, before=r.snap)
    return events


def reveal_orders(campaign, faction: str, orders: Mapping[int, ArmyOrders], secret: str, *,
                  submitted_by: str | None = None, source: str = "the command line") -> list[Event]:
    """A faction's reveal: its orders and secret must give its commitment (else "tampered", nothing
    stored), then pass the engine's validator (else refused, nothing stored: the digest binds these
    orders, so its armies stand still at the umpire's reveal after the deadline).  The orders are
    stored and public at once; the round locks when every army has orders."""
    from bellica.engine.vae_victis.rounds.machine import round_of
    from bellica.engine.vae_victis.rounds.orders_step import order_events

    digest = orders_commitment(orders, secret)
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "reveal-orders")
        _require_mode(r, "take revealed orders")
        if _note(r, REVEAL_NOTE) is None:
            raise InputError(f"cannot take revealed orders: round {r.round}'s reveal window opens when every faction has "
                             "committed, or at the umpire's `bellica round reveal` after the deadline")
        refuse_if_revealed(r, source)
        committed = (_note(r, COMMITMENTS_NOTE) or {}).get(faction)
        if committed is None:
            raise InputError(f"{source}: refused, nothing stored: {faction} made no commitment in round {r.round}")
        reveals = dict(_note(r, REVEALS_NOTE) or {})
        if faction in reveals:
            raise InputError(f"{source}: refused, nothing stored: {faction} has already revealed its round {r.round} orders")
        if digest != committed:
            raise InputError(f"{source}: refused, nothing stored: tampered: these orders and secret give digest {digest[:16]}, "
                             f"not {faction}'s commitment {committed[:16]}")
        by = submitted_by if submitted_by is not None else faction
        head = event(r.round, "orders", "reveal_orders",
                     {"round": r.round, "faction": faction, "digest": digest, "secret": secret, "submitted_by": by,
                      "orders": canonical_orders(orders)},
                     f"{faction} reveals its round {r.round} orders from {by}: they match its commitment")
        puts = order_events(campaign, r, orders, faction=faction, submitted_by=by, source=source, kind_source="reveal")
        reveals[faction] = by
        events = [head] + puts + [event(r.round, "orders", "put_note", {"round": r.round, "key": REVEALS_NOTE, "value": reveals})]
        after = campaign.append(events, before=r.snap)
        a = round_of(after)
        if not a.missing(2):
            more = _reveal_events(a, "last reveal", closed=True, text=f"every army's orders are in: round {r.round}'s orders are locked")
            campaign.append(more, before=after)
            events += more
    return events


# --- the SQL console -----------------------------------------------------------------------------


def sealed_round(con) -> int | None:
    """The round whose orders are sealed now (None: none is), from a plain read-only connection:
    the campaign is in an orders phase whose orders are not revealed."""
    try:
        rows = dict(con.execute("SELECT key, value FROM campaign").fetchall())
    except Exception:  # not started (no campaign table): no orders exist yet
        return None
    if rows.get("phase") != Phase.ORDERS.value or rows.get("round") is None:
        return None
    rnd = int(rows["round"])
    try:
        revealed = con.execute(inline("SELECT count(*) FROM round_notes WHERE round = ? AND key = ?", [rnd, REVEAL_NOTE])).fetchone()[0]
    except Exception:
        revealed = 0
    return None if revealed else rnd


#: When sealed orders open, in words.
OPENS = "at the reveal (the last army's orders, or the umpire's `bellica round reveal` after the deadline)"
