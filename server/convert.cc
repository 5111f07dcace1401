#include "server/convert.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace rpsum::server {

namespace {

absl::Status ReadInput(const v1::SummarizeRequest& r, RequestPlan* plan) {
  model::DocumentInput& input = plan->input;
  switch (r.input_case()) {
    case v1::SummarizeRequest::kDocument:
      input.document = r.document();
      break;
    case v1::SummarizeRequest::kSentences:
      input.presplit = true;
      for (const std::string& s : r.sentences().sentences()) input.units.push_back(s);
      break;
    default:
      return absl::InvalidArgumentError("set either document or sentences");
  }
  input.title = r.title();
  return absl::OkStatus();
}

absl::StatusOr<model::Budget> ReadBudget(const v1::SummarizeRequest& r) {
  switch (r.budget_case()) {
    case v1::SummarizeRequest::kMaxWords:
      if (r.max_words() < 1 || r.max_words() > 100000) {
        return absl::InvalidArgumentError(
            absl::StrCat("max_words must be in [1, 100000], got ", r.max_words()));
      }
      return model::Budget{model::Budget::Kind::kWords, static_cast<double>(r.max_words())};
    case v1::SummarizeRequest::kMaxSentences:
      if (r.max_sentences() < 1 || r.max_sentences() > 10000) {
        return absl::InvalidArgumentError(
            absl::StrCat("max_sentences must be in [1, 10000], got ", r.max_sentences()));
      }
      return model::Budget{model::Budget::Kind::kUnits, static_cast<double>(r.max_sentences())};
    case v1::SummarizeRequest::kRatio:
      if (!(r.ratio() > 0 && r.ratio() <= 1) || !std::isfinite(r.ratio())) {
        return absl::InvalidArgumentError(absl::StrCat("ratio must be in (0, 1], got ", r.ratio()));
      }
      return model::Budget{model::Budget::Kind::kRatio, static_cast<double>(r.ratio())};
    default:
      return model::Budget{model::Budget::Kind::kWords, 100};
  }
}

absl::StatusOr<model::TruncationPolicy> ReadTruncation(const v1::SummarizeRequest& r) {
  switch (r.truncation()) {
    case v1::TRUNCATION_UNSPECIFIED:
    case v1::TRUNCATION_REJECT:
      return model::TruncationPolicy::kReject;
    case v1::TRUNCATION_HEAD:
      return model::TruncationPolicy::kHead;
    case v1::TRUNCATION_HEAD_AND_TAIL:
      return model::TruncationPolicy::kHeadAndTail;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown truncation value ", r.truncation()));
  }
}

absl::StatusOr<int> ReadPriority(const v1::SummarizeRequest& r) {
  switch (r.priority()) {
    case v1::PRIORITY_UNSPECIFIED:
    case v1::PRIORITY_NORMAL:
      return 2;
    case v1::PRIORITY_LOW:
      return 1;
    case v1::PRIORITY_HIGH:
      return 3;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown priority value ", r.priority()));
  }
}

}  // namespace

absl::StatusOr<RequestPlan> PlanRequest(const v1::SummarizeRequest& r,
                                        const model::ModelConfig& config) {
  RequestPlan p;
  RPSUM_RETURN_IF_ERROR(ReadInput(r, &p));
  absl::StatusOr<model::Budget> budget = ReadBudget(r);
  if (!budget.ok()) return budget.status();
  p.select.budget = *budget;
  if (r.clip_distance() > static_cast<uint32_t>(config.architecture.max_clip_distance)) {
    return absl::InvalidArgumentError(
        absl::StrCat("clip_distance must be at most ", config.architecture.max_clip_distance,
                     " (the model's tables), got ", r.clip_distance()));
  }
  p.clip_override = r.clip_distance();
  absl::StatusOr<model::TruncationPolicy> truncation = ReadTruncation(r);
  if (!truncation.ok()) return truncation.status();
  p.truncation = *truncation;
  absl::StatusOr<int> priority = ReadPriority(r);
  if (!priority.ok()) return priority.status();
  p.priority = *priority;
  p.select.trigram_blocking = !r.keep_redundant();
  p.select.keep_boilerplate = r.keep_boilerplate();
  p.outline = r.outline();
  p.select.rerank = config.scoring.rerank;  // the model's summary-level reranking, if any
  p.return_all_scores = r.return_all_scores();
  if (!r.content_type().empty() && r.input_case() == v1::SummarizeRequest::kDocument) {
    absl::StatusOr<formats::MediaType> type = formats::ParseMediaType(r.content_type());
    if (!type.ok()) return type.status();
    p.content_type = type->type;
    p.charset = type->charset;
  }
  p.return_extracted_text = r.return_extracted_text();
  return p;
}

