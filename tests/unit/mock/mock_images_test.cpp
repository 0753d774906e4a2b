// POST …/v1/images/generations and …/v1/images/edits.
#include <gtest/gtest.h>

#include "conformance_support.h"
#include "media_test_support.h"
#include "mock/mock_provider.h"
#include "mock/png_image.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::decodeBase64;
using testing::errorOf;
using testing::FormField;
using testing::formPost;
using testing::jsonOf;
using testing::jsonPost;
using testing::pngSize;

MockReply generate(MockProvider& mock, std::string body) {
  return mock.handle(jsonPost("/v1/images/generations", std::move(body)));
}

FormField png(std::string name = "image") {
  return {std::move(name), tinyPng(42), "cat.png", "image/png"};
}

TEST(MockImages, GptImageAnswersBase64WithUsageAndSettings) {
  MockProvider mock;
  MockReply reply = generate(
      mock,
      R"({"model":"gpt-image-1","prompt":"A cat in a hat","n":2,"quality":"low","size":"1536x1024"})");
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value body = jsonOf(reply);
  EXPECT_TRUE(body.at("created").is_int64());
  EXPECT_EQ(body.at("background"), "opaque");
  EXPECT_EQ(body.at("output_format"), "png");
  EXPECT_EQ(body.at("quality"), "low");
  EXPECT_EQ(body.at("size"), "1536x1024");
  auto const& data = body.at("data").as_array();
  ASSERT_EQ(data.size(), 2u);
  for (auto const& image : data) {
    EXPECT_FALSE(image.as_object().contains("url"));
    auto [width, height] = pngSize(decodeBase64(image.at("b64_json").as_string()));
    EXPECT_EQ(width, kMockImageSide);
    EXPECT_EQ(height, kMockImageSide);
  }
  EXPECT_NE(data[0].at("b64_json"), data[1].at("b64_json"));
  json::value const& usage = body.at("usage");
  EXPECT_EQ(usage.at("input_tokens_details").at("text_tokens"), 4);  // 14 bytes / 4 + 1
  EXPECT_EQ(usage.at("input_tokens_details").at("image_tokens"), 0);
  EXPECT_EQ(usage.at("input_tokens"), 4);
  EXPECT_EQ(usage.at("output_tokens"), 2 * 272);
  EXPECT_EQ(usage.at("total_tokens"), 4 + 2 * 272);
}

TEST(MockImages, DallEAnswersUrlsOrBase64WithoutUsage) {
  MockProvider mock;
  json::value url = jsonOf(generate(mock, R"({"prompt":"A red fox"})"));  // dall-e-2 by default
  EXPECT_FALSE(url.as_object().contains("usage"));
  EXPECT_TRUE(url.at("data").at(0).at("url").as_string().starts_with("https://"));
  json::value b64 = jsonOf(
      generate(mock, R"({"model":"dall-e-3","prompt":"A red fox","response_format":"b64_json"})"));
  EXPECT_EQ(pngSize(decodeBase64(b64.at("data").at(0).at("b64_json").as_string())).first,
            kMockImageSide);
  EXPECT_EQ(b64.at("data").at(0).at("revised_prompt"), "A red fox");
}

TEST(MockImages, SamePromptSameImage) {
  MockProvider mock;
  std::string body = R"({"model":"gpt-image-1","prompt":"same"})";
  EXPECT_EQ(generate(mock, body).body(), generate(mock, body).body());
  EXPECT_NE(jsonOf(generate(mock, body)).at("data").at(0),
            jsonOf(generate(mock, R"({"model":"gpt-image-1","prompt":"other"})")).at("data").at(0));
}

TEST(MockImages, StreamsPartialImagesThenTheCompletedOne) {
  MockProvider mock;
  MockReply reply = generate(
      mock, R"({"model":"gpt-image-1","prompt":"A cat","stream":true,"partial_images":2})");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(reply.streaming);
  EXPECT_TRUE(reply.headers.get("content-type").starts_with("text/event-stream"));
  auto events = testing::parseSse(reply.body());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event, "image_generation.partial_image");
  EXPECT_EQ(events[0].json.at("partial_image_index"), 0);
  EXPECT_EQ(events[1].json.at("partial_image_index"), 1);
  EXPECT_EQ(events[2].event, "image_generation.completed");
  EXPECT_EQ(events[2].json.at("type"), "image_generation.completed");
  EXPECT_TRUE(events[2].json.at("usage").at("output_tokens").is_int64());
  EXPECT_EQ(pngSize(decodeBase64(events[2].json.at("b64_json").as_string())).first, kMockImageSide);
}

