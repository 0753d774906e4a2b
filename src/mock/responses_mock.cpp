// OpenAI Responses (REFERENCE §2): validation, then the answer as one response object or as the
// typed event stream with sequence numbers. Layouts follow the late-2025 recordings
// (fx:openai-responses/vercel-ai--openai-reasoning-encrypted-content.1.*,
// pydantic-ai--responses_stream_reasoning_then_function_call).
#include <algorithm>
#include <string>
#include <vector>

#include "mock/json_access.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"
#include "mock/mock_reply.h"
#include "mock/protocol_mock.h"

namespace llmux::mock::responses {
namespace {

namespace json = boost::json;

std::string_view partsText(json::value const* content) {
  if (content == nullptr) return {};
  if (content->is_string()) return content->get_string();
  std::string_view text;
  if (content->is_array()) {
    for (auto const& part : content->get_array()) {
      std::string_view type = stringField(asObject(part), "type");
      if (type == "input_text" || type == "text") text = stringField(asObject(part), "text");
    }
  }
  return text;
}

/// Ids and texts of the answer, decided once so that the stream and the final object agree.
struct Items {
  std::string response_id;
  std::int64_t created_at = 0;
  std::string reasoning_id;
  std::string encrypted_partial;  ///< the copy in output_item.added (may be incomplete upstream)
  std::string encrypted;
  bool summary = false;  ///< reasoning.summary asked for: the thinking is shown
  std::string message_id;
  std::vector<std::string> call_item_ids;
  std::vector<std::string> call_ids;
};

Items decideItems(MockCall const& call, AnswerPlan const& plan) {
  Items items;
  IdSource& ids = call.ids;
  std::string stem = ids.hex(16);  // OpenAI item ids of one response share a prefix
  items.response_id = "resp_" + stem + ids.hex(34);
  items.created_at = ids.unixTime();
  if (!plan.thinking.empty()) {
    items.reasoning_id = "rs_" + stem + ids.hex(34);
    items.encrypted = "gAAAAAB" + ids.base64Url(380);
    items.encrypted_partial = "gAAAAAB" + ids.base64Url(240);
    items.summary = !stringField(objectField(&call.body, "reasoning"), "summary").empty();
  }
  if (plan.calls.empty()) {
    items.message_id = "msg_" + stem + ids.hex(34);
  }
  for (std::size_t i = 0; i < plan.calls.size(); ++i) {
    items.call_item_ids.push_back("fc_" + stem + ids.hex(34));
    items.call_ids.push_back("call_" + ids.alnum(24));
  }
  return items;
}

void writeReasoningItem(JsonWriter& w, Items const& items, AnswerPlan const& plan, bool done) {
  w.beginObject().str("id", items.reasoning_id).str("type", "reasoning");
  w.str("encrypted_content", done ? items.encrypted : items.encrypted_partial);
  w.beginArray("summary");
  if (done && items.summary) {
    w.beginObject().str("type", "summary_text").str("text", plan.thinking).endObject();
  }
  w.endArray().endObject();
}

void writeOutputText(JsonWriter& w, std::string_view text) {
  w.beginObject().str("type", "output_text").emptyArray("annotations").emptyArray("logprobs");
  w.str("text", text).endObject();
}

void writeMessageItem(JsonWriter& w, Items const& items, AnswerPlan const& plan, bool done) {
  w.beginObject().str("id", items.message_id).str("type", "message");
  w.str("status", done ? "completed" : "in_progress").beginArray("content");
  if (done) writeOutputText(w, plan.text);
  w.endArray().str("role", "assistant").endObject();
}

void writeCallItem(JsonWriter& w, Items const& items, AnswerPlan const& plan, std::size_t i,
                   bool done) {
  w.beginObject().str("id", items.call_item_ids[i]).str("type", "function_call");
  w.str("status", done ? "completed" : "in_progress");
  w.str("arguments", done ? std::string_view(plan.calls[i].arguments) : std::string_view());
  w.str("call_id", items.call_ids[i]).str("name", plan.calls[i].name).endObject();
}

void writeAllItems(JsonWriter& w, Items const& items, AnswerPlan const& plan) {
  if (!items.reasoning_id.empty()) writeReasoningItem(w, items, plan, true);
  if (plan.calls.empty()) writeMessageItem(w, items, plan, true);
  for (std::size_t i = 0; i < plan.calls.size(); ++i) writeCallItem(w, items, plan, i, true);
}

/// Echo of a request member, or null when absent.
void echo(JsonWriter& w, json::object const& body, std::string_view key) {
  if (json::value const* v = field(&body, key))
    w.value(key, *v);
  else
    w.null(key);
}

void writeTools(JsonWriter& w, json::object const& body) {
  w.beginArray("tools");
  if (json::array const* tools = arrayField(&body, "tools")) {
    for (auto const& t : *tools) {
      json::object const* tool = asObject(t);
      if (stringField(tool, "type") != "function") {
        w.value(t);
        continue;
      }
      w.beginObject().str("type", "function");
      echo(w, *tool, "description");
      w.str("name", stringField(tool, "name"));
      echo(w, *tool, "parameters");
      w.boolean("strict", boolField(tool, "strict", true)).endObject();
    }
  }
  w.endArray();
}

enum class Phase { InProgress, Completed, Failed };

/// The response object as the API returns it (and as the stream events embed it).
template <class Output>
void writeResponse(JsonWriter& w, MockCall const& call, Items const& items, Phase phase,
                   bool whole_body, Output&& output, TokenUsage const* usage,
                   std::string_view error_code = {}, std::string_view error_message = {}) {
  json::object const& body = call.body;
  w.beginObject().str("id", items.response_id).str("object", "response");
  w.num("created_at", items.created_at);
  w.str("status", phase == Phase::InProgress  ? "in_progress"
                  : phase == Phase::Completed ? "completed"
                                              : "failed");
  w.boolean("background", boolField(&body, "background", false));
  if (whole_body) w.beginObject("billing").str("payer", "developer").endObject();
  if (phase == Phase::Failed) {
    w.beginObject("error").str("code", error_code).str("message", error_message).endObject();
  } else {
    w.null("error");
  }
  w.null("incomplete_details");
  echo(w, body, "instructions");
  echo(w, body, "max_output_tokens");
  echo(w, body, "max_tool_calls");
  w.str("model", call.model).beginArray("output");
  output(w);
  w.endArray();
  w.boolean("parallel_tool_calls", boolField(&body, "parallel_tool_calls", true));
  echo(w, body, "previous_response_id");
  echo(w, body, "prompt_cache_key");
  echo(w, body, "prompt_cache_retention");
  json::object const* reasoning = objectField(&body, "reasoning");
  w.beginObject("reasoning");
  if (reasoning == nullptr) {
    w.null("effort");
  } else if (hasString(reasoning, "effort")) {
    w.str("effort", stringField(reasoning, "effort"));
  } else {
    w.str("effort", "medium");
  }
  if (hasString(reasoning, "summary"))
    w.str("summary", stringField(reasoning, "summary"));
  else
    w.null("summary");
  w.endObject();
  echo(w, body, "safety_identifier");
  w.str("service_tier", "default").boolean("store", boolField(&body, "store", true));
  if (json::value const* t = field(&body, "temperature"); t && t->is_number()) {
    w.value("temperature", *t);
  } else {
    w.num("temperature", 1.0);
  }
  json::object const* text = objectField(&body, "text");
  w.beginObject("text");
  if (json::value const* format = field(text, "format")) {
    w.value("format", *format);
  } else {
    w.beginObject("format").str("type", "text").endObject();
  }
  w.str("verbosity", hasString(text, "verbosity") ? stringField(text, "verbosity") : "medium");
  w.endObject();
  if (json::value const* choice = field(&body, "tool_choice")) {
    w.value("tool_choice", *choice);
  } else {
    w.str("tool_choice", "auto");
  }
  writeTools(w, body);
  if (json::value const* v = field(&body, "top_logprobs"); v && v->is_number()) {
    w.value("top_logprobs", *v);
  } else {
    w.num("top_logprobs", std::int64_t{0});
  }
  if (json::value const* v = field(&body, "top_p"); v && v->is_number()) {
    w.value("top_p", *v);
  } else {
    w.num("top_p", 1.0);
  }
  w.str("truncation",
        hasString(&body, "truncation") ? stringField(&body, "truncation") : "disabled");
  if (usage == nullptr) {
    w.null("usage");
  } else {
    w.beginObject("usage").num("input_tokens", usage->prompt);
    w.beginObject("input_tokens_details").num("cached_tokens", usage->cache_read).endObject();
    w.num("output_tokens", usage->output);
    w.beginObject("output_tokens_details").num("reasoning_tokens", usage->reasoning).endObject();
    w.num("total_tokens", usage->prompt + usage->output).endObject();
  }
  echo(w, body, "user");
  if (json::value const* m = field(&body, "metadata"); m && m->is_object()) {
    w.value("metadata", *m);
  } else {
    w.emptyObject("metadata");
  }
  w.endObject();
}

/// Writes typed events with their running sequence_number.
class EventStream {
 public:
  EventStream(MockReply& reply, IdSource& ids, bool obfuscation)
      : reply_(reply), ids_(ids), obfuscation_(obfuscation) {}