void FillModelIdentity(const model::ModelDescription& d, v1::ModelIdentity* out) {
  out->set_name(d.config.name);
  out->set_version(d.config.version);
  out->set_weights_sha256(d.weights_sha256);
}

absl::Status ReadInput(const ReadOptions& options, RequestPlan* plan, ReadDocument* read) {
  model::DocumentInput& in = plan->input;
  if (in.presplit) {
    read->type = formats::ContentType::kText;
    if (!in.units.empty()) read->language = formats::DetectLanguage(in.units.front());
    return absl::OkStatus();
  }
  // Before extraction: the limit is on what the client sent (a PDF's bytes).
  if (absl::Status s = model::CheckDocumentBytes(in.document.size(), options.max_document_bytes);
      !s.ok()) {
    return s;
  }
  read->type = plan->content_type.value_or(formats::Detect(in.document));
  if (read->type == formats::ContentType::kPdf || formats::IsPackage(read->type)) {
    absl::StatusOr<formats::Extracted> x =
        formats::Extract(in.document, read->type, options.limits);
    if (!x.ok()) return x.status();
    read->extracted = *std::move(x);
    in.document = read->extracted->text;
    read->language = formats::DetectLanguage(in.document);
    return absl::OkStatus();
  }
  formats::DecodeOptions decode;
  decode.declared = plan->charset;
  decode.html = read->type == formats::ContentType::kHtml;
  decode.deadline = options.limits.deadline;
  absl::StatusOr<formats::Decoded> decoded = formats::Decode(in.document, decode);
  if (!decoded.ok()) return decoded.status();
  read->encoding = decoded->encoding;
  read->encoding_decided_by = decoded->decided_by;
  const std::string_view text = decoded->View(in.document);
  // Detected again on the text: UTF-16 shows its tags only once converted.
  if (!plan->content_type) read->type = formats::Detect(text);
  if (read->type != formats::ContentType::kText) {
    absl::StatusOr<formats::Extracted> x = formats::Extract(text, read->type, options.limits);
    if (!x.ok()) return x.status();
    formats::MapSources(*decoded, &*x);
    read->extracted = *std::move(x);
    in.document = read->extracted->text;
  } else if (decoded->converted) {
    read->converted = *std::move(decoded);
    in.document = read->converted->text;
  }
  read->language = formats::DetectLanguage(in.document);
  return absl::OkStatus();
}

