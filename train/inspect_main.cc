// rpsum-inspect: the debugging view of one document. For a chosen token layer and head it
// renders the attention logits split into their content part (q.k / sqrt(d)) and their
// relative-position part (q.aK[r] / sqrt(d)) on one colour scale, and the resulting attention
// weights, as a PNG heatmap over the first --tokens tokens; and the model's unit scores
// over the whole document as a PNG bar chart. Prints how much of the logits' magnitude the
// relative part carries.
//   rpsum-inspect --model models/rpsum-ext --file doc.txt --layer 0 --head 0 --out /tmp/doc
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/flags/flag.h"
#include "base/files.h"
#include "model/torch/checkpoint.h"
#include "model/torch/inference.h"
#include "train/png.h"
#include "train/tool_main.h"

ABSL_FLAG(std::string, model, "models/rpsum-ext", "checkpoint directory");
ABSL_FLAG(std::string, file, "", "document to inspect (UTF-8 text)");
ABSL_FLAG(int, layer, 0, "token layer (0-based)");
ABSL_FLAG(int, head, 0, "attention head (0-based)");
ABSL_FLAG(int, tokens, 192, "tokens shown in the heatmaps (from the start)");
ABSL_FLAG(int, k, 0, "clip distance (0: the policy's k for the document)");
ABSL_FLAG(std::string, out, "inspect", "output prefix: PREFIX_attention.png, PREFIX_scores.png");

namespace rpsum::train {

using model::ClipDistanceFor;
using model::DocumentInput;
using model::Prepare;
using model::PreparedDocument;
using model::PrepareOptions;
using model::Tokenizer;
using model::TruncationPolicy;
using model::UnitKind;
using net::AttentionImpl;
using net::AttentionPlan;
using net::Checkpoint;
using net::EncoderLayer;
using net::ExtractiveScorer;
using net::LoadCheckpoint;
using net::RelativeIndex;
using net::ScoreDocuments;

namespace {

void Diverging(float v, uint8_t* px) {  // v in [-1, 1]: blue - white - red
  v = std::clamp(v, -1.f, 1.f);
  const float a = std::fabs(v);
  const uint8_t fade = static_cast<uint8_t>(255 * (1 - a));
  if (v >= 0) {
    px[0] = 255, px[1] = fade, px[2] = fade;
  } else {
    px[0] = fade, px[1] = fade, px[2] = 255;
  }
}

void Sequential(float v, uint8_t* px) {  // v in [0, 1]: white - dark green
  v = std::clamp(v, 0.f, 1.f);
  px[0] = static_cast<uint8_t>(255 * (1 - v));
  px[1] = static_cast<uint8_t>(255 - 155 * v);
  px[2] = static_cast<uint8_t>(255 * (1 - v));
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "rpsum-inspect: %s\n", s.ToString().c_str());
  return 1;
}

// The --file document prepared as the server would (head truncation).
absl::StatusOr<PreparedDocument> PrepareFile(const Checkpoint& ck, const Tokenizer& tok,
                                             std::string* doc) {
  auto text = ReadFile(absl::GetFlag(FLAGS_file));
  if (!text.ok()) return text.status();
  *doc = *std::move(text);
  DocumentInput input;
  input.document = *doc;
  PrepareOptions o;
  o.max_tokens_per_unit = ck.config.tokenizer.max_tokens_per_unit;
  o.truncation = TruncationPolicy::kHead;
  return Prepare(input, tok, o);
}

// A bar per unit, its height the unit's score (headings in orange).
void WriteScoresPng(const std::string& path, const PreparedDocument& prepared,
                    const std::vector<float>& s) {
  const int bar = std::max(2, std::min(12, 1200 / std::max<int>(1, static_cast<int>(s.size()))));
  const int w = bar * static_cast<int>(s.size()), h = 200;
  std::vector<uint8_t> img(static_cast<size_t>(w) * h * 3, 255);
  const float top = *std::max_element(s.begin(), s.end());
  for (size_t u = 0; u < s.size(); ++u) {
    const int height = static_cast<int>((h - 10) * s[u] / std::max(top, 1e-6f));
    const bool heading = prepared.units[prepared.kept[u]].kind == UnitKind::kHeading;
    for (int y = h - height; y < h; ++y) {
      for (int x = static_cast<int>(u) * bar; x < static_cast<int>(u + 1) * bar - 1; ++x) {
        uint8_t* px = &img[(static_cast<size_t>(y) * w + x) * 3];
        px[0] = heading ? 200 : 30, px[1] = heading ? 120 : 90, px[2] = heading ? 30 : 200;
      }
    }
  }
  WritePng(path, w, h, img);
}

// One token layer's head over the first n tokens: content and relative logits (scaled), the
// attention they give, and the head's clip distance.
struct HeadLogits {
  at::Tensor content, relative, attention;
  int64_t k = 0;
};

HeadLogits HeadLogitsOf(const Checkpoint& ck, const PreparedDocument& prepared, int layer, int head,
                        int64_t k, int64_t n) {
  const auto& a = ck.config.architecture;
  ExtractiveScorer scorer = ck.scorer;
  at::Tensor x = scorer->embed(
      at::tensor(std::vector<int64_t>(prepared.tokens.begin(), prepared.tokens.begin() + n))
          .unsqueeze(0));
  const at::Tensor valid = at::ones({1, n}, at::kBool);
  const AttentionPlan plan{k, false, 0, AttentionImpl::kAuto};
  for (int i = 0; i < layer; ++i) {
    x = scorer->token_layers[i]->as<EncoderLayer>()->forward(x, valid, plan);
  }
  auto* l = scorer->token_layers[layer]->as<EncoderLayer>();
  const int64_t dh = a.hidden_size / a.heads;
  const at::Tensor qkv = l->attn->qkv(l->ln1(x)).view({n, 3, a.heads, dh});
  const at::Tensor q = qkv.select(1, 0).select(1, head), kk = qkv.select(1, 1).select(1, head);
  HeadLogits out;
  out.k = plan.k;
  const int64_t big_k = a.max_clip_distance;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  out.content = at::matmul(q, kk.t()) * scale;
  const at::Tensor idx = RelativeIndex(n, n, out.k, {}, at::kCPU);
  const at::Tensor table = l->attn->rel_k.narrow(0, big_k - out.k, 2 * out.k + 1);
  out.relative = at::matmul(q, table.t()).gather(1, idx) * scale;
  out.attention = at::softmax(out.content + out.relative, -1);
  return out;
}

// Three heatmaps side by side: content | relative (one diverging scale) | attention (each row
// to its peak).
void WriteAttentionPng(const std::string& path, const HeadLogits& h) {
  const int64_t n = h.content.size(0);
  const float range =
      std::max(h.content.abs().max().item<float>(), h.relative.abs().max().item<float>());
  const int cell = std::max(1, 600 / static_cast<int>(n)), gap = 10;
  const int pw = cell * static_cast<int>(n), iw = 3 * pw + 2 * gap, ih = pw;
  std::vector<uint8_t> heat(static_cast<size_t>(iw) * ih * 3, 255);
  auto paint = [&](const at::Tensor& m, int panel, bool signed_scale) {
    const at::Tensor c = m.contiguous();
    const float* d = c.data_ptr<float>();
    const float amax = signed_scale ? range : c.max().item<float>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        uint8_t px[3];
        const float v = d[i * n + j] / std::max(amax, 1e-6f);
        signed_scale ? Diverging(v, px) : Sequential(v, px);
        for (int dy = 0; dy < cell; ++dy) {
          for (int dx = 0; dx < cell; ++dx) {
            const size_t o =
                (static_cast<size_t>(i * cell + dy) * iw + static_cast<size_t>(panel) * (pw + gap) +
                 static_cast<size_t>(j * cell + dx)) *
                3;
            std::copy(px, px + 3, &heat[o]);
          }
        }
      }
    }
  };
  paint(h.content, 0, true);
  paint(h.relative, 1, true);
  paint(h.attention / std::get<0>(h.attention.max(-1, true)), 2, false);
  WritePng(path, iw, ih, heat);
}