  template <class Fields>
  void event(std::string_view type, Fields&& fields) {
    JsonWriter w(data_);
    w.beginObject().str("type", type).num("sequence_number", sequence_++);
    fields(w);
    w.endObject();
    pushSse(reply_, type, data_);
  }

  void obfuscation(JsonWriter& w) {
    if (obfuscation_) w.str("obfuscation", ids_.alnum(ids_.next() % 16));
  }

 private:
  MockReply& reply_;
  IdSource& ids_;
  bool obfuscation_;
  std::int64_t sequence_ = 0;
  std::string data_;
};

void streamReasoning(EventStream& s, Items const& items, AnswerPlan const& plan,
                     std::int64_t index) {
  s.event("response.output_item.added", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeReasoningItem(w, items, plan, false);
  });
  if (items.summary) {
    auto ids = [&](JsonWriter& w) {
      w.str("item_id", items.reasoning_id).num("output_index", index);
      w.num("summary_index", std::int64_t{0});
    };
    auto part = [&](JsonWriter& w, std::string_view text) {
      w.beginObject("part").str("type", "summary_text").str("text", text).endObject();
    };
    s.event("response.reasoning_summary_part.added", [&](JsonWriter& w) {
      ids(w);
      part(w, "");
    });
    for (auto piece : splitDeltas(plan.thinking)) {
      s.event("response.reasoning_summary_text.delta", [&](JsonWriter& w) {
        ids(w);
        w.str("delta", piece);
        s.obfuscation(w);
      });
    }
    s.event("response.reasoning_summary_text.done", [&](JsonWriter& w) {
      ids(w);
      w.str("text", plan.thinking);
    });
    s.event("response.reasoning_summary_part.done", [&](JsonWriter& w) {
      ids(w);
      part(w, plan.thinking);
    });
  }
  s.event("response.output_item.done", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeReasoningItem(w, items, plan, true);
  });
}

