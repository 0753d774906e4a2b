// What a captured body becomes: secrets blanked (JSON fields at any depth, headers), long bodies
// cut and marked, rows encoded as ClickHouse's JSONEachRow takes them.

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "core/digest.h"
#include "payloads/json_each_row.h"
#include "payloads/redaction.h"
#include "payloads/request_capture.h"

namespace llmux::payloads {
namespace {

std::vector<std::string> const kNames{"api_key", "authorization"};

std::string redacted(std::string text) {
  redactJsonFields(text, kNames);
  return text;
}

TEST(Redaction, BlanksListedFieldsAtAnyDepthWhateverTheirValue) {
  EXPECT_EQ(redacted(R"({"model":"m","api_key":"sk-1","n":{"deep":[{"API_KEY" : "sk-2"}]}})"),
            R"({"model":"m","api_key":"","n":{"deep":[{"API_KEY" : ""}]}})");
  EXPECT_EQ(redacted(R"({"authorization":{"token":"t","nested":[1,"}"]},"x":1})"),
            R"({"authorization":"","x":1})");
  EXPECT_EQ(redacted(R"({"api_key":12345,"api_key":null,"b":true})"),
            R"({"api_key":"","api_key":"","b":true})");
  // A value that merely equals a listed name is not a member: kept.
  EXPECT_EQ(redacted(R"({"note":"api_key","list":["authorization"]})"),
            R"({"note":"api_key","list":["authorization"]})");
  // Escaped quotes inside strings do not derail the scan.
  EXPECT_EQ(redacted(R"({"text":"say \"api_key\": now","api_key":"sk-\"3"})"),
            R"({"text":"say \"api_key\": now","api_key":""})");
}

