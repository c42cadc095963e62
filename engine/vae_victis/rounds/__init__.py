"""The Vae Victis II round the umpire walks through (seed: "Rounds"), one transaction per step.

Every step takes the :class:`~engine.core.campaign.Campaign` and is: open a
transaction, read the stored round, refuse it unless the phase machine allows it
(:mod:`.machine`), call the pure rules function of :mod:`engine.vae_victis.movement`,
``battles``, ``administration`` or ``victory`` on ``campaign.board``, record its
explanations and the resulting changes as events, commit.

By concern:

* :mod:`.machine`: the steps, phases and stages, the stored round, what comes next;
* :mod:`.status`: ``bellica round status``;
* :mod:`.initiative_step`: initiative uses, their publication, naval superiority;
* :mod:`.orders_step`: orders (sealed: :data:`ORDER_SEAL`), their validation and views;
* :mod:`.reveal`: the reveal and lock, the deadline, commit-reveal mode (docs/sealed-orders.md);
* :mod:`.movement_step`: simultaneous movement, then the engagements;
* :mod:`.battles_step`: engagements, results, retreats, the battle sheet;
* :mod:`.choices` and :mod:`.administration_step`: the administration phase and its choices file;
* :mod:`.player_choices`: a faction's own administration choices, sealed until administration;
* :mod:`.victory_step`: victory points, the victory conditions, the next round;
* :mod:`.recorded`: the steps a log records, for re-adjudication (driven by the core).
"""

from importlib import import_module

# Each name is imported from its module on first use (PEP 562), not all at once: a CLI step runs
# in a fresh process, and `bellica round status` needs none of the step modules (issue 11, part 1).
_WHERE = {
    "StepRefused": "bellica.engine.core.machine",
    "run_administration": ".administration_step",
    **dict.fromkeys(("battle_sheet", "declare_retreat", "record_result", "result_outcomes"), ".battles_step"),
    **dict.fromkeys(("AdminChoices", "load_choices", "parse_choices_text"), ".choices"),
    **dict.fromkeys(("naval_superiority", "publish_initiative", "submit_initiative"), ".initiative_step"),
    "run_movement": ".movement_step",
    **dict.fromkeys(("submit_choices", "faction_choices", "choosers"), ".player_choices"),
    **dict.fromkeys(("ORDER_SEAL", "order_submitters", "orders_view", "submit_orders"), ".orders_step"),
    **dict.fromkeys(("COMMIT_REVEAL", "MODES", "SEALED", "commit_orders", "orders_commitment", "reveal_orders",
                     "reveal_round", "set_deadline", "set_orders_mode"), ".reveal"),
    **dict.fromkeys(("RoundStatus", "round_status"), ".status"),
    "run_victory": ".victory_step",
}


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(where, __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE))


__all__ = [
    "StepRefused",
    "RoundStatus",
    "ORDER_SEAL",
    "round_status",
    "submit_initiative",
    "publish_initiative",
    "submit_orders",
    "orders_view",
    "order_submitters",
    "SEALED",
    "COMMIT_REVEAL",
    "MODES",
    "set_deadline",
    "set_orders_mode",
    "reveal_round",
    "orders_commitment",
    "commit_orders",
    "reveal_orders",
    "naval_superiority",
    "run_movement",
    "battle_sheet",
    "record_result",
    "result_outcomes",
    "declare_retreat",
    "AdminChoices",
    "parse_choices_text",
    "load_choices",
    "run_administration",
    "submit_choices",
    "faction_choices",
    "choosers",
    "run_victory",
]
