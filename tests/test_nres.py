import struct

import pytest
from fixtures import nres
from hypothesis import given
from hypothesis import strategies as st

from core.container.nres import MODEL_TYPE_ID, Archive, fold, lookup_key
from core.errors import FormatError


def three_entries():
    return [
        (1, "Beta", b"bbbbbbbbbbb", 1, 2, 3),
        (2, "alpha", b"a" * 8, 4, 5, 6),
        (3, "Gamma", b"", 0, 0, 0),
    ]


def test_parse_reads_every_field_and_payloads_are_views():
    data = nres(three_entries())
    archive = Archive.parse(data)
    assert [e.name for e in archive] == [b"Beta", b"alpha", b"Gamma"]
    beta = archive.entries[0]
    assert (beta.type_id, beta.attr1, beta.attr2, beta.attr3, beta.size) == (1, 1, 2, 3, 11)
    assert bytes(beta.data) == b"bbbbbbbbbbb"
    assert isinstance(beta.data, memoryview) and beta.data.obj is data
    assert archive.findings == []


def test_canonical_input_is_rewritten_identically():
    data = nres(three_entries())
    assert Archive.parse(data).to_bytes() == data
    assert Archive.parse(data).to_canonical_bytes() == data


def test_name_bytes_after_the_nul_are_kept():
    raw = b"name\0junk after nul".ljust(36, b"\xAA")[:35] + b"\0"
    data = nres([(1, "", b"x", 0, 0, 0)], names_raw=[raw])
    archive = Archive.parse(data)
    assert archive.entries[0].name == b"name"
    assert archive.entries[0].name_raw == raw
    assert archive.to_bytes() == data


def test_sort_index_uses_lowercase_fold():
    # '_' (0x5F) sorts after 'B' (0x42) when folding up, before 'b' (0x62) when folding down.
    entries = [(1, "AB.msh", b"1", 0, 0, 0), (1, "A_B.msh", b"2", 0, 0, 0), (1, "ab.MSH", b"3", 0, 0, 0)]
    archive = Archive.parse(nres(entries))
    written = Archive.parse(archive.to_canonical_bytes())
    table = [struct.unpack_from("<I", written.to_bytes(), len(written.to_bytes()) - 64 * 3 + 64 * i + 60)[0]
             for i in range(3)]
    assert table == [1, 0, 2]  # a_b.msh < ab.msh == ab.msh (stable: directory order)
    assert fold(b"A_B") < fold(b"AB")
    assert b"A_B".upper() > b"AB".upper()


def test_lookup_is_case_insensitive_and_returns_first_duplicate():
    entries = [(1, "dup", b"first", 0, 0, 0), (2, "Other", b"o", 0, 0, 0), (3, "DUP", b"second", 0, 0, 0)]
    archive = Archive.parse(nres(entries))
    assert bytes(archive.find("OTHER").data) == b"o"
    assert bytes(archive.find(b"Dup").data) == b"first"
    assert archive.find("missing") is None
    assert archive.to_bytes() == nres(entries)


def test_broken_sort_table_falls_back_to_linear_scan():
    entries = three_entries()
    data = nres(entries, sort_index=[7, 0, 1])
    archive = Archive.parse(data)
    assert any("sort_index" in f.message for f in archive.findings)
    assert bytes(archive.find("gamma").data) == b""
    assert archive.find("ALPHA") is archive.entries[1]
    assert archive.to_bytes() == data  # the broken table is kept as read


def test_unsorted_but_in_range_table_also_scans_linearly():
    data = nres(three_entries(), sort_index=[0, 1, 2])
    archive = Archive.parse(data)
    assert archive.find("alpha") is archive.entries[1]
    assert archive.find("gamma") is archive.entries[2]


def test_non_canonical_layout_is_rewritten_in_place():
    data = nres(three_entries(), gaps={0: b"UNREFERENCED REGION!!!!!"})
    archive = Archive.parse(data)
    assert archive.to_bytes() == data
    assert archive.to_canonical_bytes() != data


def test_shuffled_directory_order_round_trips():
    entries = [(13, "m", b"x" * 20, 1, 0, 20), (1, "m", b"y" * 38, 1, 0, 38), (3, "m", b"z" * 12, 1, 0, 12)]
    data = nres(entries)
    assert Archive.parse(data).to_bytes() == data


