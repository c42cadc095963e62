"""Property tests: random small boards, armies and move strings.

Never two armies in one hex at the end; enemies never share a hex at any MP and
friends only while one passes through; no army moves on after entering an enemy
ZoC; MP spent within 0..12; paths follow the orders; the result depends on the
input only (not on the order of the orders mapping).

Half the examples are *crowded* (two factions packed round the centre, moves kept
there): only they reach friendly pass-through and the end-of-movement step back
often enough for a broken step back to fail the first test.
"""

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bellica.engine.vae_victis.model import ArmyOrders, Siege, StructureInfo
from bellica.engine.vae_victis.movement import resolve_movement
from bellica.engine.vae_victis.rules import default_rules
from bellica.engine.vae_victis.orders import impassable_reason
from bellica.engine.vae_victis.zoc import army_zoc, zoc_sources
from bellica.geo.hexgrid import grid_distance
from tests.engine.boards import sketch

BASE = sketch(radius=3)
CELLS = sorted(BASE.board.hexes)
TERRAINS = ["farmlands", "farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks", "lake"]
FACTIONS = ["roma", "carthago", "syracusae"]


CROWDED_TERRAINS = ["farmlands", "farmlands", "farmlands", "desert", "hills"]
NEAR = sorted(c for c in CELLS if grid_distance(c, BASE.cell("")) <= 1)


@st.composite
def scenarios(draw, crowded=False):
    """Random boards, armies and orders.  ``crowded``: cheap terrain, two factions and up to
    7 armies packed round the centre, so armies pass through friends and are stopped there
    (the end-of-movement step back), which the sparse scenarios almost never reach."""
    board = BASE.board
    hexes = {}
    for c in CELLS:
        t = draw(st.sampled_from(CROWDED_TERRAINS if crowded else TERRAINS))
        h = board.hexes[c]
        hexes[c] = replace(h, kind="lake", terrain=None) if t == "lake" else replace(h, kind="land", terrain=t)
        hexes[c] = replace(hexes[c], river=draw(st.booleans()) if t != "lake" else False)
    edges = set()
    for _ in range(draw(st.integers(0, 3))):
        here = draw(st.sampled_from(CELLS))
        for _ in range(draw(st.integers(1, 6))):
            nxt = board.sides[here][draw(st.sampled_from(sorted(board.sides[here])))]
            edges |= {(here, nxt), (nxt, here)}
            here = nxt
    passable = [c for c in CELLS if impassable_reason(replace(board, hexes=hexes), c) is None]
    if len(passable) < 2:
        passable = CELLS[:2]
        for c in passable:
            hexes[c] = replace(hexes[c], kind="land", terrain="farmlands")
    structures = {}
    for i, c in enumerate(draw(st.lists(st.sampled_from(passable), max_size=3, unique=True))):
        name = f"S{i}"
        structures[name] = StructureInfo(name, draw(st.sampled_from(["town", "city"])), c,
                                         start_controller=draw(st.sampled_from(FACTIONS + [None])))
    board = replace(board, hexes=hexes, road_edges=frozenset(edges), structures=structures)
    sieges = [Siege(n, "roma", (), 2, 2, 1) for n in structures if draw(st.integers(0, 3)) == 0]

    if crowded:
        starts = draw(st.lists(st.sampled_from(sorted(set(NEAR) | set(draw(st.lists(st.sampled_from(passable),
                                                                                   max_size=3))))),
                               min_size=3, max_size=7, unique=True))
    else:
        starts = draw(st.lists(st.sampled_from(passable), min_size=1, max_size=min(6, len(passable)), unique=True))
    factions = FACTIONS[:2] if crowded else FACTIONS
    armies, orders = [], {}
    for i, start in enumerate(starts, 1):
        armies.append((i, draw(st.sampled_from(factions)), start, draw(st.sampled_from([1200, 1500, 1600]))))
        moves, here = [], start
        for _ in range(draw(st.integers(0, 8))):
            options = [0] + [k for k, n in sorted(board.sides[here].items()) if impassable_reason(board, n) is None]
            if crowded:  # keep to the centre, where the others are
                options = [k for k in options if k and grid_distance(board.sides[here][k], BASE.cell("")) <= 1] or options
            k = draw(st.sampled_from(options))
            moves.append(k)
            if k:
                here = board.sides[here][k]
        orders[i] = ArmyOrders(i, tuple(moves))
    tm = replace(BASE, board=board)
    vp = {f: draw(st.integers(-3, 3)) for f in FACTIONS}
    state = tm.state(armies, sieges=sieges, victory_points=vp)
    logistics = {"roma": frozenset(e for e in edges if draw(st.booleans()))} if edges else {}
    navy = {"carthago": frozenset(draw(st.lists(st.sampled_from(CELLS), max_size=4)))}
    options = replace(
        default_rules().movement,
        contest_window=draw(st.sampled_from(["move", "arrival"])),
        structure_road_any_side=draw(st.booleans()),
        halt_when_enemy_arrives=draw(st.booleans()),
    )
    return board, state, orders, logistics, navy, options


