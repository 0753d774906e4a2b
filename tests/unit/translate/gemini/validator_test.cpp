// The strict Gemini validator (tests/unit/translate/validators/gemini_validator.h): real recorded
// bodies pass, and each way of breaking one is caught.
#include <gtest/gtest.h>

#include "gemini/gemini_test_support.h"
#include "validators/gemini_validator.h"

namespace llmux::translate::validators::gemini {
namespace {

using translate::gemini::testing::readGeminiFixture;

std::string listed(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += "  " + p + "\n";
  return out;
}

bool mentions(std::vector<std::string> const& problems, std::string_view words) {
  for (auto const& p : problems) {
    if (p.find(words) != std::string::npos) return true;
  }
  return false;
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test setup: " << from << " not found";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A valid stream as llmux writes it: text, a call, the final chunk.
std::string const kStream =
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},\"index\":0}],"
    "\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":1,\"totalTokenCount\":6},"
    "\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1},"
    "\"id\":\"c1\"}}],\"role\":\"model\"},\"index\":0}],\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n"
    "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
    "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":5,"
    "\"candidatesTokenCount\":3,\"totalTokenCount\":8},\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n";

TEST(GeminiValidator, RecordedStreamsPass) {
  for (std::string name : {"pydantic-ai--sse_text.response.sse", "pydantic-ai--sse_thoughts.response.sse",
                           "pydantic-ai--sse_function_call.i0.response.sse",
                           "pydantic-ai--sse_function_call_thought_signature.i0.response.sse",
                           "llm-gemini--stream_json_array_function_call.i0.response.json",
                           "llm-gemini--stream_json_array_function_call.i1.response.json"}) {
    auto problems = validateStream(readGeminiFixture(name));
    EXPECT_TRUE(problems.empty()) << name << "\n" << listed(problems);
  }
  EXPECT_TRUE(validateStream(kStream).empty()) << listed(validateStream(kStream));
}

TEST(GeminiValidator, BrokenStreamsAreCaught) {
  struct Broken {
    std::string name;
    std::string bytes;
    std::string says;
  };
  std::string lf = kStream;
  for (auto at = lf.find("\r\n"); at != std::string::npos; at = lf.find("\r\n")) lf.replace(at, 2, "\n");
  std::vector<Broken> cases = {
      {"LF framing", lf, "\\r\\n\\r\\n"},
      {"event line", "event: message\r\n" + kStream, "one `data: ` line"},
      {"multi-line data", replaced(kStream, "{\"text\":\"Hi\"}", "{\"text\":\n\"Hi\"}"), "one data: line"},
      {"no finishReason", replaced(kStream, "\"finishReason\":\"STOP\",", ""), "without finishReason"},
      {"finish mid-stream",
       replaced(kStream, "\"role\":\"model\"},\"index\":0}],\"usageMetadata\"",
                "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\""),
       "finishReason before the last chunk"},
      {"unknown finishReason", replaced(kStream, "\"STOP\"", "\"DONE\""), "unknown finishReason"},
      {"responseId changes", replaced(kStream, "\"responseId\":\"r\"}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}]",
                                      "\"responseId\":\"x\"}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}]"),
       "responseId changed"},
      {"wrong total", replaced(kStream, "\"totalTokenCount\":8", "\"totalTokenCount\":9"), "totalTokenCount"},
      {"arguments as a string", replaced(kStream, "\"args\":{\"a\":1}", "\"args\":\"{\\\"a\\\":1}\""),
       "complete JSON object"},
      {"bad function name", replaced(kStream, "\"name\":\"f\"", "\"name\":\"9 lives\""), "function name"},
      {"role user", replaced(kStream, "\"role\":\"model\"", "\"role\":\"user\""), "role must be"},
      {"two data kinds in a part",
       replaced(kStream, "{\"text\":\"Hi\"}", "{\"text\":\"Hi\",\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"AA==\"}}"),
       "exactly one"},
      {"empty parts", replaced(kStream, "[{\"text\":\"Hi\"}]", "[]"), "must not be empty"},
      {"empty text mid-stream", replaced(kStream, "{\"text\":\"Hi\"}", "{\"text\":\"\"}"), "empty text part"},
      {"missing responseId", replaced(kStream, ",\"responseId\":\"r\"}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\"",
                                      "}\r\n\r\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\""),
       "responseId must be a string"},
      {"chunk after the end",
       kStream + "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"more\"}],\"role\":\"model\"}}],"
                 "\"modelVersion\":\"m\",\"responseId\":\"r\"}\r\n\r\n",
       "after the finishReason chunk"},
      {"error not last",
       "data: {\"error\":{\"code\":500,\"message\":\"x\",\"status\":\"INTERNAL\"}}\r\n\r\n" + kStream,
       "an error must end the stream"},
      {"bad error shape", "data: {\"error\":{\"message\":\"x\"}}\r\n\r\n", "error.code"},
      {"duplicate call ids",
       replaced(kStream, "{\"text\":\"Hi\"}", "{\"functionCall\":{\"name\":\"g\",\"args\":{},\"id\":\"c1\"}}"),
       "used twice"},
      {"usage going down",
       replaced(kStream, "\"candidatesTokenCount\":3,\"totalTokenCount\":8", "\"candidatesTokenCount\":0,\"totalTokenCount\":5"),
       "went down"},
      {"no final usage",
       replaced(kStream, ",\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":3,\"totalTokenCount\":8}", ""),
       "final answer must carry usageMetadata"},
      {"unknown member", replaced(kStream, "\"modelVersion\":\"m\",", "\"modelVersion\":\"m\",\"extra\":1,"), "unknown member"},
      {"bad signature", replaced(kStream, "{\"text\":\"Hi\"}", "{\"text\":\"Hi\",\"thoughtSignature\":\"not base64!\"}"),
       "thoughtSignature"},
      {"Vertex partial arguments",
       replaced(kStream, "\"args\":{\"a\":1}", "\"partialArgs\":[],\"willContinue\":true"), "unexpected functionCall member"},
      {"garbage", "data: {not json}\r\n\r\n", "not a JSON object"},
      {"empty", "", "empty"},
      {"broken JSON array", "[{\"candidates\":[]}", "JSON array"},
  };
  for (auto const& c : cases) {
    auto problems = validateStream(c.bytes);
    EXPECT_TRUE(mentions(problems, c.says)) << c.name << ": expected \"" << c.says << "\" in\n"
                                            << listed(problems);
  }
}

TEST(GeminiValidator, Responses) {
  for (std::string name : {"pydantic-ai--thoughts_nonstream.response.json",
                           "pydantic-ai--cached_content_usage.i1.response.json",
                           "pydantic-ai--finish_max_tokens.response.json",
                           "pydantic-ai--finish_safety.response.json",
                           "pydantic-ai--vertex_prompt_blocked.response.json",
                           "vercel-ai--google-tool-call-gemini3.json",
                           "vercel-ai--google-429-retry-info.json"}) {
    auto problems = validateResponse(readGeminiFixture(name));
    EXPECT_TRUE(problems.empty()) << name << "\n" << listed(problems);
  }
  std::string good =
      R"({"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},"finishReason":"STOP","index":0}],)"
      R"("usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":1,"totalTokenCount":3},"modelVersion":"m","responseId":"r"})";
  EXPECT_TRUE(validateResponse(good).empty());
  EXPECT_TRUE(mentions(validateResponse(replaced(good, "\"finishReason\":\"STOP\",", "")), "no finishReason"));
  EXPECT_TRUE(mentions(validateResponse(replaced(good, "\"totalTokenCount\":3", "\"totalTokenCount\":4")), "totalTokenCount"));
  EXPECT_TRUE(mentions(validateResponse(replaced(good, "\"promptTokenCount\":2", "\"promptTokenCount\":2,\"cachedContentTokenCount\":5")),
                       "cachedContentTokenCount exceeds"));
  EXPECT_TRUE(mentions(validateResponse(replaced(good, "\"parts\":[{\"text\":\"x\"}],", "")), "content.parts"));
  EXPECT_TRUE(mentions(validateResponse(replaced(good, ",\"responseId\":\"r\"", "")), "responseId"));
  EXPECT_TRUE(mentions(validateResponse("[]"), "not a JSON object"));
}

