#include "validators/openai_chat_validator.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace llmux::translate::validators::openai_chat {
namespace {

namespace json = boost::json;

constexpr std::string_view kFinishReasons[] = {"stop", "length", "tool_calls", "content_filter",
                                               "function_call"};

bool isFinishReason(std::string_view s) {
  return std::find(std::begin(kFinishReasons), std::end(kFinishReasons), s) !=
         std::end(kFinishReasons);
}

json::value const* member(json::object const& o, std::string_view key) { return o.if_contains(key); }

bool isInt(json::value const* v) { return v && (v->is_int64() || v->is_uint64()); }

std::int64_t intOf(json::value const* v) {
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return 0;
}

std::string_view strOf(json::value const* v) {
  return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

bool isJsonObjectText(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  return !ec && v.is_object();
}

/// The frames of an SSE body: the data of each event, or an error for bad framing.
struct Frames {
  std::vector<std::string> data;
  std::vector<std::string> problems;
};

Frames splitFrames(std::string_view bytes) {
  Frames out;
  if (bytes.find('\r') != std::string_view::npos) {
    out.problems.push_back("framing: carriage return in the stream (Chat frames end with \\n\\n)");
  }
  std::size_t pos = 0;
  std::size_t frame_no = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find("\n\n", pos);
    if (end == std::string_view::npos) {
      out.problems.push_back("framing: the stream does not end with a blank line (trailing '" +
                             std::string(bytes.substr(pos, 40)) + "')");
      break;
    }
    std::string_view frame = bytes.substr(pos, end - pos);
    pos = end + 2;
    std::string where = "frame " + std::to_string(frame_no++);
    std::optional<std::string> data;
    std::size_t line_start = 0;
    while (line_start <= frame.size()) {
      std::size_t line_end = frame.find('\n', line_start);
      if (line_end == std::string_view::npos) line_end = frame.size();
      std::string_view line = frame.substr(line_start, line_end - line_start);
      line_start = line_end + 1;
      if (line.empty()) {
        out.problems.push_back(where + ": empty line inside a frame");
      } else if (line.starts_with(":")) {
        // a comment (keep-alive): allowed
      } else if (line.starts_with("data: ")) {
        if (data) {
          out.problems.push_back(where + ": several data lines in one frame");
        } else {
          data = std::string(line.substr(6));
        }
      } else {
        out.problems.push_back(where + ": unexpected line '" + std::string(line.substr(0, 40)) +
                               "' (Chat streams carry only 'data: ' lines)");
      }
      if (line_end == frame.size()) break;
    }
    if (data) out.data.push_back(std::move(*data));
  }
  return out;
}

void checkUsage(json::value const* usage, std::string const& where,
                std::vector<std::string>& problems) {
  if (usage == nullptr || !usage->is_object()) {
    problems.push_back(where + ": usage must be an object");
    return;
  }
  auto const& u = usage->as_object();
  for (std::string_view key : {"prompt_tokens", "completion_tokens", "total_tokens"}) {
    if (!isInt(member(u, key)) || intOf(member(u, key)) < 0) {
      problems.push_back(where + ": usage." + std::string(key) + " must be a non-negative integer");
    }
  }
  std::int64_t prompt = intOf(member(u, "prompt_tokens"));
  std::int64_t completion = intOf(member(u, "completion_tokens"));
  if (intOf(member(u, "total_tokens")) != prompt + completion) {
    problems.push_back(where + ": usage.total_tokens is not prompt_tokens + completion_tokens");
  }
  if (auto const* d = member(u, "prompt_tokens_details"); d && !d->is_null()) {
    if (!d->is_object()) {
      problems.push_back(where + ": usage.prompt_tokens_details must be an object");
    } else {
      auto const* cached = member(d->as_object(), "cached_tokens");
      if (cached && (!isInt(cached) || intOf(cached) < 0 || intOf(cached) > prompt)) {
        problems.push_back(where + ": cached_tokens must be an integer within prompt_tokens");
      }
    }
  }
  if (auto const* d = member(u, "completion_tokens_details"); d && !d->is_null()) {
    if (!d->is_object()) {
      problems.push_back(where + ": usage.completion_tokens_details must be an object");
    } else {
      auto const* reasoning = member(d->as_object(), "reasoning_tokens");
      if (reasoning && (!isInt(reasoning) || intOf(reasoning) < 0 || intOf(reasoning) > completion)) {
        problems.push_back(where + ": reasoning_tokens must be an integer within completion_tokens");
      }
    }
  }
}

void checkError(json::value const& error, std::string const& where,
                std::vector<std::string>& problems) {
  if (!error.is_object()) {
    problems.push_back(where + ": error must be an object");
    return;
  }
  auto const& e = error.as_object();
  if (!member(e, "message") || !member(e, "message")->is_string()) {
    problems.push_back(where + ": error.message must be a string");
  }
  if (!member(e, "type") || !member(e, "type")->is_string()) {
    problems.push_back(where + ": error.type must be a string");
  }
}

/// The state of one streamed tool call.
struct StreamedCall {
  std::string id, name, arguments;
};

class StreamChecker {
 public:
  std::vector<std::string> run(std::string_view bytes) {
    Frames frames = splitFrames(bytes);
    problems_ = std::move(frames.problems);
    if (frames.data.empty()) problems_.push_back("the stream has no frames");
    for (std::size_t i = 0; i < frames.data.size(); ++i) {
      where_ = "frame " + std::to_string(i);
      if (ended_) {
        problems_.push_back(where_ + ": data after the end of the stream ([DONE] or an error)");
        break;
      }
      onData(frames.data[i]);
    }
    if (!ended_) {
      problems_.push_back("the stream does not end with data: [DONE]");
    }
    if (!error_) {
      if (chunks_ == 0) problems_.push_back("the stream has no chunks");
      if (!finished_) problems_.push_back("no chunk carries a finish_reason");
    }
    for (auto const& [index, call] : calls_) {
      if (!isJsonObjectText(call.arguments)) {
        problems_.push_back("tool call " + std::to_string(index) +
                            ": its arguments do not reassemble to a JSON object: '" +
                            call.arguments.substr(0, 80) + "'");
      }
    }
    if (finished_ && !calls_.empty() && finish_reason_ == "stop") {
      problems_.push_back("finish_reason is 'stop' although the answer calls tools");
    }
    return std::move(problems_);
  }

