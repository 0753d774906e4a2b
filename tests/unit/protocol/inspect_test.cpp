#include "protocol/inspect.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "test_data.h"

namespace llmux::protocol {
namespace {

Route routeFor(std::string_view method, std::string_view path) {
  RouteLookup lookup = matchRoute(method, path);
  EXPECT_EQ(lookup.match, RouteMatch::Found) << path;
  return lookup.route;
}

Route chat() {
  return routeFor("POST", "/v1/chat/completions");
}

std::string_view modelToken(std::string_view body, RequestProfile const& p) {
  return body.substr(p.model_begin, p.model_end - p.model_begin);
}

TEST(Inspect, ExtractsModelSpanAndStream) {
  std::string_view body =
      R"({"messages":[{"role":"user","content":"hi"}], "model" : "gpt-4o" ,"stream":true})";
  auto profile = inspectRequest(chat(), body);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->model, "gpt-4o");
  EXPECT_EQ(modelToken(body, *profile), "\"gpt-4o\"");
  EXPECT_TRUE(profile->stream);

  auto no_stream = inspectRequest(chat(), R"({"model":"m","stream":false})");
  ASSERT_TRUE(no_stream.ok());
  EXPECT_FALSE(no_stream->stream);
  auto absent = inspectRequest(chat(), R"({"model":"m"})");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->stream);
  auto null_stream = inspectRequest(chat(), R"({"model":"m","stream":null})");
  ASSERT_TRUE(null_stream.ok());
  EXPECT_FALSE(null_stream->stream);
}

TEST(Inspect, IgnoresNestedModelAndStreamMembers) {
  std::string_view body =
      R"({"metadata":{"model":"inner","stream":"yes"},"model":"outer","tools":[{"stream":1}]})";
  auto profile = inspectRequest(routeFor("POST", "/v1/messages"), body);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->model, "outer");
  EXPECT_FALSE(profile->stream);
}

TEST(Inspect, UnescapesTheModelButKeepsTheRawSpan) {
  std::string_view body = R"({"mod\u0065l":"claude\u002Dsonnet \"4\"","str\u0065am":true})";
  auto profile = inspectRequest(routeFor("POST", "/messages"), body);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->model, "claude-sonnet \"4\"");
  EXPECT_EQ(modelToken(body, *profile), R"("claude\u002Dsonnet \"4\"")");
  EXPECT_TRUE(profile->stream);
}

TEST(Inspect, RejectsBadBodiesWithActionableMessages) {
  struct Case {
    std::string_view body;
    std::string_view message;
  };
  Case const cases[] = {
      {"", "request body is empty"},
      {"{\"model\":\"m\",}", "request body is not valid JSON: expected a string key at byte 13"},
      {"{\"model\":\"m\"", "request body is not valid JSON: unexpected end of input at byte 12"},
      {"{\"model\":\"m\"} trailing",
       "request body is not valid JSON: unexpected data after the JSON value at byte 14"},
      {"[{\"model\":\"m\"}]", "request body must be a JSON object"},
      {"\"model\"", "request body must be a JSON object"},
      {"{}", "missing the required string field \"model\""},
      {"{\"messages\":[]}", "missing the required string field \"model\""},
      {"{\"model\":42}", "field \"model\" must be a string"},
      {"{\"model\":null}", "field \"model\" must be a string"},
      {"{\"model\":[\"a\"]}", "field \"model\" must be a string"},
      {"{\"model\":\"\"}", "field \"model\" must not be empty"},
      {"{\"model\":\"a\",\"stream\":\"true\"}", "field \"stream\" must be a boolean"},
      {"{\"model\":\"a\",\"stream\":1}", "field \"stream\" must be a boolean"},
      {"{\"model\":\"a\",\"model\":\"b\"}", "more than one \"model\" field"},
      {"{\"model\":\"a\",\"mod\\u0065l\":\"b\"}", "more than one \"model\" field"},
      {"{\"model\":\"a\",\"stream\":false,\"stream\":true}", "more than one \"stream\" field"},
  };
  for (auto const& c : cases) {
    auto profile = inspectRequest(chat(), c.body);
    ASSERT_FALSE(profile.ok()) << c.body;
    EXPECT_EQ(profile.error().kind, ErrorKind::InvalidRequest) << c.body;
    EXPECT_EQ(profile.error().status(), 400);
    EXPECT_NE(profile.error().message.find(c.message), std::string::npos)
        << c.body << " -> " << profile.error().message;
  }
}

