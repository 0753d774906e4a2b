// Neutral Request -> Anthropic Messages request body (REFERENCE.md §3.2, §9.2, §9.7).
#include "translate/anthropic/request_encoder.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>

#include "translate/anthropic/blocks.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/json_out.h"
#include "translate/anthropic/request_blocks.h"
#include "translate/anthropic/turns.h"
#include "translate/anthropic/wire.h"
#include "translate/media.h"
#include "translate/reasoning.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

constexpr std::string_view kEmptySchema = R"({"type":"object","properties":{}})";
constexpr int kMaxCacheMarkers = 4;  // Anthropic refuses more cache_control breakpoints

/// JSON Schema `type` values written in capitals (Gemini's OpenAPI subset) become lowercase.
bool lowerTypes(json::value& v) {
  bool changed = false;
  if (v.is_array()) {
    for (auto& item : v.get_array()) changed |= lowerTypes(item);
    return changed;
  }
  if (!v.is_object()) return false;
  for (auto& member : v.get_object()) {
    if (member.key() == "type" && member.value().is_string()) {
      json::string& s = member.value().get_string();
      if (std::any_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        changed = true;
      }
    } else {
      changed |= lowerTypes(member.value());
    }
  }
  return changed;
}

/// input_schema must be an object schema of type "object": copied when it is one already.
std::string inputSchema(std::string_view parameters, std::vector<std::string>& dropped) {
  if (parameters.empty()) return std::string(kEmptySchema);
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 256;
  json::value schema = json::parse(parameters, ec, {}, options);
  if (ec || !schema.is_object()) {
    addDropped(dropped, "tools.parameters");
    return std::string(kEmptySchema);
  }
  bool changed = lowerTypes(schema);
  json::object& o = schema.get_object();
  json::value const* type = o.if_contains("type");
  if (type == nullptr || !type->is_string() || type->get_string() != "object") {
    o["type"] = "object";
    changed = true;
  }
  return changed ? json::serialize(schema) : std::string(parameters);
}

int countCacheMarkers(std::vector<Block> const& system, std::vector<Turn> const& turns) {
  int n = 0;
  for (Block const& b : system) n += b.cache_marker ? 1 : 0;
  for (Turn const& t : turns) {
    for (Block const& b : t.blocks) n += b.cache_marker ? 1 : 0;
  }
  return n;
}

/// Anthropic refuses thinking when the assistant turn that made the pending tool calls does not
/// start with its (signed) thinking block: such history cannot have come from Anthropic.
bool thinkingBlockedByHistory(std::vector<Turn> const& turns) {
  for (auto it = turns.rbegin(); it != turns.rend(); ++it) {
    if (it->role != Role::Assistant) continue;
    bool calls = std::any_of(it->blocks.begin(), it->blocks.end(),
                             [](Block const& b) { return b.type == BlockType::ToolCall; });
    if (!calls) return false;
    BlockType first = it->blocks.front().type;
    return first != BlockType::Thinking && first != BlockType::RedactedThinking;
  }
  return false;
}

/// Roughly the size of the body, so that it is allocated once.
std::size_t sizeEstimate(Request const& request) {
  std::size_t n = 1024;
  auto add = [&](Block const& b) {
    n +=
        64 + b.text.size() + b.arguments.size() + b.data.size() + b.url.size() + b.signature.size();
    for (Block const& c : b.content) n += 64 + c.text.size() + c.data.size() + c.url.size();
  };
  for (Block const& b : request.system) add(b);
  for (Message const& m : request.messages) {
    for (Block const& b : m.blocks) add(b);
  }
  for (ToolSpec const& t : request.tools)
    n += 64 + t.name.size() + t.description.size() + t.parameters.size();
  return n + n / 8;  // escapes
}

