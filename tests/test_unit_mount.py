"""The mounting rule. An external part's nodes hang on its socket without the part's
node 0, so each node's world matrix is the socket's world times the part's own local chain, at every time."""

import numpy as np
import pytest
from unit_fixtures import loader

from core.animation.pose import pose_matrix
from core.animation.sampler import AnimationData, sample, world_matrices_at
from core.authoring import units
from core.container.nres import Archive
from core.unit.cpt import points_of
from core.unit.dat import parse_dat
from core.unit.mount import (
    NONE,
    MountedPart,
    PartNodes,
    assemble,
    mounted_damage_rows,
    mounted_points,
    part_placement,
    unit_world_matrices,
)
from core.unit.resolve import resolve_unit

TIMES = np.array([0.0, 3.5, 10.0, 17.25, 40.0, 55.0], np.float32)


@pytest.fixture(scope="module")
def game():
    return units.unit_files()


@pytest.fixture(scope="module")
def unit(game):
    return resolve_unit(parse_dat(game[units.UNIT_DAT]), Archive.parse(game[units.OBJECTS]), loader(game))


def unit_node(unit, component, node):
    return unit.assembly.owner.index((component, node))


def local(unit, component, node, t):
    s = sample(AnimationData.from_model(unit.parts[component].model), [t], [node])
    return pose_matrix(s.rot[0, 0], s.pos[0, 0]).astype(np.float64)


def chain(unit, component, nodes, t):
    out = np.eye(4)
    for node in nodes:
        out = out @ local(unit, component, node, t)
    return out


def test_the_unit_tree_renumbers_each_part_below_its_socket(unit):
    assert unit.findings == []
    a = unit.assembly
    # chassis 0..3; turret L (component 2) nodes 1..3 -> 4..6; guns 7..8 and 9..10; turret M 11..13; gun 14..15
    assert a.node_count == 16
    assert a.parents.tolist() == [NONE, 0, 0, 0, 1, 4, 4, 5, 7, 6, 9, 2, 11, 12, 13, 14]
    assert a.owner[4] == (2, 1) and a.owner[14] == (6, 1)
    assert a.parts[1].nodes is None and a.parts[1].device == 0      # the engine is a controller device (INTO)
    assert a.parts[7].nodes is None and a.parts[7].device == 0      # the clip sits at its gun's device 0
    assert a.parts[2].socket == 1 and a.parts[5].socket == 2 and a.parts[6].socket == 13


def test_world_matrices_are_socket_world_times_the_part_local_chain(unit):
    world = unit_world_matrices(unit.assembly, unit.animations(), TIMES)
    for ti, t in enumerate(TIMES):
        chassis = world_matrices_at(AnimationData.from_model(unit.parts[0].model), [t])[:, 0]
        assert np.allclose(world[:4, ti], chassis, atol=1e-6)
        socket_l = chassis[1]
        # turret L: Turn (1) and its sockets (2, 3), never its root (turned 40 degrees)
        assert np.allclose(world[unit_node(unit, 2, 1), ti], socket_l @ chain(unit, 2, [1], t), atol=1e-5)
        assert np.allclose(world[unit_node(unit, 2, 3), ti], socket_l @ chain(unit, 2, [1, 3], t), atol=1e-5)
        rooted = socket_l @ chain(unit, 2, [0, 1], t)
        assert not np.allclose(world[unit_node(unit, 2, 1), ti], rooted, atol=1e-3)
        # the second gun on turret L, and the gun on turret M three parts deep
        gun_socket = socket_l @ chain(unit, 2, [1, 3], t)
        assert np.allclose(world[unit_node(unit, 4, 2), ti], gun_socket @ chain(unit, 4, [1, 2], t), atol=1e-5)
        m_socket = chassis[2] @ chain(unit, 5, [1, 2, 3], t)
        assert np.allclose(world[unit_node(unit, 6, 2), ti], m_socket @ chain(unit, 6, [1, 2], t), atol=1e-5)


def test_placing_the_whole_part_at_socket_times_inverse_root_gives_the_same_nodes(unit):
    """The data-level form of the rule (openparkan assembly.py): part_place = socket @ inv(root)."""
    world = unit_world_matrices(unit.assembly, unit.animations(), TIMES)
    for component in (2, 3, 4, 5, 6):
        mounted = unit.assembly.parts[component]
        model_world = world_matrices_at(AnimationData.from_model(unit.parts[component].model), TIMES)
        for ti, t in enumerate(TIMES):
            place = part_placement(world[mounted.socket, ti], local(unit, component, 0, t))
            for node in range(1, len(mounted.nodes)):
                assert np.allclose(world[mounted.nodes[node], ti], place @ model_world[node, ti], atol=1e-5)


