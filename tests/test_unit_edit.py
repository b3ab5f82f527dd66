"""A part moved to another socket of its parent; the parent's children in the game's
order (internal slots first in component order, then parts by ascending socket), every other byte as read."""

import pytest

from core.authoring import units
from core.errors import FormatError
from core.unit.dat import parse_dat
from core.unit.edit import with_attach

EXTERNAL = {2, 3, 4, 5, 6}


def test_moving_a_gun_reorders_only_its_parents_children():
    source = parse_dat(units.unit_tree().to_bytes())
    moved, order = with_attach(source, {3: 5}, EXTERNAL)  # gl01 from socket 2 to a socket past gl02's (3)
    assert order == [0, 1, 2, 4, 3, 5, 6, 7]
    assert [(c.display, c.attach) for c in moved.components][2:5] == [
        ("Turret L (tl01)", 1), ("Gun LL (gl02)", 3), ("Gun LL (gl01)", 5)]
    for new, old in enumerate(order):
        a, b = moved.components[new].to_bytes(), source.components[old].to_bytes()
        assert a[:0x44] == b[:0x44] and a[0x48:] == b[0x48:]  # only attach (+0x44) may differ
    assert source.components[3].attach == 2  # the source tree is not changed


def test_no_move_writes_the_tree_back_byte_for_byte_and_a_broken_tree_is_refused():
    data = units.unit_tree().to_bytes()
    same, order = with_attach(parse_dat(data), {}, EXTERNAL)
    assert same.to_bytes() == data and order == list(range(8))
    with pytest.raises(FormatError, match="no such part"):
        with_attach(parse_dat(data), {0: 1}, EXTERNAL)
    broken = parse_dat(data)
    broken.components[0].children = 99
    with pytest.raises(FormatError, match="runs past the end"):
        with_attach(broken, {3: 3}, EXTERNAL)
