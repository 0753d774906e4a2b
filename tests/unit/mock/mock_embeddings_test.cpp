// POST …/v1/embeddings: the answer's shape, its vectors and OpenAI's refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "media_test_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::decodeBase64;
using testing::errorOf;
using testing::jsonOf;
using testing::jsonPost;

std::vector<double> vectorOf(json::value const& item) {
  std::vector<double> out;
  for (auto const& v : item.at("embedding").as_array()) out.push_back(v.to_number<double>());
  return out;
}

double norm(std::vector<double> const& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

MockReply embed(MockProvider& mock, std::string body) {
  return mock.handle(jsonPost("/v1/embeddings", std::move(body)));
}

TEST(MockEmbeddings, OneUnitVectorPerInputInOpenAisShape) {
  MockProvider mock;
  MockReply reply = embed(mock, R"({"model":"text-embedding-3-small","input":["Hello","world"]})");
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_EQ(reply.headers.get("content-type"), "application/json");
  EXPECT_TRUE(reply.headers.get("x-request-id").starts_with("req_"));
  json::value body = jsonOf(reply);
  EXPECT_EQ(body.at("object"), "list");
  EXPECT_EQ(body.at("model"), "text-embedding-3-small");
  auto const& data = body.at("data").as_array();
  ASSERT_EQ(data.size(), 2u);
  for (std::size_t i = 0; i < data.size(); ++i) {
    EXPECT_EQ(data[i].at("object"), "embedding");
    EXPECT_EQ(data[i].at("index"), static_cast<std::int64_t>(i));
    auto vector = vectorOf(data[i]);
    EXPECT_EQ(vector.size(), 1536u);
    EXPECT_NEAR(norm(vector), 1.0, 1e-5);
  }
  EXPECT_NE(vectorOf(data[0]), vectorOf(data[1]));
  // Whole key order and usage as the API writes them.
  EXPECT_LT(reply.body().find("\"object\": \"list\""), reply.body().find("\"data\""));
  EXPECT_EQ(body.at("usage").at("prompt_tokens"), 4);  // 5 bytes / 4 + 1, twice
  EXPECT_EQ(body.at("usage").at("total_tokens"), 4);
}

TEST(MockEmbeddings, TheSameTextGetsTheSameVectorAnywhere) {
  MockProvider mock;
  auto alone =
      vectorOf(jsonOf(embed(mock, R"({"model":"m","input":"same text"})")).at("data").at(0));
  auto second = vectorOf(
      jsonOf(embed(mock, R"({"model":"m","input":["other","same text"]})")).at("data").at(1));
  EXPECT_EQ(alone, second);
  auto other_model =
      vectorOf(jsonOf(embed(mock, R"({"model":"m2","input":"same text"})")).at("data").at(0));
  EXPECT_NE(alone, other_model);
}

TEST(MockEmbeddings, DimensionsShortenTheVectorLikeTheApi) {
  MockProvider mock;
  auto full = vectorOf(
      jsonOf(embed(mock, R"({"model":"text-embedding-3-large","input":"x"})")).at("data").at(0));
  ASSERT_EQ(full.size(), 3072u);
  auto short_vector = vectorOf(
      jsonOf(embed(mock, R"({"model":"text-embedding-3-large","input":"x","dimensions":256})"))
          .at("data")
          .at(0));
  ASSERT_EQ(short_vector.size(), 256u);
  EXPECT_NEAR(norm(short_vector), 1.0, 1e-5);
  // The start of the full vector, renormalised.
  double scale = short_vector[0] / full[0];
  for (std::size_t i = 0; i < 256; ++i) EXPECT_NEAR(short_vector[i], full[i] * scale, 1e-5);
}

TEST(MockEmbeddings, Base64IsTheFloat32ValuesLittleEndian) {
  MockProvider mock;
  auto floats = vectorOf(
      jsonOf(embed(mock, R"({"model":"m","input":"abc","dimensions":8})")).at("data").at(0));
  json::value encoded = jsonOf(
      embed(mock, R"({"model":"m","input":"abc","dimensions":8,"encoding_format":"base64"})"));
  std::string bytes = decodeBase64(encoded.at("data").at(0).at("embedding").as_string());
  ASSERT_EQ(bytes.size(), 8u * 4);
  for (std::size_t i = 0; i < 8; ++i) {
    auto bits = static_cast<std::uint32_t>(testing::readLe(bytes, i * 4, 4));
    float value;
    std::memcpy(&value, &bits, 4);
    EXPECT_EQ(static_cast<double>(value), floats[i]);
  }
}

TEST(MockEmbeddings, TokenArraysCountTheirTokens) {
  MockProvider mock;
  json::value one = jsonOf(embed(mock, R"({"model":"m","input":[1,2,3]})"));
  EXPECT_EQ(one.at("data").as_array().size(), 1u);
  EXPECT_EQ(one.at("usage").at("prompt_tokens"), 3);
  json::value many = jsonOf(embed(mock, R"({"model":"m","input":[[1,2,3],[4,5],"text"]})"));
  EXPECT_EQ(many.at("data").as_array().size(), 3u);
  EXPECT_EQ(many.at("usage").at("prompt_tokens"), 3 + 2 + 2);
}

TEST(MockEmbeddings, RefusesLikeOpenAi) {
  MockProvider mock;
  struct Case {
    std::string body;
    std::string message;
    std::string code;  ///< "" for null
  };
  std::string const invalid_input =
      "'$.input' is invalid. Please check the API reference: "
      "https://platform.openai.com/docs/api-reference.";
  for (Case const& c : std::initializer_list<Case>{
           {R"({"input":"x"})", "Missing required parameter: 'model'.",
            "missing_required_parameter"},
           {R"({"model":"m"})", "Missing required parameter: 'input'.",
            "missing_required_parameter"},
           {R"({"model":"m","input":""})", invalid_input, ""},
           {R"({"model":"m","input":[]})", invalid_input, ""},
           {R"({"model":"m","input":["a",""]})", invalid_input, ""},
           {R"({"model":"m","input":[[1],[-2]]})", invalid_input, ""},
           {R"({"model":"m","input":{"a":1}})", invalid_input, ""},
           {R"({"model":"m","input":"x","encoding_format":"hex"})",
            "Invalid value: 'hex'. Supported values are: 'float' and 'base64'.", "invalid_value"},
           {R"({"model":"m","input":"x","dimensions":0})",
            "Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got 0 "
            "instead.",
            "integer_below_min_value"},
           {R"({"model":"text-embedding-3-small","input":"x","dimensions":1537})",
            "Invalid 'dimensions': integer above maximum value. Expected a value <= 1536, but got "
            "1537 instead.",
            "integer_above_max_value"},
           {R"({"model":"m","input":"x","dimensions":"8"})",
            "Invalid type for 'dimensions': expected an integer, but got a string instead.",
            "invalid_type"},
           {R"({"model":"text-embedding-ada-002","input":"x","dimensions":8})",
            "This model does not support specifying dimensions.", ""},
           {R"({"model":"m","input":")" + std::string(40000, 'a') + R"("})",
            "Invalid 'input': maximum context length is 8192 tokens.", ""},
       }) {
    MockReply reply = embed(mock, c.body);
    EXPECT_EQ(reply.status, 400) << c.body.substr(0, 80);
    json::object error = errorOf(reply);
    EXPECT_EQ(error["message"], c.message.c_str()) << c.body.substr(0, 80);
    EXPECT_EQ(error["type"], "invalid_request_error");
    if (c.code.empty()) {
      EXPECT_TRUE(error["code"].is_null()) << c.body.substr(0, 80);
    } else {
      EXPECT_EQ(error["code"], c.code.c_str()) << c.body.substr(0, 80);
    }
  }
}

TEST(MockEmbeddings, RefusesTooManyInputsAndTooLargeAnswers) {
  MockProvider mock;
  std::string inputs;
  for (int i = 0; i < 2049; ++i) inputs += std::string(i ? "," : "") + "\"a\"";
  MockReply reply = embed(mock, R"({"model":"m","input":[)" + inputs + "]}");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply)["code"], "array_above_max_length");
  // 2048 inputs of 3072 values is more than the mock writes in one answer.
  inputs = inputs.substr(4);
  reply = embed(mock, R"({"model":"text-embedding-3-large","input":[)" + inputs + "]}");
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(errorOf(reply)["message"].as_string().find("at most"), json::string::npos);
}

TEST(MockEmbeddings, BodyMustBeJson) {
  MockProvider mock;
  EXPECT_EQ(embed(mock, "not json").status, 400);
  MockRequest form = testing::formPost("/v1/embeddings", {{"model", "m", "", ""}});
  MockReply reply = mock.handle(form);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply)["code"], "unsupported_content_type");
  EXPECT_EQ(errorOf(reply)["message"],
            "Unsupported content type: 'multipart/form-data'. This API method only accepts "
            "'application/json' requests, but you specified the header 'Content-Type: "
            "multipart/form-data'. Please try again with a supported content type.");
}

TEST(MockEmbeddings, ContextOverflowFault) {
  MockProvider mock;
  MockRequest request = jsonPost("/v1/embeddings", R"({"model":"m","input":"short"})");
  request.headers.add("x-mock-fault", "context-overflow");
  MockReply reply = mock.handle(request);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply)["message"], "Invalid 'input': maximum context length is 8192 tokens.");
}

}  // namespace
}  // namespace llmux::mock
