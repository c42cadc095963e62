"""Sign-in tokens of ``bellica serve``: one secret per faction, one per army player, one for the umpire, stored hashed.

A faction's token commands all its armies.  Where a faction is shared between players, the
umpire also issues *army players*: a named token that commands only the listed armies of one
faction (it orders, checks and retreats those armies only; it reads what its faction reads,
since the commanders of one side share their intelligence).  Commit-reveal commitments are a
faction's, so only the faction's token makes them.

The tokens live in the campaign file itself, in the table ``app_tokens(name, role, faction,
token_hash, created, armies)`` that this module creates (it is the app's, not a state table: no event
records it, re-adjudication ignores it, and ``tests/schema``'s rule covers only the schema's own
tables).  Keeping them in the campaign means one file to copy, back up and hand over.  Only the
SHA-256 of each token is stored, so a copy of the file (or the umpire's SQL console, which can
read the table) never yields a token; a token is a 32-byte ``secrets.token_urlsafe`` value, too
long to guess, so an unsalted hash is enough.  :func:`issue_tokens` replaces every token at
once: issuing again revokes the old links (a lost or leaked link is fixed by re-issuing).
Blanks around a presented token are ignored (:func:`lookup`).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Mapping

from bellica.geo.errors import InputError
from bellica.geo.spatialdb import inline, insert_rows

__all__ = ["TABLE", "Identity", "Issued", "issue_tokens", "lookup", "token_hash", "UMPIRE"]

TABLE = "app_tokens"
UMPIRE = "umpire"
_DDL = (f"CREATE TABLE IF NOT EXISTS {TABLE} (name VARCHAR PRIMARY KEY, role VARCHAR NOT NULL, "
        "faction VARCHAR, token_hash VARCHAR NOT NULL UNIQUE, created TIMESTAMP NOT NULL)")
#: Added after the first release: the armies an army player commands (comma-separated; NULL: all the faction's).
_ARMIES = f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS armies VARCHAR"


@dataclass(frozen=True)
class Identity:
    """Who a request is: ``role`` "umpire" (``faction`` None) or "player" (its faction)."""

    name: str
    role: str
    faction: str | None
    armies: tuple[int, ...] | None = None  # an army player's armies; None: every army of the faction

    @property
    def submitted_by(self) -> str:
        return f"token:{self.name}"

    def commands(self, army) -> bool:
        """Whether this player gives ``army`` (an Army of the state) its orders and retreats."""
        return self.role == "player" and army.faction == self.faction and (self.armies is None or army.id in self.armies)


@dataclass(frozen=True)
class Issued:
    name: str
    role: str
    faction: str | None
    token: str
    armies: tuple[int, ...] | None = None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_tokens(campaign, players: Mapping[str, tuple[str, tuple[int, ...]]] | None = None) -> list[Issued]:
    """New tokens for the umpire, every faction of ``campaign`` (an open, writable Campaign) and
    each army player of ``players`` ({name: (faction, armies)}), replacing all earlier ones in one
    transaction; returns them (the only time they are seen)."""
    factions = list(campaign.ruleset.factions(campaign))
    issued = [Issued(UMPIRE, "umpire", None, secrets.token_urlsafe(32))]
    issued += [Issued(f, "player", f, secrets.token_urlsafe(32)) for f in factions]
    armies_of: dict[int, str] = {}
    if players:
        snap = campaign.snapshot()
        armies_of = {int(k[0]): row[1] for k, row in snap.tables["armies"].items()}
    for name, (faction, armies) in sorted((players or {}).items()):
        if name in {i.name for i in issued}:
            raise InputError(f"player name {name!r} is taken (by the umpire or a faction): choose another name")
        if faction not in factions:
            raise InputError(f"player {name!r}: faction {faction!r} is not one of {', '.join(factions)}")
        if not armies:
            raise InputError(f"player {name!r} commands no army: list its armies, like {name}={faction}:9,10")
        for a in armies:
            if armies_of.get(a) != faction:
                raise InputError(f"player {name!r}: army {a} is not an army of {faction} "
                                 f"({', '.join(str(x) for x, f in sorted(armies_of.items()) if f == faction) or 'none'})")
        issued.append(Issued(name, "player", faction, secrets.token_urlsafe(32), tuple(sorted(set(armies)))))
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    con = campaign.con
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(_DDL)
        con.execute(_ARMIES)
        con.execute(f"DELETE FROM {TABLE}")
        insert_rows(con, f"INSERT INTO {TABLE} (name, role, faction, token_hash, created, armies)",
                    [[i.name, i.role, i.faction, token_hash(i.token), now,
                      None if i.armies is None else ",".join(map(str, i.armies))] for i in issued], name="tokens.issue")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return issued


def lookup(con, token: str | None) -> Identity | None:
    """The identity a presented token signs in as, or None (absent, unknown, revoked, or no tokens
    issued).  Whitespace around it is dropped, from every input alike (link, form, header, cookie):
    a token is URL-safe base64 and never holds any, while a pasted one often ends in a blank or a
    newline.  Whitespace inside it is kept, so such a token is unknown."""
    token = (token or "").strip()
    if not token or len(token) > 200:
        return None
    try:
        row = con.execute(inline(f"SELECT * FROM {TABLE} WHERE token_hash = ?", [token_hash(token)])).fetchone()
        cols = [d[0] for d in con.description]
    except Exception:  # no app_tokens table yet: nobody can sign in
        return None
    if not row:
        return None
    got = dict(zip(cols, row))
    armies = got.get("armies")  # absent in files issued before army players existed
    return Identity(got["name"], got["role"], got["faction"],
                    None if armies is None else tuple(int(a) for a in armies.split(",")))
