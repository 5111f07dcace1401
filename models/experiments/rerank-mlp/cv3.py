"""A nonlinear candidate scorer for v2.4's reranking: 5-fold CV on the training dump of
rerank-net/cv.sh (same folds, objective and chooser as rerank-net/cv2.py), against v2.4's
linear design (hand3+net6, l2 0.01) in the same run. Score = w.x + u.tanh(A x + b)."""
import os, sys, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rerank-net"))
from cv1 import load, feats
from cv2 import fit2, choose2
torch.set_num_threads(2)

H3 = [0, 3, 5]; H11 = list(range(11)); N6 = list(range(6))
D = {
    "linear hand3+net6 l2.01 (v2.4)": dict(hand=H3, net=N6, l2=0.01),
    "linear hand11+net6 l2.01": dict(hand=H11, net=N6, l2=0.01),
    "mlp8 hand3+net6 l2.01": dict(hand=H3, net=N6, l2=0.01, mlp=8),
    "mlp8 hand11+net6 l2.01": dict(hand=H11, net=N6, l2=0.01, mlp=8),
    "mlp16 hand11+net6 l2.001": dict(hand=H11, net=N6, l2=0.001, mlp=16),
}

if __name__ == "__main__":
    docs = load(sys.argv[1])
    rs = [d["r"] for d in docs]
    n = len(docs)
    g = torch.Generator().manual_seed(1)
    perm = torch.randperm(n, generator=g).tolist()
    folds = [perm[i::5] for i in range(5)]
    print(f"{n} training documents, 5 folds; R1 R2 (means), then R1 per fold")
    for name in sys.argv[2:] or list(D):
        des = D[name]
        xs = [feats(d, des) for d in docs]
        l2vec = torch.full((xs[0].shape[1],), des["l2"], dtype=torch.float64)
        res = []
        for f in range(5):
            te = folds[f]; ts = set(te)
            tr = [i for i in range(n) if i not in ts]
            fn = fit2([xs[i] for i in tr], [rs[i] for i in tr], l2vec,
                      steps=des.get("steps", 300), mlp=des.get("mlp", 0))
            res.append(choose2([xs[i] for i in te], [rs[i] for i in te], fn))
        m1 = sum(a for a, _ in res) / 5; m2 = sum(b for _, b in res) / 5
        print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a, _ in res) + " |",
              flush=True)
