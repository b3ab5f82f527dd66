"""RsLi's LZSS (world-digest W13-W14): Okumura's LZSS.C format, a 4096-byte ring of spaces written from 0xFEE,
flag bits least significant first (set: a literal), a match naming an absolute ring position and 3..18 bytes."""

from __future__ import annotations

RING = 4096
MAX_MATCH = 18
MIN_MATCH = 3
START = RING - MAX_MATCH  # 0xFEE
# Most output one packed byte can give: a flag byte and eight two-byte matches of 18 bytes each.
MAX_RATIO = 8 * MAX_MATCH / 17


def most_unpacked(packed_size: int) -> int:
    """The largest unpacked size ``packed_size`` bytes of LZSS can decode to."""
    return int(packed_size * MAX_RATIO) + MAX_MATCH


def unpack(packed: bytes | memoryview, size: int) -> tuple[bytes, int]:
    """The first ``size`` bytes ``packed`` decodes to, and how many packed bytes that read; fewer than ``size``
    bytes when the stream runs out first (the caller says so). Output never exceeds ``size``."""
    ring = bytearray(b" " * RING)
    out = bytearray()
    src = bytes(packed)
    r, i, n = START, 0, len(src)
    while len(out) < size and i < n:
        flags = src[i]
        i += 1
        for bit in range(8):
            if len(out) >= size or i >= n:
                break
            if flags >> bit & 1:
                byte = src[i]
                i += 1
                out.append(byte)
                ring[r] = byte
                r = (r + 1) & (RING - 1)
                continue
            if i + 1 >= n:
                i = n
                break
            low, high = src[i], src[i + 1]
            i += 2
            position = low | (high & 0xF0) << 4
            for k in range(min((high & 0x0F) + MIN_MATCH, size - len(out))):
                byte = ring[(position + k) & (RING - 1)]
                out.append(byte)
                ring[r] = byte
                r = (r + 1) & (RING - 1)
    return bytes(out), i


def pack(data: bytes) -> bytes:
    """``data`` as LZSS. Matches refer only to bytes already written (never to the ring's initial spaces, which
    LZSS.C's decoder fills only in part: W14), found through a chain of earlier places of each three bytes."""
    out = bytearray()
    chains: dict[bytes, list[int]] = {}
    i, n = 0, len(data)
    while i < n:
        flag_at = len(out)
        out.append(0)
        flags = 0
        for bit in range(8):
            if i >= n:
                break
            best_len, best_at = 0, 0
            if i + MIN_MATCH <= n:
                limit = min(MAX_MATCH, n - i)
                for j in reversed(chains.get(data[i:i + MIN_MATCH], ())[-64:]):
                    if i - j > START:
                        break
                    length = MIN_MATCH
                    while length < limit and data[j + length] == data[i + length]:
                        length += 1
                    if length > best_len:
                        best_len, best_at = length, j
                        if length == limit:
                            break
            step = best_len if best_len >= MIN_MATCH else 1
            if step == 1:
                flags |= 1 << bit
                out.append(data[i])
            else:
                position = (START + best_at) & (RING - 1)
                out += bytes((position & 0xFF, (position >> 4 & 0xF0) | (best_len - MIN_MATCH)))
            for k in range(i, i + step):
                if k + MIN_MATCH <= n:
                    chains.setdefault(data[k:k + MIN_MATCH], []).append(k)
            i += step
        out[flag_at] = flags
    return bytes(out)
