#include "protocol/multipart.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

/// What curl -F sends: a preamble-free body, a text field and a file.
std::string curlBody(std::string_view boundary) {
  std::string body;
  appendMultipartPart(body, boundary, "model", "whisper-1");
  appendMultipartPart(body, boundary, "file", std::string("RIFF\0\0\r\n--x\r\n", 14), true,
                      "speech.wav", "audio/wav");
  closeMultipart(body, boundary);
  return body;
}

std::string errorOf(Result<std::vector<MultipartPart>> const& parsed) {
  return parsed ? std::string("(parsed)") : parsed.error().message;
}

TEST(MultipartBoundary, TokenOrQuotedCaseInsensitive) {
  auto plain = multipartBoundary("multipart/form-data; boundary=----WebKitFormBoundaryAbC123");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(*plain, "----WebKitFormBoundaryAbC123");
  auto quoted = multipartBoundary("Multipart/Form-Data;charset=utf-8; BOUNDARY=\"a b:c?=\"");
  ASSERT_TRUE(quoted) << quoted.error().message;
  EXPECT_EQ(*quoted, "a b:c?=");
  EXPECT_EQ(*multipartBoundary("multipart/form-data; boundary=x;"), "x");
}

TEST(MultipartBoundary, RefusesWhatIsNotAFormBoundary) {
  for (std::string_view bad : {
           "application/json",
           "multipart/mixed; boundary=x",
           "multipart/form-data",
           "multipart/form-data; charset=utf-8",
           "multipart/form-data; boundary=",
           "multipart/form-data; boundary=\"\"",
           "multipart/form-data; boundary=\"unterminated",
           "multipart/form-data; boundary=\"ends with space \"",
           "multipart/form-data; boundary=\"a\\\"b\"",  // a quote is no boundary character
           "multipart/form-data; boundary=semi;colon=",
           "multipart/form-data; =x",
       }) {
    EXPECT_FALSE(multipartBoundary(bad)) << bad;
  }
  EXPECT_TRUE(multipartBoundary("multipart/form-data; boundary=" + std::string(70, 'b')));
  EXPECT_FALSE(multipartBoundary("multipart/form-data; boundary=" + std::string(71, 'b')));
}

TEST(Multipart, ReadsFieldsAndFilesByteExact) {
  std::string body = curlBody("------------------------d74496d66958873e");
  auto parts = parseMultipart(body, "------------------------d74496d66958873e");
  ASSERT_TRUE(parts) << parts.error().message;
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].name, "model");
  EXPECT_FALSE((*parts)[0].is_file);
  EXPECT_EQ((*parts)[0].body, "whisper-1");
  EXPECT_EQ((*parts)[0].content_type, "");
  EXPECT_EQ((*parts)[1].name, "file");
  EXPECT_TRUE((*parts)[1].is_file);
  EXPECT_EQ((*parts)[1].filename, "speech.wav");
  EXPECT_EQ((*parts)[1].content_type, "audio/wav");
  // NULs, a CRLF and a dash line that is not the boundary stay part of the file.
  EXPECT_EQ((*parts)[1].body, std::string("RIFF\0\0\r\n--x\r\n", 14));
}

TEST(Multipart, PreambleEpilogueAndTransportPadding) {
  std::string body =
      "This is the preamble.\r\n"
      "--b \t\r\n"
      "content-disposition: form-data; name=\"a\"\r\n"
      "\r\n"
      "1\r\n"
      "--b\r\n"
      "Content-Disposition: form-data; name=b; filename=\"\"\r\n"
      "\r\n"
      "\r\n"
      "--b--\r\n"
      "epilogue --b\r\n";
  auto parts = parseMultipart(body, "b");
  ASSERT_TRUE(parts) << parts.error().message;
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_EQ((*parts)[0].body, "1");
  EXPECT_EQ((*parts)[1].name, "b");
  EXPECT_TRUE((*parts)[1].is_file);  // an empty file name is still an upload
  EXPECT_EQ((*parts)[1].filename, "");
  EXPECT_EQ((*parts)[1].body, "");
}

TEST(Multipart, EscapesInQuotedNamesAndBrowserFileNames) {
  std::string body;
  appendMultipartPart(body, "b", "we\"ird\\name", "v", true, "C:\\dir\\a \"b\".png");
  closeMultipart(body, "b");
  auto parts = parseMultipart(body, "b");
  ASSERT_TRUE(parts) << parts.error().message;
  EXPECT_EQ((*parts)[0].name, "we\"ird\\name");
  EXPECT_EQ((*parts)[0].filename, "C:\\dir\\a \"b\".png");
  // A browser does not escape backslashes: they stay as sent.
  std::string browser =
      "--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a\\b.png\"\r\n\r\nx\r\n--b--";
  auto raw = parseMultipart(browser, "b");
  ASSERT_TRUE(raw) << raw.error().message;
  EXPECT_EQ((*raw)[0].filename, "a\\b.png");
  std::string star =
      "--b\r\nContent-Disposition: form-data; name=f; "
      "filename*=UTF-8''%C3%A9.png\r\n\r\nx\r\n--b--";
  auto extended = parseMultipart(star, "b");
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_TRUE((*extended)[0].is_file);
  EXPECT_EQ((*extended)[0].filename, "UTF-8''%C3%A9.png");
}

