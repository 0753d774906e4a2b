// An OpenAI Chat Completions stream (REFERENCE.md §1.4) as neutral events, incrementally.
//
// Chat interleaves nothing in practice, but nothing in the format forbids a chunk for tool call 0
// after call 1 started, while neutral blocks are strictly sequential. So the open tool call stays
// open until its arguments form a complete JSON value; content for any other block that arrives
// before then is held, in arrival order, and replayed as soon as the call completes (or at the
// finish). Upstreams that send calls one after the other — all recorded ones — are streamed
// without any holding.

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

#include "protocol/sse_parser.h"
#include "translate/json_access.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/wire.h"

namespace llmux::translate::openai_chat {
namespace {

namespace json = boost::json;

/// Whether a JSON text fed piece by piece has closed its outermost object or array.
class JsonProgress {
 public:
  void feed(std::string_view text) {
    for (char c : text) {
      if (in_string_) {
        if (escape_) {
          escape_ = false;
        } else if (c == '\\') {
          escape_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
        started_ = true;
      } else if (c == '}' || c == ']') {
        --depth_;
      }
    }
  }
  bool complete() const { return started_ && depth_ <= 0 && !in_string_; }

 private:
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool started_ = false;
};

/// One tool call of the upstream's message.
struct ToolSlot {
  std::string id;
  std::string name;
  bool started = false;  ///< its BlockStart went out
  bool closed = false;   ///< its BlockStop went out
  bool has_arguments = false;  ///< an arguments fragment went out
  int index = -1;        ///< its neutral block index once started
  JsonProgress progress;
};

/// A piece of upstream content on its way to a neutral block.
struct Piece {
  enum class Kind { Text, Thinking, ToolStart, ToolArgs } kind;
  int slot = -1;  ///< ToolStart, ToolArgs
  std::string text;
};

bool isBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

/// The HTTP status an in-stream error stands for.
int statusOfError(json::object const& error) {
  if (auto code = intAt(error, "code"); code && *code >= 400 && *code < 600) {
    return static_cast<int>(*code);
  }
  std::string_view type = stringAt(error, "type").value_or("");
  std::string_view code = stringAt(error, "code").value_or("");
  for (std::string_view s : {code, type}) {
    if (s == "rate_limit_exceeded" || s == "rate_limit_error" || s == "insufficient_quota") {
      return 429;
    }
    if (s == "context_length_exceeded" || s == "invalid_request_error") return 400;
    if (s == "server_is_overloaded" || s == "overloaded_error") return 503;
  }
  return 500;
}

class ChatStreamDecoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes, std::vector<Event>& out) override {
    if (done_) return;
    frames_.clear();
    sse_.feed(bytes, frames_);
    for (auto const& frame : frames_) {
      if (done_) break;
      onFrame(frame, out);
    }
    if (!done_ && sse_.overflowed()) fail(502, "the upstream sent a stream chunk too large", out);
  }

  void finish(std::vector<Event>& out) override {
    if (done_) return;
    frames_.clear();
    sse_.finish(frames_);
    for (auto const& frame : frames_) {
      if (done_) break;
      onFrame(frame, out);
    }
    if (done_) return;
    if (saw_finish_) {
      // Everything but `[DONE]` arrived: the OpenAI SDK itself accepts such a stream.
      stop(out);
    } else {
      fail(502, "the upstream stream ended before the answer was complete", out);
    }
  }

 private:
  void onFrame(protocol::SseEvent const& frame, std::vector<Event>& out) {
    std::string_view data = frame.data;
    if (data.empty()) return;
    if (data == "[DONE]") {
      stop(out);
      return;
    }
    boost::system::error_code ec;
    json::value value = json::parse(data, ec);
    if (ec || !value.is_object()) {
      if (frame.event == "error") {
        fail(500, std::string(data), out);
      } else {
        fail(502, "the upstream sent a malformed stream chunk", out);
      }
      return;
    }
    auto const& chunk = value.as_object();
    if (auto const* error = chunk.if_contains("error"); error && !error->is_null()) {
      if (error->is_object()) {
        auto const& e = error->as_object();
        fail(statusOfError(e), std::string(stringAt(e, "message").value_or("upstream error")), out);
      } else {
        fail(500, error->is_string() ? std::string(error->as_string()) : "upstream error", out);
      }
      return;
    }
    if (frame.event == "error") {
      fail(500, std::string(stringAt(chunk, "message").value_or("upstream error")), out);
      return;
    }
    onChunk(chunk, out);
  }