def run(board, state, orders, logistics, navy, options=None):
    return resolve_movement(board, state, orders, logistics_road_edges=logistics, navy_zoc=navy, options=options)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.one_of(scenarios(), scenarios(crowded=True)))
def test_never_two_armies_in_one_hex(sc):
    board, state, orders, *_ = sc
    r = run(*sc)
    final = [a.cell for a in r.state.armies if not a.eliminated]
    assert len(final) == len(set(final))
    faction = {a.id: a.faction for a in state.armies}
    for t, positions in enumerate(r.timeline):
        by_cell = {}
        for aid, c in positions.items():
            by_cell.setdefault(c, []).append(aid)
        for c, ids in by_cell.items():
            if len(ids) < 2:
                continue
            # never with an enemy; with friends only while passing through
            assert len({faction[i] for i in ids}) == 1, (t, c, ids)
            leavers = [i for i in ids if r.state.army(i).cell != c or i in r.stepped_back]
            assert len(leavers) >= len(ids) - 1, (t, c, ids)


@SETTINGS
@given(st.one_of(scenarios(), scenarios(crowded=True)))
def test_never_moves_on_after_entering_enemy_zoc(sc):
    board, state, orders, *_ = sc
    r = run(*sc)
    faction = {a.id: a.faction for a in state.armies}
    structure_zoc = [s for s in zoc_sources(board, state) if s.kind == "structure"]
    for aid in faction:
        halted_at = None
        for t in range(1, len(r.timeline)):
            before, now = r.timeline[t - 1][aid], r.timeline[t][aid]
            if now == before:
                continue
            assert halted_at is None, f"army {aid} moved at MP {t} after entering an enemy ZoC at MP {halted_at}"
            enemy = set()
            for other, c in r.timeline[t].items():
                if faction[other] != faction[aid]:
                    enemy |= army_zoc(board, c)
            for s in structure_zoc:
                if s.faction != faction[aid]:
                    enemy |= s.cells
            if now in enemy:
                halted_at = t


@SETTINGS
@given(st.one_of(scenarios(), scenarios(crowded=True)))
def test_mp_and_paths_follow_the_orders(sc):
    board, state, orders, *_ = sc
    r = run(*sc)
    for a in state.armies:
        assert 0 <= r.mp_spent[a.id] <= default_rules().movement.points_per_round
        path = r.paths[a.id]
        assert path[0] == a.cell and path[-1] == r.state.army(a.id).cell
        intended = [a.cell]
        for k in orders[a.id].moves:
            if k:
                intended.append(board.sides[intended[-1]][k])
        assert list(path) == intended[: len(path)]
        if len(path) < len(intended) or (a.id in r.halted):
            assert a.id in r.halted or len(path) == len(intended)


@SETTINGS
@given(st.one_of(scenarios(), scenarios(crowded=True)))
def test_deterministic_and_independent_of_orders_order(sc):
    board, state, orders, logistics, navy, options = sc
    r1 = run(board, state, orders, logistics, navy, options)
    r2 = run(board, state, dict(reversed(list(orders.items()))), logistics, navy, options)
    for f in ("state", "events", "mp_spent", "paths", "halted", "timeline", "stepped_back"):
        assert getattr(r1, f) == getattr(r2, f), f