TEST(Multipart, LineEndsMustBeCrlf) {
  // LF-only framing does not delimit anything: the boundary line is never found whole.
  std::string lf = "--b\nContent-Disposition: form-data; name=\"a\"\n\n1\n--b--\n";
  EXPECT_FALSE(parseMultipart(lf, "b"));
  // A bare LF inside a header block is a control character in a header.
  std::string mixed = "--b\r\nContent-Disposition: form-data; name=\"a\"\nX: y\r\n\r\n1\r\n--b--";
  EXPECT_NE(errorOf(parseMultipart(mixed, "b")).find("control character"), std::string::npos);
  // The CRLF before a boundary line belongs to it; one before that is the part's.
  std::string trailing = "--b\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n\r\n--b--";
  auto parts = parseMultipart(trailing, "b");
  ASSERT_TRUE(parts) << parts.error().message;
  EXPECT_EQ((*parts)[0].body, "1\r\n");
}

TEST(Multipart, RefusesBrokenFraming) {
  struct Case {
    std::string body;
    std::string_view why;
  };
  std::string disposition = "Content-Disposition: form-data; name=\"a\"\r\n";
  for (Case const& c : std::initializer_list<Case>{
           {"no boundary here", "no boundary line"},
           {"--b\r\n" + disposition + "\r\nunterminated", "not closed by a boundary"},
           {"--b\r\n" + disposition + "\r\n1\r\n--b", "ends without a closing boundary"},
           {"--b\r\n" + disposition + "\r\n1\r\n--bX\r\n", "malformed boundary line"},
           {"--b\r\n" + disposition + "no blank line", "headers never end"},
           {"--b\r\n\r\n1\r\n--b--", "without Content-Disposition"},
           {"--b\r\nContent-Type: text/plain\r\n\r\n1\r\n--b--", "without Content-Disposition"},
           {"--b\r\nContent-Disposition: attachment; name=a\r\n\r\n1\r\n--b--", "not form-data"},
           {"--b\r\nContent-Disposition: form-data; filename=a\r\n\r\n1\r\n--b--", "has no name"},
           {"--b\r\nContent-Disposition: form-data; name=\"a\r\n\r\n1\r\n--b--", "not form-data"},
           {"--b\r\n" + disposition + disposition + "\r\n1\r\n--b--", "two Content-Disposition"},
           {"--b\r\n" + disposition + " folded\r\n\r\n1\r\n--b--", "folded"},
           {"--b\r\n" + disposition + "no colon\r\n\r\n1\r\n--b--", "malformed header"},
       }) {
    EXPECT_NE(errorOf(parseMultipart(c.body, "b")).find(c.why), std::string::npos)
        << c.why << ": " << errorOf(parseMultipart(c.body, "b"));
  }
  EXPECT_FALSE(parseMultipart("--b--", ""));
}

TEST(Multipart, EnforcesItsLimits) {
  MultipartLimits limits;
  limits.max_part_head_bytes = 64;
  limits.max_part_headers = 2;
  limits.max_parts = 3;
  std::string huge =
      "--b\r\nContent-Disposition: form-data; name=a\r\nX-Pad: " + std::string(1 << 20, 'p') +
      "\r\n\r\n1\r\n--b--";
  EXPECT_NE(errorOf(parseMultipart(huge, "b", limits)).find("too large"), std::string::npos);
  std::string many_headers =
      "--b\r\nContent-Disposition: form-data; name=a\r\nA: 1\r\nB: 2\r\n\r\n1\r\n--b--";
  EXPECT_NE(errorOf(parseMultipart(many_headers, "b", limits)).find("too many header"),
            std::string::npos);
  std::string body;
  for (int i = 0; i < 4; ++i) appendMultipartPart(body, "b", "f", "v");
  closeMultipart(body, "b");
  EXPECT_NE(errorOf(parseMultipart(body, "b", limits)).find("too many parts"), std::string::npos);
  body.clear();
  for (int i = 0; i < 3; ++i) appendMultipartPart(body, "b", "f", "v");
  closeMultipart(body, "b");
  EXPECT_TRUE(parseMultipart(body, "b", limits));
}

TEST(Multipart, ManyMegabytesParseInOnePass) {
  std::string file(6u << 20, '\r');  // CRs: every one starts a candidate delimiter
  for (std::size_t i = 1; i < file.size(); i += 7) file[i] = '\n';
  std::string body;
  appendMultipartPart(body, "XyZ", "image", file, true, "big.png", "image/png");
  closeMultipart(body, "XyZ");
  auto parts = parseMultipart(body, "XyZ");
  ASSERT_TRUE(parts) << parts.error().message;
  EXPECT_EQ((*parts)[0].body.size(), file.size());
}

}  // namespace
}  // namespace llmux::protocol
