#!/usr/bin/python3
"""What this machine gives PyTorch eager mode, the Python comparison server's engine: GFLOP/s of
the block-local attention's batched product (4 heads, 20 blocks of 256 queries against 768 keys,
48 wide, as on a 5,000-token document) and of a plain matrix product of the model's shape
(4,096 x 192 by 192 x 768), on N threads (median of 5 timed runs after 2 warm-ups). The serving
comparison's Python side depends on both (docs/benchmarks.md); bench/run-load records them with
the machine.

usage: eager_probe.py [THREADS]   prints one JSON object
"""
import json
import statistics
import sys
import time

import torch


def gflops(f, flops):
    for _ in range(2):
        f()
    times = []
    for _ in range(5):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return flops / statistics.median(times) / 1e9


def main():
    torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
    torch.set_grad_enabled(False)
    g = torch.Generator().manual_seed(1)
    q = torch.randn(1, 4, 20, 256, 48, generator=g)
    k = torch.randn(1, 4, 20, 768, 48, generator=g)
    a = torch.randn(4096, 192, generator=g)
    b = torch.randn(192, 768, generator=g)
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "attention_bmm_gflops": round(gflops(lambda: q @ k.transpose(-1, -2),
                                             4 * 20 * 256 * 768 * 48 * 2), 1),
        "matmul_gflops": round(gflops(lambda: a @ b, 4096 * 192 * 768 * 2), 1),
    }))


if __name__ == "__main__":
    main()