 private:
  void onData(std::string const& data) {
    if (data == "[DONE]") {
      if (!finished_) problems_.push_back(where_ + ": [DONE] before any finish_reason");
      ended_ = true;
      return;
    }
    boost::system::error_code ec;
    json::value value = json::parse(data, ec);
    if (ec || !value.is_object()) {
      problems_.push_back(where_ + ": data is not a JSON object");
      return;
    }
    auto const& chunk = value.as_object();
    if (auto const* error = member(chunk, "error")) {
      checkError(*error, where_, problems_);
      ended_ = error_ = true;
      return;
    }
    ++chunks_;
    checkHead(chunk);
    auto const* choices = member(chunk, "choices");
    if (!choices || !choices->is_array()) {
      problems_.push_back(where_ + ": choices must be an array");
      return;
    }
    auto const* usage = member(chunk, "usage");
    bool has_usage = usage && !usage->is_null();
    if (choices->as_array().empty()) {
      if (!has_usage) problems_.push_back(where_ + ": a chunk with choices:[] must carry usage");
      if (!finished_) problems_.push_back(where_ + ": the usage chunk comes before finish_reason");
      if (usage_seen_) problems_.push_back(where_ + ": a second usage chunk");
      usage_seen_ = true;
      checkUsage(usage, where_, problems_);
      return;
    }
    if (has_usage) problems_.push_back(where_ + ": usage on a chunk that has choices (must be null)");
    if (usage_seen_) problems_.push_back(where_ + ": a choice chunk after the usage chunk");
    if (choices->as_array().size() != 1) problems_.push_back(where_ + ": more than one choice");
    for (auto const& c : choices->as_array()) checkChoice(c);
  }

  void checkHead(json::object const& chunk) {
    std::string_view id = strOf(member(chunk, "id"));
    std::string_view model = strOf(member(chunk, "model"));
    if (id.empty()) problems_.push_back(where_ + ": id must be a non-empty string");
    if (strOf(member(chunk, "object")) != "chat.completion.chunk") {
      problems_.push_back(where_ + ": object must be chat.completion.chunk");
    }
    if (!isInt(member(chunk, "created"))) problems_.push_back(where_ + ": created must be an integer");
    if (!member(chunk, "model") || !member(chunk, "model")->is_string()) {
      problems_.push_back(where_ + ": model must be a string");
    }
    if (chunks_ == 1) {
      id_ = id;
      model_ = model;
    } else {
      if (id != id_) problems_.push_back(where_ + ": id changed within the stream");
      if (model != model_) problems_.push_back(where_ + ": model changed within the stream");
    }
  }

