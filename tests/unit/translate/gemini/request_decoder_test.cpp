// What a Gemini client sends, in the neutral model (translate/gemini/request_decoder.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"
#include "translate/json_access.h"

namespace llmux::translate::gemini {
namespace {

using testing::canonicalJson;
using testing::readGeminiFixture;

Request decodeOk(std::string_view body, std::string_view model = "gemini-2.5-flash",
                 bool stream = false) {
  auto decoded = decodeRequest(body, model, stream);
  EXPECT_TRUE(decoded.ok()) << (decoded.ok() ? "" : decoded.error().message) << "\n" << body;
  return decoded.ok() ? std::move(decoded).value() : Request{};
}

bool dropped(Request const& request, std::string_view name) {
  return std::find(request.dropped.begin(), request.dropped.end(), name) != request.dropped.end();
}

struct Case {
  std::string name;
  std::string body;
  std::function<void(Request const&)> check;
};

class GeminiRequestDecoding : public ::testing::TestWithParam<Case> {};

TEST_P(GeminiRequestDecoding, Decodes) {
  Case const& c = GetParam();
  Request request = decodeOk(c.body);
  c.check(request);
}

std::string withContents(std::string_view rest) {
  return R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}])" + std::string(rest) + "}";
}

INSTANTIATE_TEST_SUITE_P(
    Table, GeminiRequestDecoding,
    ::testing::Values(
        Case{"SystemInstructionAndRoles",
             R"({"systemInstruction":{"role":"user","parts":[{"text":"Be brief."},{"text":"Be kind."}]},
                 "contents":[{"role":"user","parts":[{"text":"Hello"}]},
                             {"role":"model","parts":[{"text":"Hi!"}]},
                             {"parts":[{"text":"Again"}]}]})",
             [](Request const& r) {
               ASSERT_EQ(r.system.size(), 2u);
               EXPECT_EQ(r.system[1].text, "Be kind.");
               ASSERT_EQ(r.messages.size(), 3u);
               EXPECT_EQ(r.messages[0].role, Role::User);
               EXPECT_EQ(r.messages[1].role, Role::Assistant);
               EXPECT_EQ(r.messages[1].blocks[0].text, "Hi!");
               EXPECT_EQ(r.messages[2].role, Role::User) << "a content without role is the user's";
             }},
        Case{"SnakeCaseSpellings",
             R"({"system_instruction":{"parts":[{"text":"S"}]},
                 "contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgo="}}]}],
                 "generation_config":{"max_output_tokens":77,"top_p":0.5,"top_k":3,"stop_sequences":["END"],
                                      "thinking_config":{"thinking_budget":0}},
                 "tool_config":{"function_calling_config":{"mode":"NONE"}}})",
             [](Request const& r) {
               EXPECT_EQ(r.system.at(0).text, "S");
               Block const& image = r.messages.at(0).blocks.at(0);
               EXPECT_EQ(image.type, BlockType::Image);
               EXPECT_EQ(image.media_type, "image/png");
               EXPECT_EQ(image.data, "iVBORw0KGgo=");
               EXPECT_EQ(r.max_output_tokens, 77);
               EXPECT_EQ(r.top_p, 0.5);
               EXPECT_EQ(r.top_k, 3);
               EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
               ASSERT_TRUE(r.reasoning);
               EXPECT_FALSE(r.reasoning->enabled) << "thinkingBudget 0 turns thinking off";
               ASSERT_TRUE(r.tool_choice);
               EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::None);
             }},
        Case{"MediaByUrlFileAndDocument",
             R"({"contents":[{"role":"user","parts":[
                 {"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/cat.jpg"}},
                 {"fileData":{"fileUri":"https://example.com/report.pdf"}},
                 {"fileData":{"mimeType":"video/mp4","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}},
                 {"inlineData":{"mimeType":"application/pdf","data":"JVBERi0x"}}]}]})",
             [](Request const& r) {
               auto const& b = r.messages.at(0).blocks;
               ASSERT_EQ(b.size(), 4u);
               EXPECT_EQ(b[0].type, BlockType::Image);
               EXPECT_EQ(b[0].url, "https://example.com/cat.jpg");
               EXPECT_EQ(b[1].type, BlockType::Document);
               EXPECT_EQ(b[1].media_type, "application/pdf") << "guessed from the extension";
               EXPECT_EQ(b[2].file_id, "https://generativelanguage.googleapis.com/v1beta/files/abc")
                   << "a Files API URI only means something to Gemini";
               EXPECT_TRUE(b[2].url.empty());
               EXPECT_EQ(b[3].type, BlockType::Document);
               EXPECT_EQ(b[3].data, "JVBERi0x");
             }},
        Case{"CallsWithoutIdsArePairedByNameAndOrder",
             R"({"contents":[{"role":"user","parts":[{"text":"weather?"}]},
                 {"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Paris"}}},
                                          {"functionCall":{"name":"weather","args":{"city":"Rome"}}},
                                          {"functionCall":{"name":"time","args":{}}}]},
                 {"role":"user","parts":[{"functionResponse":{"name":"time","response":{"output":"noon"}}},
                                         {"functionResponse":{"name":"weather","response":{"output":"sun"}}},
                                         {"functionResponse":{"name":"weather","response":{"output":"rain"}}}]}]})",
             [](Request const& r) {
               auto const& calls = r.messages.at(1).blocks;
               auto const& results = r.messages.at(2).blocks;
               ASSERT_EQ(calls.size(), 3u);
               ASSERT_EQ(results.size(), 3u);
               for (auto const& call : calls) {
                 EXPECT_TRUE(call.id.starts_with("call_")) << call.id;
               }
               EXPECT_NE(calls[0].id, calls[1].id);
               EXPECT_EQ(canonicalJson(calls[0].arguments), R"({"city":"Paris"})");
               EXPECT_EQ(results[0].id, calls[2].id) << "time answers the time call";
               EXPECT_EQ(results[1].id, calls[0].id) << "first weather answer, first weather call";
               EXPECT_EQ(results[2].id, calls[1].id);
               EXPECT_EQ(results[1].content.at(0).text, "sun") << "a lone output member is unwrapped";
             }},
        Case{"IdsAndSignaturesAreKept",
             R"({"contents":[{"role":"user","parts":[{"text":"go"}]},
                 {"role":"model","parts":[{"text":"Let me look.","thoughtSignature":"c2lnMQ=="},
                                          {"functionCall":{"id":"c-1","name":"look","args":{"q":1}},"thoughtSignature":"c2lnMg=="}]},
                 {"role":"user","parts":[{"functionResponse":{"id":"c-1","name":"look","response":{"error":"denied"}}}]}]})",
             [](Request const& r) {
               Block const& text = r.messages.at(1).blocks.at(0);
               EXPECT_EQ(text.type, BlockType::Text);
               EXPECT_EQ(text.signature, "c2lnMQ==");
               EXPECT_EQ(text.signature_origin, Protocol::Gemini);
               Block const& call = r.messages.at(1).blocks.at(1);
               EXPECT_EQ(call.id, "c-1");
               EXPECT_EQ(call.signature, "c2lnMg==");
               Block const& result = r.messages.at(2).blocks.at(0);
               EXPECT_EQ(result.id, "c-1");
               EXPECT_EQ(result.name, "look");
               EXPECT_TRUE(result.is_error) << "Gemini's own convention: an error member";
               EXPECT_EQ(result.content.at(0).text, "denied");
             }},
        Case{"ThoughtsAndSignatureOnlyParts",
             R"({"contents":[{"role":"user","parts":[{"text":"q"}]},
                 {"role":"model","parts":[{"text":"thinking…","thought":true},{"text":"answer"},
                                          {"text":"","thoughtSignature":"c2ln"},{"text":""}]}]})",
             [](Request const& r) {
               auto const& b = r.messages.at(1).blocks;
               ASSERT_EQ(b.size(), 3u) << "an empty text part without signature carries nothing";
               EXPECT_EQ(b[0].type, BlockType::Thinking);
               EXPECT_EQ(b[0].text, "thinking…");
               EXPECT_EQ(b[1].type, BlockType::Text);
               EXPECT_EQ(b[2].type, BlockType::Thinking) << "a signature alone";
               EXPECT_TRUE(b[2].text.empty());
               EXPECT_EQ(b[2].signature, "c2ln");
             }},
        Case{"ResponseObjectsKeepTheirShape",
             R"({"contents":[{"role":"user","parts":[{"text":"q"}]},
                 {"role":"model","parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b","args":{}}}]},
                 {"role":"user","parts":[{"functionResponse":{"name":"a","response":{"temp":30,"unit":"C"}}},
                                         {"functionResponse":{"name":"b","response":{"result":{"n":1}}}}]}]})",
             [](Request const& r) {
               auto const& results = r.messages.at(2).blocks;
               EXPECT_EQ(canonicalJson(results[0].content.at(0).text), R"({"temp":30,"unit":"C"})");
               EXPECT_EQ(canonicalJson(results[1].content.at(0).text), R"({"n":1})");
               EXPECT_FALSE(results[0].is_error);
             }},
        Case{"ToolsFromJsonSchemaAndOpenApi",
             withContents(R"(,"tools":[{"functionDeclarations":[
                 {"name":"a","description":"A","parametersJsonSchema":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}},
                 {"name":"b","parameters":{"type":"OBJECT","properties":{"y":{"type":"STRING","nullable":true},
                                                                       "z":{"type":"ARRAY","items":{"type":"INTEGER"}}},
                                           "propertyOrdering":["y","z"],"required":["y"]}},
                 {"name":"c"}]},{"googleSearch":{}}])"),
             [](Request const& r) {
               ASSERT_EQ(r.tools.size(), 3u);
               EXPECT_EQ(r.tools[0].description, "A");
               EXPECT_EQ(canonicalJson(r.tools[0].parameters),
                         R"({"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false})");
               EXPECT_EQ(canonicalJson(r.tools[1].parameters),
                         R"({"type":"object","properties":{"y":{"type":["string","null"]},"z":{"type":"array","items":{"type":"integer"}}},"required":["y"]})")
                   << "the OpenAPI subset becomes standard JSON Schema";
               EXPECT_TRUE(r.tools[2].parameters.empty());
               EXPECT_TRUE(dropped(r, "tools.googleSearch"));
             }},
        Case{"ToolConfigModes",
             withContents(R"(,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["only"]}})"),
             [](Request const& r) {
               ASSERT_TRUE(r.tool_choice);
               EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Named);
               EXPECT_EQ(r.tool_choice->name, "only");
             }},
        Case{"AnyWithSeveralNamesIsRequired",
             withContents(R"(,"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["a","b"]}})"),
             [](Request const& r) {
               EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Required);
               EXPECT_TRUE(dropped(r, "toolConfig.functionCallingConfig.allowedFunctionNames"));
             }},
        Case{"ValidatedIsAuto",
             withContents(R"(,"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED"}})"),
             [](Request const& r) {
               EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Auto);
               EXPECT_TRUE(dropped(r, "toolConfig.functionCallingConfig.mode"));
             }},
        Case{"JsonSchemaResponse",
             withContents(R"(,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}})"),
             [](Request const& r) {
               ASSERT_TRUE(r.response_format);
               EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonSchema);
               EXPECT_EQ(canonicalJson(r.response_format->schema), R"({"type":"object"})");
             }},
        Case{"JsonObjectResponseFromOpenApiSchema",
             withContents(R"(,"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"STRING"}})"),
             [](Request const& r) {
               EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonSchema);
               EXPECT_EQ(canonicalJson(r.response_format->schema), R"({"type":"string"})");
             }},
        Case{"PlainJsonMode",
             withContents(R"(,"generationConfig":{"responseMimeType":"application/json"})"),
             [](Request const& r) { EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonObject); }},
        Case{"ThinkingBudgetAndThoughts",
             withContents(R"(,"generationConfig":{"thinkingConfig":{"thinkingBudget":3000,"includeThoughts":true}})"),
             [](Request const& r) {
               ASSERT_TRUE(r.reasoning);
               EXPECT_TRUE(r.reasoning->enabled);
               EXPECT_EQ(r.reasoning->budget_tokens, 3000);
               EXPECT_TRUE(r.reasoning->include_thoughts);
             }},
        Case{"DynamicThinking",
             withContents(R"(,"generationConfig":{"thinkingConfig":{"thinkingBudget":-1}})"),
             [](Request const& r) {
               EXPECT_TRUE(r.reasoning->enabled);
               EXPECT_FALSE(r.reasoning->budget_tokens) << "-1: the model decides";
             }},
        Case{"ThinkingLevel",
             withContents(R"(,"generationConfig":{"thinkingConfig":{"thinkingLevel":"HIGH"}})"),
             [](Request const& r) { EXPECT_EQ(r.reasoning->effort, "high"); }},
        Case{"NoThinkingConfigSaysNothing", withContents(""),
             [](Request const& r) { EXPECT_FALSE(r.reasoning); }},
        Case{"DroppedFieldsAreNamed",
             withContents(R"(,"safetySettings":[],"cachedContent":"cachedContents/x",
                 "generationConfig":{"seed":3,"candidateCount":1,"presencePenalty":0.1,"responseModalities":["TEXT"]})"),
             [](Request const& r) {
               EXPECT_TRUE(dropped(r, "safetySettings"));
               EXPECT_TRUE(dropped(r, "cachedContent"));
               EXPECT_TRUE(dropped(r, "generationConfig.seed"));
               EXPECT_TRUE(dropped(r, "generationConfig.presencePenalty"));
               EXPECT_TRUE(dropped(r, "generationConfig.responseModalities"));
               EXPECT_FALSE(dropped(r, "generationConfig.candidateCount")) << "1 is the default";
             }},
        Case{"CodeExecutionPartsAreDropped",
             R"({"contents":[{"role":"model","parts":[{"executableCode":{"code":"1"}},{"text":"x"}]}]})",
             [](Request const& r) {
               EXPECT_EQ(r.messages.at(0).blocks.size(), 1u);
               EXPECT_TRUE(dropped(r, "contents.parts.executableCode"));
             }}),
    [](auto const& info) { return info.param.name; });

