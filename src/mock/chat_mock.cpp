// OpenAI Chat Completions (REFERENCE §1): validation, then the answer as one chat.completion or as
// chat.completion.chunk events. Chunk and body layouts follow the gpt-5 era recordings
// (fx:openai-chat/envoy-aigw--*); reasoning is streamed as DeepSeek's `reasoning_content`
// (fx:openai-chat/pydantic-ai--deepseek_reasoning_content_stream), the common Chat extension.
#include <algorithm>
#include <string>
#include <vector>

#include "mock/json_access.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"
#include "mock/mock_reply.h"
#include "mock/openai_param_errors.h"
#include "mock/protocol_mock.h"

namespace llmux::mock::chat {
namespace {

namespace json = boost::json;

/// Text of a message `content` (a string or text parts).
std::string_view contentText(json::value const* content) {
  if (content == nullptr) return {};
  if (content->is_string()) return content->get_string();
  if (content->is_array()) {
    // The last text part is the freshest (clients append the question after attachments).
    std::string_view text;
    for (auto const& part : content->get_array()) {
      if (stringField(asObject(part), "type") == "text") text = stringField(asObject(part), "text");
    }
    return text;
  }
  return {};
}

/// The tool-call bookkeeping OpenAI enforces: every assistant tool_call id answered by a `tool`
/// message before the next other message, and no `tool` message without a pending call.
std::optional<MockReply> checkToolTurns(json::array const& messages, IdSource& ids) {
  std::vector<std::string_view> pending;
  std::size_t assistant_index = 0;
  auto unanswered = [&]() {
    std::string list;
    for (auto id : pending) {
      if (!list.empty()) list += ", ";
      list.append(id);
    }
    return invalidRequestError(
        Vendor::OpenAi, ids,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
            list,
        "messages.[" + std::to_string(assistant_index) + "].role");
  };
  for (std::size_t i = 0; i < messages.size(); ++i) {
    json::object const* message = asObject(messages[i]);
    std::string_view role = stringField(message, "role");
    if (role == "tool") {
      std::string_view id = stringField(message, "tool_call_id");
      auto it = std::find(pending.begin(), pending.end(), id);
      if (it == pending.end()) {
        return invalidRequestError(Vendor::OpenAi, ids,
                                   "Invalid parameter: messages with role 'tool' must be a "
                                   "response to a preceeding message with 'tool_calls'.",
                                   "messages.[" + std::to_string(i) + "].role");
      }
      pending.erase(it);
      continue;
    }
    if (!pending.empty()) return unanswered();
    if (role == "assistant") {
      if (json::array const* calls = arrayField(message, "tool_calls")) {
        assistant_index = i;
        for (auto const& c : *calls) pending.push_back(stringField(asObject(c), "id"));
      }
    }
  }
  if (!pending.empty()) return unanswered();
  return std::nullopt;
}

void readTools(json::object const& body, RequestFacts& facts) {
  if (json::array const* tools = arrayField(&body, "tools")) {
    for (auto const& t : *tools) {
      json::object const* fn = objectField(asObject(t), "function");
      if (stringField(asObject(t), "type") != "function" || fn == nullptr) continue;
      facts.tools.push_back(ToolOffer{stringField(fn, "name"), field(fn, "parameters")});
    }
  }
  json::value const* choice = field(&body, "tool_choice");
  if (choice && choice->is_string()) {
    std::string_view c = choice->get_string();
    facts.tool_choice = c == "none"       ? ToolChoice::None
                        : c == "required" ? ToolChoice::Required
                                          : ToolChoice::Auto;
  } else if (choice && choice->is_object()) {
    std::string_view name = stringField(objectField(asObject(*choice), "function"), "name");
    if (!name.empty()) {
      facts.tool_choice = ToolChoice::Named;
      facts.forced_tool = name;
    }
  }
  facts.parallel_tool_calls = boolField(&body, "parallel_tool_calls", true);
}

/// Writes the fields every chunk starts with.
void chunkHead(JsonWriter& w, std::string_view id, std::int64_t created, std::string_view model) {
  w.str("id", id).str("object", "chat.completion.chunk").num("created", created);
  w.str("model", model).str("service_tier", "default").null("system_fingerprint");
}

void writeUsage(JsonWriter& w, TokenUsage const& u) {
  w.beginObject("usage");
  w.num("prompt_tokens", u.prompt).num("completion_tokens", u.output);
  w.num("total_tokens", u.prompt + u.output);
  w.beginObject("prompt_tokens_details").num("cached_tokens", u.cache_read);
  w.num("audio_tokens", std::int64_t{0}).endObject();
  w.beginObject("completion_tokens_details").num("reasoning_tokens", u.reasoning);
  w.num("audio_tokens", std::int64_t{0}).num("accepted_prediction_tokens", std::int64_t{0});
  w.num("rejected_prediction_tokens", std::int64_t{0}).endObject();
  w.endObject();
}

struct StreamOptions {
  bool include_usage = false;
  bool obfuscation = true;
};

/// Emits chunk after chunk, each as its own SSE event.
class ChunkStream {
 public:
  ChunkStream(MockReply& reply, std::string_view id, std::int64_t created, std::string_view model,
              StreamOptions options, IdSource& ids)
      : reply_(reply), id_(id), created_(created), model_(model), options_(options), ids_(ids) {}