def test_points_on_node_0_sit_on_the_socket_and_damage_row_0_is_skipped(unit):
    turret = unit.assembly.parts[2]
    nodes, carriers, findings = mounted_points(unit.parts[2].points, turret)
    assert nodes.tolist() == [1, 4] and carriers.tolist() == [1, 4] and findings == []
    assert mounted_damage_rows(unit.parts[2].damage, turret) == [(4, 1), (5, 2), (6, 3)]
    chassis = unit.assembly.parts[0]
    assert mounted_damage_rows(unit.parts[0].damage, chassis) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert mounted_points(unit.parts[0].points, chassis)[0].tolist() == [0, 3]
    assert mounted_damage_rows(unit.parts[1].damage, unit.assembly.parts[1]) == []


def test_a_socket_that_does_not_exist_is_a_finding_and_its_subtree_stays_unmounted():
    parents = [None, 0, 1]
    parts = [PartNodes(np.array([NONE, 0]), False), PartNodes(np.array([NONE, 0, 1]), True),
             PartNodes(np.array([NONE, 0]), True)]
    assembly = assemble(parents, [-1, 9, 1], parts)
    assert assembly.node_count == 2 and assembly.parts[1] is None and assembly.parts[2] is None
    assert [f.message for f in assembly.findings] == [
        "attach 9 is not a node of the parent part (2 nodes)", "not mounted: its parent component 1 is not mounted"]
    bad_parent = assemble([None, 0], [-1, 1], [PartNodes(np.array([NONE, 0]), False),
                                               PartNodes(np.array([NONE, 7, 0]), True)])
    assert bad_parent.parents.tolist() == [NONE, 0, NONE, 1]
    assert "node 1: parent 7 is not a node of the part" in [f.message for f in bad_parent.findings]


def test_a_fort_finds_its_model_through_the_redirect_and_mounts_a_turret(game):
    fort = resolve_unit(parse_dat(game[units.FORT_DAT]), Archive.parse(game[units.OBJECTS]), loader(game))
    assert fort.findings == []
    assert fort.parts[0].chain == ["synth_fort", "synth_fort_base"]
    assert fort.parts[0].files[".msh"] == (units.PARTS, "synth_fort_base.msh")
    world = unit_world_matrices(fort.assembly, fort.animations(), [0.0])
    base = world_matrices_at(AnimationData.from_model(fort.parts[0].model), [0.0])[1, 0]
    turn = world[fort.assembly.owner.index((1, 1)), 0]
    s = sample(AnimationData.from_model(fort.parts[1].model), [0.0], [1])
    assert np.allclose(turn, base @ pose_matrix(s.rot[0, 0], s.pos[0, 0]), atol=1e-6)


def test_missing_parts_are_findings_and_the_rest_still_mounts(game):
    parts = Archive.parse(game[units.PARTS])
    parts.remove("e_tur_mt_01.msh")
    files = dict(game)
    files[units.PARTS] = parts.to_bytes()
    unit = resolve_unit(parse_dat(game[units.UNIT_DAT]), Archive.parse(game[units.OBJECTS]), loader(files))
    messages = [f.message for f in unit.findings]
    assert ".msh: no 'e_tur_mt_01.msh' in synth_parts.rlb" in messages
    assert "not mounted: its parent component 5 is not mounted" in messages
    assert unit.parts[5].missing == [".msh"] and unit.assembly.parts[6] is None
    assert unit.assembly.node_count == 11
    world = unit_world_matrices(unit.assembly, unit.animations(), TIMES)
    assert np.isfinite(world).all()


def test_points_of_a_part_without_nodes_are_findings():
    """A part model with an empty node table (found by mutating the parts archive) mounts no nodes; its
    points name nodes it does not have, which is a finding, not an IndexError."""
    assembly = assemble([None, 0], [-1, 0], [PartNodes(np.array([NONE]), False), PartNodes(np.zeros(0), True)])
    assert assembly.parts[1].nodes.tolist() == [] and assembly.node_count == 1
    empty = MountedPart(1, np.zeros(0, np.int64), socket=0)
    nodes, carriers, findings = mounted_points(points_of([("P", 0, 1, (0, 0, 0), (0, 1, 0))]), empty)
    assert nodes.tolist() == [-1] and carriers.tolist() == [-1]
    assert [(f.severity, f.message) for f in findings] == [
        ("warning", "component 1: node 0 is not a node of the part (0 nodes): the point is not placed"),
        ("warning", "component 1: carrier 1 is not a node of the part (0 nodes): the point stays on its node")]