namespace {

// Where a unit of the extracted text came from in the original.
void FillSource(const ReadDocument& read, const model::Unit& u, v1::Sentence* s) {
  if (!read.extracted) {
    const formats::Decoded* c = read.converted ? &*read.converted : nullptr;
    s->set_source_begin(c != nullptr ? c->Original(u.begin) : u.begin);
    s->set_source_end(c != nullptr ? c->Original(u.end) : u.end);
    return;
  }
  const formats::Extracted& x = *read.extracted;
  if (formats::IsPackage(read.type)) {
    if (auto part = formats::PartOf(x, u.begin, u.end)) {
      v1::PartRange* p = s->mutable_part();
      p->set_part(part->part);
      p->set_paragraph(static_cast<uint32_t>(part->paragraph));
      p->set_begin(part->begin);
      p->set_end(part->end);
    }
    return;
  }
  if (auto src = formats::SourceOf(x, u.begin, u.end)) {
    s->set_source_begin(src->begin);
    s->set_source_end(src->end);
  }
  for (const formats::PageBox& pb : formats::PageBoxesOf(x, u.begin, u.end)) {
    v1::PageBox* b = s->add_boxes();
    b->set_page(static_cast<uint32_t>(pb.page));
    b->set_x0(static_cast<float>(pb.box.x0));
    b->set_y0(static_cast<float>(pb.box.y0));
    b->set_x1(static_cast<float>(pb.box.x1));
    b->set_y1(static_cast<float>(pb.box.y1));
  }
}

// The kept unit i as a Sentence.
void FillSentence(const ReadDocument& read, const model::PreparedDocument& doc,
                  const std::vector<std::string_view>& texts, const std::vector<float>& scores,
                  int32_t i, v1::Sentence* s) {
  const int32_t unit = doc.kept[i];
  const model::Unit& u = doc.units[unit];
  s->set_index(static_cast<uint32_t>(unit));
  s->set_begin(u.begin);
  s->set_end(u.end);
  s->set_score(scores[i]);
  s->set_text(std::string(texts[i]));
  FillSource(read, u, s);
}

// The level the format gave the heading line at `begin` of the extracted text (0: none).
int32_t HeadingLevel(const ReadDocument& read, uint64_t begin) {
  if (!read.extracted) return 0;
  const auto& marks = read.extracted->heading_levels;
  auto it =
      std::lower_bound(marks.begin(), marks.end(), begin,
                       [](const formats::HeadingLevel& m, uint64_t b) { return m.begin < b; });
  return it != marks.end() && it->begin == begin ? it->level : 0;
}

// Where [begin, end) of the model's text lies in the original, as a section's fields.
void FillSectionSource(const ReadDocument& read, uint64_t begin, uint64_t end,
                       v1::OutlineSection* s) {
  if (!read.extracted) {
    const formats::Decoded* c = read.converted ? &*read.converted : nullptr;
    s->set_source_begin(c != nullptr ? c->Original(begin) : begin);
    s->set_source_end(c != nullptr ? c->Original(end) : end);
    return;
  }
  const formats::Extracted& x = *read.extracted;
  if (formats::IsPackage(read.type)) {
    if (auto part = formats::PartOf(x, begin, end)) {
      v1::PartRange* p = s->mutable_part();
      p->set_part(part->part);
      p->set_paragraph(static_cast<uint32_t>(part->paragraph));
      p->set_begin(part->begin);
      p->set_end(part->end);
    }
  } else if (read.type == formats::ContentType::kPdf) {
    const std::vector<formats::PageBox> boxes = formats::PageBoxesOf(x, begin, end);
    if (!boxes.empty()) {
      s->set_first_page(static_cast<uint32_t>(boxes.front().page));
      s->set_last_page(static_cast<uint32_t>(boxes.back().page));
    }
  } else if (auto src = formats::SourceOf(x, begin, end)) {
    s->set_source_begin(src->begin);
    s->set_source_end(src->end);
  }
}

void FillOutline(const ReadDocument& read, const model::PreparedDocument& doc,
                 const std::vector<std::string_view>& texts, const std::vector<float>& scores,
                 const std::vector<model::OutlineSection>& outline, v1::SummarizeResponse* out) {
  for (const model::OutlineSection& sec : outline) {
    v1::OutlineSection* s = out->add_outline();
    const uint64_t begin = doc.units[doc.kept[sec.first]].begin;
    const uint64_t end = doc.units[doc.kept[sec.end - 1]].end;
    if (sec.heading >= 0) {
      s->set_title(std::string(texts[sec.heading]));
      s->set_level(static_cast<uint32_t>(HeadingLevel(read, begin)));
    }
    s->set_begin(begin);
    s->set_end(end);
    FillSectionSource(read, begin, end, s);
    s->set_words(static_cast<uint32_t>(sec.words));
    s->set_boilerplate(sec.boilerplate);
    for (int32_t i : sec.chosen) FillSentence(read, doc, texts, scores, i, s->add_sentences());
  }
}

}  // namespace

std::vector<bool> MarkedHeadings(const ReadDocument& read, const model::PreparedDocument& doc) {
  // Where the format marks its headings (Markdown, HTML, Word, OpenDocument, a PDF's outline),
  // those head the sections; a short line the text form takes for a heading stays in its
  // section.
  std::vector<bool> marked;
  if (read.extracted && !read.extracted->heading_levels.empty() &&
      (read.type != formats::ContentType::kPdf ||
       read.extracted->outline_headings)) {  // PDF's type sizes give levels only
    marked.resize(doc.kept.size());
    for (size_t i = 0; i < doc.kept.size(); ++i) {
      marked[i] = HeadingLevel(read, doc.units[doc.kept[i]].begin) > 0;
    }
  }
  return marked;
}

