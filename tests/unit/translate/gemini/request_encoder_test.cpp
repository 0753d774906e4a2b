// The neutral request as a Gemini body (translate/gemini/request_encoder.cpp). Every body is also
// checked by the strict request validator and by the mock provider.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"
#include "validators/gemini_validator.h"

namespace llmux::translate::gemini {
namespace {

namespace json = boost::json;
using testing::askGeminiMock;
using testing::callBlock;
using testing::resultBlock;
using testing::textBlock;

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += "  " + p + "\n";
  return out;
}

/// Encodes, checks the body as Gemini would, and returns it parsed.
json::object encodeOk(Request const& request, std::string_view model = "gemini-3-flash-preview") {
  auto body = encodeRequest(request, model);
  EXPECT_TRUE(body.ok()) << (body.ok() ? "" : body.error().message);
  if (!body.ok()) return {};
  auto problems = validators::gemini::validateRequest(*body);
  EXPECT_TRUE(problems.empty()) << joined(problems) << *body;
  auto reply = askGeminiMock(*body, model);
  EXPECT_EQ(reply.status, 200) << reply.body() << "\n" << *body;
  return json::parse(*body).as_object();
}

Message message(Role role, std::vector<Block> blocks) { return Message{role, std::move(blocks)}; }

Request conversation(std::vector<Message> messages) {
  Request r;
  r.model = "client-model";
  r.messages = std::move(messages);
  return r;
}

std::string part(json::object const& body, std::size_t content, std::size_t index) {
  return json::serialize(body.at("contents").at(content).at("parts").at(index));
}

TEST(GeminiRequestEncoder, SystemRolesAndMergedTurns) {
  Request r = conversation({message(Role::User, {textBlock("one")}),
                            message(Role::User, {textBlock("two")}),
                            message(Role::Assistant, {textBlock("three")}),
                            message(Role::System, {textBlock("a reminder")}),
                            message(Role::User, {textBlock("four")})});
  r.system = {textBlock("You are terse."), textBlock("Answer in French.")};
  json::object body = encodeOk(r);
  EXPECT_EQ(json::serialize(body.at("systemInstruction")),
            R"({"parts":[{"text":"You are terse."},{"text":"Answer in French."}]})");
  json::array const& contents = body.at("contents").as_array();
  ASSERT_EQ(contents.size(), 3u) << json::serialize(contents);
  EXPECT_EQ(contents[0].at("role"), "user");
  EXPECT_EQ(contents[0].at("parts").as_array().size(), 2u) << "consecutive user turns merge";
  EXPECT_EQ(contents[1].at("role"), "model");
  EXPECT_EQ(json::serialize(contents[2]),
            R"({"role":"user","parts":[{"text":"a reminder"},{"text":"four"}]})")
      << "a mid-conversation system message is heard as the user's";
  EXPECT_FALSE(body.contains("generationConfig")) << "nothing asked, nothing sent";
  EXPECT_FALSE(body.contains("model")) << "the model goes in the URL";
}

TEST(GeminiRequestEncoder, ToolRoundTripWithForeignIds) {
  Request r = conversation(
      {message(Role::User, {textBlock("weather in Paris and Rome?")}),
       message(Role::Assistant, {textBlock("Checking."),
                                 callBlock("toolu_01", "weather", R"({"city": "Paris"})"),
                                 callBlock("toolu_02", "weather", R"({"city":"Rome"})")}),
       message(Role::User, {resultBlock("toolu_02", "rain"),
                            resultBlock("toolu_01", R"({"sky":"clear"})"), textBlock("thanks")})});
  r.tools = {ToolSpec{"weather", "Weather of a city",
                      R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                         "properties":{"city":{"type":"string"}},"required":["city"],
                         "additionalProperties":false})"}};
  json::object body = encodeOk(r);
  EXPECT_EQ(part(body, 1, 1),
            R"({"functionCall":{"name":"weather","args":{"city":"Paris"},"id":"toolu_01"},)"
            R"("thoughtSignature":"skip_thought_signature_validator"})")
      << "a call Gemini did not sign gets the documented bypass signature on the turn's first call";
  EXPECT_EQ(part(body, 1, 2), R"({"functionCall":{"name":"weather","args":{"city":"Rome"},"id":"toolu_02"}})");
  EXPECT_EQ(part(body, 2, 0),
            R"({"functionResponse":{"name":"weather","id":"toolu_01","response":{"sky":"clear"}}})")
      << "answers in call order; a JSON object result is the response itself";
  EXPECT_EQ(part(body, 2, 1),
            R"({"functionResponse":{"name":"weather","id":"toolu_02","response":{"result":"rain"}}})")
      << "text results are wrapped: Gemini wants an object";
  EXPECT_EQ(part(body, 2, 2), R"({"text":"thanks"})");
  json::object const& decl =
      body.at("tools").at(0).at("functionDeclarations").at(0).as_object();
  EXPECT_EQ(json::serialize(decl.at("parametersJsonSchema")),
            R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})")
      << "full JSON Schema in parametersJsonSchema, $schema removed";
  EXPECT_FALSE(decl.contains("parameters"));
}

