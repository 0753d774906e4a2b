// Anthropic Messages (REFERENCE §3): validation (including the tool_use / tool_result pairing the
// API enforces), then the answer as one message or as the event stream. Stream layout follows the
// 2026 recordings (fx:anthropic/llm-anthropic--*: stop_details, caller, thinking_tokens), bodies
// the non-stream recordings (fx:anthropic/pydantic-ai--*).
#include <algorithm>
#include <boost/json/parse.hpp>
#include <string>
#include <vector>

#include "mock/json_access.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"
#include "mock/mock_reply.h"
#include "mock/protocol_mock.h"

namespace llmux::mock::anthropic {
namespace {

namespace json = boost::json;

struct CacheScan {
  bool marker = false;
  bool ttl_1h = false;
  void visit(json::object const* o) {
    if (json::object const* cc = objectField(o, "cache_control")) {
      marker = true;
      if (stringField(cc, "ttl") == "1h") ttl_1h = true;
    }
  }
  void visitBlocks(json::value const* v) {
    if (v == nullptr || !v->is_array()) return;
    for (auto const& block : v->get_array()) visit(asObject(block));
  }
};

/// The id list "a, b" of the tool_use blocks of `content`.
std::vector<std::string_view> toolUseIds(json::value const* content) {
  std::vector<std::string_view> ids;
  if (content == nullptr || !content->is_array()) return ids;
  for (auto const& block : content->get_array()) {
    if (stringField(asObject(block), "type") == "tool_use") {
      ids.push_back(stringField(asObject(block), "id"));
    }
  }
  return ids;
}

std::optional<MockReply> checkToolPairing(json::array const& messages, IdSource& ids) {
  std::vector<std::string_view> previous_uses;  // tool_use ids of the previous assistant turn
  for (std::size_t i = 0; i < messages.size(); ++i) {
    json::object const* message = asObject(messages[i]);
    std::string_view role = stringField(message, "role");
    json::value const* content = field(message, "content");
    std::vector<std::string_view> results;
    if (role == "user" && content != nullptr && content->is_array()) {
      auto const& blocks = content->get_array();
      for (std::size_t k = 0; k < blocks.size(); ++k) {
        json::object const* block = asObject(blocks[k]);
        if (stringField(block, "type") != "tool_result") continue;
        std::string_view id = stringField(block, "tool_use_id");
        if (std::find(previous_uses.begin(), previous_uses.end(), id) == previous_uses.end()) {
          return invalidRequestError(
              Vendor::Anthropic, ids,
              "messages." + std::to_string(i) + ".content." + std::to_string(k) +
                  ": unexpected `tool_use_id` found in `tool_result` blocks: " + std::string(id) +
                  ". Each `tool_result` block must have a corresponding `tool_use` block in the "
                  "previous message.");
        }
        results.push_back(id);
      }
    }
    if (!previous_uses.empty()) {
      std::string missing;
      for (auto id : previous_uses) {
        if (std::find(results.begin(), results.end(), id) != results.end()) continue;
        if (!missing.empty()) missing += ", ";
        missing.append(id);
      }
      if (!missing.empty()) {
        return invalidRequestError(
            Vendor::Anthropic, ids,
            "messages." + std::to_string(i - 1) +
                ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
                missing +
                ". Each `tool_use` block must have a corresponding `tool_result` block in the "
                "next message.");
      }
    }
    previous_uses = role == "assistant" ? toolUseIds(content) : std::vector<std::string_view>{};
  }
  if (!previous_uses.empty()) {
    std::string missing;
    for (auto id : previous_uses) {
      if (!missing.empty()) missing += ", ";
      missing.append(id);
    }
    return invalidRequestError(
        Vendor::Anthropic, ids,
        "messages." + std::to_string(messages.size() - 1) +
            ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
            missing +
            ". Each `tool_use` block must have a corresponding `tool_result` block in the next "
            "message.");
  }
  return std::nullopt;
}

std::string_view lastText(json::value const* content) {
  if (content == nullptr) return {};
  if (content->is_string()) return content->get_string();
  std::string_view text;
  if (content->is_array()) {
    for (auto const& block : content->get_array()) {
      if (stringField(asObject(block), "type") == "text")
        text = stringField(asObject(block), "text");
    }
  }
  return text;
}

bool hasToolResult(json::value const* content) {
  if (content == nullptr || !content->is_array()) return false;
  for (auto const& block : content->get_array()) {
    if (stringField(asObject(block), "type") == "tool_result") return true;
  }
  return false;
}

std::optional<MockReply> checkThinking(json::object const& body, IdSource& ids, bool& thinking) {
  json::object const* config = objectField(&body, "thinking");
  std::string_view type = stringField(config, "type");
  thinking = type == "enabled" || type == "adaptive";
  if (type == "enabled") {
    json::value const* budget = field(config, "budget_tokens");
    json::value const* max_tokens = field(&body, "max_tokens");
    if (budget == nullptr || !budget->is_int64() || budget->get_int64() < 1024) {
      return invalidRequestError(Vendor::Anthropic, ids,
                                 "thinking.enabled.budget_tokens: Input should be greater than or "
                                 "equal to 1024");
    }
    if (max_tokens && max_tokens->is_int64() && max_tokens->get_int64() <= budget->get_int64()) {
      return invalidRequestError(Vendor::Anthropic, ids,
                                 "`max_tokens` must be greater than `thinking.budget_tokens`. "
                                 "Please consult our documentation at "
                                 "https://docs.claude.com/en/docs/build-with-claude/"
                                 "extended-thinking#max-tokens-and-context-window-size");
    }
  }
  std::string_view choice = stringField(objectField(&body, "tool_choice"), "type");
  if (thinking && (choice == "any" || choice == "tool")) {
    return invalidRequestError(Vendor::Anthropic, ids,
                               "Thinking may not be enabled when tool_choice forces tool use.");
  }
  return std::nullopt;
}

/// Token counts in Anthropic's convention: input_tokens excludes cache reads and writes.
struct Counts {
  std::int64_t input, cache_write, cache_read;
  std::int64_t write_5m, write_1h;
};

Counts counts(RequestFacts const& facts, TokenUsage const& u) {
  Counts c{};
  c.cache_read = u.cache_read;
  c.cache_write = u.cache_write;
  c.input = std::max<std::int64_t>(u.prompt - u.cache_read - u.cache_write, 0);
  (facts.cache_write_1h ? c.write_1h : c.write_5m) = u.cache_write;
  return c;
}

void writeCacheCreation(JsonWriter& w, Counts const& c) {
  w.beginObject("cache_creation").num("ephemeral_5m_input_tokens", c.write_5m);
  w.num("ephemeral_1h_input_tokens", c.write_1h).endObject();
}

struct Ids {
  std::string message;
  std::string signature;
  std::vector<std::string> tools;
};

/// Anthropic pads some data lines with spaces before the closing brace: keep the quirk so that
/// relays and parsers meet it.
void padBeforeLastBrace(std::string& data, IdSource& ids) {
  std::size_t spaces = ids.next() % 3 == 0 ? 0 : 4 + ids.next() % 12;
  if (spaces == 0 || data.empty() || data.back() != '}') return;
  data.insert(data.size() - 1, spaces, ' ');
}

class EventStream {
 public:
  EventStream(MockReply& reply, IdSource& ids) : reply_(reply), ids_(ids) {}

