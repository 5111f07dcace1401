#!/usr/bin/python3
"""The Python alternative to rpsum-server, for benchmarks: what a user would write instead.

A gRPC server (Debian's python3-grpcio) speaking the same rpsum.v1 contract, running the same
model with the same weights in PyTorch eager mode (Debian's python3-torch), loaded from our
checkpoint format (config.json + weights.safetensors + tokenizer.model). One request at a time
goes through the model (a lock), as in the typical Python service; no batching.

Its preparation (line blocks, headings, ICU sentence boundaries less those technical text
breaks, SentencePiece, features), model (relative-position attention with clip distance k, the
same k policy, block-local attention past the threshold) and selection (served scores with the
content centrality, trigram blocking, word budget, headings and fragments last, the
summary-level reranking on the unit states) follow docs/design.md, sections 2-4 and
model/select.cc so that it selects the same sentences as rpsum; `scripts/bench load` checks
that on the benchmark documents. It follows rpsum's English and CJK rules only: Thai, Lao,
Khmer and Burmese words (ICU's dictionaries), non-ASCII letters in the word-based features and
Unicode punctuation in the heading rule (docs/design.md, the table of scripts) are rpsum's, not
its; the benchmark documents are English.

usage: rpsum_py_server.py --model DIR --listen HOST:PORT [--threads N]
"""
import argparse
import collections
import itertools
import json
import math
import os
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc
import icu
import sentencepiece
import torch
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "train", "reference"))
import safetensors_np  # noqa: E402


def load_proto():
    """Generates the rpsum.v1 Python modules into a temporary folder and imports them."""
    out = tempfile.mkdtemp(prefix="rpsum-py-proto-")
    proto_root = os.path.join(ROOT, "proto")
    rc = protoc.main(["protoc", f"-I{proto_root}", f"--python_out={out}", f"--grpc_python_out={out}",
                      os.path.join(proto_root, "rpsum", "v1", "summarizer.proto")])
    if rc != 0:
        raise SystemExit("protoc failed")
    sys.path.insert(0, out)
    from rpsum.v1 import summarizer_pb2, summarizer_pb2_grpc  # noqa: E402
    return summarizer_pb2, summarizer_pb2_grpc


pb, pb_grpc = load_proto()

# ---- preparation (docs/design.md, section 2) ----
SPACE = b" \t\r\v\f"
ABBREVIATIONS = {b"Dr.", b"Prof.", b"Sr.", b"Jr.", b"St.", b"Mt.", b"Gen.", b"Gov.", b"Rep.",
                 b"Sen.", b"vs.", b"cf.", b"Fig.", b"Figs.", b"Eq.", b"Sec.", b"Ch.", b"No.",
                 b"Nos.", b"Vol.", b"pp.", b"p.", b"al.", b"Inc.", b"Ltd.", b"Co.", b"Corp.",
                 b"e.g.", b"i.e.", b"resp.", b"eg.", b"ie.", b"ex.", b"Ex.", b"viz.", b"approx.",
                 b"abbrev."}
HEADING, SENTENCE, LIST_ITEM, TABLE_ROW = range(4)


def trim(text, b, e):
    while b < e and text[b] in SPACE:
        b += 1
    while e > b and text[e - 1] in SPACE:
        e -= 1
    return b, e


def is_cjk_word_char(cp):
    """model/document.cc IsCjkWordChar: Han ideographs and kana, each one word-equivalent."""
    return (0x3040 <= cp <= 0x30FF or 0x31F0 <= cp <= 0x31FF or 0x3400 <= cp <= 0x4DBF
            or 0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF66 <= cp <= 0xFF9F
            or 0x20000 <= cp <= 0x2FFFF)


def is_cjk_punctuation(cp):
    """model/document.cc IsCjkPunctuation: CJK and full-width punctuation separate words."""
    return (0x3000 <= cp <= 0x303F or 0xFF01 <= cp <= 0xFF0F or 0xFF1A <= cp <= 0xFF20
            or 0xFF3B <= cp <= 0xFF40 or 0xFF5B <= cp <= 0xFF65)


