"""Lead-like candidates in v2.4's reranking pool: 5-fold CV on the training dump of
`rpsum-eval --rerank_lead --rerank_dump` (command.sh). The objective, folds and fit of
rerank-net/cv2.py (cv1.py's fit and choose: expected R1+R2 under softmax(w.z/0.1), L2 0.01,
300 full-batch Adam steps, lr 0.05, from mean_score = 1); features standardised over each pool
as model::StandardisedFeatures.
  cv4.py TRAIN.jsonl [design ...]"""
import json, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rerank-net"))
from cv1 import std, folds5, cross_validate  # noqa: E402

def load(path):
    docs = []
    for line in open(path):
        d = json.loads(line)
        kinds = torch.tensor(d["kinds"], dtype=torch.int64)
        x = torch.tensor(d["x"], dtype=torch.float64)
        lead = (kinds & 1 > 0).double()[:, None]
        first = (kinds & 2 > 0).double()[:, None]
        docs.append({"x": torch.cat([x, lead, first], 1), "kinds": kinds, "pool": d["pool"],
                     "r": torch.tensor(d["reward"], dtype=torch.float64)})
    return docs

def members(d, pool):
    n = d["x"].shape[0]
    idx = list(range(d["pool"]))
    for i in range(d["pool"], n):
        k = int(d["kinds"][i])
        if pool == "L+F" or (pool == "L" and k & 1): idx.append(i)
    return idx

H3 = [0, 3, 5]; NET6 = list(range(11, 17)); POS = [7, 8]; IND = [17, 18]
D = {
  "base: hand3+net6 (v2.4)": ("base", H3 + NET6),
  "+L: hand3+net6": ("L", H3 + NET6),
  "+L: hand3+net6+position+first": ("L", H3 + NET6 + POS),
  "+L: hand3+net6+position+first+is_lead": ("L", H3 + NET6 + POS + [17]),
  "+L+F: hand3+net6": ("L+F", H3 + NET6),
  "+L+F: hand3+net6+position+first+is_lead+is_first": ("L+F", H3 + NET6 + POS + IND),
}

if __name__ == "__main__":
    docs = load(sys.argv[1])
    n = len(docs)
    print(f"{n} training documents, 5 folds")
    for pool in ["base", "L", "L+F"]:
        c1 = c2 = 0.0
        for d in docs:
            r = d["r"][members(d, pool)]
            b = r.sum(1).argmax(); c1 += r[b, 0].item(); c2 += r[b, 1].item()
        print(f"ceiling of pool {pool}: {100 * c1 / n:.2f} / {100 * c2 / n:.2f}")
    lead1 = 100 * sum(d["r"][(d["kinds"] & 1 > 0).nonzero()[0, 0], 0].item() for d in docs) / n
    lead2 = 100 * sum(d["r"][(d["kinds"] & 1 > 0).nonzero()[0, 0], 1].item() for d in docs) / n
    print(f"the lead candidate alone: {lead1:.2f} / {lead2:.2f}")
    folds = folds5(n)
    print("| design | R1 | R2 | R1 per fold |\n| --- | --- | --- | --- |")
    for name in sys.argv[2:] or list(D):
        pool, cols = D[name]
        xs, rs = [], []
        for d in docs:
            m = members(d, pool)
            xs.append(std(d["x"][m][:, cols])); rs.append(d["r"][m])
        m1, m2, per = cross_validate(xs, rs, folds, 0.01)
        print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a in per) + " |",
              flush=True)