TEST(GeminiRequestEncoder, BypassSignatureOnlyWhereGeminiChecks) {
  Request r = conversation({message(Role::User, {textBlock("go")}),
                            message(Role::Assistant, {callBlock("a", "f", "{}")}),
                            message(Role::User, {resultBlock("a", "ok")})});
  for (auto [model, expected] : std::vector<std::pair<std::string, bool>>{
           {"gemini-3-pro-preview", true}, {"gemini-3.1-flash", true}, {"relay-alias", true},
           {"gemini-2.5-flash", false}, {"models/gemini-2.0-flash", false}}) {
    json::object body = encodeOk(r, model);
    EXPECT_EQ(part(body, 1, 0).find("skip_thought_signature_validator") != std::string::npos,
              expected)
        << model;
  }
}

TEST(GeminiRequestEncoder, MissingAndOrphanResults) {
  Request r = conversation({message(Role::User, {textBlock("go")}),
                            message(Role::Assistant, {callBlock("a", "first", "{}"),
                                                      callBlock("b", "second", "")}),
                            message(Role::User, {resultBlock("b", "done"),
                                                 resultBlock("zzz", "stray", "ghost")})});
  json::object body = encodeOk(r);
  EXPECT_EQ(part(body, 1, 1), R"({"functionCall":{"name":"second","args":{},"id":"b"}})")
      << "empty arguments are an empty object";
  EXPECT_EQ(part(body, 2, 0),
            R"({"functionResponse":{"name":"first","id":"a","response":{"error":"the client sent no result for this call"}}})")
      << "Gemini wants one response per call";
  EXPECT_EQ(part(body, 2, 1), R"({"functionResponse":{"name":"second","id":"b","response":{"result":"done"}}})");
  EXPECT_EQ(part(body, 2, 2), R"({"text":"[result of ghost]: stray"})")
      << "a result without its call cannot be a functionResponse";
}

TEST(GeminiRequestEncoder, ErrorResultsAndImagesInResults) {
  Block result = resultBlock("c1", "permission denied");
  result.is_error = true;
  Block shot;
  shot.type = BlockType::Image;
  shot.media_type = "image/png";
  shot.data = "iVBORw0KGgo=";
  Block with_image = resultBlock("c2", "see image");
  with_image.content.push_back(shot);
  Request r = conversation({message(Role::User, {textBlock("go")}),
                            message(Role::Assistant, {callBlock("c1", "read", "{}"),
                                                      callBlock("c2", "screenshot", "{}")}),
                            message(Role::User, {result, with_image})});
  json::object body = encodeOk(r);
  EXPECT_EQ(part(body, 2, 0),
            R"({"functionResponse":{"name":"read","id":"c1","response":{"error":"permission denied"}}})");
  EXPECT_EQ(part(body, 2, 2), R"({"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}})")
      << "media of a result follows the responses in the same turn";
}