void FillSummary(const RequestPlan& plan, const ReadDocument& read,
                 const model::PreparedDocument& doc, const model::DocumentScores& result,
                 const model::Selection& selection, v1::SummarizeResponse* out) {
  const std::vector<float>& scores = result.scores;
  const std::vector<std::string_view> texts = doc.KeptTexts(plan.input);
  std::string summary;
  for (int32_t i : selection.chosen) {
    FillSentence(read, doc, texts, scores, i, out->add_sentences());
    if (!summary.empty()) summary += '\n';
    summary.append(texts[i]);
  }
  out->set_summary(std::move(summary));
  FillOutline(read, doc, texts, scores, selection.outline, out);
  if (!plan.select.keep_boilerplate) {
    for (int32_t i : selection.boilerplate.sections) {
      out->add_boilerplate_sections(std::string(texts[i]));
    }
    out->set_boilerplate_sentences(static_cast<uint32_t>(
        std::count(selection.boilerplate.units.begin(), selection.boilerplate.units.end(), true)));
  }
  const int64_t tokens = doc.num_tokens();
  out->set_input_tokens(static_cast<uint32_t>(tokens));
  out->set_input_sentences(static_cast<uint32_t>(doc.units.size()));
  out->set_truncated(doc.truncated);
  out->set_truncated_sentences(static_cast<uint32_t>(doc.units.size() - doc.kept.size()));
  out->set_clip_distance(static_cast<uint32_t>(result.clip_distance));
  out->set_attention_mode(result.local_window > 0 ? v1::ATTENTION_MODE_LOCAL
                                                  : v1::ATTENTION_MODE_FULL);
  out->set_local_window(static_cast<uint32_t>(result.local_window));
  out->set_content_type(std::string(formats::MimeName(read.type)));
  out->set_language(read.language);
  out->set_encoding(read.encoding);
  out->set_encoding_decided_by(read.encoding_decided_by);
  if (read.extracted) {
    out->set_pages(static_cast<uint32_t>(read.extracted->pages));
    for (int32_t p : read.extracted->pages_without_text) {
      out->add_pages_without_text(static_cast<uint32_t>(p));
    }
    if (plan.return_extracted_text) out->set_extracted_text(read.extracted->text);
  }
  if (read.converted && plan.return_extracted_text) out->set_extracted_text(read.converted->text);
  if (plan.return_all_scores) {
    std::vector<float> all(doc.units.size(), 0.f);
    for (size_t i = 0; i < doc.kept.size(); ++i) all[doc.kept[i]] = scores[i];
    *out->mutable_scores() = {all.begin(), all.end()};
  }
}

void FillEstimate(const ReadDocument& read, const model::PreparedDocument& doc,
                  const model::ModelConfig& config, int64_t clip_distance,
                  v1::EstimateResponse* out) {
  out->set_content_type(std::string(formats::MimeName(read.type)));
  out->set_language(read.language);
  out->set_encoding(read.encoding);
  out->set_encoding_decided_by(read.encoding_decided_by);
  if (read.extracted) out->set_pages(static_cast<uint32_t>(read.extracted->pages));
  out->set_input_tokens(static_cast<uint32_t>(doc.num_tokens()));
  out->set_input_sentences(static_cast<uint32_t>(doc.units.size()));
  out->set_clip_distance(static_cast<uint32_t>(clip_distance));
  const int64_t window = config.attention.TokenWindow(doc.num_tokens());
  out->set_attention_mode(window > 0 ? v1::ATTENTION_MODE_LOCAL : v1::ATTENTION_MODE_FULL);
  out->set_local_window(static_cast<uint32_t>(window));
  out->set_truncated(doc.truncated);
  out->set_truncated_sentences(static_cast<uint32_t>(doc.units.size() - doc.kept.size()));
  out->set_cost(static_cast<uint64_t>(model::AttentionCost(config, doc.num_tokens())));
}

}  // namespace rpsum::server