  /// One chunk whose single choice carries the delta written by `delta` (inside the delta object).
  template <class Delta>
  void choice(Delta&& delta, std::string_view finish_reason = {}) {
    JsonWriter w(data_);
    w.beginObject();
    chunkHead(w, id_, created_, model_);
    w.beginArray("choices").beginObject().num("index", std::int64_t{0}).beginObject("delta");
    delta(w);
    w.endObject();
    if (finish_reason.empty())
      w.null("finish_reason");
    else
      w.str("finish_reason", finish_reason);
    w.endObject().endArray();
    finishChunk(w);
  }

  void usage(TokenUsage const& u) {
    JsonWriter w(data_);
    w.beginObject();
    chunkHead(w, id_, created_, model_);
    w.emptyArray("choices");
    writeUsage(w, u);
    if (options_.obfuscation) w.str("obfuscation", ids_.alnum(ids_.next() % 12));
    w.endObject();
    pushSse(reply_, {}, data_);
  }

  void done() {
    data_ = "[DONE]";
    pushSse(reply_, {}, data_);
  }

 private:
  void finishChunk(JsonWriter& w) {
    if (options_.include_usage) w.null("usage");
    if (options_.obfuscation) w.str("obfuscation", ids_.alnum(ids_.next() % 16));
    w.endObject();
    pushSse(reply_, {}, data_);
  }