TEST(GeminiRequestEncoder, SignaturesOnlyGoBackToGemini) {
  Block gemini_text = textBlock("visible");
  gemini_text.signature = "R2VtaW5p";
  gemini_text.signature_origin = Protocol::Gemini;
  Block gemini_call = callBlock("c", "f", R"({"x":1})");
  gemini_call.signature = "Q2FsbA==";
  gemini_call.signature_origin = Protocol::Gemini;
  Block foreign_thinking;
  foreign_thinking.type = BlockType::Thinking;
  foreign_thinking.text = "Claude thought about it";
  foreign_thinking.signature = "EqQBCkYIBxgCKkD";
  foreign_thinking.signature_origin = Protocol::Anthropic;
  Block empty_foreign = foreign_thinking;
  empty_foreign.text.clear();
  Block redacted;
  redacted.type = BlockType::RedactedThinking;
  redacted.signature = "opaque";
  redacted.signature_origin = Protocol::Anthropic;
  Block gemini_only_signature;
  gemini_only_signature.type = BlockType::Thinking;
  gemini_only_signature.signature = "T25seQ==";
  gemini_only_signature.signature_origin = Protocol::Gemini;
  Request r = conversation(
      {message(Role::User, {textBlock("q")}),
       message(Role::Assistant,
               {foreign_thinking, empty_foreign, redacted, gemini_text, gemini_call,
                gemini_only_signature}),
       message(Role::User, {resultBlock("c", "ok")})});
  json::object body = encodeOk(r);
  json::array const& parts = body.at("contents").at(1).at("parts").as_array();
  ASSERT_EQ(parts.size(), 4u) << json::serialize(parts);
  EXPECT_EQ(json::serialize(parts[0]), R"({"text":"Claude thought about it","thought":true})")
      << "another provider's thinking text stays, its signature does not";
  EXPECT_EQ(json::serialize(parts[1]), R"({"text":"visible","thoughtSignature":"R2VtaW5p"})");
  EXPECT_EQ(json::serialize(parts[2]),
            R"({"functionCall":{"name":"f","args":{"x":1},"id":"c"},"thoughtSignature":"Q2FsbA=="})");
  EXPECT_EQ(json::serialize(parts[3]), R"({"text":"","thoughtSignature":"T25seQ=="})");
}