TEST(Redaction, WorksOnStreamsAndCutBodies) {
  EXPECT_EQ(redacted("data: {\"api_key\":\"a\"}\n\ndata: {\"x\":{\"api_key\":\"b\"}}\n\ndata: [DONE]\n\n"),
            "data: {\"api_key\":\"\"}\n\ndata: {\"x\":{\"api_key\":\"\"}}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(redacted(R"({"a":1,"api_key":"sk-cut-he)"), R"({"a":1,"api_key":"")");
  EXPECT_EQ(redacted(R"({"a":1,"authorization":{"k":"v)"), R"({"a":1,"authorization":"")");
}

TEST(Redaction, HeadersWithCredentialsAreBlanked) {
  HeaderList headers;
  headers.add("Content-Type", "application/json");
  headers.add("Authorization", "Bearer sk-gw");
  headers.add("x-api-key", "sk-gw-2");
  headers.add("X-Goog-Api-Key", "g-key");
  headers.add("X-Custom-Secret", "hidden");
  headers.add("User-Agent", "sdk/1");
  auto json = redactedHeadersJson(headers, {"x-custom-secret"});
  EXPECT_EQ(json, R"({"content-type":"application/json","authorization":"","x-api-key":"",)"
                  R"("x-goog-api-key":"","x-custom-secret":"","user-agent":"sdk/1"})");
}

TEST(Capture, LongBodiesAreCutAtMaxBytesAndMarkedWithTheirLength) {
  auto options = std::make_shared<CaptureOptions const>(CaptureOptions{8, {"api_key"}});
  RequestCapture capture(options, "req-1", 1700000000);
  capture.addBody(0, BodyKind::Request, "0123456789abcdef");
  capture.addBody(0, BodyKind::Response, "short");
  std::uint32_t first = capture.nextAttempt();
  CappedCopy copy = capture.newCopy();
  copy.append("{\"api_");
  copy.append("key\":\"sk-secret\"}");
  capture.addCopy(first, BodyKind::Response, std::move(copy));
  std::uint32_t second = capture.nextAttempt();
  EXPECT_EQ(second, 2u);
  CappedCopy whole = capture.newCopy();
  whole.append("{\"ok\":1}");
  capture.addCopy(second, BodyKind::Response, std::move(whole));
  auto rows = capture.take();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].body, "{\"ok\":1}");
  EXPECT_FALSE(rows[3].truncated);
  EXPECT_EQ(rows[3].body_bytes, 8u);
  EXPECT_EQ(rows[0].body, "01234567");
  EXPECT_TRUE(rows[0].truncated);
  EXPECT_EQ(rows[0].body_bytes, 16u);
  EXPECT_EQ(rows[1].body, "short");
  EXPECT_FALSE(rows[1].truncated);
  EXPECT_EQ(rows[1].body_bytes, 5u);
  EXPECT_EQ(rows[2].attempt, 1u);
  EXPECT_EQ(rows[2].request_id, "req-1");
  EXPECT_EQ(rows[2].ts, 1700000000);
  EXPECT_EQ(rows[2].body, "{\"api_ke");  // cut before the member's name ended: nothing to blank
  EXPECT_TRUE(rows[2].truncated);
  EXPECT_EQ(rows[2].body_bytes, 23u);
}

TEST(Capture, ACutNeverSplitsAUtf8Sequence) {
  // "é" is 2 bytes, "😀" 4: cuts inside them back off to the sequence's start.
  EXPECT_EQ(truncatedBody("abé", 3), "ab");
  EXPECT_EQ(truncatedBody("abé", 4), "abé");
  EXPECT_EQ(truncatedBody("a😀b", 3), "a");
  EXPECT_EQ(truncatedBody("a😀b", 5), "a😀");
  EXPECT_EQ(withoutCutSequence("x\xF0\x9F"), "x");
  // Bytes that are not UTF-8 are cut where max_bytes says.
  EXPECT_EQ(truncatedBody(std::string("\x80\x80\x80\x80\x80", 5), 3), std::string("\x80\x80\x80", 3));
}

TEST(JsonEachRow, TextIsEscapedAndBinaryGoesAsBase64) {
  PayloadRow text;
  text.ts = 1700000000;
  text.request_id = "r\"1";
  text.attempt = 2;
  text.kind = BodyKind::Response;
  text.headers = R"({"a":"b"})";
  text.body = std::string("line\n\t\"quoted\" \\ h\xC3\xA9llo \xF0\x9F\x98\x80 \x01", 29);
  text.body_bytes = 100;
  text.truncated = true;
  std::string out;
  appendJsonEachRow(out, text);
  ASSERT_EQ(out.back(), '\n');
  auto parsed = boost::json::parse(out).as_object();
  EXPECT_EQ(parsed.at("ts").as_int64(), 1700000000);
  EXPECT_EQ(parsed.at("request_id").as_string(), "r\"1");
  EXPECT_EQ(parsed.at("attempt").as_int64(), 2);
  EXPECT_EQ(parsed.at("kind").as_string(), "response");
  EXPECT_EQ(parsed.at("headers").as_string(), R"({"a":"b"})");
  EXPECT_EQ(std::string(parsed.at("body").as_string()), text.body);
  EXPECT_EQ(parsed.at("body_bytes").as_int64(), 100);
  EXPECT_EQ(parsed.at("truncated").as_int64(), 1);
  EXPECT_EQ(parsed.at("encoding").as_string(), "");

  PayloadRow binary;
  binary.body = std::string("\x89PNG\r\n\x1a\n\xff\xfe", 10);
  binary.body_bytes = 10;
  out.clear();
  appendJsonEachRow(out, binary);
  auto parsed_binary = boost::json::parse(out).as_object();
  EXPECT_EQ(parsed_binary.at("encoding").as_string(), "base64");
  EXPECT_EQ(parsed_binary.at("body").as_string(), base64(binary.body));
  EXPECT_EQ(parsed_binary.at("kind").as_string(), "request");
}

TEST(JsonEachRow, ReadingARequestBackQuotesItsId) {
  EXPECT_EQ(selectRequestStatement("db", "t", "a'b\\c"),
            "SELECT attempt, kind, headers, body, body_bytes, truncated, encoding FROM db.t WHERE "
            "request_id = 'a\\'b\\\\c' ORDER BY attempt, kind FORMAT JSON");
}

TEST(JsonEachRow, Utf8Validation) {
  EXPECT_TRUE(isValidUtf8("plain"));
  EXPECT_TRUE(isValidUtf8("h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xC3"));              // cut
  EXPECT_FALSE(isValidUtf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(isValidUtf8("\xED\xA0\x80"));      // a surrogate
  EXPECT_FALSE(isValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(isValidUtf8("\xFF"));
}

}  // namespace
}  // namespace llmux::payloads