void streamMessage(EventStream& s, Items const& items, AnswerPlan const& plan, std::int64_t index) {
  auto ids = [&](JsonWriter& w) {
    w.str("item_id", items.message_id).num("output_index", index);
    w.num("content_index", std::int64_t{0});
  };
  s.event("response.output_item.added", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeMessageItem(w, items, plan, false);
  });
  s.event("response.content_part.added", [&](JsonWriter& w) {
    ids(w);
    w.key("part");
    writeOutputText(w, "");
  });
  for (auto piece : splitDeltas(plan.text)) {
    s.event("response.output_text.delta", [&](JsonWriter& w) {
      ids(w);
      w.str("delta", piece).emptyArray("logprobs");
      s.obfuscation(w);
    });
  }
  s.event("response.output_text.done", [&](JsonWriter& w) {
    ids(w);
    w.str("text", plan.text).emptyArray("logprobs");
  });
  s.event("response.content_part.done", [&](JsonWriter& w) {
    ids(w);
    w.key("part");
    writeOutputText(w, plan.text);
  });
  s.event("response.output_item.done", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeMessageItem(w, items, plan, true);
  });
}

void streamCall(EventStream& s, Items const& items, AnswerPlan const& plan, std::size_t i,
                std::int64_t index) {
  s.event("response.output_item.added", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeCallItem(w, items, plan, i, false);
  });
  for (auto piece : splitFragments(plan.calls[i].arguments, 12)) {
    s.event("response.function_call_arguments.delta", [&](JsonWriter& w) {
      w.str("item_id", items.call_item_ids[i]).num("output_index", index).str("delta", piece);
      s.obfuscation(w);
    });
  }
  s.event("response.function_call_arguments.done", [&](JsonWriter& w) {
    w.str("item_id", items.call_item_ids[i]).num("output_index", index);
    w.str("arguments", plan.calls[i].arguments);
  });
  s.event("response.output_item.done", [&](JsonWriter& w) {
    w.num("output_index", index).key("item");
    writeCallItem(w, items, plan, i, true);
  });
}

