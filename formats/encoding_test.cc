#include "formats/encoding.h"

#include <unicode/ucnv.h>
#include <unicode/ustring.h>

#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rpsum::formats {
namespace {

using ::testing::HasSubstr;

// `utf8` in an ICU encoding, one character at a time: the bytes, and each character's offset
// in them (with the end last), and its offset in the UTF-8.
struct Encoded {
  std::string bytes;
  std::vector<uint64_t> source;  // per character, then the end
  std::vector<uint64_t> text;    // the same in the UTF-8
};
Encoded Encode(const std::vector<std::string>& chars, const char* encoding) {
  UErrorCode err = U_ZERO_ERROR;
  UConverter* conv = ucnv_open(encoding, &err);
  EXPECT_TRUE(U_SUCCESS(err)) << encoding;
  Encoded out;
  uint64_t t = 0;
  for (const std::string& c : chars) {
    std::vector<UChar> u(8);
    int32_t n = 0;
    err = U_ZERO_ERROR;
    u_strFromUTF8(u.data(), 8, &n, c.data(), static_cast<int32_t>(c.size()), &err);
    std::string buf(16, '\0');
    err = U_ZERO_ERROR;
    const int32_t len = ucnv_fromUChars(conv, buf.data(), 16, u.data(), n, &err);
    EXPECT_TRUE(U_SUCCESS(err)) << c;
    out.source.push_back(out.bytes.size());
    out.text.push_back(t);
    out.bytes.append(buf.data(), len);
    t += c.size();
  }
  out.source.push_back(out.bytes.size());
  out.text.push_back(t);
  ucnv_close(conv);
  return out;
}

std::string Join(const std::vector<std::string>& chars) {
  std::string s;
  for (const std::string& c : chars) s += c;
  return s;
}

absl::StatusOr<Decoded> DecodeAs(std::string_view input, std::string declared, bool html = false) {
  DecodeOptions o;
  o.declared = std::move(declared);
  o.html = html;
  return Decode(input, o);
}

// Every character of random text maps back to its own bytes, in encodings of one to four bytes
// a character, across ICU's chunks (64 KB) and the map's marks.
TEST(Decode, EveryCharacterMapsBackToItsBytes) {
  std::mt19937 rng(7);
  const std::vector<std::string> alphabet = {"a",
                                             " ",
                                             "Z",
                                             "\xC3\xA9",
                                             "\xC3\xBC",
                                             "\xE4\xB8\xAD",
                                             "\xE6\x96\x87",
                                             "\xF0\x9F\x98\x80",
                                             "\xE2\x82\xAC",
                                             "\xD0\x96"};
  for (const char* encoding : {"UTF-16LE", "UTF-16BE", "GB18030", "UTF-32LE"}) {
    std::vector<std::string> chars;
    chars.reserve(70000);
    for (int i = 0; i < 70000; ++i) chars.push_back(alphabet[rng() % alphabet.size()]);
    const Encoded e = Encode(chars, encoding);
    const absl::StatusOr<Decoded> d = DecodeAs(e.bytes, encoding);
    ASSERT_TRUE(d.ok()) << encoding << ": " << d.status();
    EXPECT_TRUE(d->converted);
    EXPECT_EQ(d->decided_by, "content_type");
    ASSERT_EQ(d->text, Join(chars)) << encoding;
    for (size_t i = 0; i < e.text.size(); ++i) {
      ASSERT_EQ(d->Original(e.text[i]), e.source[i]) << encoding << " character " << i;
    }
    EXPECT_LT(d->map.bytes(), 2 * chars.size());
  }
}

TEST(Decode, ALatin1PageDeclaredByItsContentTypeKeepsItsAccentsAndOffsets) {
  // "Café au lait coûte © 2024." in ISO-8859-1.
  const std::string page = "<p>Caf\xE9 au lait co\xFBte \xA9 2024.</p>";
  const absl::StatusOr<Decoded> d = DecodeAs(page, "iso-8859-1", true);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->encoding, "windows-1252");  // as browsers read ISO-8859-1
  EXPECT_EQ(d->decided_by, "content_type");
  EXPECT_EQ(d->text, "<p>Caf\xC3\xA9 au lait co\xC3\xBBte \xC2\xA9 2024.</p>");
  absl::StatusOr<Extracted> x = Extract(d->text, ContentType::kHtml, {});
  ASSERT_TRUE(x.ok()) << x.status();
  MapSources(*d, &*x);
  ASSERT_GE(x->pieces.size(), 2u);
  // Each word's range is its bytes in the page as sent.
  EXPECT_EQ(
      page.substr(x->pieces[0].source_begin, x->pieces[0].source_end - x->pieces[0].source_begin),
      "Caf\xE9");
  EXPECT_EQ(
      page.substr(x->pieces[3].source_begin, x->pieces[3].source_end - x->pieces[3].source_begin),
      "co\xFBte");
  // windows-1252's own characters: the euro sign and curly quotes.
  const absl::StatusOr<Decoded> w = DecodeAs("\x80 5, \x93quoted\x94", "windows-1252");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->text, "\xE2\x82\xAC 5, \xE2\x80\x9Cquoted\xE2\x80\x9D");
}

