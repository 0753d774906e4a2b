#include "validators/anthropic_validator.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <optional>

namespace llmux::translate::validators::anthropic {
namespace {

namespace json = boost::json;

constexpr std::string_view kStopReasons[] = {"end_turn",
                                             "max_tokens",
                                             "stop_sequence",
                                             "tool_use",
                                             "pause_turn",
                                             "refusal",
                                             "model_context_window_exceeded"};

bool validStopReason(std::string_view s) {
  return std::find(std::begin(kStopReasons), std::end(kStopReasons), s) != std::end(kStopReasons);
}

bool serverResultBlock(std::string_view type) {
  return type.size() > 12 && type.ends_with("_tool_result");
}

bool validToolId(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

json::value const* member(json::object const& o, std::string_view key) {
  return o.if_contains(key);
}

bool isString(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_string();
}

std::string_view stringOf(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool nonNegativeInt(json::value const* v) {
  if (v == nullptr) return false;
  if (v->is_uint64()) return true;
  return v->is_int64() && v->get_int64() >= 0;
}

class Problems {
 public:
  explicit Problems(std::vector<std::string>& out) : out_(out) {}
  void setContext(std::string context) { context_ = std::move(context); }
  void add(std::string_view what) {
    out_.push_back(context_.empty() ? std::string(what) : context_ + ": " + std::string(what));
  }

 private:
  std::vector<std::string>& out_;
  std::string context_;
};

/// Optional counts must be non-negative integers (or null); `required` ones must be present.
void checkUsage(json::value const* usage, std::initializer_list<std::string_view> required,
                Problems& p) {
  if (usage == nullptr || !usage->is_object()) {
    p.add("usage must be an object");
    return;
  }
  json::object const& u = usage->get_object();
  for (std::string_view key : required) {
    if (!nonNegativeInt(member(u, key)))
      p.add("usage." + std::string(key) + " must be an integer >= 0");
  }
  for (std::string_view key : {"input_tokens", "output_tokens", "cache_creation_input_tokens",
                               "cache_read_input_tokens"}) {
    json::value const* v = member(u, key);
    if (v != nullptr && !v->is_null() && !nonNegativeInt(v)) {
      p.add("usage." + std::string(key) + " must be an integer >= 0 or null");
    }
  }
}

/// Checks the fields of a content block; `streamed`: as in content_block_start (empty payload).
void checkBlock(json::object const& b, bool streamed, Problems& p) {
  std::string_view type = stringOf(b, "type");
  if (type == "text") {
    if (!isString(b, "text")) p.add("text block needs a string text");
    if (streamed && !stringOf(b, "text").empty()) p.add("a streamed text block starts empty");
  } else if (type == "thinking") {
    if (!isString(b, "thinking")) p.add("thinking block needs a string thinking");
    if (!isString(b, "signature")) {
      p.add("thinking block needs a string signature");
    } else if (!streamed && stringOf(b, "signature").empty()) {
      // The SDKs and Claude Code refuse a thinking block without a signature on the next turn.
      p.add("thinking block needs a non-empty signature");
    }
  } else if (type == "redacted_thinking") {
    if (stringOf(b, "data").empty()) p.add("redacted_thinking block needs its data");
  } else if (type == "tool_use" || type == "server_tool_use") {
    if (!validToolId(stringOf(b, "id"))) p.add("tool_use id must match ^[a-zA-Z0-9_-]+$");
    if (stringOf(b, "name").empty()) p.add("tool_use needs a name");
    json::value const* input = member(b, "input");
    if (input == nullptr || !input->is_object())
      p.add("tool_use input must be an object");
    else if (streamed && !input->get_object().empty())
      p.add("a streamed tool_use starts with input {}");
  } else if (serverResultBlock(type)) {
    if (stringOf(b, "tool_use_id").empty()) p.add(std::string(type) + " needs a tool_use_id");
  } else {
    p.add("unknown content block type \"" + std::string(type) + "\"");
  }
}

void checkStop(json::object const& o, bool any_tool_use, Problems& p) {
  json::value const* reason = member(o, "stop_reason");
  if (reason == nullptr || !reason->is_string() || !validStopReason(reason->get_string())) {
    p.add("stop_reason must be one of Anthropic's values");
    return;
  }
  json::value const* sequence = member(o, "stop_sequence");
  if (sequence != nullptr && !sequence->is_null() && !sequence->is_string()) {
    p.add("stop_sequence must be a string or null");
  }
  if (reason->get_string() == "stop_sequence" && (sequence == nullptr || !sequence->is_string())) {
    p.add("stop_reason stop_sequence needs the matched stop_sequence");
  }
  if (reason->get_string() == "tool_use" && !any_tool_use) {
    p.add("stop_reason tool_use without any tool_use block");
  }
}

std::optional<json::object> parseObject(std::string_view text, Problems& p) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) {
    p.add("not valid JSON: " + ec.message());
    return std::nullopt;
  }
  if (!v.is_object()) {
    p.add("not a JSON object");
    return std::nullopt;
  }
  return std::move(v.get_object());
}

struct Frame {
  std::string event;
  std::string data;
};

/// Splits the body into frames, reporting framing problems.
std::vector<Frame> frames(std::string_view bytes, Problems& p) {
  std::vector<Frame> out;
  if (bytes.find('\r') != std::string_view::npos) p.add("Anthropic streams use \\n line endings");
  if (!bytes.ends_with("\n\n")) p.add("the stream must end with a complete frame (\"\\n\\n\")");
  std::size_t pos = 0;
  std::size_t n = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find("\n\n", pos);
    std::string_view block = bytes.substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? bytes.size() : end + 2;
    p.setContext("frame " + std::to_string(n++));
    if (block.empty()) {
      p.add("empty frame (more than one blank line)");
      continue;
    }
    Frame f;
    std::size_t newline = block.find('\n');
    std::string_view first = block.substr(0, newline);
    std::string_view rest =
        newline == std::string_view::npos ? std::string_view() : block.substr(newline + 1);
    if (!first.starts_with("event: ")) {
      p.add("a frame must start with an `event: ` line (the SDK drops frames without one)");
    } else {
      f.event = first.substr(7);
    }
    if (!rest.starts_with("data: ")) {
      p.add("a frame needs one `data: ` line after its event line");
    } else if (rest.find('\n') != std::string_view::npos) {
      p.add("a frame must have exactly one data line");
    } else {
      f.data = rest.substr(6);
    }
    out.push_back(std::move(f));
  }
  p.setContext("");
  return out;
}

class StreamChecker {
 public:
  explicit StreamChecker(Problems& p) : p_(p) {}

