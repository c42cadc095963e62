"""The app's sections for the rest of a round: the engagements (phase 3, read-only) and the
umpire's administration choices posted by scripts (phase 4).

Each form has a section builder (HTML, every value escaped) and a handler that turns the posted
fields into the engine's own call -- the same functions the CLI calls, so every rule and every
refusal is the engine's:

================================  =========  ==================================================
form (POST)                       who        engine call
================================  =========  ==================================================
``/umpire/administer``            umpire     ``rounds.run_administration`` with the choices
                                             typed in the administration choices format
                                             (docs/rules/rounds.md); hexes may be hex names
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
* Commit-reveal in the browser is the declared ``commit`` and ``reveal-orders`` steps' forms
  (bellica/app/step_forms.py; the digest made by static/commit_digest.js from fields never posted).
"""

from __future__ import annotations

from typing import Mapping

from bellica.app.pages import e

__all__ = ["battles_section", "post_administer"]


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