  template <class Fields>
  void event(std::string_view type, Fields&& fields, bool pad = true) {
    JsonWriter w(data_);
    w.beginObject().str("type", type);
    fields(w);
    w.endObject();
    if (pad) padBeforeLastBrace(data_, ids_);
    pushSse(reply_, type, data_);
  }

  void ping() {
    data_ = R"({"type": "ping"})";
    pushSse(reply_, "ping", data_);
  }

  template <class Delta>
  void delta(std::int64_t index, Delta&& delta) {
    event("content_block_delta", [&](JsonWriter& w) {
      w.num("index", index).beginObject("delta");
      delta(w);
      w.endObject();
    });
  }

 private:
  MockReply& reply_;
  IdSource& ids_;
  std::string data_;
};

Rendered renderStream(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan,
                      Ids const& ids) {
  Rendered out;
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  EventStream s(out.reply, call.ids);
  Counts c = counts(facts, plan.usage);
  s.event("message_start", [&](JsonWriter& w) {
    w.beginObject("message").str("model", call.model).str("id", ids.message);
    w.str("type", "message").str("role", "assistant").emptyArray("content");
    w.null("stop_reason").null("stop_sequence").null("stop_details");
    w.beginObject("usage").num("input_tokens", c.input);
    w.num("cache_creation_input_tokens", c.cache_write)
        .num("cache_read_input_tokens", c.cache_read);
    writeCacheCreation(w, c);
    w.num("output_tokens", std::min<std::int64_t>(plan.usage.output, 8));
    w.str("service_tier", "standard").str("inference_geo", "not_available").endObject();
    w.endObject();
  });
  std::int64_t index = 0;
  bool pinged = false;
  auto start = [&](auto&& block) {
    s.event("content_block_start", [&](JsonWriter& w) {
      w.num("index", index).beginObject("content_block");
      block(w);
      w.endObject();
    });
    if (!pinged) {
      s.ping();
      pinged = true;
      out.first_content = out.reply.chunks.size();
    }
  };
  auto stop = [&]() {
    s.event("content_block_stop", [&](JsonWriter& w) { w.num("index", index); });
    ++index;
  };
  if (!plan.thinking.empty()) {
    start(
        [](JsonWriter& w) { w.str("type", "thinking").str("thinking", "").str("signature", ""); });
    for (auto piece : splitDeltas(plan.thinking)) {
      s.delta(index,
              [&](JsonWriter& w) { w.str("type", "thinking_delta").str("thinking", piece); });
    }
    s.delta(index, [&](JsonWriter& w) {
      w.str("type", "signature_delta").str("signature", ids.signature);
    });
    stop();
  }
  if (!plan.text.empty()) {
    start([](JsonWriter& w) { w.str("type", "text").str("text", ""); });
    for (auto piece : splitDeltas(plan.text)) {
      s.delta(index, [&](JsonWriter& w) { w.str("type", "text_delta").str("text", piece); });
    }
    stop();
  }
  for (std::size_t i = 0; i < plan.calls.size(); ++i) {
    start([&](JsonWriter& w) {
      w.str("type", "tool_use").str("id", ids.tools[i]).str("name", plan.calls[i].name);
      w.emptyObject("input").beginObject("caller").str("type", "direct").endObject();
    });
    // The API opens every tool input with an empty fragment, then streams Python-style JSON.
    s.delta(index,
            [&](JsonWriter& w) { w.str("type", "input_json_delta").str("partial_json", ""); });
    boost::system::error_code ec;
    std::string input = toJsonText(json::parse(plan.calls[i].arguments, ec), JsonStyle::PythonLine);
    if (input != "{}") {
      for (auto piece : splitFragments(input, 24)) {
        s.delta(index, [&](JsonWriter& w) {
          w.str("type", "input_json_delta").str("partial_json", piece);
        });
      }
    }
    stop();
  }
  s.event(
      "message_delta",
      [&](JsonWriter& w) {
        w.beginObject("delta").str("stop_reason", plan.calls.empty() ? "end_turn" : "tool_use");
        w.null("stop_sequence").null("stop_details").endObject();
        w.beginObject("usage").num("input_tokens", c.input);
        w.num("cache_creation_input_tokens", c.cache_write)
            .num("cache_read_input_tokens", c.cache_read);
        w.num("output_tokens", plan.usage.output);
        w.beginObject("output_tokens_details")
            .num("thinking_tokens", plan.usage.reasoning)
            .endObject();
        w.endObject();
      },
      false);
  s.event("message_stop", [](JsonWriter&) {});
  return out;
}

Rendered renderWhole(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan,
                     Ids const& ids) {
  Rendered out;
  Counts c = counts(facts, plan.usage);
  std::string body;
  JsonWriter w(body);
  w.beginObject().str("model", call.model).str("id", ids.message).str("type", "message");
  w.str("role", "assistant").beginArray("content");
  if (!plan.thinking.empty()) {
    w.beginObject().str("type", "thinking").str("thinking", plan.thinking);
    w.str("signature", ids.signature).endObject();
  }
  if (!plan.text.empty()) w.beginObject().str("type", "text").str("text", plan.text).endObject();
  for (std::size_t i = 0; i < plan.calls.size(); ++i) {
    w.beginObject().str("type", "tool_use").str("id", ids.tools[i]).str("name", plan.calls[i].name);
    w.key("input").raw(plan.calls[i].arguments).endObject();
  }
  w.endArray().str("stop_reason", plan.calls.empty() ? "end_turn" : "tool_use");
  w.null("stop_sequence").beginObject("usage").num("input_tokens", c.input);
  w.num("cache_creation_input_tokens", c.cache_write).num("cache_read_input_tokens", c.cache_read);
  writeCacheCreation(w, c);
  w.num("output_tokens", plan.usage.output).str("service_tier", "standard");
  w.str("inference_geo", "not_available").endObject().endObject();
  setJsonBody(out.reply, 200, std::move(body), "application/json");
  return out;
}

}  // namespace

std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts) {
  json::object const& body = call.body;
  IdSource& ids = call.ids;
  if (!hasString(&body, "model")) return missingFieldError(Vendor::Anthropic, ids, "model");
  json::value const* max_tokens = field(&body, "max_tokens");
  if (max_tokens == nullptr || !max_tokens->is_number()) {
    return missingFieldError(Vendor::Anthropic, ids, "max_tokens");
  }
  json::array const* messages = arrayField(&body, "messages");
  if (messages == nullptr) return missingFieldError(Vendor::Anthropic, ids, "messages");
  if (auto error = checkToolPairing(*messages, ids)) return error;
  if (auto error = checkThinking(body, ids, facts.thinking)) return error;

  facts.model = call.model;
  facts.stream = boolField(&body, "stream", false);
  CacheScan cache;
  cache.visit(&body);
  cache.visitBlocks(field(&body, "system"));
  cache.visitBlocks(field(&body, "tools"));
  for (auto const& m : *messages) {
    json::object const* message = asObject(m);
    json::value const* content = field(message, "content");
    cache.visitBlocks(content);
    if (stringField(message, "role") == "user") {
      if (std::string_view text = lastText(content); !text.empty()) facts.last_user_text = text;
    }
  }
  facts.cache_marker = cache.marker;
  facts.cache_write_1h = cache.ttl_1h;
  if (!messages->empty()) {
    json::object const* last = asObject(messages->back());
    facts.last_turn_is_tool_result =
        stringField(last, "role") == "user" && hasToolResult(field(last, "content"));
  }
  if (json::array const* tools = arrayField(&body, "tools")) {
    for (auto const& t : *tools) {
      json::object const* tool = asObject(t);
      std::string_view type = stringField(tool, "type");
      if (!type.empty() && type != "custom") continue;  // server tools run on Anthropic's side
      facts.tools.push_back(ToolOffer{stringField(tool, "name"), field(tool, "input_schema")});
    }
  }
  json::object const* choice = objectField(&body, "tool_choice");
  std::string_view choice_type = stringField(choice, "type");
  facts.tool_choice = choice_type == "none"   ? ToolChoice::None
                      : choice_type == "any"  ? ToolChoice::Required
                      : choice_type == "tool" ? ToolChoice::Named
                                              : ToolChoice::Auto;
  facts.forced_tool = stringField(choice, "name");
  facts.parallel_tool_calls = !boolField(choice, "disable_parallel_tool_use", false);
  return std::nullopt;
}

Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan) {
  Ids ids;
  ids.message = "msg_01" + call.ids.alnum(22);
  if (!plan.thinking.empty()) ids.signature = "Eq" + call.ids.base64(318);
  for (std::size_t i = 0; i < plan.calls.size(); ++i)
    ids.tools.push_back("toolu_01" + call.ids.alnum(22));
  Rendered out =
      facts.stream ? renderStream(call, facts, plan, ids) : renderWhole(call, facts, plan, ids);
  addRequestId(out.reply, Vendor::Anthropic, call.ids);
  addRateLimitHeaders(out.reply, Vendor::Anthropic, false, 0);
  return out;
}

}  // namespace llmux::mock::anthropic