  void frame(Frame const& f, json::object const& data) {
    std::string_view type = stringOf(data, "type");
    if (type != f.event)
      p_.add("data type \"" + std::string(type) + "\" differs from the event name");
    if (done_) {
      p_.add("no event may follow message_stop or error");
      return;
    }
    if (type == "error") {
      json::value const* error = member(data, "error");
      if (error == nullptr || !error->is_object() || !isString(error->get_object(), "type") ||
          !isString(error->get_object(), "message")) {
        p_.add("error event needs error.type and error.message");
      }
      done_ = true;
      return;
    }
    if (type == "ping") return;
    if (type == "message_start") return messageStart(data);
    if (!started_) {
      p_.add("message_start must come first");
      started_ = true;
    }
    if (type == "content_block_start") return blockStart(data);
    if (type == "content_block_delta") return blockDelta(data);
    if (type == "content_block_stop") return blockStop(data);
    if (type == "message_delta") return messageDelta(data);
    if (type == "message_stop") {
      if (!delta_seen_) p_.add("message_stop before message_delta");
      if (open_) p_.add("message_stop with a block still open");
      done_ = true;
      return;
    }
    p_.add("unknown event type \"" + std::string(type) + "\"");
  }

  void end() {
    if (!done_) p_.add("the stream ends without message_stop or an error event");
  }

 private:
  void messageStart(json::object const& data) {
    if (started_) p_.add("message_start repeated or late");
    started_ = true;
    json::value const* m = member(data, "message");
    if (m == nullptr || !m->is_object()) return p_.add("message_start needs a message object");
    json::object const& msg = m->get_object();
    if (!stringOf(msg, "id").starts_with("msg_")) p_.add("message.id must start with msg_");
    if (stringOf(msg, "type") != "message") p_.add("message.type must be \"message\"");
    if (stringOf(msg, "role") != "assistant") p_.add("message.role must be \"assistant\"");
    if (!isString(msg, "model")) p_.add("message.model must be a string");
    json::value const* content = member(msg, "content");
    if (content == nullptr || !content->is_array() || !content->get_array().empty()) {
      p_.add("message.content must be an empty list");
    }
    json::value const* stop = member(msg, "stop_reason");
    if (stop == nullptr || !stop->is_null())
      p_.add("message.stop_reason must be null at the start");
    checkUsage(member(msg, "usage"), {"input_tokens", "output_tokens"}, p_);
  }

  void blockStart(json::object const& data) {
    if (delta_seen_) p_.add("content_block_start after message_delta");
    if (open_) p_.add("content_block_start while block " + std::to_string(index_) + " is open");
    json::value const* index = member(data, "index");
    if (!nonNegativeInt(index) || index->to_number<std::int64_t>() != next_) {
      p_.add("content_block_start index must be " + std::to_string(next_));
    }
    index_ = next_++;
    open_ = true;
    json::value const* block = member(data, "content_block");
    if (block == nullptr || !block->is_object()) return p_.add("content_block must be an object");
    checkBlock(block->get_object(), true, p_);
    kind_ = stringOf(block->get_object(), "type");
    if (kind_ == "tool_use") any_tool_use_ = true;
    arguments_.clear();
    signed_ = kind_ == "thinking" && !stringOf(block->get_object(), "signature").empty();
  }

