"""The Vae Victis II round the umpire walks through (seed: "Rounds"), one transaction per step.

Every step takes the :class:`~engine.core.campaign.Campaign` and is: open a
transaction, read the stored round, refuse it unless the phase machine allows it
(:mod:`.machine`), call the pure rules function of :mod:`engine.vae_victis.movement`,
``battles``, ``administration`` or ``victory`` on ``campaign.board``, record its
explanations and the resulting changes as events, commit.

By concern:

* :mod:`.machine`: the steps, phases and stages, the stored round, what comes next;
* :mod:`.status`: ``tabula round status``;
* :mod:`.initiative_step`: initiative uses, their publication, naval superiority;
* :mod:`.orders_step`: orders (sealed: :data:`ORDER_SEAL`), their validation and views;
* :mod:`.reveal`: the reveal and lock, the deadline, commit-reveal mode (docs/sealed-orders.md);
* :mod:`.movement_step`: simultaneous movement, then the engagements;
* :mod:`.battles_step`: engagements, results, retreats, the battle sheet;
* :mod:`.choices` and :mod:`.administration_step`: the administration phase and its choices file;
* :mod:`.victory_step`: victory points, the victory conditions, the next round;
* :mod:`.recorded`: the steps a log records, for re-adjudication (driven by the core).
"""

from tabula.engine.core.machine import StepRefused
from tabula.engine.vae_victis.rounds.administration_step import run_administration
from tabula.engine.vae_victis.rounds.battles_step import battle_sheet, declare_retreat, record_result, result_outcomes
from tabula.engine.vae_victis.rounds.choices import AdminChoices, load_choices, parse_choices_text
from tabula.engine.vae_victis.rounds.initiative_step import naval_superiority, publish_initiative, submit_initiative
from tabula.engine.vae_victis.rounds.movement_step import run_movement
from tabula.engine.vae_victis.rounds.orders_step import ORDER_SEAL, order_submitters, orders_view, submit_orders
from tabula.engine.vae_victis.rounds.reveal import (
    COMMIT_REVEAL, MODES, SEALED, commit_orders, orders_commitment, reveal_orders, reveal_round, set_deadline, set_orders_mode,
)
from tabula.engine.vae_victis.rounds.status import RoundStatus, round_status
from tabula.engine.vae_victis.rounds.victory_step import run_victory

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
    "run_victory",
]
