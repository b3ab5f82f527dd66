"""The keystream RsLi XORs its entry table with (world-digest W5); the same loop encrypts and decrypts."""

from __future__ import annotations


def keystream_xor(data: bytes | memoryview, seed: int) -> bytes:
    """``data`` XORed with the keystream of ``seed`` (only its low 16 bits count): two 8-bit registers, A the
    seed's low byte and D its second; per byte A = (A << 1 & 0xFF) ^ D, out = in ^ A, D = (D >> 1) ^ A."""
    a, d = seed & 0xFF, seed >> 8 & 0xFF
    out = bytearray(data)
    for i, byte in enumerate(out):
        a = (a << 1 & 0xFF) ^ d
        out[i] = byte ^ a
        d = (d >> 1) ^ a
    return bytes(out)