int Run() {
  c10::InferenceMode guard;
  auto ck = LoadCheckpoint(absl::GetFlag(FLAGS_model), "cpu");
  if (!ck.ok()) return Fail(ck.status());
  std::string error;
  auto tok = Tokenizer::Load(absl::GetFlag(FLAGS_model) + "/" + ck->config.tokenizer.file, &error);
  if (!tok) return Fail(absl::NotFoundError(error));
  std::string doc;
  auto prepared = PrepareFile(*ck, *tok, &doc);
  if (!prepared.ok()) return Fail(prepared.status());
  const int layer = absl::GetFlag(FLAGS_layer), head = absl::GetFlag(FLAGS_head);
  const auto& a = ck->config.architecture;
  if (layer < 0 || layer >= a.token_layers || head < 0 || head >= a.heads) {
    return Fail(absl::InvalidArgumentError("--layer or --head out of range"));
  }
  const int64_t k = ClipDistanceFor(ck->config, prepared->num_tokens(), absl::GetFlag(FLAGS_k));
  auto scores = ScoreDocuments(*ck, {&*prepared}, k, tok->pad_id());
  if (!scores.ok()) return Fail(scores.status());
  const std::string prefix = absl::GetFlag(FLAGS_out);
  WriteScoresPng(prefix + "_scores.png", *prepared, (*scores)[0].scores);

  const int64_t n = std::min<int64_t>(absl::GetFlag(FLAGS_tokens), prepared->num_tokens());
  const HeadLogits h = HeadLogitsOf(*ck, *prepared, layer, head, k, n);
  WriteAttentionPng(prefix + "_attention.png", h);
  const double cm = h.content.abs().mean().item<double>();
  const double rm = h.relative.abs().mean().item<double>();
  const double cv = h.content.std().item<double>(), rv = h.relative.std().item<double>();
  std::printf(
      "document: %zu units, %lld tokens, k = %lld; layer %d head %d (k_h = %lld), first "
      "%lld tokens\n",
      prepared->units.size(), static_cast<long long>(prepared->num_tokens()),
      static_cast<long long>(k), layer, head, static_cast<long long>(h.k),
      static_cast<long long>(n));
  std::printf(
      "logits: content mean |x| %.3f (std %.3f), relative mean |x| %.3f (std %.3f): the "
      "relative part is %.0f%% of the spread\n",
      cm, cv, rm, rv, 100 * rv / (cv + rv));
  std::printf("wrote %s_attention.png (content | relative | attention) and %s_scores.png\n",
              prefix.c_str(), prefix.c_str());
  return 0;
}

}  // namespace
}  // namespace rpsum::train

int main(int argc, char** argv) {
  rpsum::train::ParseToolFlags(argc, argv,
                               "Renders attention parts and unit scores of one document.");
  try {
    return rpsum::train::Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpsum-inspect: %s\n", e.what());
    return 1;
  }
}
