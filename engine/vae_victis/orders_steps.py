"""Vae Victis II's order steps as declared steps: ``orders`` (step 1.3), ``commitment``, ``commit``
and ``reveal-orders`` (commit-reveal mode), each usable from the command line and from a page.

``orders`` takes an army's moves and sea links as keyed parameters (``Param.keyed``, one value per
army): the command line's ``ARMY=MOVES`` words (``"9=3 3 5" 10=``) and ``--sea-links
ARMY=ZONE:STRUCTURE``, a page's ``moves-ARMY`` and ``sea-ARMY`` fields (one per army the signer
commands, :mod:`.offers`).  Both are read by the declarations' one parser and reach the same
rules (:func:`.rounds.submit_orders`).  The command line's other ways (``--file``, and ``--army``
with ``--moves`` and the options of one army) are not drawn on a page (``Param.on_page``): its
per-army fields give the same thing.

The step is ``signed``: an army player's token gives orders for its own armies only, recorded as
the token's.  A page's submission is refused too when a land move goes past its army's MP (the
seed's army spends its MP and moves no further: on a page plotted hex by hex, moves never made are
a slip, issue 21); the command line keeps the rules' own reading of such moves.

``check`` (served at ``POST /check/orders``) runs what ``run`` runs, nothing stored, and adds the
move preview's verdicts: every problem of every army at once, and warnings (a navy ending on a Sea
hex, a halt) that refuse nothing.  ``preview`` is one army's move previewed by the movement
step's own code, for the page's map (:mod:`.move_preview`).
"""

from __future__ import annotations

from typing import Any

from bellica.engine.core.steps import Param, ParamError

__all__ = ["COMMIT_PARAMS", "FACTION", "ORDERS_FILE", "ORDERS_PARAMS", "REVEAL_PARAMS", "UMPIRE_FLAG", "check_orders_step",
           "commit_step", "commitment_step", "orders_step", "preview_step", "reveal_orders_step"]

#: The faction flag, to name it in a refusal (the command line's option is the generated actor's).
FACTION = Param("faction", "The submitting faction.", flag="--faction")
#: A page never draws it: a player's page acts for the token's own faction (the umpire gives no orders there).
UMPIRE_FLAG = Param("umpire", "Submit as the umpire (recorded as \"umpire\"), for any army; refused in commit-reveal mode.",
                    "flag", "--umpire", on_page=False)
ORDERS_FILE = Param("orders_file", "A faction's TOML orders file (format: engine/vae_victis/orders.py).", flag="--file",
                    metavar="FILE", server_file=True, example="roma.toml")
#: ARMY=MOVES, keyed by army; blank moves stand still ("10=").  ITEMS: its name in messages, as before it was keyed.
MOVES_BY_ARMY = Param("moves", "ARMY=MOVES items: each army's moves as players write them (\"\" stands still).",
                      keyed="army", keeps_blank=True, metavar="ITEMS", example="9=3 3 5 0 5")
SEA_BY_ARMY = Param("sea", "ARMY=ZONE:STRUCTURE items: an army's sea-zone logistics links, several a `;` apart, with "
                           "its ARMY=MOVES.", flag="--sea-links", keyed="army", example="9=Mare Sardoum:Caralis")
SEA_LINK = Param("sea_links", 'ZONE:STRUCTURE, a sea-zone logistics link to that town/city (repeatable), e.g. '
                              '"Mare Sardoum:Caralis".', flag="--sea-link", many=True, on_page=False)
ONE_ARMY_MOVES = Param("army_moves", 'Moves as players write them: "3 3 5 0 5" ("" stands still).', flag="--moves",
                       keeps_blank=True, on_page=False)

ORDERS_PARAMS = (
    MOVES_BY_ARMY, SEA_BY_ARMY, ORDERS_FILE, UMPIRE_FLAG,
    Param("army", "One army's orders from the options below.", "whole", "--army", on_page=False),
    ONE_ARMY_MOVES,
    Param("initiative_use", "Initiative use (before publication only).  [default: strength]",
          flag="--initiative", default="strength", on_page=False),
    Param("assault", "Assault this besieged structure.", flag="--assault", on_page=False),
    Param("lift_siege", "Lift this army's siege.", "flag", "--lift-siege", on_page=False),
    Param("transfers", "TO:FP, FP given to army TO (repeatable).", flag="--transfer", many=True, on_page=False),
    SEA_LINK,
)


