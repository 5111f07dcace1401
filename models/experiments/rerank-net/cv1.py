"""Summary-level reranking with the network's unit states: 5-fold CV on the training dump.
The same objective as rpsum-eval --fit_rerank (expected R1+R2 under softmax(w.z/0.1), L2,
300 full-batch Adam steps, lr 0.05, from mean_score = 1)."""
import json, os, sys
import torch
import torch.nn.functional as F
torch.set_num_threads(2)
NAMES = ["mean_score", "max_score", "min_score", "units", "fill", "document_cosine",
         "title_share", "position", "first", "rank", "distinct"]

def std(x):  # [C, F] -> standardised over candidates (sd over n-1, +1e-6)
    if x.shape[0] < 2: return torch.zeros_like(x)
    return (x - x.mean(0)) / (x.std(0, unbiased=True) + 1e-6)

def load(path, proj=True):
    """Each document's candidates: z (hand features), net (the six net_* features, as
    model/select.h defines them), vec (standardised mean state x document state), r (ROUGE).
    Cached next to the dump."""
    cache = path + ".pt"
    if os.path.exists(cache): return torch.load(cache)
    docs = []
    for line in open(path):
        d = json.loads(line)
        z = torch.tensor(d["z"], dtype=torch.float64)
        r = torch.tensor(d["reward"], dtype=torch.float64)
        st = {int(k): torch.tensor(v, dtype=torch.float64) for k, v in d["states"].items()}
        doc = torch.tensor(d["document"], dtype=torch.float64)
        words = d["words"]
        rows, vecs = [], []
        for units in d["units"]:
            S = torch.stack([st[u] for u in units])
            w = torch.tensor([float(words[u]) for u in units], dtype=torch.float64)
            c = (S * w[:, None]).sum(0) / w.sum().clamp(min=1)
            cu = S.mean(0)
            Sn = F.normalize(S, dim=1)
            dn = F.normalize(doc, dim=0)
            m = len(units)
            if m > 1:
                G = Sn @ Sn.T
                off = G[~torch.eye(m, dtype=torch.bool)]
                red, maxred = off.mean().item(), off.max().item()
            else:
                red = maxred = 0.0
            per = Sn @ dn  # each unit's cosine with the document
            rows.append([F.cosine_similarity(c, doc, dim=0).item(), red, maxred,
                         F.cosine_similarity(cu, doc, dim=0).item(), per.min().item(),
                         per.mean().item()])
            vecs.append(c * doc)
        net = torch.tensor(rows, dtype=torch.float64)
        docs.append({"z": z, "net": std(net), "r": r, "vec": std(torch.stack(vecs)).float()})
    torch.save(docs, cache)
    return docs

def feats(d, design):
    parts = [d["z"][:, design["hand"]]]
    if design.get("net"): parts.append(d["net"][:, design["net"]])
    if design.get("proj"): parts.append(d["vec"].double())
    return torch.cat(parts, 1)

def features(docs, design):
    return [feats(d, design) for d in docs]

def pad(xs, rs):
    n, C, F = len(xs), max(x.shape[0] for x in xs), xs[0].shape[1]
    X = torch.zeros(n, C, F, dtype=torch.float64); Y = torch.zeros(n, C, dtype=torch.float64)
    V = torch.zeros(n, C, dtype=torch.bool)
    for i, (x, r) in enumerate(zip(xs, rs)):
        X[i, :x.shape[0]] = x; Y[i, :x.shape[0]] = r.sum(1); V[i, :x.shape[0]] = True
    return X, Y, V

def fit(xs, rs, l2, steps=300):
    X, Y, V = pad(xs, rs)
    w = torch.zeros(X.shape[2], dtype=torch.float64); w[0] = 1.0
    w.requires_grad_(True)
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
        s = x @ w
        k = int(torch.argmax(s))  # earliest on ties
        if s[k] <= s[0]: k = 0
        r1 += r[k, 0].item(); r2 += r[k, 1].item()
    return 100 * r1 / len(xs), 100 * r2 / len(xs)

def folds5(n):
    """The 5 folds every study here uses: a seed-1 permutation of the n documents, dealt out."""
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(1)).tolist()
    return [perm[i::5] for i in range(5)]

def cross_validate(xs, rs, folds, l2):
    """Fits on four folds, chooses on the fifth: (mean R1, mean R2, each fold's R1)."""
    res = []
    for te in folds:
        ts = set(te); tr = [i for i in range(len(xs)) if i not in ts]
        w = fit([xs[i] for i in tr], [rs[i] for i in tr], l2)
        res.append(choose([xs[i] for i in te], [rs[i] for i in te], w))
    return sum(a for a, _ in res) / 5, sum(b for _, b in res) / 5, [a for a, _ in res]

HAND3 = [0, 3, 5]; ALL = list(range(11))
DESIGNS = {
    "greedy": None,
    "hand3": {"hand": HAND3, "l2": 0.01},
    "hand11": {"hand": ALL, "l2": 0.001},
    "hand3+net": {"hand": HAND3, "net": [0, 1], "l2": 0.01},
    "hand11+net": {"hand": ALL, "net": [0, 1], "l2": 0.001},
    "score+net": {"hand": [0], "net": [0, 1], "l2": 0.01},
    "hand3+net+proj": {"hand": HAND3, "net": [0, 1], "proj": True, "l2": 0.01},
    "hand11+net+proj": {"hand": ALL, "net": [0, 1], "proj": True, "l2": 0.001},
}

if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "cv":
        docs = load(sys.argv[2], proj=True)
        rs = [d["r"] for d in docs]
        g = torch.Generator().manual_seed(1)
        perm = torch.randperm(len(docs), generator=g).tolist()
        folds = [perm[i::5] for i in range(5)]
        print(f"{len(docs)} training documents, 5 folds")
        for name, design in DESIGNS.items():
            res = []
            for f in range(5):
                test = set(folds[f])
                tr = [i for i in range(len(docs)) if i not in test]
                te = folds[f]
                if design is None:
                    res.append((100 * sum(rs[i][0, 0].item() for i in te) / len(te),
                                100 * sum(rs[i][0, 1].item() for i in te) / len(te)))
                    continue
                xs = features(docs, design)
                w = fit([xs[i] for i in tr], [rs[i] for i in tr], design["l2"])
                res.append(choose([xs[i] for i in te], [rs[i] for i in te], w))
            m1 = sum(a for a, _ in res) / 5; m2 = sum(b for _, b in res) / 5
            print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a, _ in res) + " |", flush=True)