TEST(MockImages, GenerationRefusals) {
  MockProvider mock;
  struct Case {
    std::string body;
    std::string message;
  };
  for (Case const& c : std::initializer_list<Case>{
           {R"({"model":"gpt-image-1"})", "Missing required parameter: 'prompt'."},
           {R"({"prompt":""})",
            "Invalid 'prompt': empty string. Expected a string with minimum length 1, but got an "
            "empty string instead."},
           {R"({"prompt":"x","n":11})",
            "Invalid 'n': integer above maximum value. Expected a value <= 10, but got 11 "
            "instead."},
           {R"({"prompt":"x","n":"2"})",
            "Invalid type for 'n': expected an integer, but got a string instead."},
           {R"({"prompt":"x","n":1.5})",
            "Invalid type for 'n': expected an integer, but got a decimal instead."},
           {R"({"prompt":"x","size":"huge"})",
            "Invalid value: 'huge'. Supported values are: '1024x1024', '1536x1024', '1024x1536', "
            "and 'auto'."},
           {R"({"prompt":"x","response_format":"png"})",
            "Invalid value: 'png'. Supported values are: 'url' and 'b64_json'."},
           {R"({"prompt":"x","quality":7})",
            "Invalid type for 'quality': expected one of 'low', 'medium', 'high', 'xhigh', 'max', "
            "'auto', 'standard', or 'hd', but got an integer instead."},
           {R"({"prompt":"x","partial_images":4})",
            "Invalid 'partial_images': integer above maximum value. Expected a value <= 3, but got "
            "4 instead."},
       }) {
    MockReply reply = generate(mock, c.body);
    EXPECT_EQ(reply.status, 400) << c.body;
    EXPECT_EQ(errorOf(reply)["message"], c.message.c_str()) << c.body;
  }
}

TEST(MockImages, EditsReadAFormWithOneOrMoreImages) {
  MockProvider mock;
  MockReply reply = mock.handle(formPost("/v1/images/edits", {png("image[]"),
                                                              png("image[]"),
                                                              png("mask"),
                                                              {"prompt", "Add a hat", "", ""},
                                                              {"model", "gpt-image-1", "", ""},
                                                              {"n", "2", "", ""}}));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value body = jsonOf(reply);
  EXPECT_EQ(body.at("data").as_array().size(), 2u);
  EXPECT_EQ(body.at("usage").at("input_tokens_details").at("image_tokens"), 2 * 194);
  EXPECT_EQ(pngSize(decodeBase64(body.at("data").at(0).at("b64_json").as_string())).second,
            kMockImageSide);
  MockReply one =
      mock.handle(formPost("/v1/images/edits", {png(), {"prompt", "Add a hat", "", ""}}));
  EXPECT_EQ(one.status, 200) << one.body();
  EXPECT_TRUE(jsonOf(one).at("data").at(0).as_object().contains("url"));  // dall-e-2
}

TEST(MockImages, EditsStreamAsImageEditEvents) {
  MockProvider mock;
  MockReply reply = mock.handle(formPost("/v1/images/edits", {png(),
                                                              {"prompt", "p", "", ""},
                                                              {"model", "gpt-image-1", "", ""},
                                                              {"stream", "true", "", ""}}));
  auto events = testing::parseSse(reply.body());
  ASSERT_EQ(events.size(), 1u) << reply.body();
  EXPECT_EQ(events[0].event, "image_edit.completed");
}

TEST(MockImages, EditRefusals) {
  MockProvider mock;
  MockReply no_image = mock.handle(formPost("/v1/images/edits", {{"prompt", "p", "", ""}}));
  EXPECT_EQ(no_image.status, 400);
  EXPECT_EQ(errorOf(no_image)["message"], "Missing required parameter: 'image'.");
  MockReply text_image =
      mock.handle(formPost("/v1/images/edits", {{"image", "x", "", ""}, {"prompt", "p", "", ""}}));
  EXPECT_EQ(errorOf(text_image)["message"],
            "Invalid type for 'image': expected a file, but got a string instead.");
  MockReply no_prompt = mock.handle(formPost("/v1/images/edits", {png()}));
  EXPECT_EQ(errorOf(no_prompt)["message"], "Missing required parameter: 'prompt'.");
  std::vector<FormField> seventeen(17, png("image[]"));
  seventeen.push_back({"prompt", "p", "", ""});
  EXPECT_EQ(errorOf(mock.handle(formPost("/v1/images/edits", seventeen)))["code"],
            "array_above_max_length");
  MockReply json_body = mock.handle(jsonPost("/v1/images/edits", R"({"prompt":"p"})"));
  EXPECT_EQ(json_body.status, 400);
  EXPECT_EQ(errorOf(json_body)["message"],
            "Unsupported content type: 'application/json'. This API method only accepts "
            "'multipart/form-data' requests, but you specified the header 'Content-Type: "
            "application/json'. Please try again with a supported content type.");
  MockRequest cut = formPost("/v1/images/edits", {png(), {"prompt", "p", "", ""}});
  cut.body.resize(cut.body.size() - 10);  // no closing boundary
  MockReply broken = mock.handle(cut);
  EXPECT_EQ(broken.status, 400);
  EXPECT_NE(errorOf(broken)["message"].as_string().find("multipart body"), json::string::npos);
  MockRequest no_boundary = formPost("/v1/images/edits", {png(), {"prompt", "p", "", ""}});
  no_boundary.headers.set("content-type", "multipart/form-data");
  EXPECT_EQ(errorOf(mock.handle(no_boundary))["message"],
            "the multipart Content-Type has no boundary");
}

}  // namespace
}  // namespace llmux::mock
