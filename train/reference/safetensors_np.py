"""Read and write safetensors files with numpy alone (the checkpoint weight format).

Layout: 8-byte little-endian header size N, N bytes of JSON
{name: {"dtype": "F32"|"F64"|"I64"|"BOOL", "shape": [...], "data_offsets": [b, e]},
 "__metadata__": {str: str}}, then the raw little-endian bytes of every tensor.
"""
import json
import struct

import numpy as np

DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "BOOL": np.bool_}
NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


def load(path):
    """Returns (tensors: dict name -> np.ndarray, metadata: dict)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    meta = header.pop("__metadata__", {})
    out = {}
    for name, spec in header.items():
        b, e = spec["data_offsets"]
        dtype = np.dtype(DTYPES[spec["dtype"]]).newbyteorder("<")
        out[name] = np.frombuffer(data[base + b:base + e], dtype=dtype).reshape(spec["shape"]).copy()
    return out, meta


def save(path, tensors, metadata=None):
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = metadata
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr)
        raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": NAMES[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for c in chunks:
            f.write(c)
