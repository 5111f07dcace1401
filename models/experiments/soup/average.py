# Uniform average of float32 safetensors checkpoints with identical layouts (a "model soup",
# Wortsman et al. 2022), an experiment tool:
#   /usr/bin/python3 average.py OUT IN1 IN2 ... [--base PRETRAINED]
# With --base, also prints how far each input moved from the pre-trained weights (norm of the
# difference over the base's norm) and the cosine between each pair of moves.
import itertools, json, struct, sys
import numpy as np

args = sys.argv[1:]
base = None
if '--base' in args:
    i = args.index('--base')
    base = args[i + 1]
    del args[i:i + 2]
out, ins = args[0], args[1:]


def load(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    header = json.loads(b[8:8 + n])
    tensors = {k: v for k, v in header.items() if k != '__metadata__'}
    assert all(v['dtype'] == 'F32' for v in tensors.values()), path
    return tensors, b[8:8 + n], np.frombuffer(b[8 + n:], dtype=np.float32)


loaded = [load(p) for p in ins]
layout = {k: (v['shape'], v['data_offsets']) for k, v in loaded[0][0].items()}
for (tensors, _, _), p in zip(loaded, ins):
    assert {k: (v['shape'], v['data_offsets']) for k, v in tensors.items()} == layout, p
mean = np.mean([d.astype(np.float64) for _, _, d in loaded], axis=0)
with open(out, 'wb') as f:
    raw = loaded[0][1]
    f.write(struct.pack('<Q', len(raw)))
    f.write(raw)
    f.write(mean.astype(np.float32).tobytes())
print(f'averaged {len(ins)} checkpoints, {mean.size} floats, into {out}')
if base:
    tensors, _, b = load(base)
    assert {k: (v['shape'], v['data_offsets']) for k, v in tensors.items()} == layout, base
    b = b.astype(np.float64)
    moves = [d.astype(np.float64) - b for _, _, d in loaded]
    for p, m in zip(ins, moves):
        print(f'{p}: moved {np.linalg.norm(m) / np.linalg.norm(b):.3f} of the base norm')
    for (i, a), (j, c) in itertools.combinations(enumerate(moves), 2):
        cos = a @ c / np.linalg.norm(a) / np.linalg.norm(c)
        print(f'cosine of the moves of {ins[i]} and {ins[j]}: {cos:.3f}')