def test_edits_add_replace_remove_rename():
    archive = Archive.parse(nres(three_entries()))
    archive.add("new.msh", b"NRes-ish payload", MODEL_TYPE_ID)
    archive.replace("alpha", b"longer payload than before", attr1=9)
    archive.rename("Gamma", "delta")
    archive.remove("Beta")
    out = Archive.parse(archive.to_bytes())
    assert [e.name for e in out] == [b"alpha", b"delta", b"new.msh"]
    assert bytes(out.find("alpha").data) == b"longer payload than before"
    assert out.find("alpha").attr1 == 9
    assert out.to_bytes() == archive.to_bytes()
    assert len(out.to_bytes()) % 8 == 0


def test_other_entries_stay_byte_identical_after_replacing_one():
    archive = Archive.parse(nres(three_entries()))
    before = {e.name: bytes(e.data) for e in archive}
    archive.replace("Gamma", b"gggg")
    after = Archive.parse(archive.to_bytes())
    assert bytes(after.find("Beta").data) == before[b"Beta"]
    assert bytes(after.find("alpha").data) == before[b"alpha"]


@pytest.mark.parametrize("name, reason", [("x" * 36, "36 bytes"), ("a\0b", "NUL"), ("", "empty")])
def test_names_that_cannot_be_stored_are_refused(name, reason):
    archive = Archive()
    with pytest.raises(FormatError, match=reason):
        archive.add(name, b"")


def test_a_name_of_35_bytes_is_accepted():
    archive = Archive()
    archive.add("n" * 35, b"data")
    assert Archive.parse(archive.to_bytes()).entries[0].name == b"n" * 35


def _error_of(data):
    with pytest.raises(FormatError) as info:
        Archive.parse(data, source="f.rlb")
    return str(info.value)


@pytest.mark.parametrize("data, message", [
    (b"", "empty file"),
    (b"NRes\0\1", "truncated header: 6 bytes"),
    (b"XRes" + bytes(12), "bad magic"),
    (nres(three_entries(), version=0x200), "version 0x200"),
    (nres(three_entries(), count=-1), "negative entry count -1"),
    (nres(three_entries(), count=0x7FFFFFFF), "entry count 2147483647 needs"),
    (nres(three_entries(), total_size=99999), "total_size 99999 does not match the file length"),
    (nres(three_entries(), offsets=[16, 10**6, 40]), "entry[1]: error: payload [1000000, 1000008) lies outside"),
    (nres(three_entries(), offsets=[4, 24, 40]), "entry[0]: error: payload [4, 15) lies outside"),
    (nres(three_entries(), names_raw=[b"x" * 36, b"a".ljust(36, b"\0"), b"g".ljust(36, b"\0")]),
     "entry[0]: error: name has no NUL"),
    (bytes(range(256)) * 3, "bad magic"),
])
def test_broken_containers_are_rejected_with_a_precise_message(data, message):
    text = _error_of(data)
    assert message in text
    assert text.startswith("f.rlb: ")


def test_truncated_tail_is_rejected():
    data = nres(three_entries())
    assert "does not match the file length" in _error_of(data[:-10])


@st.composite
def archives_with_lookups(draw):
    """Archives whose names repeat in other cases, with the file's sort table folded, shuffled among equal names,
    out of order or out of range, and names to look up (present, in another case, absent, not cp1251)."""
    stems = draw(st.lists(st.sampled_from(["a", "A", "b", "B_", "b_", "ab", "AB", "\u0430", "\u0410", "z"]),
                          min_size=1, max_size=12))
    entries = [(1, name.encode("cp1251"), bytes([i]), 0, 0, 0) for i, name in enumerate(stems)]
    folded = sorted(range(len(entries)), key=lambda i: entries[i][1].lower())
    table = draw(st.sampled_from(["folded", "ties shuffled", "shuffled", "out of range"]))
    if table == "ties shuffled":  # still sorted by the folded name, equal names in the order drawn
        keys = draw(st.permutations(range(len(entries))))
        folded = sorted(folded, key=lambda i: (entries[i][1].lower(), keys[i]))
    elif table == "shuffled":
        folded = draw(st.permutations(folded))
    elif table == "out of range":
        folded = [*folded[:-1], len(entries) + 3]
    archive = Archive.parse(nres(entries, sort_index=folded), tolerant=True)
    if draw(st.booleans()):  # an edit: the lookup table is made anew from the entries
        archive.replace(archive.entries[0].name, b"longer than before")
    return archive, [*stems, *(s.upper() for s in stems), "absent", "\u263a"]


@given(archives_with_lookups())
def test_the_name_index_finds_what_find_finds(case):
    archive, names = case
    index = archive.name_index()
    for name in names:
        key = lookup_key(name)
        assert (None if key is None else index.get(key)) is archive.find(name)