TEST(GeminiRequestEncoder, MediaAndFiles) {
  auto media = [](BlockType type, std::string media_type, std::string data, std::string url,
                  std::string file_id = {}) {
    Block b;
    b.type = type;
    b.media_type = std::move(media_type);
    b.data = std::move(data);
    b.url = std::move(url);
    b.file_id = std::move(file_id);
    if (!b.file_id.empty()) b.file_origin = Protocol::Gemini;
    return b;
  };
  Request r = conversation({message(
      Role::User,
      {media(BlockType::Image, "", "/9j/4AAQ", ""),
       media(BlockType::Image, "", "", "https://example.com/a.webp"),
       media(BlockType::Image, "", "", "data:image/gif;base64,R0lGODlh"),
       media(BlockType::Document, "application/pdf", "", "", "gs://bucket/doc.pdf"),
       textBlock("describe")})});
  json::object body = encodeOk(r);
  EXPECT_EQ(part(body, 0, 0), R"({"inlineData":{"mimeType":"image/jpeg","data":"/9j/4AAQ"}})");
  EXPECT_EQ(part(body, 0, 1),
            R"({"fileData":{"mimeType":"image/webp","fileUri":"https://example.com/a.webp"}})");
  EXPECT_EQ(part(body, 0, 2), R"({"inlineData":{"mimeType":"image/gif","data":"R0lGODlh"}})");
  EXPECT_EQ(part(body, 0, 3),
            R"({"fileData":{"mimeType":"application/pdf","fileUri":"gs://bucket/doc.pdf"}})");

  // An OpenAI file id means nothing to Gemini: it is left out and named, like any field Gemini
  // lacks; a request with nothing else left is refused.
  Block openai_file = media(BlockType::Image, "", "", "", "file-abc123");
  openai_file.file_origin = Protocol::OpenAiResponses;
  Request foreign_file =
      conversation({message(Role::User, {openai_file, textBlock("what is it?")})});
  std::vector<std::string> dropped;
  auto sent = encodeRequestReporting(foreign_file, "gemini-2.5-flash", dropped);
  ASSERT_TRUE(sent.ok());
  EXPECT_EQ(sent->find("file-abc123"), std::string::npos) << *sent;
  EXPECT_EQ(dropped, std::vector<std::string>{"file_id"});
  auto nothing_left =
      encodeRequest(conversation({message(Role::User, {openai_file})}), "gemini-2.5-flash");
  ASSERT_FALSE(nothing_left.ok());
  EXPECT_EQ(nothing_left.error().kind, ErrorKind::InvalidRequest);
}

TEST(GeminiRequestEncoder, ToolChoiceTable) {
  struct Row {
    ToolChoice choice;
    std::string expected;
  };
  std::vector<Row> rows = {
      {{ToolChoiceMode::Auto, ""}, R"({"functionCallingConfig":{"mode":"AUTO"}})"},
      {{ToolChoiceMode::None, ""}, R"({"functionCallingConfig":{"mode":"NONE"}})"},
      {{ToolChoiceMode::Required, ""}, R"({"functionCallingConfig":{"mode":"ANY"}})"},
      {{ToolChoiceMode::Named, "b"},
       R"({"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["b"]}})"},
  };
  for (auto const& row : rows) {
    Request r = conversation({message(Role::User, {textBlock("q")})});
    r.tools = {ToolSpec{"a", "", R"({"type":"object","properties":{}})"}, ToolSpec{"b", "", ""}};
    r.tool_choice = row.choice;
    json::object body = encodeOk(r);
    EXPECT_EQ(json::serialize(body.at("toolConfig")), row.expected);
  }
  Request no_tools = conversation({message(Role::User, {textBlock("q")})});
  no_tools.tool_choice = ToolChoice{ToolChoiceMode::Required, ""};
  EXPECT_FALSE(encodeOk(no_tools).contains("toolConfig")) << "no tools, no tool config";
}

TEST(GeminiRequestEncoder, GenerationConfig) {
  Request r = conversation({message(Role::User, {textBlock("q")})});
  r.max_output_tokens = 300;
  r.temperature = 0.25;
  r.top_p = 0.9;
  r.top_k = 40;
  r.stop = {"a", "b", "c", "d", "e", "f"};
  r.response_format = ResponseFormat{ResponseFormatType::JsonSchema, "answer",
                                     R"({"type":"object","properties":{"n":{"type":"integer"}}})",
                                     true};
  r.parallel_tool_calls = false;
  r.user = "user-1";
  r.prompt_cache_key = "k";
  json::object body = encodeOk(r);
  std::string raw = encodeRequest(r, "gemini-2.5-flash").value();
  EXPECT_NE(raw.find(R"("generationConfig":{"temperature":0.25,"topP":0.9,"topK":40,)"
                     R"("maxOutputTokens":300,"stopSequences":["a","b","c","d","e"],)"
                     R"("responseMimeType":"application/json",)"
                     R"("responseJsonSchema":{"type":"object","properties":{"n":{"type":"integer"}}}})"),
            std::string::npos)
      << "Gemini takes at most five stop sequences\n" << raw;
  EXPECT_EQ(body.size(), 2u) << "user, prompt_cache_key and parallel_tool_calls have no Gemini field";

  Request json_mode = conversation({message(Role::User, {textBlock("q")})});
  json_mode.response_format = ResponseFormat{ResponseFormatType::JsonObject};
  EXPECT_EQ(json::serialize(encodeOk(json_mode).at("generationConfig")),
            R"({"responseMimeType":"application/json"})");
}

