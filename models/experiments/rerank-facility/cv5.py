"""Facility-location coverage as a reranking feature: 5-fold CV on the training dump of
`rpsum-eval --rerank_dump --rerank_dump_states --rerank_dump_all_states` (command.sh). For a
candidate S: the mean over the document's content units i of max over j in S of cos(state_i,
state_j) (Lin and Bilmes' facility location on the network's unit states), and the same with
each unit i weighted by its words; standardised over the document's candidates. The objective,
folds and fit of rerank-net/cv2.py (expected R1+R2 under softmax(w.z/0.1), L2 0.01, 300
full-batch Adam steps, lr 0.05, from mean_score = 1); v2.4's design (its nine features, the
dump's own standardised "z") as the baseline in the same run.
  cv5.py TRAIN.jsonl"""
import json, sys
import torch
import torch.nn.functional as F
torch.set_num_threads(2)

def std(x):
    if x.shape[0] < 2: return torch.zeros_like(x)
    return (x - x.mean(0)) / (x.std(0, unbiased=True) + 1e-6)

def load(path):
    docs = []
    for line in open(path):
        d = json.loads(line)
        n = len(d["content"])
        U = F.normalize(torch.tensor([d["states"][str(u)] for u in range(n)], dtype=torch.float64), dim=1)
        content = torch.tensor(d["content"], dtype=torch.bool)
        if not content.any(): content[:] = True
        sim = U[content] @ U.T  # [content units, all units]
        w = torch.tensor(d["words"], dtype=torch.float64)[content]
        fac = []
        for units in d["units"]:
            best = sim[:, units].max(1).values
            fac.append([best.mean().item(), (best * w).sum().item() / max(w.sum().item(), 1.0)])
        z = torch.tensor(d["z"], dtype=torch.float64)
        docs.append({"z": z, "fac": std(torch.tensor(fac, dtype=torch.float64)),
                     "r": torch.tensor(d["reward"], dtype=torch.float64)})
    return docs

def fit(xs, rs, l2=0.01, steps=300):
    w_max = max(x.shape[0] for x in xs); Fd = xs[0].shape[1]
    X = torch.zeros(len(xs), w_max, Fd, dtype=torch.float64)
    Y = torch.zeros(len(xs), w_max, dtype=torch.float64)
    V = torch.zeros(len(xs), w_max, dtype=torch.bool)
    for i, (x, r) in enumerate(zip(xs, rs)):
        X[i, :x.shape[0]] = x; Y[i, :x.shape[0]] = r.sum(1); V[i, :x.shape[0]] = True
    w = torch.zeros(Fd, dtype=torch.float64); w[0] = 1.0; w.requires_grad_(True)
    opt = torch.optim.Adam([w], lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        logits = (X @ w).div(0.1).masked_fill(~V, -1e9)
        loss = -(torch.softmax(logits, 1) * Y).sum(1).mean() + l2 * (w * w).sum()
        loss.backward(); opt.step()
    return w.detach()

def choose(xs, rs, w):
    r1 = r2 = 0.0
    for x, r in zip(xs, rs):
        s = x @ w; k = int(torch.argmax(s))
        if s[k] <= s[0]: k = 0
        r1 += r[k, 0].item(); r2 += r[k, 1].item()
    return 100 * r1 / len(xs), 100 * r2 / len(xs)

NINE = [0, 3, 5, 11, 12, 13, 14, 15, 16]
D = {"v2.4's nine (baseline)": (NINE, []), "nine + facility": (NINE, [0]),
     "nine + word-weighted facility": (NINE, [1]), "nine + both": (NINE, [0, 1])}

if __name__ == "__main__":
    docs = load(sys.argv[1]); n = len(docs)
    print(f"{n} training documents, 5 folds")
    g = torch.Generator().manual_seed(1)
    perm = torch.randperm(n, generator=g).tolist()
    folds = [perm[i::5] for i in range(5)]
    print("| design | R1 | R2 | R1 per fold |\n| --- | --- | --- | --- |")
    for name, (cols, fcols) in D.items():
        xs = [torch.cat([d["z"][:, cols], d["fac"][:, fcols]], 1) for d in docs]
        rs = [d["r"] for d in docs]
        res = []
        for f in range(5):
            ts = set(folds[f]); tr = [i for i in range(n) if i not in ts]
            w = fit([xs[i] for i in tr], [rs[i] for i in tr])
            res.append(choose([xs[i] for i in folds[f]], [rs[i] for i in folds[f]], w))
        m1 = sum(a for a, _ in res) / 5; m2 = sum(b for _, b in res) / 5
        print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a, _ in res) + " |",
              flush=True)
