// Zip archives written with libzip, for the package readers' tests and benchmarks (DOCX, ODT,
// EPUB).
#ifndef RPSUM_TESTING_ZIP_H_
#define RPSUM_TESTING_ZIP_H_

#include <zip.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace rpsum::test {

using ZipEntries = std::vector<std::pair<std::string, std::string>>;

// A zip archive of `entries`, in order: the first stored (as ODF and EPUB store "mimetype"), the
// rest deflated, or every entry stored when `store`. Empty if libzip fails.
inline std::string Zip(const ZipEntries& entries, bool store = false) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &err);
  zip_t* za = src == nullptr ? nullptr : zip_open_from_source(src, ZIP_TRUNCATE, &err);
  zip_error_fini(&err);
  if (za == nullptr) return {};
  zip_source_keep(src);
  bool ok = true;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, data] = entries[i];
    zip_source_t* s = zip_source_buffer(za, data.data(), data.size(), 0);
    const zip_int64_t at = zip_file_add(za, name.c_str(), s, ZIP_FL_OVERWRITE);
    ok = ok && at >= 0;
    if (at >= 0 && (i == 0 || store)) zip_set_file_compression(za, at, ZIP_CM_STORE, 0);
  }
  ok = zip_close(za) == 0 && ok;
  std::string out;
  if (ok && zip_source_open(src) == 0) {
    zip_source_seek(src, 0, SEEK_END);
    const zip_int64_t size = zip_source_tell(src);
    zip_source_seek(src, 0, SEEK_SET);
    out.assign(static_cast<size_t>(size), '\0');
    zip_source_read(src, out.data(), static_cast<zip_uint64_t>(size));
    zip_source_close(src);
  }
  zip_source_free(src);
  return out;
}

// A DOCX of `body` (the children of w:body), every entry stored (its bytes are its XML's), or
// deflated as word processors write it.
inline std::string Docx(const std::string& body, bool store) {
  return Zip({{"[Content_Types].xml", "<Types/>"},
              {"word/document.xml",
               "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
               "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/"
               "main\"><w:body>" +
                   body + "<w:sectPr/></w:body></w:document>"}},
             store);
}
inline std::string StoredDocx(const std::string& body) { return Docx(body, /*store=*/true); }

// An ODT of `body` (the children of office:text), "mimetype" first and stored; the content
// stored too when `store`.
inline std::string Odt(const std::string& body, bool store) {
  return Zip({{"mimetype", "application/vnd.oasis.opendocument.text"},
              {"content.xml",
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content "
               "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
               "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body>"
               "<office:text>" +
                   body + "</office:text></office:body></office:document-content>"}},
             store);
}

// An EPUB whose spine reads `chapters` (each an XHTML body's children, OEBPS/cN.xhtml) in
// order, or chapter 0 `repeat` times over when `repeat` is above 0; every entry stored when
// `store`.
inline std::string Epub(const std::vector<std::string>& chapters, bool store, size_t repeat = 0) {
  std::string manifest, spine;
  ZipEntries e = {{"mimetype", "application/epub+zip"},
                  {"META-INF/container.xml",
                   "<container><rootfiles><rootfile full-path=\"OEBPS/content.opf\"/>"
                   "</rootfiles></container>"}};
  for (size_t i = 0; i < chapters.size(); ++i) {
    const std::string id = "c" + std::to_string(i);
    manifest.append("<item id=\"").append(id).append("\" href=\"").append(id);
    manifest.append(".xhtml\" media-type=\"application/xhtml+xml\"/>");
    if (repeat == 0) spine.append("<itemref idref=\"").append(id).append("\"/>");
  }
  for (size_t i = 0; i < repeat; ++i) spine += "<itemref idref=\"c0\"/>";
  e.emplace_back("OEBPS/content.opf", "<package><manifest>" + manifest + "</manifest><spine>" +
                                          spine + "</spine></package>");
  for (size_t i = 0; i < chapters.size(); ++i) {
    e.emplace_back("OEBPS/c" + std::to_string(i) + ".xhtml",
                   "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><body>" +
                       chapters[i] + "</body></html>");
  }
  return Zip(e, store);
}

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_ZIP_H_