TEST(Inspect, GeminiTakesModelAndStreamFromTheRoute) {
  Route stream = routeFor("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  std::string_view body =
      R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}],"model":"ignored"})";
  auto profile = inspectRequest(stream, body);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->model, "gemini-2.5-flash");
  EXPECT_TRUE(profile->stream);
  EXPECT_EQ(profile->model_begin, 0u);
  EXPECT_EQ(profile->model_end, 0u);

  Route unary = routeFor("POST", "/v1beta/models/gemini-2.5-flash:generateContent");
  auto plain = inspectRequest(unary, R"({"contents":[],"stream":"not checked for gemini"})");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->stream);

  EXPECT_FALSE(inspectRequest(unary, "").ok());
  EXPECT_FALSE(inspectRequest(unary, "[]").ok());
  auto broken = inspectRequest(unary, "{\"contents\":[}");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message.find("not valid JSON"), std::string::npos);
}

TEST(Inspect, RoutesWithoutABodyAreAnInternalError) {
  auto profile = inspectRequest(routeFor("GET", "/v1/models"), "{}");
  ASSERT_FALSE(profile.ok());
  EXPECT_EQ(profile.error().kind, ErrorKind::Internal);
}

struct FolderCase {
  std::string folder;
  std::string path;
};

// The recorded bodies: model and stream agree with a full parser, and the span is the model's
// own token.
TEST(Inspect, ReadsEveryRecordedRequestBody) {
  FolderCase const folders[] = {{"openai-chat", "/v1/chat/completions"},
                                {"openai-responses", "/v1/responses"},
                                {"anthropic", "/v1/messages"}};
  int checked = 0;
  for (auto const& f : folders) {
    for (auto const& path : test::requestFiles(f.folder)) {
      std::string body = test::readFile(path);
      auto profile = inspectRequest(routeFor("POST", f.path), body);
      ASSERT_TRUE(profile.ok()) << path << ": " << profile.error().message;
      boost::json::value const parsed = boost::json::parse(body);
      boost::json::object const& doc = parsed.as_object();
      EXPECT_EQ(profile->model, doc.at("model").as_string().c_str()) << path;
      bool stream =
          doc.contains("stream") && doc.at("stream").is_bool() && doc.at("stream").as_bool();
      EXPECT_EQ(profile->stream, stream) << path;
      EXPECT_EQ(boost::json::parse(modelToken(body, *profile)), doc.at("model")) << path;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 13);

  for (auto const& path : test::requestFiles("gemini")) {
    auto profile = inspectRequest(routeFor("POST", "/v1beta/models/gemini-2.5-pro:generateContent"),
                                  test::readFile(path));
    ASSERT_TRUE(profile.ok()) << path;
    EXPECT_EQ(profile->model, "gemini-2.5-pro") << path;  // never the cachedContents body model
  }
}

// What real CLI agents sent: route, model and stream from each capture.
TEST(Inspect, ReadsTheCapturedCliRequests) {
  struct Case {
    std::string file;
    std::string model;
    bool stream;
  };
  Case const cases[] = {{"claude-cli", "mock-basic", true},
                        {"codex-cli", "mock-basic", true},
                        {"gemini-cli", "mock-basic", true}};
  for (auto const& c : cases) {
    auto capture = boost::json::parse(
        test::readFile(test::dataDir() / "clients" / (c.file + ".request.json")));
    auto const& request = capture.as_object();
    std::string body = boost::json::serialize(request.at("body"));
    Route route =
        routeFor(request.at("method").as_string().c_str(), request.at("path").as_string().c_str());
    auto profile = inspectRequest(route, body);
    ASSERT_TRUE(profile.ok()) << c.file << ": " << profile.error().message;
    EXPECT_EQ(profile->model, c.model) << c.file;
    EXPECT_EQ(profile->stream, c.stream) << c.file;
  }
}

}  // namespace
}  // namespace llmux::protocol