def _steps():
    from bellica.engine.vae_victis import steps

    return steps


def _given(c, actor, signer, i: dict[str, Any]):
    """(orders, syntax problems, faction, submitted_by, round, source) of the step's input, after the
    usage checks of its parameters together (one way of giving orders)."""
    from bellica.engine.vae_victis import orders as orders_mod
    from bellica.engine.vae_victis.order_form import orders_from_items

    s = _steps()
    moves, sea, orders_file, army, umpire = i["moves"], i["sea"], i["orders_file"], i["army"], i["umpire"]
    if i["sea_links"] and army is None:
        raise ParamError(SEA_LINK, "--sea-link goes with --army N (or a file's sea_links)")
    if sum([orders_file is not None, bool(moves), army is not None]) != 1:
        raise ParamError(MOVES_BY_ARMY, "give exactly one of: --file FILE, ARMY=MOVES items, or --army N --moves \"...\"")
    loose = sorted(set(sea) - set(moves))
    if loose:
        raise ParamError(SEA_BY_ARMY, f"army {loose[0]}'s sea links go with its moves: give {loose[0]}=MOVES too")
    round_, source, faction, file_faction, problems = None, s._source(signer, "the order form"), actor, None, []
    if orders_file is not None:
        parsed = orders_mod.load_orders_file(s._path(orders_file, "--file"))
        file_faction, round_, given, source = parsed.faction, parsed.round, dict(parsed.orders), str(orders_file)
    elif moves:
        given, problems = orders_from_items(moves, sea)
    else:
        if i["army_moves"] is None:
            raise ParamError(ONE_ARMY_MOVES, "--army needs --moves (\"\" to stand still)")
        given = {army: orders_mod.army_orders_from_cli(
            army, i["army_moves"], initiative=i["initiative_use"], lift_siege=i["lift_siege"], assault=i["assault"],
            transfers=i["transfers"], sea_links=i["sea_links"])}
    if orders_file is not None and file_faction is not None:
        file_faction = s._file_faction(c, file_faction, f"{orders_file} faction")
        if faction is not None and file_faction != faction:
            raise ParamError(FACTION, f"{orders_file} is for faction {file_faction!r}, not {faction!r}")
        if not umpire:
            faction = file_faction
    if orders_file is not None and faction is None and not umpire:
        raise ParamError(FACTION, f"{orders_file} names no `faction`: add faction = \"...\" to it, or give --faction F "
                                  "(or --umpire)")
    faction, by = s.submitter(faction, umpire)
    by = s._signed_by(c, signer, set(given) | set(moves), by, "give orders")
    return given, problems, faction, by, round_, source


def _on_page(signer) -> bool:
    return signer is not None and signer.by.startswith("token:")


def orders_step(c, actor, *, signer=None, **given):
    """Step 1.3: the orders stored sealed (every army's, or nothing); a page's past an army's MP refused."""
    from bellica.engine.vae_victis.order_form import past_mp
    from bellica.engine.vae_victis.orders import OrderSyntaxError
    from bellica.engine.vae_victis.rounds.machine import read_round

    orders, problems, faction, by, round_, source = _given(c, actor, signer, given)
    if _on_page(signer) and orders:
        problems = problems + past_mp(c, read_round(c), orders)
    if problems:
        raise OrderSyntaxError(problems, source)
    events = _steps()._rounds().submit_orders(c, orders, faction=faction, submitted_by=by, round=round_, source=source)
    return [_steps()._stored("orders", [e for e in events if e.kind == "put_orders"]),
            *(e.text for e in events if e.kind == "orders_revealed")]


def check_orders_step(c, actor, *, signer=None, **given) -> list[str]:
    """The orders checked as :func:`orders_step` would store them, nothing stored, with the move
    preview's verdicts: raises every problem of every army together, returns the warnings."""
    from bellica.engine.vae_victis.order_form import check_given
    from bellica.engine.vae_victis.orders import OrderError

    orders, problems, faction, by, round_, source = _given(c, actor, signer, given)
    warnings: list[str] = []
    problems = check_given(c, faction, by, orders, problems, source, warnings, round_)
    if problems:
        raise OrderError(problems, source)
    return warnings


