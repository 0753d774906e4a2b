// The small non-generation endpoints: model lists and token counting.
#include <array>
#include <span>
#include <string>
#include <vector>

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

constexpr std::int64_t kUnknownCreated = 1700000000;

template <typename Table>
auto const* findModel(Table const& table, std::string_view id) {
  for (auto const& m : table) {
    if (m.id == id) return &m;
  }
  return static_cast<typename Table::value_type const*>(nullptr);
}

GeminiModel const* findGemini(std::string_view id) {
  for (auto const& m : kGeminiModels) {
    if (m.name.substr(7) == id) return &m;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> defaultModelIds(Protocol protocol) {
  std::vector<std::string> ids;
  if (protocol == Protocol::Anthropic) {
    for (auto const& m : kAnthropicModels) ids.emplace_back(m.id);
  } else if (protocol == Protocol::Gemini) {
    for (auto const& m : kGeminiModels) ids.emplace_back(m.name.substr(7));
  } else {
    for (auto const& m : kOpenAiModels) ids.emplace_back(m.id);
  }
  return ids;
}

MockReply openAiModels(std::span<std::string const> ids, IdSource& id_source) {
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().str("object", "list").beginArray("data");
  for (std::string const& id : ids) {
    OpenAiModel const* known = findModel(kOpenAiModels, id);
    w.beginObject().str("id", id).str("object", "model");
    w.num("created", known ? known->created : kUnknownCreated);
    w.str("owned_by", "system").endObject();
  }
  w.endArray().endObject();
  body.push_back('\n');
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json");
  addRequestId(reply, Vendor::OpenAi, id_source);
  return reply;
}

MockReply anthropicModels(std::span<std::string const> page, bool has_more, IdSource& ids) {
  std::string body;
  JsonWriter w(body);
  w.beginObject().beginArray("data");
  for (std::string const& id : page) {
    AnthropicModel const* known = findModel(kAnthropicModels, id);
    w.beginObject().str("type", "model").str("id", id);
    w.str("display_name", known ? known->display_name : std::string_view(id));
    w.str("created_at", known ? known->created_at : "2025-01-01T00:00:00Z").endObject();
  }
  w.endArray().boolean("has_more", has_more);
  if (page.empty()) {
    w.null("first_id").null("last_id");
  } else {
    w.str("first_id", page.front()).str("last_id", page.back());
  }
  w.endObject();
  MockReply reply;
  setJsonBody(reply, 200, std::move(body), "application/json");
  addRequestId(reply, Vendor::Anthropic, ids);
  return reply;
}

MockReply geminiModels(std::span<std::string const> page, std::string_view next_page_token) {
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().beginArray("models");
  for (std::string const& id : page) {
    GeminiModel const* known = findGemini(id);
    w.beginObject().str("name", "models/" + id).str("version", "001");
    w.str("displayName", known ? known->display_name : std::string_view(id));
    w.num("inputTokenLimit", std::int64_t{1048576});
    w.num("outputTokenLimit", known ? known->output_limit : std::int64_t{8192});
    w.beginArray("supportedGenerationMethods").str("generateContent").str("countTokens");
    w.str("streamGenerateContent").endArray();
    w.num("temperature", 1.0).num("topP", 0.95).num("topK", std::int64_t{64});
    w.num("maxTemperature", 2.0).boolean("thinking", true).endObject();
  }
  w.endArray();
  if (!next_page_token.empty()) w.str("nextPageToken", next_page_token);
  w.endObject();
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
