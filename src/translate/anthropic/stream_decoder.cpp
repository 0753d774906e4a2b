// Anthropic Messages SSE stream -> neutral events, incrementally (REFERENCE.md §3.4, §5).
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <unordered_map>

#include "protocol/sse_parser.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/wire.h"
#include "translate/json_access.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

constexpr int kSkipped = -1;  ///< an upstream block the neutral model does not carry

class Decoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes, std::vector<Event>& out) override {
    if (done_) return;
    frames_.clear();
    sse_.feed(bytes, frames_);
    drain(out);
    if (!done_ && sse_.overflowed()) fail(out, 502, "an Anthropic stream event is too large");
  }

  void finish(std::vector<Event>& out) override {
    if (done_) return;
    frames_.clear();
    sse_.finish(frames_);
    drain(out);
    if (!done_) fail(out, 502, "the Anthropic stream ended before message_stop");
  }

 private:
  void drain(std::vector<Event>& out) {
    for (protocol::SseEvent const& frame : frames_) {
      if (done_) break;
      handle(frame, out);
    }
  }

  void fail(std::vector<Event>& out, int status, std::string message) {
    Event e;
    e.type = EventType::Error;
    e.error_status = status;
    e.text = std::move(message);
    out.push_back(std::move(e));
    done_ = true;
  }

  void ensureStarted(std::vector<Event>& out) {
    if (started_) return;
    started_ = true;
    Event e;
    e.type = EventType::MessageStart;
    out.push_back(std::move(e));
  }

  void closeOpen(std::vector<Event>& out) {
    if (open_ < 0) return;
    // A tool without arguments streams one empty fragment: its arguments are "{}", which every
    // client protocol's accumulator can parse.
    if (open_call_ && !arguments_seen_) delta(out, EventType::ArgumentsDelta, open_, "{}");
    open_call_ = false;
    Event e;
    e.type = EventType::BlockStop;
    e.index = open_;
    out.push_back(std::move(e));
    open_ = -1;
  }

  /// Neutral index of an upstream block index; nullopt when never started.
  std::optional<int> lookup(std::int64_t upstream) const {
    auto it = indexes_.find(upstream);
    if (it == indexes_.end()) return std::nullopt;
    return it->second;
  }

  void delta(std::vector<Event>& out, EventType type, int index, std::string_view text) {
    Event e;
    e.type = type;
    e.index = index;
    e.text = text;
    out.push_back(std::move(e));
  }

  void usageUpdate(std::vector<Event>& out) {
    Event e;
    e.type = EventType::UsageUpdate;
    e.usage = usage_.toNeutral();
    out.push_back(std::move(e));
  }

  void handle(protocol::SseEvent const& frame, std::vector<Event>& out) {
    unsigned char scratch[2048];
    json::monotonic_resource resource(scratch, sizeof(scratch));
    boost::system::error_code ec;
    json::value value = json::parse(frame.data, ec, &resource);
    if (ec || !value.is_object()) {
      fail(out, 502, "malformed Anthropic stream frame");
      return;
    }
    json::object const& o = value.get_object();
    std::string_view type = stringAt(o, "type").value_or(frame.event);
    if (frame.event == "error" || type == "error") {
      json::object const* error = objectAt(o, "error");
      std::string_view error_type =
          error ? stringAt(*error, "type").value_or("api_error") : "api_error";
      std::string_view message = error ? stringAt(*error, "message").value_or("") : "";
      fail(out, statusForErrorType(error_type),
           std::string(message.empty() ? error_type : message));
      return;
    }
    if (type == "message_start") {
      if (started_) return;
      started_ = true;
      json::object const* message = objectAt(o, "message");
      Event e;
      e.type = EventType::MessageStart;
      if (message != nullptr) {
        e.id = stringAt(*message, "id").value_or("");
        e.model = stringAt(*message, "model").value_or("");
      }
      out.push_back(std::move(e));
      if (json::object const* usage = message ? objectAt(*message, "usage") : nullptr) {
        usage_.merge(*usage);
        if (!usage_.empty()) usageUpdate(out);
      }
    } else if (type == "content_block_start") {
      blockStart(o, out);
    } else if (type == "content_block_delta") {
      blockDelta(o, out);
    } else if (type == "content_block_stop") {
      auto index = intAt(o, "index");
      if (!index) return fail(out, 502, "content_block_stop without an index");
      auto mapped = lookup(*index);
      if (!mapped) return fail(out, 502, "content_block_stop for a block that never started");
      if (*mapped != kSkipped && *mapped == open_) closeOpen(out);
    } else if (type == "message_delta") {
      ensureStarted(out);
      if (json::object const* d = objectAt(o, "delta")) {
        if (auto reason = stringAt(*d, "stop_reason")) {
          stop_ = parseStopReason(*reason);
          have_stop_ = true;
        }
        stop_sequence_ = stringAt(*d, "stop_sequence").value_or("");
      }
      if (json::object const* usage = objectAt(o, "usage")) {
        usage_.merge(*usage);
        usageUpdate(out);
      }
    } else if (type == "message_stop") {
      ensureStarted(out);
      closeOpen(out);
      Event e;
      e.type = EventType::MessageStop;
      e.stop = have_stop_ ? stop_ : StopReason::EndTurn;
      e.stop_sequence = stop_sequence_;
      out.push_back(std::move(e));
      done_ = true;
    }
    // ping and event types added later: ignored, as the API asks.
  }

  void blockStart(json::object const& o, std::vector<Event>& out) {
    auto index = intAt(o, "index");
    json::object const* block = objectAt(o, "content_block");
    if (!index || block == nullptr) {
      return fail(out, 502, "content_block_start without index or content_block");
    }
    if (lookup(*index)) return fail(out, 502, "content_block_start repeats a block index");
    ensureStarted(out);
    closeOpen(out);  // blocks do not interleave: a missing stop closes the previous one
    std::string_view type = stringAt(*block, "type").value_or("");
    Event e;
    e.type = EventType::BlockStart;
    Block& b = e.block;
    std::string_view initial;
    std::string_view initial_signature;
    std::string initial_arguments;
    if (type == "text") {
      b.type = BlockType::Text;
      initial = stringAt(*block, "text").value_or("");
    } else if (type == "thinking") {
      b.type = BlockType::Thinking;
      b.signature_origin = Protocol::Anthropic;
      initial = stringAt(*block, "thinking").value_or("");
      initial_signature = stringAt(*block, "signature").value_or("");
    } else if (type == "redacted_thinking") {
      b.type = BlockType::RedactedThinking;
      b.signature = stringAt(*block, "data").value_or("");
      b.signature_origin = Protocol::Anthropic;
    } else if (type == "tool_use") {
      b.type = BlockType::ToolCall;
      b.id = stringAt(*block, "id").value_or("");
      b.name = stringAt(*block, "name").value_or("");
      if (json::object const* input = objectAt(*block, "input"); input && !input->empty()) {
        initial_arguments = toJson(*input);  // relays that send the whole input up front
      }
    } else {
      indexes_.emplace(*index, kSkipped);  // server tools and their results
      return;
    }
    int neutral = next_index_++;
    indexes_.emplace(*index, neutral);
    open_ = neutral;
    open_call_ = b.type == BlockType::ToolCall;
    arguments_seen_ = !initial_arguments.empty();
    e.index = neutral;
    out.push_back(std::move(e));
    if (!initial.empty()) {
      delta(out, type == "text" ? EventType::TextDelta : EventType::ThinkingDelta, neutral,
            initial);
    }
    if (!initial_signature.empty())
      delta(out, EventType::SignatureDelta, neutral, initial_signature);
    if (!initial_arguments.empty()) {
      delta(out, EventType::ArgumentsDelta, neutral, initial_arguments);
    }
  }

  void blockDelta(json::object const& o, std::vector<Event>& out) {
    auto index = intAt(o, "index");
    json::object const* d = objectAt(o, "delta");
    if (!index || d == nullptr) return fail(out, 502, "content_block_delta without index or delta");
    auto mapped = lookup(*index);
    if (!mapped) return fail(out, 502, "content_block_delta for a block that never started");
    if (*mapped == kSkipped) return;
    if (*mapped != open_) return fail(out, 502, "content_block_delta for a closed block");
    std::string_view type = stringAt(*d, "type").value_or("");
    if (type == "text_delta") {
      if (auto text = stringAt(*d, "text"); text && !text->empty()) {
        delta(out, EventType::TextDelta, open_, *text);
      }
    } else if (type == "thinking_delta") {
      if (auto text = stringAt(*d, "thinking"); text && !text->empty()) {
        delta(out, EventType::ThinkingDelta, open_, *text);
      }
    } else if (type == "signature_delta") {
      if (auto text = stringAt(*d, "signature"); text && !text->empty()) {
        delta(out, EventType::SignatureDelta, open_, *text);
      }
    } else if (type == "input_json_delta") {
      if (auto text = stringAt(*d, "partial_json"); text && !text->empty()) {
        arguments_seen_ = true;
        delta(out, EventType::ArgumentsDelta, open_, *text);
      }
    }
    // citations_delta and unknown delta types carry nothing the neutral model holds.
  }

  protocol::SseParser sse_;
  std::vector<protocol::SseEvent> frames_;
  std::unordered_map<std::int64_t, int> indexes_;  ///< upstream index -> neutral index
  int next_index_ = 0;
  int open_ = -1;
  bool open_call_ = false;       ///< the open block is a tool call
  bool arguments_seen_ = false;  ///< ... and a non-empty fragment of its arguments came
  bool started_ = false;
  bool done_ = false;
  WireUsage usage_;
  StopReason stop_ = StopReason::EndTurn;
  bool have_stop_ = false;
  std::string stop_sequence_;
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() {
  return std::make_unique<Decoder>();
}

}  // namespace llmux::translate::anthropic