def preview_step(c, actor, key, text, signer=None):
    """The ``orders`` step's declared preview: army ``key``'s moves ``text`` so far (:mod:`.move_preview`)."""
    from bellica.engine.vae_victis.move_preview import preview_orders

    return preview_orders(c, actor, key, text, signer)


# --- commit-reveal: the commitment and the reveal --------------------------------------------------------

DIGEST = Param("digest", "The commitment (64 hex digits) of your orders and secret, made on your machine "
                         "(`bellica round commitment`, or this page's own script).", flag="--digest")
#: Local on a page: the browser makes the digest from them, and neither reaches the server before the reveal.
COMMIT_MOVES = Param("moves", "ARMY=MOVES items to compute the commitment from (with --secret), as orders give them.",
                     keyed="army", keeps_blank=True, metavar="ITEMS", example="9=3 3", local=True)
COMMIT_PARAMS = (
    DIGEST,
    COMMIT_MOVES,
    Param("orders_file", "Or compute it here from the orders file ...", flag="--file", metavar="FILE", server_file=True),
    Param("secret", "... and the secret (only the digest is stored): a long random one, kept until the reveal.",
          flag="--secret", local=True),
)
REVEAL_ORDERS = Param("orders", "The orders file committed to, exactly as it was (its text).", flag="--orders",
                      multiline=True)
REVEAL_PARAMS = (
    Param("orders_file", "The orders file committed to.", flag="--file", metavar="FILE", server_file=True),
    REVEAL_ORDERS,
    Param("secret", "The secret committed with it.", flag="--secret", required=True),
)


def _orders_of(orders_file):
    from bellica.engine.vae_victis import orders as orders_mod

    return orders_mod.load_orders_file(_steps()._path(orders_file, "--file"))


def commitment_step(_none, _umpire, *, orders_file, secret):
    return [_steps()._rounds().orders_commitment(dict(_orders_of(orders_file).orders), secret)]


def commit_step(c, actor, *, digest, moves, orders_file, secret):
    """A faction's commitment: the digest given, or computed here from a file or ARMY=MOVES items and the secret."""
    from bellica.engine.vae_victis.order_form import orders_from_items
    from bellica.engine.vae_victis.orders import OrderSyntaxError

    ways = sum([digest is not None, orders_file is not None, bool(moves)])
    if ways != 1 or (digest is None) == (secret is None):
        raise ParamError(DIGEST, "give --digest D, or --file FILE (or ARMY=MOVES items) with --secret S")
    rounds = _steps()._rounds()
    if orders_file is not None:
        digest = rounds.orders_commitment(dict(_orders_of(orders_file).orders), secret)
    elif moves:
        orders, problems = orders_from_items(moves, {})
        if problems:
            raise OrderSyntaxError(problems, "the command line")
        digest = rounds.orders_commitment(orders, secret)
    return rounds.commit_orders(c, actor, digest, submitted_by=actor)


def reveal_orders_step(c, actor, *, orders_file, orders, secret):
    """A faction's reveal: the orders committed to (a file on the command line, or its text) and the secret."""
    from bellica.engine.vae_victis.order_form import revealed_orders

    s = _steps()
    if (orders_file is None) == (orders is None):
        raise ParamError(REVEAL_ORDERS, "give the orders committed to: --file FILE, or their text (--orders TEXT)")
    if orders is not None:  # the text of the file, as a page's reveal form gives it
        return s._rounds().reveal_orders(c, actor, revealed_orders(c, actor, orders), secret, submitted_by=actor,
                                         source="the reveal form")
    parsed = _orders_of(orders_file)
    if parsed.faction is not None and s._file_faction(c, parsed.faction, f"{orders_file} faction") != actor:
        raise ParamError(FACTION, f"{orders_file} is for faction {parsed.faction!r}, not {actor!r}")
    if parsed.round is not None and parsed.round != int(c.snapshot().campaign("round")):
        raise ParamError(ORDERS_FILE, f"{orders_file} is for round {parsed.round}, not the campaign's")
    return s._rounds().reveal_orders(c, actor, dict(parsed.orders), secret, submitted_by=actor, source=str(orders_file))
