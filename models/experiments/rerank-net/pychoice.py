"""Fit the design chosen by cross-validation on all training documents; score the valid splits
once: R1 / R2 of the chosen candidates' served summaries, the greedy selection's, and a paired
bootstrap of the R1 difference."""
import os, sys, torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cv2 import load, feats, fit2, D
name = sys.argv[1]
des = D[name]
train = load(sys.argv[2])
xs = [feats(d, des) for d in train]
l2vec = torch.full((xs[0].shape[1],), des["l2"], dtype=torch.float64)
fn = fit2(xs, [d["r"] for d in train], l2vec, mlp=des.get("mlp", 0))
print(f"design {name}, fitted on {len(train)} training documents")
g = torch.Generator().manual_seed(1)
for path in sys.argv[3:]:
    docs = load(path)
    g1, c1, g2, c2, moved = [], [], [], [], 0
    for d in docs:
        s = fn(feats(d, des)); k = int(torch.argmax(s))
        if s[k] <= s[0]: k = 0
        moved += k != 0
        g1.append(d["r"][0, 0].item()); g2.append(d["r"][0, 1].item())
        c1.append(d["r"][k, 0].item()); c2.append(d["r"][k, 1].item())
    n = len(docs)
    delta = torch.tensor(c1) - torch.tensor(g1)
    idx = torch.randint(0, n, (10000, n), generator=g)
    boot = delta[idx].mean(1).sort().values
    print(f"{path}: {n} documents, {moved} moved off greedy | greedy {100*sum(g1)/n:.2f} / {100*sum(g2)/n:.2f}"
          f" | reranked {100*sum(c1)/n:.2f} / {100*sum(c2)/n:.2f} | R1 delta {100*delta.mean():+.2f}"
          f" [{100*boot[250]:+.2f}, {100*boot[9750]:+.2f}]")
