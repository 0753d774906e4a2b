// The small non-generation endpoints: model lists and token counting.
#include <array>
#include <string>

#include "mock/json_writer.h"
#include "mock/mock_reply.h"
#include "mock/protocol_mock.h"

namespace llmux::mock::catalog {
namespace {

struct OpenAiModel {
  std::string_view id;
  std::int64_t created;
};
constexpr std::array<OpenAiModel, 5> kOpenAiModels = {{
    {"gpt-4o", 1715367049},
    {"gpt-4o-mini", 1721172741},
    {"gpt-4.1", 1744316542},
    {"gpt-5", 1754425777},
    {"gpt-5-mini", 1754425928},
}};

struct AnthropicModel {
  std::string_view id, display_name, created_at;
};
constexpr std::array<AnthropicModel, 3> kAnthropicModels = {{
    {"claude-opus-4-1-20250805", "Claude Opus 4.1", "2025-08-05T00:00:00Z"},
    {"claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z"},
    {"claude-haiku-4-5-20251001", "Claude Haiku 4.5", "2025-10-01T00:00:00Z"},
}};

struct GeminiModel {
  std::string_view name, display_name;
  std::int64_t output_limit;
};
constexpr std::array<GeminiModel, 3> kGeminiModels = {{
    {"models/gemini-2.5-flash", "Gemini 2.5 Flash", 65536},
    {"models/gemini-2.5-pro", "Gemini 2.5 Pro", 65536},
    {"models/gemini-3-pro-preview", "Gemini 3 Pro Preview", 65536},
}};

}  // namespace

MockReply openAiModels(IdSource& ids) {
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().str("object", "list").beginArray("data");
  for (auto const& m : kOpenAiModels) {
    w.beginObject().str("id", m.id).str("object", "model").num("created", m.created);
    w.str("owned_by", "system").endObject();
  }
  w.endArray().endObject();
  body.push_back('\n');
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json");
  addRequestId(reply, Vendor::OpenAi, ids);
  return reply;
}

MockReply anthropicModels(IdSource& ids) {
  std::string body;
  JsonWriter w(body);
  w.beginObject().beginArray("data");
  for (auto const& m : kAnthropicModels) {
    w.beginObject().str("type", "model").str("id", m.id).str("display_name", m.display_name);
    w.str("created_at", m.created_at).endObject();
  }
  w.endArray().boolean("has_more", false).str("first_id", kAnthropicModels.front().id);
  w.str("last_id", kAnthropicModels.back().id).endObject();
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json");
  addRequestId(reply, Vendor::Anthropic, ids);
  return reply;
}

MockReply geminiModels() {
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().beginArray("models");
  for (auto const& m : kGeminiModels) {
    w.beginObject().str("name", m.name).str("version", "001").str("displayName", m.display_name);
    w.num("inputTokenLimit", std::int64_t{1048576}).num("outputTokenLimit", m.output_limit);
    w.beginArray("supportedGenerationMethods").str("generateContent").str("countTokens");
    w.str("streamGenerateContent").endArray();
    w.num("temperature", 1.0).num("topP", 0.95).num("topK", std::int64_t{64});
    w.num("maxTemperature", 2.0).boolean("thinking", true).endObject();
  }
  w.endArray().endObject();
  body.push_back('\n');
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json; charset=UTF-8");
  return reply;
}

MockReply anthropicCountTokens(std::int64_t tokens, IdSource& ids) {
  std::string body;
  JsonWriter(body).beginObject().num("input_tokens", tokens).endObject();
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json");
  addRequestId(reply, Vendor::Anthropic, ids);
  return reply;
}

MockReply geminiCountTokens(std::int64_t tokens) {
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().num("totalTokens", tokens).beginArray("promptTokensDetails").beginObject();
  w.str("modality", "TEXT").num("tokenCount", tokens).endObject().endArray().endObject();
  body.push_back('\n');
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json; charset=UTF-8");
  return reply;
}

}  // namespace llmux::mock::catalog