  void onChunk(json::object const& chunk, std::vector<Event>& out) {
    start(chunk, out);
    if (auto const* choices = arrayAt(chunk, "choices")) {
      for (auto const& c : *choices) {
        if (!c.is_object()) continue;
        auto const& choice = c.as_object();
        if (intAt(choice, "index").value_or(0) != 0) continue;  // n > 1: only the first choice
        if (auto const* delta = objectAt(choice, "delta")) onDelta(*delta, out);
        if (done_) return;
        if (auto reason = stringAt(choice, "finish_reason")) onFinishReason(*reason, out);
        if (done_) return;
      }
    }
    if (auto const* usage = objectAt(chunk, "usage")) {
      Event e{.type = EventType::UsageUpdate};
      e.usage = readUsage(*usage);
      out.push_back(std::move(e));
    }
  }

  void start(json::object const& chunk, std::vector<Event>& out) {
    if (started_) return;
    started_ = true;
    Event e{.type = EventType::MessageStart};
    e.id = std::string(stringAt(chunk, "id").value_or(""));
    e.model = std::string(stringAt(chunk, "model").value_or(""));
    message_id_ = e.id;
    out.push_back(std::move(e));
  }

  void onDelta(json::object const& delta, std::vector<Event>& out) {
    for (std::string_view key : {"reasoning_content", "reasoning"}) {
      if (auto text = stringAt(delta, key); text && !text->empty()) {
        process(Piece{Piece::Kind::Thinking, -1, std::string(*text)}, false, out);
        break;
      }
    }
    if (auto text = stringAt(delta, "content"); text && !text->empty()) {
      process(Piece{Piece::Kind::Text, -1, std::string(*text)}, false, out);
    }
    if (auto text = stringAt(delta, "refusal"); text && !text->empty()) {
      refused_ = true;
      process(Piece{Piece::Kind::Text, -1, std::string(*text)}, false, out);
    }
    if (auto const* calls = arrayAt(delta, "tool_calls")) {
      for (auto const& call : *calls) {
        if (call.is_object()) onToolFragment(call.as_object(), out);
        if (done_) return;
      }
    }
    if (auto const* legacy = objectAt(delta, "function_call")) {
      json::object call;
      call["index"] = 0;
      call["function"] = *legacy;
      onToolFragment(call, out);
    }
  }

  void onToolFragment(json::object const& call, std::vector<Event>& out) {
    auto const* function = objectAt(call, "function");
    std::string_view id = stringAt(call, "id").value_or("");
    std::string_view name = function ? stringAt(*function, "name").value_or("") : "";
    std::string_view arguments = function ? stringAt(*function, "arguments").value_or("") : "";
    std::optional<std::int64_t> chat_index = intAt(call, "index");

    int slot = -1;
    if (chat_index) {
      auto it = by_chat_index_.find(*chat_index);
      if (it != by_chat_index_.end()) slot = it->second;
    } else if (id.empty() && !slots_.empty()) {
      slot = static_cast<int>(slots_.size()) - 1;  // no index, no id: the latest call continues
    }
    // A different id under a known index is a new call (some relays reuse index 0).
    bool fresh = slot < 0 || (!id.empty() && !slots_[slot].id.empty() && slots_[slot].id != id);
    if (fresh) {
      ToolSlot s;
      s.id = id.empty() ? inventedCallId(message_id_, slots_.size()) : std::string(id);
      s.name = std::string(name);
      slot = static_cast<int>(slots_.size());
      slots_.push_back(std::move(s));
      by_chat_index_[chat_index.value_or(-1 - slot)] = slot;
      has_calls_ = true;
      process(Piece{Piece::Kind::ToolStart, slot, {}}, false, out);
    } else if (slots_[slot].name.empty() && !name.empty() && !slots_[slot].started) {
      slots_[slot].name = std::string(name);
    }
    if (!arguments.empty()) process(Piece{Piece::Kind::ToolArgs, slot, std::string(arguments)}, false, out);
  }

  void onFinishReason(std::string_view reason, std::vector<Event>& out) {
    if (saw_finish_) return;
    if (reason == "error") {
      fail(500, "the upstream ended the answer with an error", out);
      return;
    }
    closeAll(out);
    if (done_) return;
    saw_finish_ = true;
    stop_ = stopFromFinishReason(reason, has_calls_);
    if (refused_ && stop_ == StopReason::EndTurn) stop_ = StopReason::ContentFilter;
  }

  // --- blocks -------------------------------------------------------------------------------

  bool openComplete() const {
    return open_ != Piece::Kind::ToolStart || slots_[open_slot_].progress.complete();
  }