def count_words(s):
    """model/document.cc CountWords: ASCII-whitespace-separated words, except that each
    ideograph or kana is a word and CJK punctuation separates words."""
    if s.isascii():
        return len(s.split())  # bytes.split(): ASCII whitespace incl. \n, as CountWords
    n, in_word = 0, False
    for ch in s.decode("utf-8", "surrogateescape"):
        cp = ord(ch)
        if cp < 0x80:
            space = ch in " \t\r\v\f\n"
            if not space and not in_word:
                n += 1
            in_word = not space
        elif is_cjk_word_char(cp):
            n += 1
            in_word = False
        elif is_cjk_punctuation(cp):
            in_word = False
        elif not in_word:
            n += 1
            in_word = True
    return n


def is_list_item(line):
    if len(line) >= 2 and line[0:1] in (b"-", b"*", b"+") and line[1:2] == b" ":
        return True
    if line.startswith("\u2022".encode()):
        return True
    i = 0
    while i < len(line) and i < 4 and line[i:i + 1].isdigit():
        i += 1
    return i > 0 and i + 1 < len(line) and line[i:i + 1] in (b".", b")") and line[i + 1:i + 2] == b" "


def ends_with_cjk_word_char(line):
    """model/document.cc EndsWithCjkWordChar: a line ending in an ideograph or kana."""
    last = line.decode("utf-8", "surrogateescape")[-1:]
    return bool(last) and is_cjk_word_char(ord(last))


def ends_with_punctuation(line):
    return bool(line) and (line[-1:] in (b".", b"!", b"?", b":", b";", b",", b")", b'"', b"'")
                           or (line[-1] >= 0x80 and not ends_with_cjk_word_char(line)))


def ends_with_abbreviation(seg):
    cut = max(seg.rfind(b" "), seg.rfind(b"\t"), seg.rfind(b"("))
    last = seg[cut + 1:]
    if len(last) == 2 and last[1:2] == b"." and last[0:1].isupper():
        return True
    return last in ABBREVIATIONS


def is_marker_only(seg):
    """document.cc IsMarkerOnly: "2.", "1.2.", "a.", "iv." (a list or section marker)."""
    if len(seg) < 2 or len(seg) > 6 or seg[-1:] != b".":
        return False
    body = seg[:-1]
    if all(c in b"0123456789." for c in body) and any(c in b"0123456789" for c in body):
        return True
    if len(body) == 1 and body.isalpha():
        return True
    return all(c in b"ivx" for c in body) or all(c in b"IVX" for c in body)


def paren_depth(s):
    return s.count(b"(") - s.count(b")")


_local = threading.local()


def sentence_iterator():
    if not hasattr(_local, "it"):
        _local.it = icu.BreakIterator.createSentenceInstance(icu.Locale("en@ss=standard"))
    return _local.it


def split_sentences(doc, b, e, kind, out):
    """document.cc SplitSentences: ICU's sentence boundaries, less those a technical text breaks
    (docs/design.md section 2, step 3)."""
    seg_text = doc[b:e].decode("utf-8")
    # ICU works in UTF-16 units: map them to byte offsets.
    byte_at = [0]
    for ch in seg_text:
        n8 = len(ch.encode("utf-8"))
        if ord(ch) > 0xFFFF:
            byte_at.append(byte_at[-1] + n8)  # the low surrogate
            byte_at.append(byte_at[-1])
        else:
            byte_at.append(byte_at[-1] + n8)
    it = sentence_iterator()
    it.setText(seg_text)
    ends = [b + byte_at[end] for end in it]
    if not ends or ends[-1] != e:
        ends.append(e)
    start = b
    for i, end in enumerate(ends):
        ub, ue = trim(doc, start, end)
        if end < e and ub < ue:
            sentence = doc[ub:ue]
            t = len(sentence)  # the terminator, before closing quotes and brackets
            while t > 1 and sentence[t - 1:t] in (b")", b"]", b'"', b"'"):
                t -= 1
            term = sentence[t - 1:t]
            ascii_term = term in (b".", b"!", b"?")
            no_space = ue == end
            nxt = end
            while nxt < e and doc[nxt] in SPACE:
                nxt += 1
            c = doc[nxt] if nxt < e else ord("A")
            weak_next = (c < 0x80 and not chr(c).isupper() and not chr(c).isdigit()
                         and chr(c) not in "\"'([`")
            keep_going = ((ascii_term and no_space) or (term in (b"!", b"?") and weak_next)
                          or ends_with_abbreviation(sentence) or is_marker_only(sentence))
            if not keep_going and paren_depth(sentence) > 0:
                depth = paren_depth(sentence)
                j = i + 1
                while j < len(ends) and j <= i + 4 and depth > 0:
                    depth += paren_depth(doc[ends[j - 1]:ends[j]])
                    j += 1
                keep_going = depth <= 0
            if keep_going:
                continue  # no break here
        if ub < ue:
            out.append([ub, ue, kind, False])
        start = end


