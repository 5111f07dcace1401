import json, sys, os, torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cv1 import std, pad, choose, fit, load, feats
torch.set_num_threads(2)
import torch.nn.functional as F

def fit2(xs, rs, l2vec, steps=300, mlp=0, seed=1):
    X, Y, V = pad(xs, rs)
    Fd = X.shape[2]
    w = torch.zeros(Fd, dtype=torch.float64); w[0] = 1.0; w.requires_grad_(True)
    params = [w]
    if mlp:
        g = torch.Generator().manual_seed(seed)
        A = (torch.randn(Fd, mlp, generator=g, dtype=torch.float64) * 0.1).requires_grad_(True)
        b = torch.zeros(mlp, dtype=torch.float64, requires_grad=True)
        u = torch.zeros(mlp, dtype=torch.float64, requires_grad=True)
        params += [A, b, u]
    opt = torch.optim.Adam(params, lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        s = X @ w
        pen = (l2vec * w * w).sum()
        if mlp:
            s = s + torch.tanh(X @ A + b) @ u
            pen = pen + l2vec[0] * ((A * A).sum() + (u * u).sum())
        logits = s.div(0.1).masked_fill(~V, -1e9)
        loss = -(torch.softmax(logits, 1) * Y).sum(1).mean() + pen
        loss.backward(); opt.step()
    if not mlp: return lambda x: x @ w.detach()
    A, b, u, w = A.detach(), b.detach(), u.detach(), w.detach()
    return lambda x: x @ w + torch.tanh(x @ A + b) @ u

def choose2(xs, rs, f):
    r1 = r2 = 0.0
    for x, r in zip(xs, rs):
        s = f(x); k = int(torch.argmax(s))
        if s[k] <= s[0]: k = 0
        r1 += r[k, 0].item(); r2 += r[k, 1].item()
    return 100 * r1 / len(xs), 100 * r2 / len(xs)

H3 = [0, 3, 5]; H11 = list(range(11))
D = {
  "hand3+net2 l2.01": dict(hand=H3, net=[0, 1], l2=0.01),
  "hand3+net2 l2.001": dict(hand=H3, net=[0, 1], l2=0.001),
  "hand3+net2 l2.1": dict(hand=H3, net=[0, 1], l2=0.1),
  "hand3+net6 l2.01": dict(hand=H3, net=[0, 1, 2, 3, 4, 5], l2=0.01),
  "hand11+net6 l2.001": dict(hand=H11, net=[0, 1, 2, 3, 4, 5], l2=0.001),
  "hand11+net2 l2.01": dict(hand=H11, net=[0, 1], l2=0.01),
  "hand3+net2+proj(l2 1)": dict(hand=H3, net=[0, 1], proj=True, l2=0.01, l2proj=1.0),
  "hand3+net2+proj(l2 .1)": dict(hand=H3, net=[0, 1], proj=True, l2=0.01, l2proj=0.1),
}
if __name__ == "__main__":
    docs = load(sys.argv[1])
    rs = [d["r"] for d in docs]
    n = len(docs)
    best = sum(r.sum(1).argmax().item() == 0 for r in rs)
    c1 = 100 * sum(r[r.sum(1).argmax(), 0].item() for r in rs) / n
    c2 = 100 * sum(r[r.sum(1).argmax(), 1].item() for r in rs) / n
    print(f"ceiling (best candidate by R1+R2): {c1:.2f} / {c2:.2f}; greedy best in {best} of {n}")
    g = torch.Generator().manual_seed(1)
    perm = torch.randperm(n, generator=g).tolist()
    folds = [perm[i::5] for i in range(5)]
    names = sys.argv[2:] or list(D)
    for name in names:
        des = D[name]
        xs = [feats(d, des) for d in docs]
        Fd = xs[0].shape[1]
        l2vec = torch.full((Fd,), des["l2"], dtype=torch.float64)
        if des.get("proj"):
            l2vec[-192:] = des["l2proj"]
        res = []
        for f in range(5):
            te = folds[f]; ts = set(te)
            tr = [i for i in range(n) if i not in ts]
            fn = fit2([xs[i] for i in tr], [rs[i] for i in tr], l2vec, mlp=des.get("mlp", 0))
            res.append(choose2([xs[i] for i in te], [rs[i] for i in te], fn))
        m1 = sum(a for a, _ in res) / 5; m2 = sum(b for _, b in res) / 5
        print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a, _ in res) + " |", flush=True)
