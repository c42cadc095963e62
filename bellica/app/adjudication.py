"""The app's forms for the rest of a round: the engagements (phase 3, read-only), the
administration choices (phase 4), and commit-reveal orders, so a round with battles is played
from browsers alone.

Each form has a section builder (HTML, every value escaped) and a handler that turns the posted
fields into the engine's own call -- the same functions the CLI calls, so every rule and every
refusal is the engine's:

================================  =========  ==================================================
form (POST)                       who        engine call
================================  =========  ==================================================
``/umpire/administer``            umpire     ``rounds.run_administration`` with the choices
                                             typed in the administration choices format
                                             (docs/rules/rounds.md); hexes may be hex names
``/commit``                       faction    ``rounds.commit_orders`` (only the digest is sent)
``/reveal-orders``                faction    ``rounds.reveal_orders`` (the committed orders file
                                             and secret, checked against the digest)
================================  =========  ==================================================

Decisions where the issue is silent:

* A retreat is the declared ``retreat`` step (engine/vae_victis/steps.py: a side's step the umpire
  may take too, signed): a player's page draws its form, a box per army the token commands in an
  engagement not yet fought (engine/vae_victis/offers.py), posted to ``/step/retreat``; ``/retreat``
  (field ``army``) is the same step, for scripts.  The step refuses an army the signer does not
  command, so the command line and the page give the same permission.
* The umpire's page has no form of its own for a result or the administration: they
  are the declared steps' forms (bellica/app/step_forms.py, the values offered by
  engine/vae_victis/offers.py); ``/umpire/administer`` (the choices in the administration choices
  format) stays for scripts that post it, and ``/umpire/result`` (``casualties-ARMY`` fields) runs
  the declared result step (bellica/app/vae_victis.py).
* Commit-reveal in the browser: the orders file and its digest are made by the page's own script
  on the player's machine (static/commit_digest.js, the engine's canonical JSON and SHA-256) and
  only the digest is posted, because the point of the mode is that the server never holds the
  orders before the reveal; the file and secret stay in that browser's storage for the reveal.
  An order check as one types would send them, so the page offers none in that mode.
"""

from __future__ import annotations

from typing import Mapping

from bellica.app.pages import e

__all__ = ["battles_section", "commit_reveal_section",
           "post_administer", "post_commit", "post_reveal"]


# --- phase 3: engagements and results --------------------------------------------------------------


def battles_section(c, ident) -> str:
    """The round's engagements with their set-up and result (a player retreats by the declared
    retreat step's form, :mod:`bellica.app.step_forms`)."""
    from bellica.engine.vae_victis.rounds.machine import read_round

    r = read_round(c)
    rows = r.engagement_rows()
    if r.phase != "battles":
        return ""
    if not rows:
        return '<h2>Engagements</h2><p id="engagements">no engagements this round</p>'
    setups = r.note("setups") or {}
    parts = ['<h2>Engagements</h2><div id="engagements">']
    for row in rows:
        number = row[2]
        setup = setups.get(str(number), f"engagement {number}")
        results = r.results_for(number)
        done = "; ".join(f"army {a} {res[3]}, {res[4]}% casualties" for a, res in sorted(results.items()))
        parts.append(f'<div class="box" id="engagement-{number}"><p>{e(setup)}</p>'
                     f"<p>result: {e(done) if done else 'awaiting'}</p>")
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


# --- phase 4: administration --------------------------------------------------------------------------


def post_administer(c, form: Mapping[str, str]):
    from bellica.engine.vae_victis.hex_names import named_hexes
    from bellica.engine.vae_victis import rounds

    choices = rounds.parse_choices_text(form.get("choices", ""), "the administration form")
    return rounds.run_administration(c, named_hexes(c, choices))


# --- commit-reveal orders ----------------------------------------------------------------------------


def _orders_file_template(r, ident) -> str:
    """The orders file a commit-reveal player fills in: values by tomli_w, which escapes any name."""
    from bellica.geo.toml_text import toml_line

    lines = [toml_line("faction", ident.faction), toml_line("round", r.round), ""]
    for a in r.live_armies():
        if ident.commands(a):
            moves = toml_line("moves", "") + '        # clock positions, e.g. "9 11"; "" stands still'
            lines += [f"[armies.{int(a.id)}]", moves, ""]
    return "\n".join(lines)


def _campaign_key(c) -> str:
    """What tells this campaign's round from another's in the browser's keeping (never a secret)."""
    return f"{c.path.name}:{int(c.snapshot().campaign('round'))}"


