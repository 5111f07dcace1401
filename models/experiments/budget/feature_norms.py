#!/usr/bin/python3
"""The L2 norm of each input column of a checkpoint's feature projection (feature_proj.weight,
[hidden, columns]) and the columns it reads (config.json), e.g. how far fine-tuning moved the
budget columns from their zero start. Reads safetensors without the safetensors package.
  feature_norms.py CHECKPOINT_DIR
"""
import json
import struct
import sys

import numpy as np

d = sys.argv[1]
with open(f"{d}/weights.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
    m = header["feature_proj.weight"]
    begin, end = m["data_offsets"]
    f.seek(8 + n + begin)
    w = np.frombuffer(f.read(end - begin), dtype=np.float32).reshape(m["shape"])
arch = json.load(open(f"{d}/config.json"))["architecture"]
cols = arch.get("feature_columns") or list(range(arch["num_features"]))
for c, norm in zip(cols, np.linalg.norm(w, axis=0)):
    print(f"column {c}: L2 norm {norm:.3f}")