TEST(Decode, EachWayACharsetArrives) {
  const std::string cafe = "Caf\xC3\xA9";  // UTF-8
  // Byte-order marks, which outrank a declared charset.
  const absl::StatusOr<Decoded> le = DecodeAs(std::string("\xFF\xFE"
                                                          "C\0a\0f\0\xE9\0",
                                                          10),
                                              "iso-8859-1");
  ASSERT_TRUE(le.ok()) << le.status();
  EXPECT_EQ(le->encoding, "UTF-16LE");
  EXPECT_EQ(le->decided_by, "byte_order_mark");
  EXPECT_EQ(le->text, cafe);
  EXPECT_EQ(le->Original(0), 2u);
  EXPECT_EQ(le->Original(3), 8u);
  EXPECT_EQ(le->Original(5), 10u);
  const absl::StatusOr<Decoded> be = DecodeAs(std::string("\xFE\xFF\0C\0a\0f\0\xE9", 10), "");
  ASSERT_TRUE(be.ok());
  EXPECT_EQ(be->encoding, "UTF-16BE");
  EXPECT_EQ(be->text, cafe);
  const absl::StatusOr<Decoded> bom8 = DecodeAs(
      "\xEF\xBB\xBF"
      "Caf\xC3\xA9",
      "windows-1252");
  ASSERT_TRUE(bom8.ok());
  EXPECT_EQ(bom8->encoding, "UTF-8");
  EXPECT_FALSE(bom8->converted);  // read in place, offsets are the input's
  // A <meta charset>, a <meta http-equiv> and an XML declaration, in HTML only.
  const std::string meta =
      "<html><head><!-- <meta charset=utf-8> --><meta charset=\"KOI8-R\">"
      "</head><p>\xF7\xD7\xC5\xC4\xC5\xCE\xC9\xC5</p>";
  const absl::StatusOr<Decoded> m = DecodeAs(meta, "", true);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->encoding, "KOI8-R");
  EXPECT_EQ(m->decided_by, "meta");
  EXPECT_THAT(m->text,
              HasSubstr("\xD0\x92\xD0\xB2\xD0\xB5\xD0\xB4\xD0\xB5\xD0\xBD\xD0\xB8\xD0\xB5"));
  const std::string equiv =
      "<meta http-equiv=Content-Type content='text/html; charset=ISO-8859-2'><p>\xB1</p>";
  const absl::StatusOr<Decoded> q = DecodeAs(equiv, "", true);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->encoding, "ISO-8859-2");
  EXPECT_THAT(q->text, HasSubstr("\xC4\x85"));  // a with ogonek
  const absl::StatusOr<Decoded> not_html = DecodeAs(equiv, "", false);
  ASSERT_TRUE(not_html.ok());
  EXPECT_EQ(not_html->decided_by, "detected");
  const std::string xml = "<?xml version='1.0' encoding='ISO-8859-15'?><html><p>\xA4 9</p>";
  const absl::StatusOr<Decoded> x = DecodeAs(xml, "", true);
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->encoding, "ISO-8859-15");
  EXPECT_EQ(x->decided_by, "xml_declaration");
  EXPECT_THAT(x->text, HasSubstr("\xE2\x82\xAC 9"));  // 0xA4 is the euro sign in Latin-9
  // Nothing declared: valid UTF-8 is read in place, anything else detected.
  const absl::StatusOr<Decoded> u = DecodeAs(cafe, "");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->decided_by, "utf8");
  EXPECT_FALSE(u->converted);
  const std::string french =
      "Le caf\xE9 est servi \xE0 la terrasse. Les \xE9l\xE8ves ont r\xE9vis\xE9 leurs le\xE7ons "
      "avant l'\xE9t\xE9, et la biblioth\xE8que a prolong\xE9 ses heures d'ouverture pour eux.";
  const absl::StatusOr<Decoded> f = DecodeAs(french, "");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->decided_by, "detected");
  EXPECT_EQ(f->encoding, "windows-1252");
  EXPECT_THAT(f->text, HasSubstr("biblioth\xC3\xA8que"));
  // Latin-1 or US-ASCII declared over UTF-8 characters (a stale declaration) reads UTF-8; over
  // ASCII, the declared name.
  for (const char* label : {"us-ascii", "iso-8859-1"}) {
    const absl::StatusOr<Decoded> stale = DecodeAs(cafe, label);
    ASSERT_TRUE(stale.ok());
    EXPECT_EQ(stale->decided_by, "utf8");
    EXPECT_EQ(stale->View(cafe), cafe);
    const absl::StatusOr<Decoded> ascii = DecodeAs("plain", label);
    ASSERT_TRUE(ascii.ok());
    EXPECT_EQ(ascii->encoding, "windows-1252");
    EXPECT_EQ(ascii->decided_by, "content_type");
  }
}

