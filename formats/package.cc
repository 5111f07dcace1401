#include "formats/internal/package.h"

#include <libxml/xmlreader.h>
#include <zip.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "formats/internal/builder.h"

namespace rpsum::formats::internal {
namespace {

constexpr int64_t kMaxEntries = 10000;
constexpr int kMaxXmlDepth = 256;
constexpr size_t kReadChunk = 64 << 10;

absl::Status Invalid(std::string_view format, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("this ", std::string(format), " ", std::string(what)));
}

}  // namespace

struct Package::State {
  zip_t* zip = nullptr;
  std::string format;
  uint64_t budget = 0;  // bytes left to inflate
  ExtractLimits limits;
  ~State() {
    if (zip != nullptr) zip_discard(zip);
  }
};

Package::Package(std::unique_ptr<State> state) : state_(std::move(state)) {}
Package::Package(Package&&) noexcept = default;
Package& Package::operator=(Package&&) noexcept = default;
Package::~Package() = default;

absl::StatusOr<Package> Package::Open(std::string_view bytes, std::string_view format,
                                      const ExtractLimits& limits) {
  auto state = std::make_unique<State>();
  state->format = std::string(format);
  state->budget = limits.max_unpacked_bytes;
  state->limits = limits;
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) return absl::InternalError("libzip could not take the buffer");
  state->zip = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (state->zip == nullptr) {
    zip_source_free(source);
    const std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    return Invalid(format, absl::StrCat("is not a readable zip package (", why,
                                        "): send the file as saved, undamaged"));
  }
  zip_error_fini(&error);
  const zip_int64_t entries = zip_get_num_entries(state->zip, 0);
  if (entries > kMaxEntries) {
    return Invalid(format, absl::StrCat("holds ", entries, " files; the limit is ", kMaxEntries));
  }
  return Package(std::move(state));
}

bool Package::Has(std::string_view name) const {
  return zip_name_locate(state_->zip, std::string(name).c_str(), 0) >= 0;
}

absl::StatusOr<std::string> Package::Read(std::string_view name) {
  const std::string n(name);
  zip_file_t* f = zip_fopen(state_->zip, n.c_str(), 0);
  if (f == nullptr) {
    return Invalid(state_->format, absl::StrCat("has no readable ", n, ": it is damaged or not a ",
                                                state_->format));
  }
  std::string out;
  absl::Status status;
  for (;;) {
    if (absl::Status s = CheckDeadline(state_->limits, "unpacking the document"); !s.ok()) {
      status = s;
      break;
    }
    const size_t want = std::min<uint64_t>(kReadChunk, state_->budget + 1);
    const size_t at = out.size();
    out.resize(at + want);
    const zip_int64_t got = zip_fread(f, out.data() + at, want);
    if (got < 0) {
      status = Invalid(state_->format,
                       absl::StrCat("has a damaged ", n, " (", zip_strerror(state_->zip), ")"));
      break;
    }
    out.resize(at + static_cast<size_t>(got));
    if (static_cast<uint64_t>(got) > state_->budget) {
      status = Invalid(state_->format,
                       absl::StrCat("unpacks past ", state_->limits.max_unpacked_bytes,
                                    " bytes (max_unpacked_bytes) at ", n,
                                    ": a compressed bomb, or a document too large to read"));
      break;
    }
    state_->budget -= static_cast<uint64_t>(got);
    if (got == 0) break;
  }
  zip_fclose(f);
  if (!status.ok()) return status;
  return out;
}

struct XmlReader {
  xmlTextReaderPtr reader = nullptr;
};

std::string Attribute(XmlReader* r, const char* name) {
  xmlChar* v = xmlTextReaderGetAttribute(r->reader, reinterpret_cast<const xmlChar*>(name));
  if (v == nullptr) return "";
  std::string out(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return out;
}

std::string_view Text(XmlReader* r) {
  const xmlChar* v = xmlTextReaderConstValue(r->reader);
  return v == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(v));
}

absl::Status WalkXml(std::string_view xml, std::string_view part, std::string_view format,
                     const ExtractLimits& limits,
                     const std::function<absl::Status(const XmlEvent&, XmlReader*)>& on) {
  if (xml.size() > static_cast<size_t>(INT32_MAX)) return Invalid(format, "has a part over 2 GB");
  static const bool kInitialized = [] {
    xmlInitParser();  // once, before threads use libxml2
    return true;
  }();
  (void)kInitialized;
  XmlReader r;
  // No network, no entity substitution, no DTD loading; errors are ours to report.
  r.reader = xmlReaderForMemory(xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (r.reader == nullptr) return absl::InternalError("libxml2 could not start a reader");
  std::unique_ptr<xmlTextReader, void (*)(xmlTextReaderPtr)> close(r.reader, xmlFreeTextReader);
  // Some errors (a text node over 10 MB) reach libxml2's default handler, which writes to
  // stderr whatever XML_PARSE_NOERROR says: a caller could fill the server's log. This handler
  // drops them; xmlGetLastError still has the last one, which the refusal below quotes.
  xmlTextReaderSetStructuredErrorHandler(
      r.reader, [](void* /*data*/, xmlErrorPtr /*error*/) {}, nullptr);
  int ret = 0;
  for (uint64_t nodes = 1; (ret = xmlTextReaderRead(r.reader)) == 1; ++nodes) {
    if (nodes % 4096 == 0) {
      if (absl::Status s = CheckDeadline(limits, "reading the document's XML"); !s.ok()) return s;
    }
    const int type = xmlTextReaderNodeType(r.reader);
    const int depth = xmlTextReaderDepth(r.reader);
    if (depth > kMaxXmlDepth) {
      return Invalid(format, absl::StrCat("nests XML deeper than ", kMaxXmlDepth, " levels in ",
                                          std::string(part), "; it is damaged or not a ",
                                          std::string(format)));
    }
    XmlEvent e;
    e.depth = depth;
    switch (type) {
      case XML_READER_TYPE_DOCUMENT_TYPE:
        return Invalid(format, absl::StrCat("declares a DTD in ", std::string(part),
                                            ", which documents of its kind never do"));
      case XML_READER_TYPE_ELEMENT:
        e.kind = XmlEvent::kStart;
        e.name = reinterpret_cast<const char*>(xmlTextReaderConstName(r.reader));
        e.empty = xmlTextReaderIsEmptyElement(r.reader) == 1;
        break;
      case XML_READER_TYPE_END_ELEMENT:
        e.kind = XmlEvent::kEnd;
        e.name = reinterpret_cast<const char*>(xmlTextReaderConstName(r.reader));
        break;
      case XML_READER_TYPE_TEXT:
      case XML_READER_TYPE_CDATA:
      case XML_READER_TYPE_WHITESPACE:
      case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
        e.kind = XmlEvent::kText;
        break;
      default:
        continue;
    }
    if (absl::Status s = on(e, &r); !s.ok()) return s;
  }
  if (ret != 0) {
    const xmlError* err = xmlGetLastError();
    if (err != nullptr && err->message != nullptr &&
        absl::StrContains(err->message, "Excessive depth")) {
      return Invalid(format, absl::StrCat("nests XML deeper than ", kMaxXmlDepth, " levels in ",
                                          std::string(part), "; it is damaged or not a ",
                                          std::string(format)));
    }
    return Invalid(format,
                   absl::StrCat("has XML that is not well-formed in ", std::string(part),
                                err != nullptr && err->message != nullptr
                                    ? absl::StrCat(" (line ", err->line, ": ", err->message, ")")
                                    : std::string(),
                                "; it is damaged"));
  }
  return absl::OkStatus();
}

}  // namespace rpsum::formats::internal
