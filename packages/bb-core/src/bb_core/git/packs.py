"""Reading objects straight out of a git pack file, without building dulwich objects.

Mining a long history reads tens of thousands of commits and trees; dulwich's general
object lookup builds a Python object for each, which costs more than inflating it. A
:class:`PackFile` maps the pack and its index into memory, finds an object's offset with
one search in C, and inflates the entry itself. :mod:`bb_core.git` falls back to dulwich
for anything this reader does not handle (other index versions, thin packs).
"""

from __future__ import annotations

import mmap
import struct
import zlib
from typing import Any

#: Pack type numbers of whole objects: commit, tree, blob, tag (not deltas).
WHOLE_TYPES = frozenset({1, 2, 3, 4})
OFS_DELTA, REF_DELTA = 6, 7
#: Where a version 2 pack index's names start, and the longest stretch of them searched
#: with one find() (a pack of up to about 200,000 objects); longer ones are bisected.
IDX_NAMES = 8 + 256 * 4
FIND_SPAN = 16 * 1024


class PackFile:
    """One pack's data file mapped into memory, its entries read without dulwich objects.

    Building dulwich's object for every entry costs more than inflating it; reading the
    entry header and inflating the data here roughly halves the cost of each object.
    """

    def __init__(self, pack: Any) -> None:
        self.index = pack.index
        with open(pack._data_path, "rb") as file:
            self.map = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self.names: mmap.mmap | None = None  # the index file, when it is version 2
        self.fanout: tuple[int, ...] = ()
        with open(pack._idx_path, "rb") as file:
            names = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        if names[:8] != b"\377tOc\0\0\0\2":
            names.close()
            return
        self.names = names
        self.fanout = struct.unpack_from(">256I", names, 8)
        count = self.fanout[255]
        self.offsets = IDX_NAMES + 24 * count  # past the names and their checksums
        self.large = self.offsets + 4 * count

    def close(self) -> None:
        self.map.close()
        if self.names is not None:
            self.names.close()

    def offset(self, binsha: bytes) -> int:
        """Where object *binsha* starts in the pack; KeyError when the pack lacks it.

        The index's fan-out table narrows the search to the names sharing the first
        byte; a small stretch is searched with one ``find`` in C, which is quicker than
        a bisection calling back into Python at every step.
        """
        names = self.names
        if names is None:
            return int(self.index.object_offset(binsha))
        first = binsha[0]
        low, high = (self.fanout[first - 1] if first else 0), self.fanout[first]
        if (high - low) * 20 > FIND_SPAN:
            return int(self.index.object_offset(binsha))
        end = IDX_NAMES + 20 * high
        at = names.find(binsha, IDX_NAMES + 20 * low, end)
        while at >= 0 and (at - IDX_NAMES) % 20:  # a match straddling two names
            at = names.find(binsha, at + 1, end)
        if at < 0:
            raise KeyError(binsha)
        (offset,) = struct.unpack_from(">I", names, self.offsets + 4 * ((at - IDX_NAMES) // 20))
        if offset & 0x80000000:  # the offset lives in the table of large offsets
            (offset,) = struct.unpack_from(">Q", names, self.large + 8 * (offset & 0x7FFFFFFF))
        return int(offset)

    def entry(self, offset: int) -> tuple[int, int | bytes | None, bytes]:
        """(type number, delta base, inflated data) of the entry at *offset*.

        The base is None for a whole object, the base's offset for an offset delta, and
        the base's binary sha for a reference delta.
        """
        data = self.map
        byte = data[offset]
        kind, size, shift, pos = (byte >> 4) & 7, byte & 15, 4, offset + 1
        while byte & 0x80:
            byte = data[pos]
            size |= (byte & 0x7F) << shift
            shift += 7
            pos += 1
        base: int | bytes | None = None
        if kind == OFS_DELTA:
            byte = data[pos]
            distance = byte & 0x7F
            pos += 1
            while byte & 0x80:
                byte = data[pos]
                distance = ((distance + 1) << 7) | (byte & 0x7F)
                pos += 1
            base = offset - distance
        elif kind == REF_DELTA:
            base = data[pos : pos + 20]
            pos += 20
        elif kind not in WHOLE_TYPES:
            raise ValueError(f"unknown pack object type {kind}")
        return kind, base, self._inflate(pos, size)

    def _inflate(self, pos: int, size: int) -> bytes:
        """*size* bytes inflated from the zlib stream at *pos*."""
        stream = zlib.decompressobj()
        window = size + 64 + size // 1024  # deflate's worst case for incompressible data
        out = stream.decompress(self.map[pos : pos + window])
        end = len(self.map)
        while not stream.eof and pos + window < end:
            pos += window
            window = 1 << 16
            out += stream.decompress(self.map[pos : pos + window])
        if not stream.eof or len(out) != size:
            raise ValueError("damaged pack entry")
        return out