TEST(Decode, BadBytesInADeclaredEncodingAreAClearError) {
  const absl::StatusOr<Decoded> utf8 = DecodeAs("good \xFF bad", "utf-8");
  ASSERT_FALSE(utf8.ok());
  EXPECT_EQ(utf8.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(utf8.status().message(), HasSubstr("first invalid byte 0xff at byte offset 5"));
  EXPECT_THAT(utf8.status().message(), HasSubstr("content_type"));
  // Shift_JIS: 0x81 opens a two-byte character that 0x20 cannot end.
  const absl::StatusOr<Decoded> sjis = DecodeAs("abc\x81 def", "shift_jis");
  ASSERT_FALSE(sjis.ok());
  EXPECT_THAT(sjis.status().message(), HasSubstr("not valid Shift_JIS (content_type)"));
  EXPECT_THAT(sjis.status().message(), HasSubstr("byte offset 3"));
  // A NUL character, in UTF-16.
  const absl::StatusOr<Decoded> nul = DecodeAs(std::string("\xFF\xFE"
                                                           "a\0\0\0b\0",
                                                           8),
                                               "");
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.status().message(), HasSubstr("NUL character (U+0000) at byte offset 4"));
  // UTF-8 with a NUL byte is refused as before; UTF-16 without a mark is detected.
  const absl::StatusOr<Decoded> nul8 = DecodeAs(std::string("nul\0byte", 8), "");
  ASSERT_FALSE(nul8.ok());
  EXPECT_THAT(nul8.status().message(), HasSubstr("NUL byte at byte offset 3"));
  std::string utf16;
  for (char c : std::string("The queue holds requests until a worker is free again.")) {
    utf16 += std::string{c, '\0'};
  }
  const absl::StatusOr<Decoded> no_bom = DecodeAs(utf16, "");
  ASSERT_TRUE(no_bom.ok()) << no_bom.status();
  EXPECT_EQ(no_bom->encoding, "UTF-16LE");
  EXPECT_EQ(no_bom->decided_by, "detected");
  // "a\0b " over and over read as UTF-16LE would be 'a' and U+2062 INVISIBLE TIMES: no
  // encoding that reads it so is taken, and the refusal says what to do, as for a NUL byte.
  std::string invisible;
  for (int i = 0; i < 50; ++i) invisible += std::string("a\0b ", 4);
  const absl::StatusOr<Decoded> misread = DecodeAs(invisible, "");
  ASSERT_FALSE(misread.ok()) << misread->encoding << ": " << misread->text.substr(0, 12);
  EXPECT_EQ(misread.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(misread.status().message(), HasSubstr("could not be detected; declare its charset"));
  // A byte-order mark and nothing after it (found by fuzzing): the text's end is the input's.
  const absl::StatusOr<Decoded> mark_only = DecodeAs("\xFE\xFF", "");
  ASSERT_TRUE(mark_only.ok());
  EXPECT_EQ(mark_only->Original(0), 2u);
  // A charset ICU does not know.
  EXPECT_FALSE(DecodeAs("x", "klingon-8").ok());
}

TEST(Decode, TheTextIsAtMostThreeBytesAnInputByte) {
  // windows-1252's 0x80 (the euro sign) is three bytes of UTF-8: the worst case.
  const std::string euros(100000, '\x80');
  const absl::StatusOr<Decoded> d = DecodeAs(euros, "windows-1252");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->text.size(), 3 * euros.size());
  EXPECT_EQ(d->Original(d->text.size()), euros.size());
  EXPECT_EQ(d->Original(uint64_t{3} * 777), 777u);
  EXPECT_EQ(d->Original(uint64_t{3} * 777 + 1), 777u);  // inside a character: its start
}

}  // namespace
}  // namespace rpsum::formats