TEST(GeminiRequestDecoder, ModelAndStreamComeFromTheRoute) {
  Request r = decodeOk(withContents(""), "models/gemini-3-pro-preview", true);
  EXPECT_EQ(r.model, "gemini-3-pro-preview");
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage) << "Gemini streams always carry usageMetadata";
  Request whole = decodeOk(withContents(""), "gemini-2.5-flash", false);
  EXPECT_FALSE(whole.stream);
}

TEST(GeminiRequestDecoder, MalformedBodiesAreInvalidRequests) {
  struct Bad {
    std::string body;
    std::string says;
  };
  std::vector<Bad> cases = {
      {"not json", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {"{}", "contents must be a non-empty array"},
      {R"({"contents":[]})", "contents must be a non-empty array"},
      {R"({"contents":[1]})", "contents[0] must be an object"},
      {R"({"contents":[{"role":"system","parts":[{"text":"x"}]}]})", "role must be"},
      {R"({"contents":[{"role":"user"}]})", "contents[0].parts must be an array"},
      {R"({"contents":[{"role":"user","parts":["x"]}]})", "parts[0] must be an object"},
      {R"({"contents":[{"role":"user","parts":[{"text":3}]}]})", "text must be a string"},
      {R"({"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]})",
       "functionCall.name"},
      {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":"{}"}}]}]})",
       "functionCall.args must be an object"},
      {R"({"contents":[{"role":"user","parts":[{"functionResponse":{"response":{}}}]}]})",
       "functionResponse.name"},
      {R"({"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png"}}]}]})",
       "inlineData.data"},
      {withContents(R"(,"tools":[{"functionDeclarations":[{"description":"x"}]}])"), ".name"},
      {withContents(R"(,"generationConfig":{"temperature":"hot"})"), "temperature must be a number"},
      {withContents(R"(,"generationConfig":{"maxOutputTokens":1.5})"), "must be an integer"},
      {withContents(R"(,"generationConfig":{"stopSequences":"END"})"), "stopSequences"},
      {withContents(R"(,"generationConfig":{"thinkingConfig":{"thinkingLevel":"extreme"}})"),
       "thinkingLevel"},
      {withContents(R"(,"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}})"), "mode"},
  };
  for (auto const& c : cases) {
    auto decoded = decodeRequest(c.body, "gemini-2.5-flash", false);
    ASSERT_FALSE(decoded.ok()) << c.body;
    EXPECT_EQ(decoded.error().kind, ErrorKind::InvalidRequest);
    EXPECT_NE(decoded.error().message.find(c.says), std::string::npos)
        << "message \"" << decoded.error().message << "\" should say " << c.says;
  }
}

TEST(GeminiRequestDecoder, GeminiCliRequest) {
  // The request Gemini CLI sends (method, path, headers, body) captured from the real client.
  std::string file = std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/clients/gemini-cli.request.json";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto captured = parseObject(text.str(), "capture");
  ASSERT_TRUE(captured.ok());
  boost::json::value const& body = captured->at("body");
  std::string body_text = body.is_string() ? std::string(body.get_string()) : toJson(body);
  Request r = decodeOk(body_text, "mock-basic", true);
  EXPECT_EQ(r.tools.size(), 8u) << "every functionDeclaration, with its parametersJsonSchema";
  for (auto const& tool : r.tools) EXPECT_FALSE(tool.parameters.empty()) << tool.name;
  ASSERT_TRUE(r.reasoning);
  EXPECT_TRUE(r.reasoning->include_thoughts);
  EXPECT_EQ(r.temperature, 1.0);
  EXPECT_EQ(r.top_k, 64);
  EXPECT_FALSE(r.system.empty());
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].blocks.size(), 2u);
}

}  // namespace
}  // namespace llmux::translate::gemini
