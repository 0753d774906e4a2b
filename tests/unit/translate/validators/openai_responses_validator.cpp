#include "validators/openai_responses_validator.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <set>

namespace llmux::translate::validators::openai_responses {
namespace {

namespace json = boost::json;

std::optional<json::value> parseJson(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  return v;
}

json::value const* member(json::object const& o, std::string_view key) {
  return o.if_contains(key);
}

bool isString(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_string();
}

std::string_view str(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

bool isInt(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && (v->is_int64() || v->is_uint64());
}

std::int64_t integer(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  if (!v) return -1;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return -1;
}

json::object const* obj(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

json::array const* arr(json::object const& o, std::string_view key) {
  auto const* v = member(o, key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

bool validJson(std::string_view text) {
  return parseJson(text).has_value();
}

/// Collects problems with a context prefix.
class Problems {
 public:
  explicit Problems(std::vector<std::string>& out) : out_(out) {}
  void add(std::string const& where, std::string const& what) {
    out_.push_back(where + ": " + what);
  }

 private:
  std::vector<std::string>& out_;
};

void checkUsage(json::object const& usage, std::string const& where, Problems& p) {
  for (std::string_view k : {"input_tokens", "output_tokens", "total_tokens"}) {
    if (!isInt(usage, k) || integer(usage, k) < 0) {
      p.add(where, "usage." + std::string(k) + " must be a non-negative integer");
    }
  }
  if (integer(usage, "total_tokens") !=
      integer(usage, "input_tokens") + integer(usage, "output_tokens")) {
    p.add(where, "usage.total_tokens must equal input_tokens + output_tokens");
  }
  auto const* in = obj(usage, "input_tokens_details");
  if (!in || !isInt(*in, "cached_tokens")) {
    p.add(where, "usage.input_tokens_details.cached_tokens is required");
  } else if (integer(*in, "cached_tokens") > integer(usage, "input_tokens")) {
    p.add(where, "cached tokens are part of input_tokens, so cannot exceed it");
  }
  auto const* out = obj(usage, "output_tokens_details");
  if (!out || !isInt(*out, "reasoning_tokens")) {
    p.add(where, "usage.output_tokens_details.reasoning_tokens is required");
  } else if (integer(*out, "reasoning_tokens") > integer(usage, "output_tokens")) {
    p.add(where, "reasoning tokens are part of output_tokens, so cannot exceed it");
  }
}

/// A finished output item as a response object lists it.
void checkDoneItem(json::object const& item, std::string const& where, Problems& p) {
  if (!isString(item, "id") || str(item, "id").empty()) p.add(where, "item.id is required");
  std::string_view type = str(item, "type");
  if (type == "message") {
    if (str(item, "role") != "assistant") p.add(where, "message.role must be \"assistant\"");
    if (!isString(item, "status")) p.add(where, "message.status is required");
    auto const* content = arr(item, "content");
    if (!content) {
      p.add(where, "message.content must be an array");
      return;
    }
    for (auto const& c : *content) {
      if (!c.is_object()) {
        p.add(where, "message.content[] must be objects");
        continue;
      }
      auto const& part = c.as_object();
      std::string_view ptype = str(part, "type");
      if (ptype == "output_text") {
        if (!isString(part, "text")) p.add(where, "output_text.text must be a string");
        if (!arr(part, "annotations")) p.add(where, "output_text.annotations must be an array");
      } else if (ptype == "refusal") {
        if (!isString(part, "refusal")) p.add(where, "refusal.refusal must be a string");
      } else {
        p.add(where, "unknown content part type \"" + std::string(ptype) + "\"");
      }
    }
  } else if (type == "function_call") {
    if (str(item, "call_id").empty()) p.add(where, "function_call.call_id is required");
    if (str(item, "name").empty()) p.add(where, "function_call.name is required");
    if (!isString(item, "arguments")) {
      p.add(where, "function_call.arguments must be a JSON string");
    } else if (!validJson(str(item, "arguments"))) {
      p.add(where,
            "function_call.arguments is not valid JSON: " + std::string(str(item, "arguments")));
    }
  } else if (type == "reasoning") {
    auto const* summary = arr(item, "summary");
    if (!summary) {
      p.add(where, "reasoning.summary must be an array");
    } else {
      for (auto const& s : *summary) {
        if (!s.is_object() || str(s.as_object(), "type") != "summary_text" ||
            !isString(s.as_object(), "text")) {
          p.add(where, "reasoning.summary[] must be {type:summary_text, text}");
        }
      }
    }
    if (auto const* enc = member(item, "encrypted_content");
        enc && !enc->is_string() && !enc->is_null()) {
      p.add(where, "reasoning.encrypted_content must be a string");
    }
  } else {
    p.add(where, "unknown output item type \"" + std::string(type) + "\"");
  }
}

/// The response object's own fields; `output` is checked by the callers.
void checkResponseObject(json::object const& r, std::string const& where, Problems& p) {
  if (!str(r, "id").starts_with("resp_")) p.add(where, "response.id must start with resp_");
  if (str(r, "object") != "response") p.add(where, "response.object must be \"response\"");
  if (!isInt(r, "created_at")) p.add(where, "response.created_at must be an integer");
  if (!isString(r, "model")) p.add(where, "response.model must be a string");
  if (!arr(r, "output")) p.add(where, "response.output must be an array");
  std::string_view status = str(r, "status");
  auto const* details = member(r, "incomplete_details");
  if (status == "incomplete") {
    auto const* d = details && details->is_object() ? &details->as_object() : nullptr;
    std::string_view reason = d ? str(*d, "reason") : "";
    if (reason != "max_output_tokens" && reason != "content_filter") {
      p.add(where, "an incomplete response needs incomplete_details.reason");
    }
  } else if (!details || !details->is_null()) {
    p.add(where, "incomplete_details must be null unless the status is incomplete");
  }
  auto const* error = member(r, "error");
  if (status == "failed") {
    auto const* e = error && error->is_object() ? &error->as_object() : nullptr;
    if (!e || !isString(*e, "code") || !isString(*e, "message")) {
      p.add(where, "a failed response needs error {code, message}");
    }
  } else if (!error || !error->is_null()) {
    p.add(where, "error must be null unless the status is failed");
  }
  if (auto const* usage = member(r, "usage"); usage && !usage->is_null()) {
    if (!usage->is_object()) {
      p.add(where, "usage must be an object or null");
    } else {
      checkUsage(usage->as_object(), where, p);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Streams

struct StreamItem {
  std::string type, id, call_id, name;
  std::vector<std::string> parts;  ///< message content parts / reasoning summary parts
  std::vector<bool> part_done;
  bool text_done = false;  ///< output_text.done / summary_text.done of the last part
  std::string args;
  bool args_done = false;
  bool done = false;
};

class StreamChecker {
 public:
  explicit StreamChecker(std::vector<std::string>& out) : p_(out) {}

  void frame(std::size_t n, std::string_view name, json::object const& e);
  void end();

 private:
  bool refersToOpen(json::object const& e, std::string const& where);
  void terminal(json::object const& e, std::string_view type, std::string const& where);

  Problems p_;
  std::int64_t sequence_ = 0;
  std::size_t frames_ = 0;
  std::string response_id_;
  bool terminal_ = false;
  bool error_seen_ = false;
  std::vector<StreamItem> items_;
  int open_ = -1;
};

bool StreamChecker::refersToOpen(json::object const& e, std::string const& where) {
  if (open_ < 0) {
    p_.add(where, "no output item is open");
    return false;
  }
  if (integer(e, "output_index") != open_) {
    p_.add(where, "output_index " + std::to_string(integer(e, "output_index")) +
                      " is not the open item " + std::to_string(open_));
    return false;
  }
  if (str(e, "item_id") != items_[open_].id) p_.add(where, "item_id does not match the open item");
  return true;
}

void StreamChecker::frame(std::size_t n, std::string_view name, json::object const& e) {
  std::string where = "frame " + std::to_string(n) + " (" + std::string(name) + ")";
  ++frames_;
  std::string_view type = str(e, "type");
  if (type != name)
    p_.add(where, "data.type \"" + std::string(type) + "\" differs from the event name");
  if (integer(e, "sequence_number") != sequence_) {
    p_.add(where, "sequence_number " + std::to_string(integer(e, "sequence_number")) +
                      ", expected " + std::to_string(sequence_));
  }
  ++sequence_;
  if (terminal_) {
    p_.add(where, "an event after the terminal event");
    return;
  }
  if (error_seen_ && type != "response.failed")
    p_.add(where, "an error event must be followed by response.failed");
  if (frames_ == 1 && type != "response.created")
    p_.add(where, "the first event must be response.created");

  if (type == "response.created" || type == "response.in_progress") {
    if (type == "response.created" && frames_ != 1)
      p_.add(where, "response.created must come first, once");
    if (type == "response.in_progress" && frames_ != 2)
      p_.add(where, "response.in_progress must follow response.created");
    auto const* r = obj(e, "response");
    if (!r) return p_.add(where, "response object missing");
    checkResponseObject(*r, where, p_);
    if (str(*r, "status") != "in_progress") p_.add(where, "status must be in_progress");
    if (auto const* out = arr(*r, "output"); out && !out->empty())
      p_.add(where, "output must start empty");
    if (type == "response.created") response_id_ = std::string(str(*r, "id"));
    if (str(*r, "id") != response_id_) p_.add(where, "response id changed");
    return;
  }
  if (type == "response.output_item.added") {
    if (open_ >= 0)
      p_.add(where, "an item was added while item " + std::to_string(open_) + " is open");
    if (integer(e, "output_index") != static_cast<std::int64_t>(items_.size())) {
      p_.add(where, "output_index must be " + std::to_string(items_.size()));
    }
    auto const* item = obj(e, "item");
    if (!item) return p_.add(where, "item missing");
    StreamItem s{.type = std::string(str(*item, "type")), .id = std::string(str(*item, "id"))};
    if (s.id.empty()) p_.add(where, "item.id is required");
    for (auto const& other : items_) {
      if (other.id == s.id) p_.add(where, "item id " + s.id + " is used twice");
    }
    if (s.type == "message") {
      if (str(*item, "role") != "assistant") p_.add(where, "message.role must be assistant");
      if (str(*item, "status") != "in_progress")
        p_.add(where, "message.status must be in_progress");
      auto const* content = arr(*item, "content");
      if (!content || !content->empty()) p_.add(where, "message.content must be an empty array");
    } else if (s.type == "function_call") {
      s.call_id = std::string(str(*item, "call_id"));
      s.name = std::string(str(*item, "name"));
      if (s.call_id.empty()) p_.add(where, "function_call.call_id is required");
      if (s.name.empty()) p_.add(where, "function_call.name is required");
      if (!isString(*item, "arguments") || !str(*item, "arguments").empty()) {
        p_.add(where, "function_call.arguments must start as \"\"");
      }
      if (str(*item, "status") != "in_progress")
        p_.add(where, "function_call.status must be in_progress");
    } else if (s.type == "reasoning") {
      auto const* summary = arr(*item, "summary");
      if (!summary || !summary->empty()) p_.add(where, "reasoning.summary must be an empty array");
    } else {
      p_.add(where, "unexpected item type \"" + s.type + "\"");
    }
    items_.push_back(std::move(s));
    open_ = static_cast<int>(items_.size()) - 1;
    return;
  }
  if (type == "response.content_part.added" || type == "response.reasoning_summary_part.added") {
    if (!refersToOpen(e, where)) return;
    StreamItem& it = items_[open_];
    bool summary = type == "response.reasoning_summary_part.added";
    if (it.type != (summary ? "reasoning" : "message")) return p_.add(where, "wrong item type");
    std::string_view index_key = summary ? "summary_index" : "content_index";
    if (integer(e, index_key) != static_cast<std::int64_t>(it.parts.size())) {
      p_.add(where, std::string(index_key) + " must be " + std::to_string(it.parts.size()));
    }
    if (!it.parts.empty() && !it.part_done.back()) p_.add(where, "the previous part is not done");
    auto const* part = obj(e, "part");
    std::string_view want = summary ? "summary_text" : "output_text";
    if (!part || str(*part, "type") != want || !isString(*part, "text") ||
        !str(*part, "text").empty()) {
      p_.add(where, "part must be {type:" + std::string(want) + ", text:\"\"}");
    }
    if (!summary && part && !arr(*part, "annotations"))
      p_.add(where, "part.annotations must be an array");
    it.parts.emplace_back();
    it.part_done.push_back(false);
    it.text_done = false;
    return;
  }
  bool text_event = type == "response.output_text.delta" || type == "response.output_text.done";
  bool summary_event = type == "response.reasoning_summary_text.delta" ||
                       type == "response.reasoning_summary_text.done";
  if (text_event || summary_event || type == "response.content_part.done" ||
      type == "response.reasoning_summary_part.done") {
    if (!refersToOpen(e, where)) return;
    StreamItem& it = items_[open_];
    bool summary = summary_event || type == "response.reasoning_summary_part.done";
    if (it.type != (summary ? "reasoning" : "message")) return p_.add(where, "wrong item type");
    std::string_view index_key = summary ? "summary_index" : "content_index";
    if (it.parts.empty() ||
        integer(e, index_key) != static_cast<std::int64_t>(it.parts.size()) - 1 ||
        it.part_done.back()) {
      return p_.add(where, "no open part with this " + std::string(index_key));
    }
    std::string& text = it.parts.back();
    if (type.ends_with(".delta")) {
      if (!isString(e, "delta")) return p_.add(where, "delta must be a string");
      if (it.text_done) p_.add(where, "a delta after the text was done");
      text += str(e, "delta");
      if (text_event && !arr(e, "logprobs")) p_.add(where, "output_text.delta needs logprobs []");
    } else if (type.ends_with("text.done")) {
      if (str(e, "text") != text) p_.add(where, "text differs from the deltas");
      it.text_done = true;
    } else {
      auto const* part = obj(e, "part");
      if (!part || str(*part, "text") != text) p_.add(where, "part.text differs from the deltas");
      if (!it.text_done) p_.add(where, "the part is done before its text");
      it.part_done.back() = true;
    }
    return;
  }
  if (type == "response.function_call_arguments.delta" ||
      type == "response.function_call_arguments.done") {
    if (!refersToOpen(e, where)) return;
    StreamItem& it = items_[open_];
    if (it.type != "function_call") return p_.add(where, "the open item is not a function_call");
    if (it.args_done) p_.add(where, "arguments event after arguments.done");
    if (type.ends_with(".delta")) {
      if (!isString(e, "delta")) return p_.add(where, "delta must be a string");
      it.args += str(e, "delta");
    } else {
      if (str(e, "arguments") != it.args) p_.add(where, "arguments differ from the deltas");
      if (!validJson(it.args))
        p_.add(where, "arguments do not reassemble to valid JSON: " + it.args);
      it.args_done = true;
    }
    return;
  }
  if (type == "response.output_item.done") {
    if (open_ < 0 || integer(e, "output_index") != open_) {
      return p_.add(where, "output_item.done for an item that is not open");
    }
    StreamItem& it = items_[open_];
    auto const* item = obj(e, "item");
    if (!item) return p_.add(where, "item missing");
    checkDoneItem(*item, where, p_);
    if (str(*item, "id") != it.id || str(*item, "type") != it.type)
      p_.add(where, "item id or type changed");
    for (bool d : it.part_done) {
      if (!d) p_.add(where, "a part is not done");
    }
    if (it.type == "message") {
      if (str(*item, "status") != "completed") p_.add(where, "status must be completed");
      auto const* content = arr(*item, "content");
      if (!content || content->size() != it.parts.size()) {
        p_.add(where, "content does not list the streamed parts");
      } else {
        for (std::size_t i = 0; i < it.parts.size(); ++i) {
          if (!(*content)[i].is_object() || str((*content)[i].as_object(), "text") != it.parts[i]) {
            p_.add(where, "content[" + std::to_string(i) + "].text differs from the deltas");
          }
        }
      }
    } else if (it.type == "function_call") {
      if (!it.args_done) p_.add(where, "function_call_arguments.done is missing");
      if (str(*item, "arguments") != it.args) p_.add(where, "arguments differ from the deltas");
      if (str(*item, "call_id") != it.call_id || str(*item, "name") != it.name) {
        p_.add(where, "call_id or name changed");
      }
      if (str(*item, "status") != "completed") p_.add(where, "status must be completed");
    } else if (it.type == "reasoning") {
      auto const* summary = arr(*item, "summary");
      if (!summary || summary->size() != it.parts.size()) {
        p_.add(where, "summary does not list the streamed parts");
      } else {
        for (std::size_t i = 0; i < it.parts.size(); ++i) {
          if (!(*summary)[i].is_object() || str((*summary)[i].as_object(), "text") != it.parts[i]) {
            p_.add(where, "summary[" + std::to_string(i) + "].text differs from the deltas");
          }
        }
      }
    }
    it.done = true;
    open_ = -1;
    return;
  }
  if (type == "error") {
    auto const* nested = obj(e, "error");
    bool has_message = isString(e, "message") || (nested && isString(*nested, "message"));
    if (!has_message) p_.add(where, "error needs a message");
    error_seen_ = true;
    return;
  }
  if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
    terminal(e, type, where);
    return;
  }
  p_.add(where, "unknown event type \"" + std::string(type) + "\"");
}

void StreamChecker::terminal(json::object const& e, std::string_view type,
                             std::string const& where) {
  terminal_ = true;
  auto const* r = obj(e, "response");
  if (!r) return p_.add(where, "response object missing");
  checkResponseObject(*r, where, p_);
  if (str(*r, "id") != response_id_) p_.add(where, "response id changed");
  std::string_view want = type == "response.completed"    ? "completed"
                          : type == "response.incomplete" ? "incomplete"
                                                          : "failed";
  if (str(*r, "status") != want) p_.add(where, "status must be " + std::string(want));
  if (type == "response.failed") return;  // items may be left open by a failure
  if (open_ >= 0) p_.add(where, "item " + std::to_string(open_) + " is still open");
  auto const* output = arr(*r, "output");
  if (!output) return;
  if (output->size() != items_.size()) {
    return p_.add(where, "output lists " + std::to_string(output->size()) +
                             " items, the stream had " + std::to_string(items_.size()));
  }
  for (std::size_t i = 0; i < items_.size(); ++i) {
    std::string w = where + " output[" + std::to_string(i) + "]";
    if (!(*output)[i].is_object()) {
      p_.add(w, "not an object");
      continue;
    }
    auto const& item = (*output)[i].as_object();
    checkDoneItem(item, w, p_);
    if (str(item, "id") != items_[i].id || str(item, "type") != items_[i].type) {
      p_.add(w, "differs from the streamed item");
    }
    if (items_[i].type == "function_call" && str(item, "arguments") != items_[i].args) {
      p_.add(w, "arguments differ from the streamed ones");
    }
  }
}

void StreamChecker::end() {
  if (frames_ == 0) return p_.add("stream", "no events");
  if (!terminal_) p_.add("stream", "ended without response.completed, .incomplete or .failed");
}

}  // namespace

std::vector<std::string> validateStream(std::string_view bytes) {
  std::vector<std::string> problems;
  Problems p(problems);
  if (bytes.find('\r') != std::string_view::npos)
    p.add("framing", "carriage returns in the stream");
  if (!bytes.empty() && !bytes.ends_with("\n\n"))
    p.add("framing", "the stream does not end with a blank line");
  StreamChecker checker(problems);
  std::size_t n = 0;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find("\n\n", pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view frame = bytes.substr(pos, end - pos);
    pos = end + 2;
    std::string where = "frame " + std::to_string(n);
    std::string_view name, data;
    int data_lines = 0;
    bool bad = false;
    while (!frame.empty()) {
      std::size_t nl = frame.find('\n');
      std::string_view line = frame.substr(0, nl);
      frame = nl == std::string_view::npos ? std::string_view() : frame.substr(nl + 1);
      if (line.starts_with("event: ")) {
        if (!name.empty() || data_lines > 0) bad = true;
        name = line.substr(7);
      } else if (line.starts_with("data: ")) {
        ++data_lines;
        data = line.substr(6);
      } else {
        p.add(where, "unexpected line \"" + std::string(line.substr(0, 60)) + "\"");
        bad = true;
      }
    }
    if (name.empty()) p.add(where, "no `event:` line before the data (the SDKs dispatch on it)");
    if (data_lines != 1) p.add(where, "exactly one `data:` line expected");
    if (bad || data_lines != 1) {
      ++n;
      continue;
    }
    if (data == "[DONE]") {
      p.add(where, "[DONE] is Chat's terminator, not the Responses API's");
      ++n;
      continue;
    }
    auto v = parseJson(data);
    if (!v || !v->is_object()) {
      p.add(where, "data is not a JSON object");
      ++n;
      continue;
    }
    checker.frame(n, name, v->as_object());
    ++n;
  }
  checker.end();
  return problems;
}

std::vector<std::string> validateResponse(std::string_view body) {
  std::vector<std::string> problems;
  Problems p(problems);
  auto v = parseJson(body);
  if (!v || !v->is_object()) {
    p.add("body", "not a JSON object");
    return problems;
  }
  auto const& r = v->as_object();
  checkResponseObject(r, "response", p);
  std::string_view status = str(r, "status");
  if (status != "completed" && status != "incomplete" && status != "failed") {
    p.add("response", "status must be completed, incomplete or failed");
  }
  if (auto const* output = arr(r, "output")) {
    std::set<std::string> ids;
    for (std::size_t i = 0; i < output->size(); ++i) {
      std::string w = "output[" + std::to_string(i) + "]";
      if (!(*output)[i].is_object()) {
        p.add(w, "not an object");
        continue;
      }
      auto const& item = (*output)[i].as_object();
      checkDoneItem(item, w, p);
      if (!ids.insert(std::string(str(item, "id"))).second) p.add(w, "duplicate item id");
      std::string_view type = str(item, "type");
      if (type != "reasoning" && str(item, "status") != "completed") {
        p.add(w, "status must be completed");
      }
    }
  }
  return problems;
}

}  // namespace llmux::translate::validators::openai_responses