def split_units(doc):
    units = []  # [begin, end, kind, paragraph_start]
    new_paragraph = True
    line_start = 0
    while line_start <= len(doc):
        line_end = doc.find(b"\n", line_start)
        if line_end < 0:
            line_end = len(doc)
        b, e = trim(doc, line_start, line_end)
        if b == e:
            new_paragraph = True
        else:
            line = doc[b:e]
            first = len(units)
            if line[0:1] == b"|":
                units.append([b, e, TABLE_ROW, False])
            elif line[0:1] == b"#" or (not ends_with_punctuation(line) and count_words(line) <= 12
                                       and not is_list_item(line)):
                units.append([b, e, HEADING, False])
                new_paragraph = True
            else:
                split_sentences(doc, b, e, LIST_ITEM if is_list_item(line) else SENTENCE, units)
            if len(units) > first:
                units[first][3] = new_paragraph or units[first][2] != SENTENCE
                new_paragraph = units[first][2] == HEADING
        line_start = line_end + 1
    return units


def alnum_words(text):
    out, cur = [], bytearray()
    for c in text.lower():
        if (48 <= c <= 57) or (97 <= c <= 122) or (65 <= c <= 90):
            cur.append(c)
        elif cur:
            out.append(bytes(cur))
            cur = bytearray()
    if cur:
        out.append(bytes(cur))
    return out


class Invalid(Exception):
    pass


