"""Sign-in tokens of ``tabula serve``: one secret per faction and one for the umpire, stored hashed.

The tokens live in the campaign file itself, in the table ``app_tokens(name, role, faction,
token_hash, created)`` that this module creates (it is the app's, not a state table: no event
records it, re-adjudication ignores it, and ``tests/schema``'s rule covers only the schema's own
tables).  Keeping them in the campaign means one file to copy, back up and hand over.  Only the
SHA-256 of each token is stored, so a copy of the file (or the umpire's SQL console, which can
read the table) never yields a token; a token is a 32-byte ``secrets.token_urlsafe`` value, too
long to guess, so an unsalted hash is enough.  :func:`issue_tokens` replaces every token at
once: issuing again revokes the old links (a lost or leaked link is fixed by re-issuing).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone

__all__ = ["TABLE", "Identity", "Issued", "issue_tokens", "lookup", "token_hash", "UMPIRE"]

TABLE = "app_tokens"
UMPIRE = "umpire"
_DDL = (f"CREATE TABLE IF NOT EXISTS {TABLE} (name VARCHAR PRIMARY KEY, role VARCHAR NOT NULL, "
        "faction VARCHAR, token_hash VARCHAR NOT NULL UNIQUE, created TIMESTAMP NOT NULL)")


@dataclass(frozen=True)
class Identity:
    """Who a request is: ``role`` "umpire" (``faction`` None) or "player" (its faction)."""

    name: str
    role: str
    faction: str | None

    @property
    def submitted_by(self) -> str:
        return f"token:{self.name}"


@dataclass(frozen=True)
class Issued:
    name: str
    role: str
    faction: str | None
    token: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def issue_tokens(campaign) -> list[Issued]:
    """New tokens for the umpire and every faction of ``campaign`` (an open, writable Campaign),
    replacing all earlier ones in one transaction; returns them (the only time they are seen)."""
    factions = list(campaign.ruleset.factions(campaign))
    issued = [Issued(UMPIRE, "umpire", None, secrets.token_urlsafe(32))]
    issued += [Issued(f, "player", f, secrets.token_urlsafe(32)) for f in factions]
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    con = campaign.con
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(_DDL)
        con.execute(f"DELETE FROM {TABLE}")
        con.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?)",
                        [[i.name, i.role, i.faction, token_hash(i.token), now] for i in issued])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return issued


def lookup(con, token: str | None) -> Identity | None:
    """The identity a presented token signs in as, or None (absent, unknown, revoked, or no tokens issued)."""
    if not token or len(token) > 200:
        return None
    try:
        row = con.execute(f"SELECT name, role, faction FROM {TABLE} WHERE token_hash = ?", [token_hash(token)]).fetchone()
    except Exception:  # no app_tokens table yet: nobody can sign in
        return None
    return Identity(*row) if row else None