  void process(Piece piece, bool force, std::vector<Event>& out) {
    if (piece.kind == Piece::Kind::ToolArgs) {
      ToolSlot& slot = slots_[piece.slot];
      if (has_open_ && open_ == Piece::Kind::ToolStart && open_slot_ == piece.slot) {
        slot.progress.feed(piece.text);
        slot.has_arguments = true;
        Event e{.type = EventType::ArgumentsDelta, .index = slot.index};
        e.text = std::move(piece.text);
        out.push_back(std::move(e));
        if (!replaying_) drain(out);
        return;
      }
      if (slot.closed) {
        if (isBlank(piece.text)) return;
        fail(502, "the upstream sent arguments for a tool call it had finished", out);
        return;
      }
      // Its call has not started yet: it waits behind that call's start.
      if (force) {
        fail(502, "the upstream sent arguments for an unknown tool call", out);
        return;
      }
      deferred_.push_back(std::move(piece));
      return;
    }
    bool same = has_open_ && open_ == piece.kind && piece.kind != Piece::Kind::ToolStart;
    if (same) {
      emitDelta(piece, out);
      return;
    }
    if (!force && (!deferred_.empty() || (has_open_ && !openComplete()))) {
      deferred_.push_back(std::move(piece));
      return;
    }
    closeOpen(out);
    Event e{.type = EventType::BlockStart, .index = next_index_};
    has_open_ = true;
    open_ = piece.kind;
    if (piece.kind == Piece::Kind::ToolStart) {
      ToolSlot& slot = slots_[piece.slot];
      slot.started = true;
      slot.index = next_index_;
      open_slot_ = piece.slot;
      e.block.type = BlockType::ToolCall;
      e.block.id = slot.id;
      e.block.name = slot.name;
    } else {
      e.block.type = piece.kind == Piece::Kind::Text ? BlockType::Text : BlockType::Thinking;
      // Reasoning nobody signs: its origin still tells the client where it came from.
      if (piece.kind == Piece::Kind::Thinking) e.block.signature_origin = Protocol::OpenAiChat;
    }
    open_index_ = next_index_++;
    out.push_back(std::move(e));
    if (piece.kind != Piece::Kind::ToolStart) emitDelta(piece, out);
  }

  void emitDelta(Piece& piece, std::vector<Event>& out) {
    Event e{.type = piece.kind == Piece::Kind::Text ? EventType::TextDelta : EventType::ThinkingDelta,
            .index = open_index_};
    e.text = std::move(piece.text);
    out.push_back(std::move(e));
  }

  /// Replays held content once the open tool call has completed, keeping arrival order.
  void drain(std::vector<Event>& out) {
    while (!deferred_.empty() && openComplete() && !done_) {
      std::vector<Piece> pending = std::move(deferred_);
      deferred_.clear();
      replaying_ = true;
      for (auto& piece : pending) process(std::move(piece), false, out);
      replaying_ = false;
    }
  }

  void closeOpen(std::vector<Event>& out) {
    if (!has_open_) return;
    if (open_ == Piece::Kind::ToolStart && !slots_[open_slot_].has_arguments) {
      // A call without arguments: "{}", so that every consumer gets a JSON object.
      Event e{.type = EventType::ArgumentsDelta, .index = open_index_};
      e.text = "{}";
      out.push_back(std::move(e));
    }
    out.push_back(Event{.type = EventType::BlockStop, .index = open_index_});
    if (open_ == Piece::Kind::ToolStart) slots_[open_slot_].closed = true;
    has_open_ = false;
  }

  /// The answer is over: whatever was held goes out now, then the last block closes.
  void closeAll(std::vector<Event>& out) {
    while (!deferred_.empty() && !done_) {
      std::vector<Piece> pending = std::move(deferred_);
      deferred_.clear();
      closeOpen(out);
      replaying_ = true;
      for (auto& piece : pending) {
        if (done_) break;
        process(std::move(piece), true, out);
      }
      replaying_ = false;
    }
    if (!done_) closeOpen(out);
  }

  void stop(std::vector<Event>& out) {
    if (!started_) {
      started_ = true;
      out.push_back(Event{.type = EventType::MessageStart});
    }
    closeAll(out);
    if (done_) return;
    if (!saw_finish_) stop_ = has_calls_ ? StopReason::ToolUse : StopReason::EndTurn;
    out.push_back(Event{.type = EventType::MessageStop, .stop = stop_});
    done_ = true;
  }

  void fail(int status, std::string message, std::vector<Event>& out) {
    Event e{.type = EventType::Error, .error_status = status};
    e.text = std::move(message);
    out.push_back(std::move(e));
    done_ = true;
  }

  protocol::SseParser sse_;
  std::vector<protocol::SseEvent> frames_;
  bool started_ = false;
  bool done_ = false;  ///< MessageStop or Error went out: nothing more follows
  bool saw_finish_ = false;
  bool has_calls_ = false;
  bool refused_ = false;
  StopReason stop_ = StopReason::EndTurn;
  std::string message_id_;

  bool has_open_ = false;
  Piece::Kind open_ = Piece::Kind::Text;
  int open_index_ = 0;
  int open_slot_ = -1;
  int next_index_ = 0;
  std::vector<ToolSlot> slots_;
  std::map<std::int64_t, int> by_chat_index_;
  std::vector<Piece> deferred_;
  bool replaying_ = false;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<ChatStreamDecoder>(); }

}  // namespace llmux::translate::openai_chat