class Model:
    def __init__(self, model_dir, threads):
        torch.set_num_threads(threads)
        torch.set_grad_enabled(False)
        with open(os.path.join(model_dir, "config.json")) as f:
            self.config = json.load(f)
        arch = self.config["architecture"]
        self.heads = arch["heads"]
        self.token_layers = arch["token_layers"]
        self.unit_layers = arch["unit_layers"]
        self.max_k = arch["max_clip_distance"]
        self.unit_k = arch["unit_clip_distance"]
        self.att = self.config["attention"]
        self.policy = self.config["clip_policy"]
        self.max_pieces = self.config["tokenizer"]["max_tokens_per_unit"]
        weights, _ = safetensors_np.load(os.path.join(model_dir, self.config["weights"]["file"]))
        self.w = {n: torch.from_numpy(a).float() for n, a in weights.items()}
        self.sp = sentencepiece.SentencePieceProcessor(
            model_file=os.path.join(model_dir, self.config["tokenizer"]["file"]))
        self.marker = self.sp.bos_id()
        self.pad = self.sp.pad_id()
        self.sha = ""

    def pick_k(self, length, override):
        p = self.policy
        if override > 0:
            k = override
        else:
            target = min(max(length // max(p["ratio"], 1), p["min"]), p["max"])
            k = p["buckets"][0] if p["buckets"] else target
            for b in p["buckets"]:
                if b <= target:
                    k = max(k, b)
        return min(max(k, 1), self.max_k)

    # ---- the model (docs/design.md, section 3), efficient relative attention ----
    dense = False  # --attention dense: the textbook form, tables aK[r(i, j)] materialized

    @staticmethod
    def relative(q, a, idx, shape, dense):
        """sum_d q . aK[idx] as [.., n, m]: by gather from q aK^T, or from dense tables."""
        if dense:
            return torch.einsum("...id,ijd->...ij", q, a[idx])
        return torch.gather(q @ a.T, -1, idx.expand(shape))

    @staticmethod
    def relative_values(p, a, idx, shape, dense):
        """sum_j p_ij aV[idx_ij]: by scatter into 2K+1 buckets, or from dense tables."""
        if dense:
            return torch.einsum("...ij,ijd->...id", p, a[idx])
        buckets = torch.zeros(shape[:-1] + (a.shape[0],)).scatter_add_(-1, idx.expand(shape), p)
        return buckets @ a

    @classmethod
    def attention(cls, q, k, v, a_k, a_v, clip, valid, window):
        """q, k, v [1, H, L, d]; a_k, a_v [2K+1, d]; valid [L] bool; window None or w."""
        _, h, length, d = q.shape
        big_k = (a_k.shape[0] - 1) // 2
        scale = 1.0 / math.sqrt(d)
        if window is None or length <= window:
            pos = torch.arange(length)
            idx = (pos[None, :] - pos[:, None]).clamp(-clip, clip) + big_k  # [L, L]
            shape = (1, h, length, length)
            e = q @ k.transpose(-1, -2)
            e += cls.relative(q, a_k, idx, shape, cls.dense)
            e *= scale
            e.masked_fill_(~valid[None, None, None, :], -1e30)
            a = torch.softmax(e, dim=-1)
            return a @ v + cls.relative_values(a, a_v, idx, shape, cls.dense)
        w = window
        nb = (length + w - 1) // w
        pad = nb * w - length

        def blocks(x):  # [1, H, L, d] -> [1, H, nb, w, d] and keys [1, H, nb, 3w, d]
            x = torch.nn.functional.pad(x, (0, 0, w, pad + w))
            mid = x[:, :, w:w + nb * w].reshape(1, h, nb, w, d)
            prev = x[:, :, 0:nb * w].reshape(1, h, nb, w, d)
            nxt = x[:, :, 2 * w:2 * w + nb * w].reshape(1, h, nb, w, d)
            return mid, torch.cat([prev, mid, nxt], dim=3)

        qb, _ = blocks(q)
        _, kb = blocks(k)
        _, vb = blocks(v)
        vpad = torch.nn.functional.pad(valid, (w, pad + w))
        kvalid = torch.cat([vpad[0:nb * w].view(nb, w), vpad[w:w + nb * w].view(nb, w),
                            vpad[2 * w:2 * w + nb * w].view(nb, w)], dim=1)  # [nb, 3w]
        rel = torch.arange(3 * w)[None, :] - w - torch.arange(w)[:, None]  # [w, 3w]
        idx = rel.clamp(-clip, clip) + big_k
        allowed = (rel.abs() <= w)[None] & kvalid[:, None, :]  # [nb, w, 3w]
        shape = (1, h, nb, w, 3 * w)
        e = qb @ kb.transpose(-1, -2)
        e += cls.relative(qb, a_k, idx, shape, cls.dense)
        e *= scale
        e.masked_fill_(~allowed[None, None], -1e30)
        a = torch.softmax(e, dim=-1)
        z = a @ vb + cls.relative_values(a, a_v, idx, shape, cls.dense)
        return z.reshape(1, h, nb * w, d)[:, :, :length]

    def layer(self, x, valid, prefix, clip, window):
        w = self.w
        _, length, hidden = x.shape
        dh = hidden // self.heads
        ln = torch.nn.functional.layer_norm
        lin = torch.nn.functional.linear
        hx = ln(x, (hidden,), w[prefix + ".ln1.weight"], w[prefix + ".ln1.bias"])
        qkv = lin(hx, w[prefix + ".attn.qkv.weight"], w[prefix + ".attn.qkv.bias"])
        qkv = qkv.view(1, length, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        z = self.attention(qkv[0], qkv[1], qkv[2], w[prefix + ".attn.rel_k"],
                           w[prefix + ".attn.rel_v"], clip, valid, window)
        x = x + lin(z.transpose(1, 2).reshape(1, length, hidden), w[prefix + ".attn.out.weight"],
                    w[prefix + ".attn.out.bias"])
        hx = ln(x, (hidden,), w[prefix + ".ln2.weight"], w[prefix + ".ln2.bias"])
        f = torch.nn.functional.gelu(lin(hx, w[prefix + ".ff1.weight"], w[prefix + ".ff1.bias"]))
        return x + lin(f, w[prefix + ".ff2.weight"], w[prefix + ".ff2.bias"])

    def score(self, tokens, unit_pos, features, token_k):
        w = self.w
        length, s = len(tokens), len(unit_pos)
        x = w["embed.weight"][torch.tensor(tokens)][None]
        valid = torch.ones(length, dtype=torch.bool)
        window = None
        if length > self.att["local_threshold"]:  # the window by length (AttentionConfig::TokenWindow)
            window = self.att["local_window"]
            for band in self.att.get("local_windows", []):
                if length >= band["from_tokens"]:
                    window = band["window"]
        for i in range(self.token_layers):
            x = self.layer(x, valid, f"token_layers.{i}", token_k, window)
        hidden = x.shape[-1]
        x = torch.nn.functional.layer_norm(x, (hidden,), w["token_norm.weight"], w["token_norm.bias"])
        sv = x[:, torch.tensor(unit_pos)]
        if "feature_proj.weight" in w:
            # The checkpoint reads its first num_features columns (6 for v1 and v2).
            f = torch.tensor(features)[:, :w["feature_proj.weight"].shape[1]]
            sv = sv + torch.nn.functional.linear(f[None],
                                                 w["feature_proj.weight"], w["feature_proj.bias"])
        svalid = torch.ones(s, dtype=torch.bool)
        swindow = (self.att["unit_local_window"]
                   if s > self.att["unit_local_threshold"] else None)
        for i in range(self.unit_layers):
            sv = self.layer(sv, svalid, f"sentence_layers.{i}", self.unit_k, swindow)
        sv = torch.nn.functional.layer_norm(sv, (hidden,), w["sentence_norm.weight"],
                                            w["sentence_norm.bias"])
        logits = torch.nn.functional.linear(sv, w["head.weight"], w["head.bias"])[0, :, 0]
        # The unit states the head reads: what the reranking's net_* features compare.
        return logits.tolist(), sv[0].double().numpy()


def content_centrality(unit_words):
    """model/document.cc Centrality()[1]: cosine of each unit's content-word counts (words of
    4+ characters) with the rest of the document's, over the document's largest."""
    total = {}
    for ws in unit_words:
        for w in ws:
            total[w] = total.get(w, 0) + 1
    total_words = sum(len(ws) for ws in unit_words)
    total_sq = sum(c * c for w, c in total.items() if len(w) >= 4)
    out = []
    for ws in unit_words:
        own = {}
        for w in ws:
            own[w] = own.get(w, 0) + 1
        if not ws or total_words == len(ws):
            out.append(0.0)
            continue
        dot = own_sq = cross = 0
        for w, c in own.items():
            if len(w) >= 4:
                dot += c * (total[w] - c)
                own_sq += c * c
                cross += c * total[w]
        rest_sq = total_sq - 2 * cross + own_sq
        out.append(dot / math.sqrt(own_sq * rest_sq) if own_sq > 0 and rest_sq > 0 else 0.0)
    best = max(out, default=0.0)
    return [c / best if best > 0 else 0.0 for c in out]


def served_scores(logits, centrality, weight):
    """model/select.cc ServedScores: sigmoid(logit + weight * z), z the centrality's z-score."""
    z = [0.0] * len(logits)
    if weight != 0 and logits:
        mean = sum(centrality) / len(centrality)
        sd = math.sqrt(sum((c - mean) ** 2 for c in centrality) / len(centrality))
        if sd > 1e-6:
            z = [(c - mean) / sd for c in centrality]
    return [1.0 / (1.0 + math.exp(-(x + weight * zz))) for x, zz in zip(logits, z)]


def trigrams(text):
    t = alnum_words(text)
    return {tuple(t[i:i + 3]) for i in range(len(t) - 2)}


# ---- selection (docs/design.md, section 2, "Select"; model/select.cc) ----
FRAGMENT_WORDS, INTRO_WORDS = 3, 8


def is_fragment(text, words):
    """select.cc IsFragment: at most 3 words, or an introduction ending in ':' within 8."""
    return words <= FRAGMENT_WORDS or (text.rstrip(b" \t").endswith(b":") and words <= INTRO_WORDS)


def select_by_score(ranked, tris, words, by_words, limit, blocking):
    """select.cc SelectByScore: score order, trigram blocking, the budget."""
    order = sorted(range(len(ranked)), key=lambda i: -ranked[i])  # stable
    chosen, seen, used = [], set(), 0
    for i in order:
        if not by_words and len(chosen) >= limit:
            break
        if by_words and used >= limit:
            break
        tri = set()
        if blocking:
            tri = tris[i]
            if tri & seen:
                continue
        if by_words and chosen and used + words[i] > limit:
            continue
        chosen.append(i)
        used += words[i]
        seen |= tri
    return sorted(chosen)


RERANK_FEATURES = ["mean_score", "max_score", "min_score", "units", "fill", "document_cosine",
                   "title_share", "position", "first", "rank", "distinct", "net_coverage",
                   "net_redundancy", "net_max_redundancy", "net_coverage_units",
                   "net_min_unit_cosine", "net_mean_unit_cosine"]


def norm(x):
    return max(math.sqrt(float(x @ x)), 1e-12)


def rerank(scores, ranked, any_content, content, texts, tris, words, title_share, limit,
           blocking, top_k, max_units, weights, states):
    """select.cc SummaryCandidates + ChooseCandidate: the greedy selection and every subset of
    the top_k best content units (at most max_units) that fits, filled by the greedy rule from
    the units below; each scored by weights . its standardised features (model/select.h
    Candidate); the earliest best wins."""
    n = len(texts)
    order = [i for i in range(n) if ranked[i] >= 0 or not any_content]
    order.sort(key=lambda i: -ranked[i])  # stable
    rank = [len(order)] * n
    for r, i in enumerate(order):
        rank[i] = r
    top = min(len(order), top_k)
    greedy = select_by_score(ranked, tris, words, True, limit, blocking)
    if any_content:
        greedy = [i for i in greedy if ranked[i] >= 0]
    sets, seen_sets = [greedy], {tuple(greedy)}
    for m in range(1, min(top, max_units) + 1):
        for pick in itertools.combinations(range(top), m):  # lexicographic, as select.cc
            used = sum(words[order[p]] for p in pick)
            ok = m == 1 or used <= limit
            seen = set()
            if ok and blocking:
                for p in pick:
                    if tris[order[p]] & seen:
                        ok = False
                        break
                    seen |= tris[order[p]]
            if not ok:
                continue
            chosen = [order[p] for p in pick]
            for i in order[top:]:
                if used >= limit:
                    break
                if used + words[i] > limit:
                    continue
                if blocking:
                    if tris[i] & seen:
                        continue
                    seen |= tris[i]
                chosen.append(i)
                used += words[i]
            chosen.sort()
            if tuple(chosen) not in seen_sets:
                seen_sets.add(tuple(chosen))
                sets.append(chosen)
    # The features.
    unit_words = [alnum_words(t) for t in texts]
    content_counts = []
    document = collections.Counter()
    for ws in unit_words:
        c = collections.Counter(w for w in ws if len(w) >= 4)
        content_counts.append(c)
        document.update(c)
    document_sq = float(sum(c * c for c in document.values()))
    doc_state = None
    if states is not None:
        members = [i for i in range(n) if content[i] or not any_content]
        doc_state = states[members].mean(0)
        doc_norm = norm(doc_state)
        unit_norm = [norm(states[i]) for i in range(n)]
        unit_doc = [float(states[i] @ doc_state) / (unit_norm[i] * doc_norm) for i in range(n)]
    rows = []
    for chosen in sets:
        ws = sum(words[i] for i in chosen)
        own = collections.Counter()
        for i in chosen:
            own.update(content_counts[i])
        dot = float(sum(k * document[x] for x, k in own.items()))
        own_sq = float(sum(k * k for k in own.values()))
        tokens = sum(len(unit_words[i]) for i in chosen)
        distinct = len({w for i in chosen for w in unit_words[i]})
        count = len(chosen)
        row = [sum(scores[i] * words[i] for i in chosen) / ws if ws > 0 else 0.0,
               max(scores[i] for i in chosen), min(scores[i] for i in chosen), float(count),
               min(ws, limit) / limit,
               dot / math.sqrt(own_sq * document_sq) if own_sq > 0 and document_sq > 0 else 0.0,
               sum(title_share[i] * words[i] for i in chosen) / ws if ws > 0 else 0.0,
               sum(i / n for i in chosen) / count, chosen[0] / n,
               sum(rank[i] for i in chosen) / count, distinct / tokens if tokens > 0 else 0.0]
        if doc_state is not None:
            wv = sum(words[i] * states[i] for i in chosen) / max(ws, 1)
            pv = sum(states[i] for i in chosen) / count
            pairs = [float(states[a] @ states[b]) / (unit_norm[a] * unit_norm[b])
                     for x, a in enumerate(chosen) for b in chosen[x + 1:]]
            per = [unit_doc[i] for i in chosen]
            row += [float(wv @ doc_state) / (norm(wv) * doc_norm),
                    sum(pairs) / len(pairs) if pairs else 0.0, max(pairs) if pairs else 0.0,
                    float(pv @ doc_state) / (norm(pv) * doc_norm), min(per), sum(per) / count]
        else:
            row += [0.0] * 6
        rows.append(row)
    # ChooseCandidate on the standardised features.
    k = len(rows)
    z = [[0.0] * len(RERANK_FEATURES) for _ in rows]
    if k >= 2:
        for f in range(len(RERANK_FEATURES)):
            mean = sum(r[f] for r in rows) / k
            sd = math.sqrt(sum((r[f] - mean) ** 2 for r in rows) / (k - 1))
            for c in range(k):
                z[c][f] = (rows[c][f] - mean) / (sd + 1e-6)
    best, best_score = 0, 0.0
    for c in range(k):
        s = sum(w * x for w, x in zip(weights, z[c]))
        if c == 0 or s > best_score:
            best, best_score = c, s
    return sets[best]


class Servicer(pb_grpc.SummarizerServicer):
    MAX_BYTES, MAX_TOKENS, MAX_SENTENCES = 5 << 20, 32768, 4096

    def __init__(self, model):
        self.model = model
        self.lock = threading.Lock()

    def prepare(self, req):
        if req.WhichOneof("input") != "document":
            raise Invalid("this server takes documents only")
        doc = req.document
        if not doc:
            raise Invalid("document is empty")
        if len(doc) > self.MAX_BYTES:
            raise Invalid(f"document is {len(doc)} bytes; the limit is {self.MAX_BYTES}")
        try:
            doc.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Invalid(f"document is not valid UTF-8 at byte offset {e.start}")
        units = split_units(doc)
        if not units:
            raise Invalid("document is empty: it holds only whitespace")
        m = self.model
        texts = [doc[u[0]:u[1]] for u in units]
        pieces = [m.sp.encode(t.decode("utf-8"))[:m.max_pieces] for t in texts]
        total = sum(1 + len(p) for p in pieces)
        if total > self.MAX_TOKENS or len(units) > self.MAX_SENTENCES:
            raise Invalid(f"input is {total} tokens / {len(units)} sentences: over the limits")
        title_words = set(alnum_words(req.title))
        tokens, unit_pos, features = [], [], []
        n = len(units)
        unit_words = [alnum_words(t) for t in texts]
        centrality = content_centrality(unit_words)
        for i, (u, p) in enumerate(zip(units, pieces)):
            unit_pos.append(len(tokens))
            tokens.append(m.marker)
            tokens.extend(p)
            words = count_words(texts[i])
            overlap = 0.0
            if title_words:
                ws = unit_words[i]
                overlap = sum(x in title_words for x in ws) / len(ws) if ws else 0.0
            features.append([i / n, float(u[2] == HEADING), float(u[2] == LIST_ITEM),
                              float(words < 4), overlap, float(u[3]),
                              0.0, centrality[i]])  # column 6 (ROUGE vs rest): no model reads it
        return doc, units, texts, tokens, unit_pos, features

    def Summarize(self, req, context):
        start = time.perf_counter()
        try:
            doc, units, texts, tokens, unit_pos, features = self.prepare(req)
        except Invalid as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        k = self.model.pick_k(len(tokens), req.clip_distance)
        t0 = time.perf_counter()
        with self.lock:
            logits, states = self.model.score(tokens, unit_pos, features, k)
        scoring = self.model.config.get("scoring", {})
        scores = served_scores(logits, [f[7] for f in features], scoring.get("centrality_weight", 0.0))
        t1 = time.perf_counter()
        words = [count_words(t) for t in texts]
        budget = req.WhichOneof("budget")
        by_words = budget != "max_sentences"
        limit = {"max_words": req.max_words, "max_sentences": req.max_sentences,
                 "ratio": max(1.0, req.ratio * sum(words))}.get(budget, 100)
        # Headings and fragments only when the input has nothing else (select.cc MakeInputs).
        content = [u[2] != HEADING and not is_fragment(t, w) for u, t, w in zip(units, texts, words)]
        any_content = any(content)
        ranked = [s if c or not any_content else -1.0 for s, c in zip(scores, content)]
        tris = [trigrams(t) if not req.keep_redundant else set() for t in texts]
        r = scoring.get("rerank", {})
        if by_words and r.get("top_k", 0) > 0:
            weights = [r.get("weights", {}).get(name, 0.0) for name in RERANK_FEATURES]
            chosen = rerank(scores, ranked, any_content, content, texts, tris, words,
                            [f[4] for f in features], limit, not req.keep_redundant, r["top_k"],
                            r.get("max_units", 6), weights,
                            states if any(weights[11:]) else None)
        else:
            chosen = select_by_score(ranked, tris, words, by_words, limit,
                                     not req.keep_redundant)
            chosen = [i for i in chosen if not (any_content and ranked[i] < 0)]
        resp = pb.SummarizeResponse()
        for i in chosen:
            s = resp.sentences.add()
            s.index, s.begin, s.end, s.score = i, units[i][0], units[i][1], scores[i]
            s.text = texts[i].decode("utf-8")
        resp.summary = "\n".join(texts[i].decode("utf-8") for i in chosen)
        resp.input_tokens, resp.input_sentences, resp.clip_distance = len(tokens), len(units), k
        resp.model.name = self.model.config["name"]
        resp.model.version = self.model.config["version"]
        resp.timings.prepare_us = int((t0 - start) * 1e6)
        resp.timings.inference_us = int((t1 - t0) * 1e6)
        resp.timings.total_us = int((time.perf_counter() - start) * 1e6)
        return resp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "rpsum-ext"))
    ap.add_argument("--listen", default="127.0.0.1:50061")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--workers", type=int, default=16, help="gRPC handler threads")
    ap.add_argument("--attention", choices=["gather", "dense"], default="gather",
                    help="relative terms by gather/scatter (default) or dense tables")
    args = ap.parse_args()
    Model.dense = args.attention == "dense"
    model = Model(args.model, args.threads)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.workers),
                         options=[("grpc.max_receive_message_length", 8 << 20)])
    pb_grpc.add_SummarizerServicer_to_server(Servicer(model), server)
    server.add_insecure_port(args.listen)
    server.start()
    print(f"rpsum_py_server: serving on {args.listen} (torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, {args.attention} attention)", file=sys.stderr,
          flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