  MockReply& reply_;
  std::string_view id_;
  std::int64_t created_;
  std::string_view model_;
  StreamOptions options_;
  IdSource& ids_;
  std::string data_;
};

Rendered renderStream(MockCall const& call, AnswerPlan const& plan, std::string_view id,
                      std::int64_t created, std::vector<std::string> const& call_ids) {
  Rendered out;
  MockReply& reply = out.reply;
  beginSse(reply, "text/event-stream; charset=utf-8");
  json::object const* options = objectField(&call.body, "stream_options");
  StreamOptions so{boolField(options, "include_usage", false),
                   boolField(options, "include_obfuscation", true)};
  ChunkStream stream(reply, id, created, call.model, so, call.ids);
  bool reasoning = !plan.thinking.empty();

  // Role chunk: its layout depends on what follows, as in the recordings.
  stream.choice([&](JsonWriter& w) {
    w.str("role", "assistant");
    if (reasoning) {
      w.null("content").str("reasoning_content", "");
    } else if (!plan.calls.empty()) {
      w.null("content");
    } else {
      w.str("content", "").null("refusal");
    }
  });
  out.first_content = reply.chunks.size();
  if (reasoning) {
    for (auto piece : splitDeltas(plan.thinking)) {
      stream.choice([&](JsonWriter& w) { w.null("content").str("reasoning_content", piece); });
    }
  }
  if (!plan.calls.empty()) {
    for (std::size_t i = 0; i < plan.calls.size(); ++i) {
      auto index = static_cast<std::int64_t>(i);
      stream.choice([&](JsonWriter& w) {
        w.beginArray("tool_calls").beginObject().num("index", index).str("id", call_ids[i]);
        w.str("type", "function").beginObject("function").str("name", plan.calls[i].name);
        w.str("arguments", "").endObject().endObject().endArray();
      });
      for (auto piece : splitFragments(plan.calls[i].arguments, 12)) {
        stream.choice([&](JsonWriter& w) {
          w.beginArray("tool_calls").beginObject().num("index", index);
          w.beginObject("function").str("arguments", piece).endObject().endObject().endArray();
        });
      }
    }
  } else {
    for (auto piece : splitDeltas(plan.text)) {
      stream.choice([&](JsonWriter& w) {
        w.str("content", piece);
        if (reasoning) w.null("reasoning_content");
      });
    }
  }
  stream.choice([](JsonWriter&) {}, plan.calls.empty() ? "stop" : "tool_calls");
  if (so.include_usage) stream.usage(plan.usage);
  stream.done();
  return out;
}

Rendered renderWhole(MockCall const& call, AnswerPlan const& plan, std::string_view id,
                     std::int64_t created, std::vector<std::string> const& call_ids) {
  Rendered out;
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().str("id", id).str("object", "chat.completion").num("created", created);
  w.str("model", call.model).beginArray("choices").beginObject().num("index", std::int64_t{0});
  w.beginObject("message").str("role", "assistant");
  if (plan.calls.empty())
    w.str("content", plan.text);
  else
    w.null("content");
  if (!plan.thinking.empty()) w.str("reasoning_content", plan.thinking);
  if (!plan.calls.empty()) {
    w.beginArray("tool_calls");
    for (std::size_t i = 0; i < plan.calls.size(); ++i) {
      w.beginObject().str("id", call_ids[i]).str("type", "function").beginObject("function");
      w.str("name", plan.calls[i].name).str("arguments", plan.calls[i].arguments);
      w.endObject().endObject();
    }
    w.endArray();
  }
  w.null("refusal").emptyArray("annotations").endObject();
  w.str("finish_reason", plan.calls.empty() ? "stop" : "tool_calls").endObject().endArray();
  writeUsage(w, plan.usage);
  w.str("service_tier", "default").null("system_fingerprint").endObject();
  body.push_back('\n');
  setJsonBody(out.reply, 200, std::move(body), "application/json");
  return out;
}

}  // namespace

std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts) {
  json::object const& body = call.body;
  if (!hasString(&body, "model")) return missingFieldError(Vendor::OpenAi, call.ids, "model");
  if (auto error = openai::checkSampling(body, call.ids)) return error;
  json::array const* messages = arrayField(&body, "messages");
  if (messages == nullptr) return missingFieldError(Vendor::OpenAi, call.ids, "messages");
  if (messages->empty()) {
    return invalidRequestError(Vendor::OpenAi, call.ids, "[] is too short - 'messages'", "messages",
                               "empty_array");
  }
  if (auto error = checkToolTurns(*messages, call.ids)) return error;

  facts.model = call.model;
  facts.stream = boolField(&body, "stream", false);
  for (auto const& m : *messages) {
    json::object const* message = asObject(m);
    if (stringField(message, "role") == "user") {
      facts.last_user_text = contentText(field(message, "content"));
    }
  }
  facts.last_turn_is_tool_result = stringField(asObject(messages->back()), "role") == "tool";
  readTools(body, facts);
  std::string_view effort = stringField(&body, "reasoning_effort");
  facts.thinking = !effort.empty() && effort != "none";
  facts.cache_marker = hasString(&body, "prompt_cache_key");
  return std::nullopt;
}

Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan) {
  std::string id = "chatcmpl-" + call.ids.alnum(29);
  std::int64_t created = call.ids.unixTime();
  std::vector<std::string> call_ids;
  for (std::size_t i = 0; i < plan.calls.size(); ++i)
    call_ids.push_back("call_" + call.ids.alnum(24));
  Rendered out = facts.stream ? renderStream(call, plan, id, created, call_ids)
                              : renderWhole(call, plan, id, created, call_ids);
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return out;
}

}  // namespace llmux::mock::chat

namespace llmux::mock::openai {

std::optional<MockReply> checkSampling(boost::json::object const& body, IdSource& ids) {
  struct Range {
    std::string_view name;
    double min, max;
  };
  for (Range range : {Range{"temperature", 0, 2}, Range{"top_p", 0, 1}}) {
    boost::json::value const* v = field(&body, range.name);
    if (v == nullptr || !v->is_number()) continue;
    double x = v->to_number<double>();
    if (x >= range.min && x <= range.max) continue;
    return outOfRange(ids, range.name, false, x < range.min, x < range.min ? range.min : range.max,
                      toJsonText(*v));
  }
  return std::nullopt;
}

}  // namespace llmux::mock::openai