bool whitespaceOnly(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

Result<std::string> encodeRequestReporting(Request const& request, std::string_view upstream_model,
                                           std::vector<std::string>& dropped) {
  std::vector<Block> system;
  for (Block const& b : request.system) {
    if (b.type == BlockType::Text && !b.text.empty())
      system.push_back(b);
    else if (b.type != BlockType::Text)
      addDropped(dropped, "system.non_text");
  }
  std::vector<Message> const* messages = &request.messages;
  std::vector<Message> filtered;
  bool unsendable = std::any_of(request.messages.begin(), request.messages.end(), [](auto& m) {
    return std::any_of(m.blocks.begin(), m.blocks.end(),
                       [](Block const& b) { return !sendableDocument(b); });
  });
  if (unsendable) {
    filtered = request.messages;
    for (Message& m : filtered) {
      std::erase_if(m.blocks, [&dropped](Block const& b) {
        if (sendableDocument(b)) return false;
        MediaKind kind = mediaKind(b);
        addDropped(dropped, kind == MediaKind::Audio   ? "audio"
                            : kind == MediaKind::Video ? "video"
                                                       : "document");
        return true;
      });
    }
    messages = &filtered;
  }
  std::vector<Turn> turns = shapeTurns(*messages, system, dropped);
  if (turns.empty()) {
    return makeError(ErrorKind::InvalidRequest,
                     "the conversation has no message that can be sent to an Anthropic upstream");
  }

  bool any_calls = false;
  std::vector<std::string> call_names;
  for (Turn const& t : turns) {
    for (Block const& b : t.blocks) {
      if (b.type != BlockType::ToolCall) continue;
      any_calls = true;
      if (std::find(call_names.begin(), call_names.end(), b.name) == call_names.end()) {
        call_names.push_back(b.name);
      }
    }
  }

  // Reasoning: thinking with a budget from the effort table; "disabled" only when asked.
  bool thinking = false;
  bool thinking_off = false;
  std::int64_t budget = 0;
  if (request.reasoning) {
    Reasoning const& r = *request.reasoning;
    if (!r.enabled || (r.budget_tokens && *r.budget_tokens == 0) || r.effort == "none") {
      thinking_off = true;
    } else {
      thinking = true;
      budget =
          r.budget_tokens && *r.budget_tokens > 0 ? *r.budget_tokens : budgetForEffort(r.effort);
      budget = std::max(budget, kMinThinkingBudget);
    }
  }
  if (thinking && thinkingBlockedByHistory(turns)) {
    thinking = false;
    addDropped(dropped, "thinking");
  }

  std::int64_t max_tokens = request.max_output_tokens.value_or(kDefaultMaxTokens);
  if (max_tokens < 1) max_tokens = kDefaultMaxTokens;
  if (thinking && max_tokens <= budget) max_tokens = budget + kAnswerHeadroom;

  std::string body;
  body.reserve(sizeEstimate(request));
  int markers = countCacheMarkers(system, turns);
  BodyWriter w(body, dropped, std::max(markers - kMaxCacheMarkers, 0));
  JsonOut& out = w.out();
  out.beginObject();
  out.str("model", upstream_model.empty() ? std::string_view(request.model) : upstream_model);
  out.num("max_tokens", max_tokens);
  if (!system.empty()) {
    out.beginArray("system");
    for (Block const& b : system) w.text(b);
    out.endArray();
  }
  out.beginArray("messages");
  for (Turn const& t : turns) {
    out.beginObject().str("role", t.role == Role::User        ? "user"
                                  : t.role == Role::Assistant ? "assistant"
                                                              : "system");
    out.beginArray("content");
    for (Block const& b : t.blocks) w.block(b);
    out.endArray().endObject();
  }
  out.endArray();

  // Tools. History with tool calls needs tool definitions, even when the client sent none.
  bool tools = !request.tools.empty() || any_calls;
  if (!request.tools.empty()) {
    out.beginArray("tools");
    for (ToolSpec const& t : request.tools) {
      out.beginObject().str("name", t.name);
      if (!t.description.empty()) out.str("description", t.description);
      out.raw("input_schema", inputSchema(t.parameters, dropped));
      out.endObject();
      if (t.strict) addDropped(dropped, "tools.strict");
    }
    out.endArray();
  } else if (any_calls) {
    out.beginArray("tools");
    for (std::string const& name : call_names) {
      out.beginObject().str("name", name).raw("input_schema", kEmptySchema).endObject();
    }
    out.endArray();
  }
  std::optional<ToolChoice> choice = request.tool_choice;
  if (request.tools.empty() && any_calls && !choice) choice = ToolChoice{ToolChoiceMode::None, {}};
  if (thinking && choice &&
      (choice->mode == ToolChoiceMode::Required || choice->mode == ToolChoiceMode::Named)) {
    addDropped(dropped, "tool_choice");  // thinking may not be combined with forced tool use
    choice = ToolChoice{ToolChoiceMode::Auto, {}};
  }
  bool no_parallel = request.parallel_tool_calls && !*request.parallel_tool_calls;
  if (tools && (choice || no_parallel)) {
    ToolChoice c = choice.value_or(ToolChoice{});
    out.beginObject("tool_choice");
    switch (c.mode) {
      case ToolChoiceMode::Auto:
        out.str("type", "auto");
        break;
      case ToolChoiceMode::None:
        out.str("type", "none");
        break;
      case ToolChoiceMode::Required:
        out.str("type", "any");
        break;
      case ToolChoiceMode::Named:
        out.str("type", "tool").str("name", c.name);
        break;
    }
    if (no_parallel && c.mode != ToolChoiceMode::None)
      out.boolean("disable_parallel_tool_use", true);
    out.endObject();
  } else if (!tools && choice &&
             (choice->mode == ToolChoiceMode::Required || choice->mode == ToolChoiceMode::Named)) {
    addDropped(dropped, "tool_choice");  // no tools to force
  }

  if (thinking) {
    out.beginObject("thinking").str("type", "enabled").num("budget_tokens", budget).endObject();
  } else if (thinking_off) {
    out.beginObject("thinking").str("type", "disabled").endObject();
  }

  // Sampling. With thinking Anthropic allows temperature 1 only, top_p in [0.95, 1], no top_k;
  // recent models refuse temperature and top_p together (temperature wins).
  // (plain values and flags: GCC 12 warns falsely about optionals reset in branches)
  bool has_temperature = request.temperature.has_value();
  double temperature = request.temperature.value_or(1.0);
  bool has_top_p = request.top_p.has_value();
  double top_p = request.top_p.value_or(1.0);
  bool has_top_k = request.top_k.has_value();
  std::int64_t top_k = request.top_k.value_or(0);
  if (has_temperature && temperature > 1.0) {
    temperature = 1.0;  // OpenAI's range is 0..2, Anthropic's 0..1
    addDropped(dropped, "temperature.clamped");
  }
  if (thinking) {
    if (has_temperature && temperature != 1.0) {
      has_temperature = false;
      addDropped(dropped, "temperature");
    }
    if (has_top_p && top_p < 0.95) {
      has_top_p = false;
      addDropped(dropped, "top_p");
    }
    if (has_top_k) {
      has_top_k = false;
      addDropped(dropped, "top_k");
    }
  }
  if (has_temperature && has_top_p) {
    has_top_p = false;
    addDropped(dropped, "top_p");
  }
  if (has_temperature) out.dbl("temperature", temperature);
  if (has_top_p) out.dbl("top_p", top_p);
  if (has_top_k) out.num("top_k", top_k);

  bool stop_open = false;
  for (std::string const& s : request.stop) {
    if (s.empty() || whitespaceOnly(s)) {
      addDropped(dropped, "stop.whitespace");  // Anthropic refuses whitespace-only sequences
      continue;
    }
    if (!stop_open) out.beginArray("stop_sequences");
    stop_open = true;
    out.str(s);
  }
  if (stop_open) out.endArray();

  if (request.response_format) {
    ResponseFormat const& f = *request.response_format;
    if (f.type == ResponseFormatType::JsonSchema && !f.schema.empty()) {
      std::string_view schema = argumentsObject(f.schema);
      out.beginObject("output_config").beginObject("format").str("type", "json_schema");
      out.raw("schema", schema).endObject().endObject();
      if (!f.name.empty()) addDropped(dropped, "response_format.name");
      if (f.strict) addDropped(dropped, "response_format.strict");
    } else if (f.type != ResponseFormatType::Text) {
      addDropped(dropped, "response_format");
    }
  }
  if (!request.user.empty()) out.beginObject("metadata").str("user_id", request.user).endObject();
  if (!request.prompt_cache_key.empty()) addDropped(dropped, "prompt_cache_key");
  if (request.stream) out.boolean("stream", true);
  out.endObject();
  return body;
}

Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model) {
  std::vector<std::string> dropped;
  return encodeRequestReporting(request, upstream_model, dropped);
}

}  // namespace llmux::translate::anthropic
