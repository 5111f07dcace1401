#!/usr/bin/env python3
"""Dense reference of rpsum's relative-position attention and extractive scorer.

Written from the formula in docs/design.md, section 3 (Shaw et al. 2018), independently of the C++
code, with Debian's python3-torch. The C++ attention and the whole model must match it.

Per head h with clip distance k_h <= K (table half-width), head dim d:
    r(i, j) = clip(j - i, -k_h, k_h) + K
    e_ij    = (q_i . k_j + q_i . aK[r(i, j)]) / sqrt(d)        (+ mask)
    a_ij    = softmax_j(e_ij)
    z_i     = sum_j a_ij v_j + sum_j a_ij aV[r(i, j)]
Dense form: einsum('bhid,hijd->bhij', q, aK[R]) and einsum('bhij,hijd->bhid', a, aV[R]).

usage:
    rpr_reference.py attention IN.safetensors OUT.safetensors
    rpr_reference.py scorer CHECKPOINT_DIR IN.safetensors OUT.safetensors
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_np  # noqa: E402

MASK = -1e30


def rpr_attention(q, k, v, a_k, a_v, k_clip, key_valid=None, window=None):
    """q, k, v: [B, H, L, d]; a_k, a_v: [2K+1, d]; k_clip: the clip distance; key_valid [B, L]."""
    _, _, length, d = q.shape
    big_k = (a_k.shape[0] - 1) // 2
    pos = torch.arange(length)
    rel = pos[None, :] - pos[:, None]  # j - i
    r = rel.clamp(-k_clip, k_clip) + big_k  # [L, L]
    ak_r, av_r = a_k[r], a_v[r]  # [L, L, d]
    e = (torch.einsum("bhid,bhjd->bhij", q, k) + torch.einsum("bhid,ijd->bhij", q, ak_r))
    e = e / math.sqrt(d)
    allowed = torch.ones(length, length, dtype=torch.bool)
    if window is not None:
        allowed = rel.abs() <= window
    allowed = allowed[None, None]
    if key_valid is not None:
        allowed = allowed & key_valid[:, None, None, :].bool()
    e = e.masked_fill(~allowed, MASK)
    a = torch.softmax(e, dim=-1)
    return torch.einsum("bhij,bhjd->bhid", a, v) + torch.einsum("bhij,ijd->bhid", a, av_r)


def layer_norm(x, w, prefix):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], w[prefix + ".weight"], w[prefix + ".bias"])


def linear(x, w, prefix):
    return x @ w[prefix + ".weight"].T + w[prefix + ".bias"]


def encoder_layer(x, valid, w, prefix, heads, k_clip, window):
    b, length, hidden = x.shape
    dh = hidden // heads
    h = layer_norm(x, w, prefix + ".ln1")
    qkv = linear(h, w, prefix + ".attn.qkv").view(b, length, 3, heads, dh).permute(2, 0, 3, 1, 4)
    z = rpr_attention(qkv[0], qkv[1], qkv[2], w[prefix + ".attn.rel_k"], w[prefix + ".attn.rel_v"],
                      k_clip, valid, window)
    x = x + linear(z.transpose(1, 2).reshape(b, length, hidden), w, prefix + ".attn.out")
    h = layer_norm(x, w, prefix + ".ln2")
    return x + linear(torch.nn.functional.gelu(linear(h, w, prefix + ".ff1")), w, prefix + ".ff2")


def scorer(config, w, batch, token_k, unit_k, token_window=None, unit_window=None):
    """Unit logits [B, S] of the extractive scorer (docs/design.md, section 3)."""
    arch = config["architecture"]
    heads = arch["heads"]
    x = w["embed.weight"][batch["tokens"]]
    for i in range(arch["token_layers"]):
        x = encoder_layer(x, batch["token_valid"], w, f"token_layers.{i}", heads, token_k,
                          token_window)
    x = layer_norm(x, w, "token_norm")
    pos = batch["unit_pos"]
    sv = torch.gather(x, 1, pos[..., None].expand(-1, -1, x.shape[-1]))
    if arch["num_features"] > 0:
        sv = sv + linear(batch["features"], w, "feature_proj")
    for i in range(arch["unit_layers"]):
        sv = encoder_layer(sv, batch["unit_valid"], w, f"sentence_layers.{i}", heads,
                           unit_k, unit_window)
    return linear(layer_norm(sv, w, "sentence_norm"), w, "head").squeeze(-1)


def t(a):
    return torch.from_numpy(a)


def main(argv):
    torch.set_grad_enabled(False)
    if argv[1] == "attention":
        tensors, meta = safetensors_np.load(argv[2])
        out = {}
        for i, case in enumerate(json.loads(meta["cases"])):
            g = {n: t(tensors[f"case{i}.{n}"]) for n in ("q", "k", "v", "rel_k", "rel_v", "valid")}
            z = rpr_attention(g["q"].double(), g["k"].double(), g["v"].double(),
                              g["rel_k"].double(), g["rel_v"].double(), case["k"],
                              g["valid"], case.get("window"))
            out[f"case{i}.z"] = z.float().numpy()
        safetensors_np.save(argv[3], out)
    elif argv[1] == "scorer":
        with open(os.path.join(argv[2], "config.json")) as f:
            config = json.load(f)
        weights, _ = safetensors_np.load(os.path.join(argv[2], config["weights"]["file"]))
        w = {n: t(a).double() for n, a in weights.items()}
        tensors, meta = safetensors_np.load(argv[3])
        batch = {n: t(a) for n, a in tensors.items()}
        batch["features"] = batch["features"].double()
        m = json.loads(meta["plan"])
        logits = scorer(config, w, batch, m["token_k"], m["unit_k"], m.get("token_window"),
                        m.get("unit_window"))
        safetensors_np.save(argv[4], {"logits": logits.float().numpy()})
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
