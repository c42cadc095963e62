"""An orders file to fill in (:mod:`engine.vae_victis.orders`' format) for one faction's live
armies, every one standing in place (``moves = ""``) until the player writes its moves: the
play-by-email packet's ``orders-round-N.toml`` (``bellica export --packet``).

Made from the faction's player view only (:mod:`bellica.engine.vae_victis.player_view`), so it
names nothing the faction may not see; values are written by tomli-w, which escapes any name.
"""

from __future__ import annotations

from bellica.geo.toml_text import toml_comment as _comment
from bellica.geo.toml_text import toml_line as _value
from bellica.schema.view import PlayerView


def orders_round(view: PlayerView) -> int:
    """The round whose orders the players write next: this one in the orders phase, else the next."""
    return view.round if view.phase == "orders" else view.round + 1


def order_sheet(view: PlayerView, campaign_name: str) -> tuple[str, str]:
    """``(file name, TOML text)`` of the orders file for ``view``'s faction."""
    faction, round_ = view.viewer, orders_round(view)
    lines = [
        _comment(f"Orders of {faction} for round {round_} of {campaign_name} (written by `bellica export --packet` "
                 f"in round {view.round}, phase {view.phase})."),
        "# moves: clock positions and 0s separated by blanks, as the rules write them (\"3 3 5 0 5\");",
        "# \"\" stands in place.  Optional keys per army: initiative = \"strength\" or a sea zone,",
        "# lift_siege = true, assault = \"<structure it besieges>\", transfers = [{ to = ARMY, fp = N }],",
        "# sea_links = { \"<sea zone>\" = [\"<structure>\"] }.  Send the file back to the umpire.",
        _value("faction", faction),
        _value("round", round_),
    ]
    armies = sorted((f.properties for f in view.layer("armies").features if f.properties["faction"] == faction),
                    key=lambda a: a["id"])
    if not armies:
        lines.append("# no army of yours is on the board: nothing to order")
    sieges = [f.properties for f in view.layer("sieges").features]
    for a in armies:
        lines += ["", f"[armies.{int(a['id'])}]", _comment(_army_words(a))]
        for s in sieges:
            if str(a["id"]) in [x.strip() for x in str(s["armies"]).split(",")]:
                lines.append(_comment(f"besieging {s['structure']} (Resilience {s['resilience']}): "
                                      f"{_value('assault', s['structure'])} or lift_siege = true"))
        lines.append('moves = ""')
    return f"orders-round-{round_}.toml", "\n".join(lines) + "\n"


def _army_words(a) -> str:
    where = f"hex {a['cell']} ({a['kind']})"
    if a.get("structure"):
        where += f", at {a['structure']}"
    if a.get("navy"):
        where += f", a navy in {a['zones']}" if a.get("zones") else ", a navy"
    strength = "" if a.get("strength") is None else f", {int(a['strength'])} FP"
    return f"army {int(a['id'])}{strength}: {where}"
