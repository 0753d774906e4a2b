#include "protocol/model_splice.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "test_data.h"

namespace llmux::protocol {
namespace {

Route routeFor(std::string_view path) {
  return matchRoute("POST", path).route;
}

TEST(ModelSplice, ReplacesOnlyTheModelTokenWithoutCopyingTheBody) {
  std::string body =
      R"({"model" : "gpt-4o", "messages":[{"role":"user","content":"model gpt-4o"}]})";
  auto profile = inspectRequest(routeFor("/v1/chat/completions"), body);
  ASSERT_TRUE(profile.ok());
  SplicedBody spliced = spliceModel(body, *profile, "gpt-4o-2024-08-06");
  EXPECT_EQ(spliced.before.data(), body.data());  // views into the original, not copies
  EXPECT_EQ(spliced.after.data() + spliced.after.size(), body.data() + body.size());
  EXPECT_EQ(spliced.model_token, "\"gpt-4o-2024-08-06\"");
  EXPECT_EQ(
      spliced.joined(),
      R"({"model" : "gpt-4o-2024-08-06", "messages":[{"role":"user","content":"model gpt-4o"}]})");
  EXPECT_EQ(spliced.size(), spliced.joined().size());
}

TEST(ModelSplice, QuotesTheNewNameAsJson) {
  std::string body = R"({"model":"a","stream":true})";
  auto profile = inspectRequest(routeFor("/v1/messages"), body);
  ASSERT_TRUE(profile.ok());
  SplicedBody spliced = spliceModel(body, *profile, "we\"ird\\name\n");
  EXPECT_EQ(spliced.joined(), R"({"model":"we\"ird\\name\n","stream":true})");
  auto doc = boost::json::parse(spliced.joined());
  EXPECT_EQ(doc.at("model").as_string(), "we\"ird\\name\n");
}

TEST(ModelSplice, SameNameOrGeminiLeavesTheBytesAlone) {
  // Compared decoded: an escaped spelling of the same name is kept as the client wrote it.
  std::string body = R"({"model":"gpt\u002d4o"})";
  auto profile = inspectRequest(routeFor("/v1/responses"), body);
  ASSERT_TRUE(profile.ok());
  SplicedBody same = spliceModel(body, *profile, "gpt-4o");
  EXPECT_EQ(same.before, body);
  EXPECT_TRUE(same.model_token.empty());
  EXPECT_TRUE(same.after.empty());
  EXPECT_EQ(same.size(), body.size());

  std::string gemini_body = R"({"contents":[]})";
  auto gemini = inspectRequest(routeFor("/v1beta/models/gemini-pro:generateContent"), gemini_body);
  ASSERT_TRUE(gemini.ok());
  SplicedBody untouched = spliceModel(gemini_body, *gemini, "gemini-2.5-pro");
  EXPECT_EQ(untouched.before, gemini_body);
  EXPECT_TRUE(untouched.model_token.empty());
  EXPECT_TRUE(untouched.after.empty());
}

// On real bodies the result differs from the original in the model value only.
TEST(ModelSplice, RecordedBodiesKeepEverythingButTheModel) {
  struct Folder {
    std::string name;
    std::string path;
  };
  for (auto const& f :
       {Folder{"openai-chat", "/v1/chat/completions"}, Folder{"openai-responses", "/v1/responses"},
        Folder{"anthropic", "/v1/messages"}}) {
    for (auto const& path : test::requestFiles(f.name)) {
      std::string body = test::readFile(path);
      auto profile = inspectRequest(routeFor(f.path), body);
      ASSERT_TRUE(profile.ok()) << path;
      std::string out = spliceModel(body, *profile, "upstream/model:v2").joined();
      auto original = boost::json::parse(body);
      auto rewritten = boost::json::parse(out);
      EXPECT_EQ(rewritten.at("model").as_string(), "upstream/model:v2") << path;
      rewritten.as_object()["model"] = original.at("model");
      EXPECT_EQ(rewritten, original) << path;
      EXPECT_EQ(out.substr(0, profile->model_begin), body.substr(0, profile->model_begin));
      EXPECT_EQ(out.substr(out.size() - (body.size() - profile->model_end)),
                body.substr(profile->model_end));
    }
  }
}

}  // namespace
}  // namespace llmux::protocol
