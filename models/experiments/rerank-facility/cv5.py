"""Facility-location coverage as a reranking feature: 5-fold CV on the training dump of
`rpsum-eval --rerank_dump --rerank_dump_states --rerank_dump_all_states` (command.sh). For a
candidate S: the mean over the document's content units i of max over j in S of cos(state_i,
state_j) (Lin and Bilmes' facility location on the network's unit states), and the same with
each unit i weighted by its words; standardised over the document's candidates. The objective,
folds and fit of rerank-net/cv2.py (cv1.py's fit and choose: expected R1+R2 under
softmax(w.z/0.1), L2 0.01, 300 full-batch Adam steps, lr 0.05, from mean_score = 1); v2.4's
design (its nine features, the
dump's own standardised "z") as the baseline in the same run.
  cv5.py TRAIN.jsonl"""
import json, os, sys
import torch
import torch.nn.functional as F
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rerank-net"))
from cv1 import std, folds5, cross_validate  # noqa: E402

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

NINE = [0, 3, 5, 11, 12, 13, 14, 15, 16]
D = {"v2.4's nine (baseline)": (NINE, []), "nine + facility": (NINE, [0]),
     "nine + word-weighted facility": (NINE, [1]), "nine + both": (NINE, [0, 1])}

if __name__ == "__main__":
    docs = load(sys.argv[1]); n = len(docs)
    print(f"{n} training documents, 5 folds")
    folds = folds5(n)
    print("| design | R1 | R2 | R1 per fold |\n| --- | --- | --- | --- |")
    for name, (cols, fcols) in D.items():
        xs = [torch.cat([d["z"][:, cols], d["fac"][:, fcols]], 1) for d in docs]
        rs = [d["r"] for d in docs]
        m1, m2, per = cross_validate(xs, rs, folds, 0.01)
        print(f"| {name} | {m1:.2f} | {m2:.2f} | " + " ".join(f"{a:.2f}" for a in per) + " |",
              flush=True)