def _digest_helper(c, r, ident) -> str:
    """The in-browser maker of the orders file and its digest (static/commit_digest.js): moves per
    army and a secret, never posted (no name attribute)."""
    rows = "".join(f'<p><label for="cr-moves-{int(a.id)}">moves of army {int(a.id)} (clock positions, empty stands '
                   f'still)</label> <input type="text" class="cr-moves" id="cr-moves-{int(a.id)}" data-army="{int(a.id)}" '
                   'autocomplete="off"></p>' for a in r.live_armies() if ident.commands(a))
    return (f'<div id="cr-helper" class="box" data-faction="{e(ident.faction)}" data-round="{int(r.round)}" '
            f'data-campaign="{e(_campaign_key(c))}">{rows}'
            '<p><label for="cr-secret">secret (keep it until the reveal)</label> '
            '<input type="text" id="cr-secret" autocomplete="off"> <button type="button" id="cr-new-secret">new '
            'secret</button> <button type="button" id="cr-make">make the digest</button></p>'
            '<p id="cr-said" role="status"></p><p><label for="cr-file">your orders file (kept in this browser for the '
            'reveal)</label></p><textarea id="cr-file" rows="6" readonly>'
            f'{e(_orders_file_template(r, ident))}</textarea></div>')


def commit_reveal_section(c, ident, typed: Mapping[str, str] | None = None) -> str:
    """The player's commit form (until every faction has committed) or reveal form (after); a
    refused one keeps what its player ``typed``."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.reveal import COMMITMENTS_NOTE, REVEAL_NOTE, REVEALS_NOTE, is_locked

    r = read_round(c)
    if is_locked(r):
        return ""
    kept = typed or {}
    committed = r.note(COMMITMENTS_NOTE) or {}
    revealed = r.note(REVEALS_NOTE) or {}
    mine = committed.get(ident.faction)
    state = (f"{e(ident.faction)} has committed (digest {e(mine[:16])}...)" if mine else f"{e(ident.faction)} has not committed")
    if ident.armies is not None:
        return f'<p id="commit-state">{state}. Commitments are the faction\'s: its own token commits and reveals.</p>'
    howto = ("<p>This campaign takes orders in <b>commit-reveal</b> mode: the server never holds your orders before "
             "the reveal. Give your moves and a secret below and press “make the digest”: this page makes your "
             "orders file and its digest <i>in your browser</i>, and keeps the file and the secret in it for the "
             "reveal; only the digest is sent when you commit. (A digest made elsewhere may be pasted too.)</p>")
    script = '<script src="/static/commit_digest.js"></script>'
    if r.note(REVEAL_NOTE) is None:
        return (f'<p id="commit-state">{state}</p>{howto}{_digest_helper(c, r, ident)}'
                '<form method="post" action="/commit" id="commit"><label for="digest">digest (64 hex digits)</label> '
                f'<input type="text" name="digest" id="digest" autocomplete="off" value="{e(kept.get("digest", ""))}"> '
                f"<button>commit (replaces your earlier commitment)</button></form>{script}")
    if ident.faction in revealed:
        return f'<p id="commit-state">{e(ident.faction)} has revealed its orders.</p>'
    return (f'<p id="commit-state">{state}; the reveal window is open.</p>'
            f'<form method="post" action="/reveal-orders" id="reveal" data-campaign="{e(_campaign_key(c))}">'
            '<p>The orders file you committed to, exactly, and its secret (filled in from this browser when it '
            'made the digest):</p><label for="reveal-orders">orders file</label>'
            f'<textarea name="orders" id="reveal-orders" rows="10">{e(kept.get("orders", ""))}</textarea>'
            '<label for="secret">secret</label> <input type="text" name="secret" id="secret" autocomplete="off"> '
            f"<button>reveal</button></form>{script}")


def _faction_token(ident) -> None:
    from bellica.geo.errors import InputError

    if ident.armies is not None:
        raise InputError(f"commitments are {ident.faction}'s: its own token commits and reveals, not {ident.name}'s")


def post_commit(c, ident, form: Mapping[str, str]):
    from bellica.engine.vae_victis import rounds

    _faction_token(ident)
    return rounds.commit_orders(c, ident.faction, form.get("digest", ""), submitted_by=ident.submitted_by)


def post_reveal(c, ident, form: Mapping[str, str]):
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.order_form import revealed_orders

    _faction_token(ident)
    orders = revealed_orders(c, ident.faction, form.get("orders", ""))
    return rounds.reveal_orders(c, ident.faction, orders, form.get("secret", ""),
                                submitted_by=ident.submitted_by, source="the reveal form")