bool obfuscationWanted(json::object const& body) {
  return boolField(objectField(&body, "stream_options"), "include_obfuscation", true);
}

auto const kNoOutput = [](JsonWriter&) {};

/// The first chunk at or after `from` that carries a token (a text, reasoning or arguments
/// delta): item and content-part openings before it are structure, not content, so the stream
/// faults (slow first token, stall, cut) act after them. `from` when there is none.
std::size_t firstDeltaChunk(MockReply const& reply, std::size_t from) {
  for (std::size_t i = from; i < reply.chunks.size(); ++i) {
    if (reply.chunks[i].bytes.find(".delta\"") != std::string::npos) return i;
  }
  return from;
}

}  // namespace

std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts) {
  json::object const& body = call.body;
  if (!hasString(&body, "model")) return missingFieldError(Vendor::OpenAi, call.ids, "model");
  if (auto error = openai::checkSampling(body, call.ids)) return error;
  json::value const* input = field(&body, "input");
  if (input == nullptr || !(input->is_string() || input->is_array())) {
    return missingFieldError(Vendor::OpenAi, call.ids, "input");
  }
  facts.model = call.model;
  facts.stream = boolField(&body, "stream", false);
  if (input->is_string()) {
    facts.last_user_text = input->get_string();
  } else {
    std::vector<std::string_view> call_ids;
    bool stateful = hasString(&body, "previous_response_id") || field(&body, "conversation");
    for (auto const& item_value : input->get_array()) {
      json::object const* item = asObject(item_value);
      std::string_view type = stringField(item, "type");
      if (type == "function_call") call_ids.push_back(stringField(item, "call_id"));
      if (type == "function_call_output" && !stateful) {
        std::string_view id = stringField(item, "call_id");
        if (std::find(call_ids.begin(), call_ids.end(), id) == call_ids.end()) {
          return invalidRequestError(
              Vendor::OpenAi, call.ids,
              "No tool call found for function call output with call_id " + std::string(id) + ".",
              "input");
        }
      }
      if ((type.empty() || type == "message") && stringField(item, "role") == "user") {
        facts.last_user_text = partsText(field(item, "content"));
      }
    }
    if (!input->get_array().empty()) {
      facts.last_turn_is_tool_result =
          stringField(asObject(input->get_array().back()), "type") == "function_call_output";
    }
  }
  if (json::array const* tools = arrayField(&body, "tools")) {
    for (auto const& t : *tools) {
      json::object const* tool = asObject(t);
      if (stringField(tool, "type") != "function") continue;
      facts.tools.push_back(ToolOffer{stringField(tool, "name"), field(tool, "parameters")});
    }
  }
  json::value const* choice = field(&body, "tool_choice");
  if (choice && choice->is_string()) {
    std::string_view c = choice->get_string();
    facts.tool_choice = c == "none"       ? ToolChoice::None
                        : c == "required" ? ToolChoice::Required
                                          : ToolChoice::Auto;
  } else if (choice && choice->is_object() &&
             stringField(asObject(*choice), "type") == "function") {
    facts.tool_choice = ToolChoice::Named;
    facts.forced_tool = stringField(asObject(*choice), "name");
  }
  facts.parallel_tool_calls = boolField(&body, "parallel_tool_calls", true);
  json::object const* reasoning = objectField(&body, "reasoning");
  facts.thinking = reasoning != nullptr && stringField(reasoning, "effort") != "none";
  facts.cache_marker = hasString(&body, "prompt_cache_key");
  return std::nullopt;
}


Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan) {
  Items items = decideItems(call, plan);
  Rendered out;
  if (!facts.stream) {
    std::string body;
    JsonWriter w(body, JsonStyle::Indent2);
    writeResponse(
        w, call, items, Phase::Completed, true,
        [&](JsonWriter& ow) { writeAllItems(ow, items, plan); }, &plan.usage);
    body.push_back('\n');
    setJsonBody(out.reply, 200, std::move(body), "application/json");
    addOpenAiAnswerHeaders(out.reply, call.ids);
    return out;
  }
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  EventStream s(out.reply, call.ids, obfuscationWanted(call.body));
  auto inProgress = [&](JsonWriter& w) {
    w.key("response");
    writeResponse(w, call, items, Phase::InProgress, false, kNoOutput, nullptr);
  };
  s.event("response.created", inProgress);
  s.event("response.in_progress", inProgress);
  std::size_t first_item = out.reply.chunks.size();
  std::int64_t index = 0;
  if (!items.reasoning_id.empty()) streamReasoning(s, items, plan, index++);
  if (plan.calls.empty()) streamMessage(s, items, plan, index++);
  for (std::size_t i = 0; i < plan.calls.size(); ++i) streamCall(s, items, plan, i, index++);
  out.first_content = firstDeltaChunk(out.reply, first_item);
  s.event("response.completed", [&](JsonWriter& w) {
    w.key("response");
    writeResponse(
        w, call, items, Phase::Completed, false,
        [&](JsonWriter& ow) { writeAllItems(ow, items, plan); }, &plan.usage);
  });
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return out;
}

Rendered renderStreamFailure(MockCall const& call, RequestFacts const&, std::string_view code,
                             std::string_view message) {
  Items items = decideItems(call, AnswerPlan{});
  Rendered out;
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  EventStream s(out.reply, call.ids, obfuscationWanted(call.body));
  auto inProgress = [&](JsonWriter& w) {
    w.key("response");
    writeResponse(w, call, items, Phase::InProgress, false, kNoOutput, nullptr);
  };
  s.event("response.created", inProgress);
  s.event("response.in_progress", inProgress);
  out.first_content = out.reply.chunks.size();
  s.event("error", [&](JsonWriter& w) {
    w.beginObject("error").str("type", "invalid_request_error").str("code", code);
    w.str("message", message).str("param", "input").endObject();
  });
  s.event("response.failed", [&](JsonWriter& w) {
    w.key("response");
    writeResponse(w, call, items, Phase::Failed, false, kNoOutput, nullptr, code, message);
  });
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return out;
}

}  // namespace llmux::mock::responses