TEST(GeminiRequestEncoder, ThinkingTable) {
  struct Row {
    std::string model;
    std::optional<Reasoning> reasoning;
    std::string expected;  ///< thinkingConfig, "" when absent
  };
  Reasoning off;
  off.enabled = false;
  auto effort = [](std::string e, bool thoughts = false) {
    Reasoning r;
    r.effort = std::move(e);
    r.include_thoughts = thoughts;
    return r;
  };
  auto budget = [](std::int64_t b) {
    Reasoning r;
    r.budget_tokens = b;
    return r;
  };
  std::vector<Row> rows = {
      {"gemini-2.5-flash", std::nullopt, ""},
      {"gemini-2.5-flash", off, R"({"thinkingBudget":0})"},
      {"gemini-2.5-pro", off, R"({"thinkingBudget":128})"},
      {"gemini-2.5-flash", effort("low"), R"({"thinkingBudget":1024})"},
      {"gemini-2.5-flash", effort("high", true), R"({"thinkingBudget":4096,"includeThoughts":true})"},
      {"gemini-2.5-flash", budget(50000), R"({"thinkingBudget":24576})"},
      {"gemini-2.5-pro", budget(64), R"({"thinkingBudget":128})"},
      {"gemini-2.5-flash-lite", effort("minimal"), R"({"thinkingBudget":1024})"},
      {"gemini-2.5-flash-lite", budget(100), R"({"thinkingBudget":512})"},
      {"gemini-2.5-flash", effort(""), R"({"thinkingBudget":-1})"},
      {"my-alias", budget(50000), R"({"thinkingBudget":50000})"},
      {"gemini-3-flash-preview", effort("medium"), R"({"thinkingLevel":"medium"})"},
      {"gemini-3-pro-preview", effort("medium"), R"({"thinkingLevel":"high"})"},
      {"gemini-3-pro-preview", effort("minimal"), R"({"thinkingLevel":"low"})"},
      {"gemini-3-flash-preview", effort("max", true),
       R"({"thinkingLevel":"high","includeThoughts":true})"},
      {"gemini-3-flash-preview", budget(2048), R"({"thinkingLevel":"medium"})"},
      {"gemini-3-flash-preview", off, R"({"thinkingLevel":"minimal"})"},
      {"gemini-3-pro-preview", off, R"({"thinkingLevel":"low"})"},
      {"gemini-3-pro-preview", effort(""), ""},
      {"gemini-3-pro-preview", effort("none"), R"({"thinkingLevel":"low"})"},
  };
  for (auto const& row : rows) {
    Request r = conversation({message(Role::User, {textBlock("q")})});
    r.reasoning = row.reasoning;
    json::object body = encodeOk(r, row.model);
    std::string got;
    if (auto const* config = body.if_contains("generationConfig")) {
      if (auto const* thinking = config->as_object().if_contains("thinkingConfig")) {
        got = json::serialize(*thinking);
      }
    }
    EXPECT_EQ(got, row.expected) << row.model << " effort=" << (row.reasoning ? row.reasoning->effort : "-");
  }
}

TEST(GeminiRequestEncoder, NothingToSendIsAnError) {
  Block only_foreign;
  only_foreign.type = BlockType::RedactedThinking;
  only_foreign.signature = "x";
  only_foreign.signature_origin = Protocol::Anthropic;
  auto body = encodeRequest(conversation({message(Role::Assistant, {only_foreign})}), "gemini-2.5-flash");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().kind, ErrorKind::InvalidRequest);
}

}  // namespace
}  // namespace llmux::translate::gemini
