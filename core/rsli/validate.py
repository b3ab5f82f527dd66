"""Every check of an RsLi archive: the header's and the table's (made while reading), then each member
unpacked to its declared size (world-digest W13, W17)."""

from __future__ import annotations

from ..errors import Finding, warning
from .archive import MEMBER, WRITABLE, Archive, method_name


def validate_rsli(archive: Archive) -> list[Finding]:
    """The reading's findings, then each member's: whether it unpacks to its declared size; a note for a method
    no shipped file uses (read, but not written back)."""
    findings = list(archive.findings)
    seen: dict[bytes, int] = {}
    for i, member in enumerate(archive.members):
        if member.unreadable is not None:
            continue
        key = member.name.upper()
        if key in seen:
            findings.append(warning(MEMBER, i, f"the name repeats row {seen[key]}'s; lookups find the first"
                                    ).located(member.name_str))
        seen.setdefault(key, i)
        if member.method not in WRITABLE:
            findings.append(warning(MEMBER, i, f"{method_name(member.method)} is used by no shipped archive; the "
                                               "member is read but not written back").located(member.name_str))
        findings += member.unpack()[1]
    return findings