  void checkChoice(json::value const& c) {
    if (!c.is_object()) {
      problems_.push_back(where_ + ": a choice must be an object");
      return;
    }
    auto const& choice = c.as_object();
    if (!isInt(member(choice, "index")) || intOf(member(choice, "index")) != 0) {
      problems_.push_back(where_ + ": choices[].index must be 0");
    }
    auto const* finish = member(choice, "finish_reason");
    if (finish == nullptr) problems_.push_back(where_ + ": finish_reason is missing (null or a reason)");
    auto const* delta = member(choice, "delta");
    if (!delta || !delta->is_object()) {
      problems_.push_back(where_ + ": delta must be an object");
      return;
    }
    if (finished_) problems_.push_back(where_ + ": a choice chunk after finish_reason");
    checkDelta(delta->as_object());
    if (finish && !finish->is_null()) {
      if (!finish->is_string() || !isFinishReason(finish->as_string())) {
        problems_.push_back(where_ + ": unknown finish_reason");
      } else {
        finish_reason_ = finish->as_string();
      }
      finished_ = true;
    }
  }

  void checkDelta(json::object const& delta) {
    auto const* role = member(delta, "role");
    if (chunks_ == 1) {
      if (strOf(role) != "assistant") {
        problems_.push_back(where_ + ": the first delta must carry role 'assistant'");
      }
    } else if (role && !role->is_null() && strOf(role) != "assistant") {
      problems_.push_back(where_ + ": role changed");
    }
    for (std::string_view key : {"content", "reasoning_content", "refusal"}) {
      auto const* v = member(delta, key);
      if (v && !v->is_null() && !v->is_string()) {
        problems_.push_back(where_ + ": delta." + std::string(key) + " must be a string or null");
      }
    }
    auto const* calls = member(delta, "tool_calls");
    if (calls == nullptr || calls->is_null()) return;
    if (!calls->is_array()) {
      problems_.push_back(where_ + ": delta.tool_calls must be an array");
      return;
    }
    for (auto const& call : calls->as_array()) checkToolFragment(call);
  }

  void checkToolFragment(json::value const& value) {
    if (!value.is_object()) {
      problems_.push_back(where_ + ": a tool_calls entry must be an object");
      return;
    }
    auto const& call = value.as_object();
    auto const* index = member(call, "index");
    if (!isInt(index) || intOf(index) < 0) {
      problems_.push_back(where_ + ": tool_calls[].index must be a non-negative integer");
      return;
    }
    std::int64_t i = intOf(index);
    auto const* function = member(call, "function");
    if (function && !function->is_object()) {
      problems_.push_back(where_ + ": tool_calls[].function must be an object");
      return;
    }
    std::string_view name = function ? strOf(member(function->as_object(), "name")) : "";
    auto const* arguments = function ? member(function->as_object(), "arguments") : nullptr;
    if (arguments && !arguments->is_string()) {
      problems_.push_back(where_ + ": function.arguments must be a string");
    }
    auto it = calls_.find(i);
    if (it == calls_.end()) {
      if (i != static_cast<std::int64_t>(calls_.size())) {
        problems_.push_back(where_ + ": tool call index " + std::to_string(i) +
                            " skips or repeats (expected " + std::to_string(calls_.size()) + ")");
      }
      std::string_view id = strOf(member(call, "id"));
      if (id.empty()) problems_.push_back(where_ + ": the first fragment of a tool call needs an id");
      if (strOf(member(call, "type")) != "function") {
        problems_.push_back(where_ + ": the first fragment of a tool call needs type 'function'");
      }
      if (name.empty()) {
        problems_.push_back(where_ + ": the first fragment of a tool call needs function.name");
      }
      StreamedCall s{std::string(id), std::string(name), std::string(strOf(arguments))};
      calls_.emplace(i, std::move(s));
      return;
    }
    if (member(call, "id") || member(call, "type") || !name.empty()) {
      problems_.push_back(where_ + ": id, type or name repeated on a later fragment of tool call " +
                          std::to_string(i));
    }
    if (!arguments) problems_.push_back(where_ + ": a later fragment without function.arguments");
    it->second.arguments.append(strOf(arguments));
  }

  std::vector<std::string> problems_;
  std::string where_;
  std::size_t chunks_ = 0;
  std::string id_, model_;
  bool finished_ = false, usage_seen_ = false, ended_ = false, error_ = false;
  std::string finish_reason_;
  std::map<std::int64_t, StreamedCall> calls_;
};

}  // namespace