  void blockDelta(json::object const& data) {
    json::value const* index = member(data, "index");
    if (!open_ || !nonNegativeInt(index) || index->to_number<std::int64_t>() != index_) {
      return p_.add("content_block_delta must name the open block");
    }
    json::value const* d = member(data, "delta");
    if (d == nullptr || !d->is_object()) return p_.add("content_block_delta needs a delta object");
    json::object const& delta = d->get_object();
    std::string_view type = stringOf(delta, "type");
    if (type == "text_delta" && kind_ == "text") {
      if (!isString(delta, "text")) p_.add("text_delta needs a string text");
    } else if (type == "citations_delta" && kind_ == "text") {
      if (member(delta, "citation") == nullptr) p_.add("citations_delta needs a citation");
    } else if (type == "thinking_delta" && kind_ == "thinking") {
      if (!isString(delta, "thinking")) p_.add("thinking_delta needs a string thinking");
      if (signed_) p_.add("thinking_delta after the signature_delta");
    } else if (type == "signature_delta" && kind_ == "thinking") {
      if (stringOf(delta, "signature").empty()) p_.add("signature_delta needs a signature");
      if (signed_) p_.add("a thinking block has one signature_delta");
      signed_ = true;
    } else if (type == "input_json_delta" && (kind_ == "tool_use" || kind_ == "server_tool_use")) {
      if (!isString(delta, "partial_json")) p_.add("input_json_delta needs a string partial_json");
      arguments_ += stringOf(delta, "partial_json");
    } else {
      p_.add("delta " + std::string(type) + " does not belong to a " + kind_ + " block");
    }
  }

  void blockStop(json::object const& data) {
    json::value const* index = member(data, "index");
    if (!open_ || !nonNegativeInt(index) || index->to_number<std::int64_t>() != index_) {
      return p_.add("content_block_stop must name the open block");
    }
    open_ = false;
    if (kind_ == "thinking" && !signed_) {
      p_.add("a thinking block ends without a signature (signature_delta before its stop)");
    }
    if ((kind_ == "tool_use" || kind_ == "server_tool_use") && !arguments_.empty()) {
      boost::system::error_code ec;
      json::value v = json::parse(arguments_, ec);
      if (ec || !v.is_object()) {
        p_.add("tool_use input fragments do not join into a JSON object: " + arguments_);
      }
    }
  }

  void messageDelta(json::object const& data) {
    if (delta_seen_) p_.add("message_delta repeated");
    if (open_) p_.add("message_delta with a block still open");
    delta_seen_ = true;
    json::value const* d = member(data, "delta");
    if (d == nullptr || !d->is_object()) return p_.add("message_delta needs a delta object");
    checkStop(d->get_object(), any_tool_use_, p_);
    // The SDK's stream helper fails without usage.output_tokens (CLIENTS.md).
    checkUsage(member(data, "usage"), {"output_tokens"}, p_);
  }

  Problems& p_;
  bool started_ = false;
  bool done_ = false;
  bool open_ = false;
  bool delta_seen_ = false;
  bool signed_ = false;
  bool any_tool_use_ = false;
  std::int64_t next_ = 0;
  std::int64_t index_ = -1;
  std::string kind_;
  std::string arguments_;
};

}  // namespace

std::vector<std::string> validateStream(std::string_view bytes) {
  std::vector<std::string> out;
  Problems p(out);
  if (bytes.empty()) {
    p.add("empty stream");
    return out;
  }
  std::vector<Frame> list = frames(bytes, p);
  StreamChecker checker(p);
  for (std::size_t i = 0; i < list.size(); ++i) {
    p.setContext("frame " + std::to_string(i) + " (" + list[i].event + ")");
    auto data = parseObject(list[i].data, p);
    if (data) checker.frame(list[i], *data);
  }
  p.setContext("");
  checker.end();
  return out;
}

std::vector<std::string> validateResponse(std::string_view body) {
  std::vector<std::string> out;
  Problems p(out);
  auto parsed = parseObject(body, p);
  if (!parsed) return out;
  json::object const& o = *parsed;
  if (stringOf(o, "type") != "message") p.add("type must be \"message\"");
  if (!stringOf(o, "id").starts_with("msg_")) p.add("id must start with msg_");
  if (stringOf(o, "role") != "assistant") p.add("role must be \"assistant\"");
  if (!isString(o, "model")) p.add("model must be a string");
  json::value const* content = member(o, "content");
  bool any_tool_use = false;
  if (content == nullptr || !content->is_array()) {
    p.add("content must be a list");
  } else {
    std::size_t i = 0;
    for (auto const& block : content->get_array()) {
      p.setContext("content." + std::to_string(i++));
      if (!block.is_object()) {
        p.add("a content block must be an object");
        continue;
      }
      checkBlock(block.get_object(), false, p);
      any_tool_use |= stringOf(block.get_object(), "type") == "tool_use";
    }
    p.setContext("");
  }
  checkStop(o, any_tool_use, p);
  checkUsage(member(o, "usage"), {"input_tokens", "output_tokens"}, p);
  return out;
}

}  // namespace llmux::translate::validators::anthropic
