"""The RsLi ("NL") archive (shared/spec/world-digest.md section 1): read, list, unpack, validate, repack."""

from .archive import DEFLATE, LZSS, METHOD_NAMES, STORED, WRITABLE, Archive, Member, is_rsli, is_rsli_file
from .validate import validate_rsli

__all__ = ["DEFLATE", "LZSS", "METHOD_NAMES", "STORED", "WRITABLE", "Archive", "Member", "is_rsli", "is_rsli_file",
           "validate_rsli"]