std::vector<std::string> validateStream(std::string_view bytes) { return StreamChecker{}.run(bytes); }

std::vector<std::string> validateResponse(std::string_view body) {
  std::vector<std::string> problems;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) return {"the body is not a JSON object"};
  auto const& r = value.as_object();
  if (auto const* error = member(r, "error")) {
    checkError(*error, "body", problems);
    return problems;
  }
  if (strOf(member(r, "id")).empty()) problems.push_back("id must be a non-empty string");
  if (strOf(member(r, "object")) != "chat.completion") problems.push_back("object must be chat.completion");
  if (!isInt(member(r, "created"))) problems.push_back("created must be an integer");
  if (!member(r, "model") || !member(r, "model")->is_string()) problems.push_back("model must be a string");
  auto const* choices = member(r, "choices");
  if (!choices || !choices->is_array() || choices->as_array().size() != 1) {
    problems.push_back("choices must be an array of one choice");
    return problems;
  }
  auto const& c = choices->as_array()[0];
  if (!c.is_object()) return {"choices[0] must be an object"};
  auto const& choice = c.as_object();
  if (!isInt(member(choice, "index")) || intOf(member(choice, "index")) != 0) {
    problems.push_back("choices[0].index must be 0");
  }
  std::string_view finish = strOf(member(choice, "finish_reason"));
  if (!isFinishReason(finish)) problems.push_back("choices[0].finish_reason must be a known reason");
  auto const* m = member(choice, "message");
  if (!m || !m->is_object()) {
    problems.push_back("choices[0].message must be an object");
    return problems;
  }
  auto const& message = m->as_object();
  if (strOf(member(message, "role")) != "assistant") problems.push_back("message.role must be assistant");
  auto const* content = member(message, "content");
  if (!content || !(content->is_null() || content->is_string())) {
    problems.push_back("message.content must be a string or null");
  }
  auto const* reasoning = member(message, "reasoning_content");
  if (reasoning && !reasoning->is_string()) problems.push_back("message.reasoning_content must be a string");
  bool has_calls = false;
  if (auto const* calls = member(message, "tool_calls"); calls && !calls->is_null()) {
    if (!calls->is_array() || calls->as_array().empty()) {
      problems.push_back("message.tool_calls must be a non-empty array when present");
    } else {
      has_calls = true;
      std::set<std::string> ids;
      for (std::size_t i = 0; i < calls->as_array().size(); ++i) {
        std::string where = "tool_calls[" + std::to_string(i) + "]";
        auto const& call = calls->as_array()[i];
        if (!call.is_object()) {
          problems.push_back(where + " must be an object");
          continue;
        }
        std::string_view id = strOf(member(call.as_object(), "id"));
        if (id.empty()) problems.push_back(where + ".id must be a non-empty string");
        if (!ids.insert(std::string(id)).second) problems.push_back(where + ".id is not unique");
        if (strOf(member(call.as_object(), "type")) != "function") {
          problems.push_back(where + ".type must be function");
        }
        auto const* fn = member(call.as_object(), "function");
        if (!fn || !fn->is_object()) {
          problems.push_back(where + ".function must be an object");
          continue;
        }
        if (strOf(member(fn->as_object(), "name")).empty()) problems.push_back(where + ".function.name is empty");
        auto const* args = member(fn->as_object(), "arguments");
        if (!args || !args->is_string() || !isJsonObjectText(args->as_string())) {
          problems.push_back(where + ".function.arguments must be a string holding a JSON object");
        }
      }
    }
  }
  if (content && content->is_null() && !has_calls) {
    problems.push_back("message.content is null without tool calls");
  }
  if (has_calls && finish == "stop") problems.push_back("finish_reason is 'stop' although the answer calls tools");
  if (auto const* usage = member(r, "usage"); usage && !usage->is_null()) checkUsage(usage, "body", problems);
  return problems;
}

