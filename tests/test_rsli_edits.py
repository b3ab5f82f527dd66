"""The RsLi writer under random careless edits: members added, replaced (by either written method, or by the same
bytes), removed, renamed back and forth, the archive written twice, read again, saved through the write path
while another program rewrites the file. Every edit reaches the bytes, every member not edited since the last
read keeps its packed bytes, and a save over a file changed meanwhile is refused with nothing written.
RSLI_EDIT_EXAMPLES and RSLI_EDIT_STEPS soak more."""

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from core.authoring.fonts import sample_font
from core.authoring.rsli import sprites_archive
from core.disk import ChangedError
from core.rsli import DEFLATE, LZSS, Archive, validate_rsli
from core.write_path import Target, write

EXAMPLES = int(os.environ.get("RSLI_EDIT_EXAMPLES", "30"))
STEPS = int(os.environ.get("RSLI_EDIT_STEPS", "12"))
NAMES = ["A.TEX", "B.TEX", "PAL.PAL", "LOGO.TEX", "Z1", "COCKPIT.TEX"]


def small_font_archive() -> bytes:
    archive = Archive(seed=0x0F0F)
    archive.add("PAL.PAL", bytes(range(256)) * 2, LZSS)
    archive.add("ARIALTEX.TFT", sample_font()[:3000], LZSS)
    return archive.to_bytes()


SOURCES = [sprites_archive().to_bytes(), small_font_archive()]


class CarelessRsLiEdits(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="rsli_edits_"))
        self.path = self.folder / "sprites.lib"
        self.archive = None

    @rule(source=st.sampled_from(SOURCES))
    def read(self, source):
        self.path.write_bytes(source)
        self.reread(source)

    def reread(self, data):
        self.read_bytes = data
        self.archive = Archive.parse(data, str(self.path))
        self.expected = {m.name: m.data() for m in self.archive}
        self.order = [m.name for m in self.archive]
        self.read_order = list(self.order)
        self.untouched = {m.name: bytes(m.packed) for m in self.archive}

    @precondition(lambda self: self.archive is not None)
    @rule(name=st.sampled_from(NAMES), data=st.binary(max_size=300), method=st.sampled_from([LZSS, DEFLATE]))
    def add_or_replace(self, name, data, method):
        key = name.encode()
        if key in self.expected:
            self.archive.replace(name, data, method)
        else:
            self.archive.add(name, data, method)
            self.order.append(key)
        self.expected[key] = data
        self.untouched.pop(key, None)

    @precondition(lambda self: self.archive is not None and self.expected)
    @rule(data=st.data())
    def replace_with_the_same_bytes(self, data):
        name = data.draw(st.sampled_from(sorted(self.expected)))
        self.archive.replace(name, self.expected[name])
        self.untouched.pop(name, None)

    @precondition(lambda self: self.archive is not None and self.expected)
    @rule(data=st.data())
    def remove(self, data):
        name = data.draw(st.sampled_from(sorted(self.expected)))
        self.archive.remove(name)
        del self.expected[name]
        self.order.remove(name)
        self.untouched.pop(name, None)

    @precondition(lambda self: self.archive is not None and self.expected)
    @rule(data=st.data(), new=st.sampled_from(NAMES))
    def rename_there_and_back(self, data, new):
        name = data.draw(st.sampled_from(sorted(self.expected)))
        if new.encode() in self.expected:
            return
        self.archive.rename(name, new)
        self.archive.rename(new, name)  # the names as read: the sort fields stay as read too

    @precondition(lambda self: self.archive is not None)
    @rule()
    def write_twice_and_read_back(self):
        first = self.archive.to_bytes()
        assert self.archive.to_bytes() == first
        again = Archive.parse(first)
        assert validate_rsli(again) == []
        assert [m.name for m in again] == self.order
        assert {m.name: m.data() for m in again} == self.expected
        for member in again:
            if member.name in self.untouched:
                assert bytes(member.packed) == self.untouched[member.name], member.name

    @precondition(lambda self: self.archive is not None)
    @rule(meanwhile=st.booleans())
    def save(self, meanwhile):
        data = self.archive.to_bytes()
        if meanwhile:  # another program rewrites the file after it was read
            self.path.write_bytes(SOURCES[1] if self.read_bytes != SOURCES[1] else SOURCES[0])
            other = self.path.read_bytes()
            try:
                write([Target(str(self.path), data, read=self.read_bytes, owned=True)])
            except ChangedError:
                assert self.path.read_bytes() == other  # nothing written
                self.reread(other)
                return
            # not refused: the edits reached the file, or there were none (the other program's change is kept), or
            # the other program's bytes were ones this process had written itself (core.write_path.written_here)
            held = self.path.read_bytes()
            assert held == data or (data == self.read_bytes and held == other)
            self.reread(held)
            return
        write([Target(str(self.path), data, read=self.read_bytes, owned=True)])
        assert self.path.read_bytes() == data
        self.reread(data)

    @invariant()
    def unedited_archive_is_its_own_bytes(self):
        if self.archive is not None and self.order == self.read_order and set(self.untouched) == set(self.order):
            assert self.archive.to_bytes() == self.read_bytes

    def teardown(self):
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()


def test_careless_rsli_edits_are_written_or_refused():
    run_state_machine_as_test(CarelessRsLiEdits, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