TEST(GeminiValidator, Requests) {
  std::string good =
      R"({"contents":[{"role":"user","parts":[{"text":"q"}]},
                      {"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"a"}},{"functionCall":{"name":"g","args":{}}}]},
                      {"role":"user","parts":[{"functionResponse":{"name":"g","response":{"r":1}}},{"functionResponse":{"name":"f","id":"a","response":{}}}]}],
          "tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}},
                                            {"name":"g","parametersJsonSchema":{"type":"object","additionalProperties":false}}]}],
          "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},
          "generationConfig":{"temperature":1,"stopSequences":["x"],"thinkingConfig":{"thinkingBudget":-1,"includeThoughts":true}}})";
  EXPECT_TRUE(validateRequest(good).empty()) << listed(validateRequest(good));
  struct Broken {
    std::string from, to, says;
  };
  std::vector<Broken> cases = {
      {R"({"role":"model","parts")", R"({"role":"user","parts")", "two user turns in a row"},
      {R"({"functionResponse":{"name":"g","response":{"r":1}}},)", "", "function responses for the previous turn"},
      {R"("response":{"r":1})", R"("response":"r")", "must be a JSON object"},
      {R"("id":"a","response":{})", R"("id":"zz","response":{})", "answers no call"},
      {R"({"type":"STRING"})", R"({"type":"STRING","additionalProperties":false})", "rejects \"additionalProperties\""},
      {R"("name":"g","parametersJsonSchema")", R"("name":"g","parameters":{},"parametersJsonSchema")", "exclusive"},
      {R"("includeThoughts":true)", R"("includeThoughts":true,"thinkingLevel":"high")", "together are a 400"},
      {R"("stopSequences":["x"])", R"("stopSequences":["1","2","3","4","5","6"])", "at most 5"},
      {R"("temperature":1)", R"("temperature":3)", "out of range"},
      {R"("allowedFunctionNames":["f"])", R"("allowedFunctionNames":["h"])", "undeclared"},
      {R"({"name":"f","parameters")", R"({"name":"f f","parameters")", "valid Gemini function name"},
      {R"("contents":[)", R"("model":"x","contents":[)", "unknown request member"},
      {R"({"role":"user","parts":[{"text":"q"}]})", R"({"role":"user","parts":[]})", "non-empty array"},
  };
  for (auto const& c : cases) {
    auto problems = validateRequest(replaced(good, c.from, c.to));
    EXPECT_TRUE(mentions(problems, c.says)) << c.says << "\n" << listed(problems);
  }
}

}  // namespace
}  // namespace llmux::translate::validators::gemini