Summary summarizeStream(std::string_view bytes) {
  Summary s;
  Frames frames = splitFrames(bytes);
  std::map<std::int64_t, ToolCallSummary> calls;
  for (auto const& data : frames.data) {
    if (data == "[DONE]") break;
    boost::system::error_code ec;
    json::value value = json::parse(data, ec);
    if (ec || !value.is_object()) continue;
    auto const& chunk = value.as_object();
    if (auto const* error = member(chunk, "error")) {
      s.error_message = error->is_object() ? std::string(strOf(member(error->as_object(), "message")))
                                           : std::string("error");
      break;
    }
    if (s.id.empty()) s.id = strOf(member(chunk, "id"));
    if (s.model.empty()) s.model = strOf(member(chunk, "model"));
    if (auto const* usage = member(chunk, "usage"); usage && usage->is_object()) {
      auto const& u = usage->as_object();
      s.has_usage = true;
      s.prompt_tokens = intOf(member(u, "prompt_tokens"));
      s.completion_tokens = intOf(member(u, "completion_tokens"));
      s.total_tokens = intOf(member(u, "total_tokens"));
      if (auto const* d = member(u, "prompt_tokens_details"); d && d->is_object()) {
        s.cached_tokens = intOf(member(d->as_object(), "cached_tokens"));
      }
      if (auto const* d = member(u, "completion_tokens_details"); d && d->is_object()) {
        s.reasoning_tokens = intOf(member(d->as_object(), "reasoning_tokens"));
      }
    }
    auto const* choices = member(chunk, "choices");
    if (!choices || !choices->is_array()) continue;
    for (auto const& c : choices->as_array()) {
      if (!c.is_object()) continue;
      if (auto f = strOf(member(c.as_object(), "finish_reason")); !f.empty()) s.finish_reason = f;
      auto const* delta = member(c.as_object(), "delta");
      if (!delta || !delta->is_object()) continue;
      auto const& d = delta->as_object();
      s.content.append(strOf(member(d, "content")));
      s.reasoning_content.append(strOf(member(d, "reasoning_content")));
      auto const* tc = member(d, "tool_calls");
      if (!tc || !tc->is_array()) continue;
      for (auto const& call : tc->as_array()) {
        if (!call.is_object()) continue;
        auto& t = calls[intOf(member(call.as_object(), "index"))];
        if (auto id = strOf(member(call.as_object(), "id")); !id.empty()) t.id = id;
        if (auto const* fn = member(call.as_object(), "function"); fn && fn->is_object()) {
          if (auto name = strOf(member(fn->as_object(), "name")); !name.empty()) t.name = name;
          t.arguments.append(strOf(member(fn->as_object(), "arguments")));
        }
      }
    }
  }
  for (auto& [index, call] : calls) s.tool_calls.push_back(std::move(call));
  return s;
}

Summary summarizeResponse(std::string_view body) {
  Summary s;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) return s;
  auto const& r = value.as_object();
  if (auto const* error = member(r, "error")) {
    s.error_message = error->is_object() ? std::string(strOf(member(error->as_object(), "message")))
                                         : std::string("error");
    return s;
  }
  s.id = strOf(member(r, "id"));
  s.model = strOf(member(r, "model"));
  if (auto const* usage = member(r, "usage"); usage && usage->is_object()) {
    auto const& u = usage->as_object();
    s.has_usage = true;
    s.prompt_tokens = intOf(member(u, "prompt_tokens"));
    s.completion_tokens = intOf(member(u, "completion_tokens"));
    s.total_tokens = intOf(member(u, "total_tokens"));
    if (auto const* d = member(u, "prompt_tokens_details"); d && d->is_object()) {
      s.cached_tokens = intOf(member(d->as_object(), "cached_tokens"));
    }
    if (auto const* d = member(u, "completion_tokens_details"); d && d->is_object()) {
      s.reasoning_tokens = intOf(member(d->as_object(), "reasoning_tokens"));
    }
  }
  auto const* choices = member(r, "choices");
  if (!choices || !choices->is_array() || choices->as_array().empty()) return s;
  auto const& c = choices->as_array()[0];
  if (!c.is_object()) return s;
  s.finish_reason = strOf(member(c.as_object(), "finish_reason"));
  auto const* m = member(c.as_object(), "message");
  if (!m || !m->is_object()) return s;
  s.content = strOf(member(m->as_object(), "content"));
  s.reasoning_content = strOf(member(m->as_object(), "reasoning_content"));
  if (auto const* calls = member(m->as_object(), "tool_calls"); calls && calls->is_array()) {
    for (auto const& call : calls->as_array()) {
      if (!call.is_object()) continue;
      ToolCallSummary t;
      t.id = strOf(member(call.as_object(), "id"));
      if (auto const* fn = member(call.as_object(), "function"); fn && fn->is_object()) {
        t.name = strOf(member(fn->as_object(), "name"));
        t.arguments = strOf(member(fn->as_object(), "arguments"));
      }
      s.tool_calls.push_back(std::move(t));
    }
  }
  return s;
}

}  // namespace llmux::translate::validators::openai_chat
