// Gemini stream bytes → neutral events, incrementally (REFERENCE §4.4). Accepts the SSE form
// (`?alt=sse`, CRLF-separated `data:` frames), the JSON-array form (no alt=sse) and, for an
// upstream that answers a stream request with one plain JSON object (an error), that object.
//
// Each chunk carries only new parts and a cumulative usageMetadata snapshot; the last one carries
// finishReason, which is the stream's proper end (there is no terminator). A function call arrives
// whole on the Gemini API; Vertex AI may stream its arguments as `partialArgs` (gathered here and
// emitted whole when the call ends, since Gemini's `args` must be a complete object).
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <string>
#include <vector>

#include "protocol/sse_parser.h"
#include "translate/gemini/codec.h"
#include "translate/gemini/common.h"
#include "translate/gemini/json_array_splitter.h"
#include "translate/gemini/parts.h"

namespace llmux::translate::gemini {

namespace json = boost::json;
using namespace detail;

namespace {

/// The longest SSE event (or plain JSON body) accepted before the stream counts as broken.
constexpr std::size_t kMaxFrame = 16 * 1024 * 1024;

/// The array slots one call's `partialArgs` may skip over (filled with null): a few bytes such as
/// `$[99999][99999]…` would otherwise allocate gigabytes.
constexpr std::size_t kMaxSkippedSlots = 1024;
/// The deepest `partialArgs` path followed: Boost.JSON frees (and copies) values recursively, so
/// a path of a million steps would build arguments whose destruction overflows the stack.
constexpr std::size_t kMaxPathDepth = 64;

/// Applies one Vertex `partialArgs` entry ({jsonPath, stringValue|numberValue|boolValue|nullValue})
/// to the arguments gathered so far. Paths look like `$.a.b`, `$.list[0]`, `$['key']`. An index
/// past the end pads with nulls, taken from `skips_left`; the entry is dropped when that runs out.
void applyPartialArg(json::value& root, json::object const& entry, std::size_t& skips_left) {
  auto path = stringMember(entry, "jsonPath", "json_path");
  if (!path || !path->starts_with("$")) return;
  std::string_view rest = path->substr(1);
  json::value* node = &root;
  for (std::size_t depth = 0; !rest.empty(); ++depth) {
    if (depth == kMaxPathDepth) return;
    if (rest.front() == '.') {
      rest.remove_prefix(1);
      std::size_t end = rest.find_first_of(".[");
      std::string key(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      if (!node->is_object()) *node = json::object();
      node = &node->get_object()[key];
    } else if (rest.front() == '[') {
      std::size_t close = rest.find(']');
      if (close == std::string_view::npos) return;
      std::string_view inside = rest.substr(1, close - 1);
      rest.remove_prefix(close + 1);
      if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"')) {
        if (!node->is_object()) *node = json::object();
        node = &node->get_object()[std::string(inside.substr(1, inside.size() - 2))];
        continue;
      }
      std::size_t position = 0;
      for (char c : inside) {
        if (c < '0' || c > '9') return;
        position = position * 10 + static_cast<std::size_t>(c - '0');
        if (position > 100000) return;
      }
      if (!node->is_array()) *node = json::array();
      json::array& array = node->get_array();
      if (position > array.size()) {
        if (position - array.size() > skips_left) return;
        skips_left -= position - array.size();
      }
      while (array.size() <= position) array.emplace_back(nullptr);
      node = &array[position];
    } else {
      return;
    }
  }
  if (auto s = stringMember(entry, "stringValue", "string_value")) {
    // A long string arrives in pieces on the same path.
    if (node->is_string()) {
      node->get_string().append(*s);
    } else {
      *node = json::string(*s);
    }
  } else if (json::value const* n = member(entry, "numberValue", "number_value")) {
    *node = *n;
  } else if (json::value const* b = member(entry, "boolValue", "bool_value")) {
    *node = *b;
  } else if (member(entry, "nullValue", "null_value") != nullptr) {
    *node = nullptr;
  }
}

class Decoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes, std::vector<Event>& out) override {
    if (over_) return;
    if (mode_ == Mode::Unknown) {
      std::size_t skip = 0;
      while (skip < bytes.size() && (bytes[skip] == ' ' || bytes[skip] == '\t' ||
                                     bytes[skip] == '\r' || bytes[skip] == '\n')) {
        ++skip;
      }
      bytes.remove_prefix(skip);
      if (bytes.empty()) return;
      mode_ = bytes.front() == '[' ? Mode::Array : bytes.front() == '{' ? Mode::Object : Mode::Sse;
    }
    switch (mode_) {
      case Mode::Sse: {
        events_.clear();
        sse_.feed(bytes, events_);
        pending_bytes_ = events_.empty() ? pending_bytes_ + bytes.size() : 0;
        for (auto const& event : events_) {
          if (over_) break;
          handleData(event.data, out);
        }
        if (!over_ && pending_bytes_ > kMaxFrame) fail(out, "a stream event is too large");
        break;
      }
      case Mode::Array: {
        elements_.clear();
        bool ok = splitter_.feed(bytes, elements_);
        for (auto const& element : elements_) {
          if (over_) break;
          handleData(element, out);
        }
        if (!ok && !over_) fail(out, std::string(splitter_.error()));
        break;
      }
      case Mode::Object:
        object_.append(bytes);
        if (object_.size() > kMaxFrame) fail(out, "the stream body is too large");
        break;
      case Mode::Unknown:
        break;
    }
  }

  void finish(std::vector<Event>& out) override {
    if (mode_ == Mode::Sse && !over_) {
      events_.clear();
      sse_.finish(events_);
      for (auto const& event : events_) {
        if (over_) break;
        handleData(event.data, out);
      }
    } else if (mode_ == Mode::Object && !over_) {
      handleData(object_, out);
    }
    if (!over_) fail(out, "the upstream stream ended before its finishReason");
  }

 private:
  enum class Mode { Unknown, Sse, Array, Object };

  void fail(std::vector<Event>& out, std::string message, int status = 502) {
    Event event;
    event.type = EventType::Error;
    event.error_status = status;
    event.text = std::move(message);
    out.push_back(std::move(event));
    over_ = true;
  }

  void handleData(std::string_view data, std::vector<Event>& out) {
    if (data.empty() || data == "[DONE]") return;
    unsigned char scratch[4096];
    json::monotonic_resource resource(scratch, sizeof(scratch));
    boost::system::error_code ec;
    json::value value = json::parse(data, ec, &resource);
    if (ec || !value.is_object()) {
      fail(out, "the upstream sent a malformed stream chunk");
      return;
    }
    json::object const& chunk = value.get_object();
    if (json::object const* error = objectMember(chunk, "error", "")) {
      int code = static_cast<int>(intMember(*error, "code", "").value_or(500));
      if (code < 400 || code > 599) code = 500;
      fail(out, std::string(stringMember(*error, "message", "").value_or("the upstream failed")),
           code);
      return;
    }
    handleChunk(chunk, out);
  }

  void handleChunk(json::object const& chunk, std::vector<Event>& out) {
    if (!started_) {
      started_ = true;
      Event start;
      start.type = EventType::MessageStart;
      start.id = std::string(stringMember(chunk, "responseId", "response_id").value_or(""));
      start.model = std::string(stringMember(chunk, "modelVersion", "model_version").value_or(""));
      seed_ = start.id;
      out.push_back(std::move(start));
    }
    json::object const* candidate = nullptr;
    if (json::array const* candidates = arrayMember(chunk, "candidates", "")) {
      if (!candidates->empty() && (*candidates)[0].is_object()) {
        candidate = &(*candidates)[0].get_object();
      }
    }
    if (candidate != nullptr) {
      if (json::object const* content = objectMember(*candidate, "content", "")) {
        if (json::array const* parts = arrayMember(*content, "parts", "")) {
          for (auto const& p : *parts) {
            if (p.is_object()) handlePart(p.get_object(), out);
          }
        }
      }
    }
    if (json::object const* metadata = objectMember(chunk, "usageMetadata", "usage_metadata")) {
      if (auto usage = usageFromMetadata(*metadata)) {
        if (!last_usage_ || usage->input != last_usage_->input ||
            usage->output != last_usage_->output || usage->reasoning != last_usage_->reasoning ||
            usage->cache_read != last_usage_->cache_read) {
          last_usage_ = usage;
          Event event;
          event.type = EventType::UsageUpdate;
          event.usage = *usage;
          out.push_back(std::move(event));
        }
      }
    }
    std::string_view finish;
    if (candidate != nullptr) {
      finish = stringMember(*candidate, "finishReason", "finish_reason").value_or("");
    }
    bool blocked = candidate == nullptr && [&] {
      json::object const* feedback = objectMember(chunk, "promptFeedback", "prompt_feedback");
      return feedback != nullptr && member(*feedback, "blockReason", "block_reason") != nullptr;
    }();
    if (finish.empty() && !blocked) return;
    finishCall(out);
    closeBlock(out);
    Event stop;
    stop.type = EventType::MessageStop;
    stop.stop = blocked ? StopReason::ContentFilter : stopFromFinishReason(finish, calls_ > 0);
    out.push_back(std::move(stop));
    over_ = true;
  }

  void handlePart(json::object const& part, std::vector<Event>& out) {
    std::string_view signature = partSignature(part);
    if (json::object const* call = objectMember(part, "functionCall", "function_call")) {
      handleCall(*call, signature, out);
      return;
    }
    finishCall(out);
    bool thought = boolMember(part, "thought", "").value_or(false);
    if (auto text = stringMember(part, "text", "")) {
      if (thought) {
        bool continues = open_ && open_type_ == BlockType::Thinking;
        if (!continues) openBlock(BlockType::Thinking, signature, out);
        if (!text->empty()) delta(EventType::ThinkingDelta, *text, out);
        if (continues && !signature.empty()) delta(EventType::SignatureDelta, signature, out);
        return;
      }
      if (text->empty()) {
        // A signature alone (Gemini puts one on an answer's last, empty part): an empty thinking
        // block that only Gemini will read back.
        if (signature.empty()) return;
        openBlock(BlockType::Thinking, signature, out);
        closeBlock(out);
        return;
      }
      if (!open_ || open_type_ != BlockType::Text || !signature.empty()) {
        openBlock(BlockType::Text, signature, out);
      }
      delta(EventType::TextDelta, *text, out);
      return;
    }
    if (auto media = mediaBlock(part); media && media->ok()) {
      closeBlock(out);
      Event start;
      start.type = EventType::BlockStart;
      start.index = next_index_++;
      start.block = std::move(media->value());
      out.push_back(std::move(start));
      Event stop;
      stop.type = EventType::BlockStop;
      stop.index = next_index_ - 1;
      out.push_back(std::move(stop));
    }
  }

  void handleCall(json::object const& call, std::string_view signature, std::vector<Event>& out) {
    auto name = stringMember(call, "name", "");
    bool will_continue = boolMember(call, "willContinue", "will_continue").value_or(false);
    if (streaming_call_ && (!name || name->empty())) {
      if (json::array const* partial = arrayMember(call, "partialArgs", "partial_args")) {
        for (auto const& entry : *partial) {
          if (entry.is_object()) applyPartialArg(partial_args_, entry.get_object(), skips_left_);
        }
      }
      if (!will_continue) finishCall(out);
      return;
    }
    finishCall(out);
    if (!name || name->empty()) return;  // nothing to call
    Block block;
    block.type = BlockType::ToolCall;
    block.name = std::string(*name);
    block.id = std::string(stringMember(call, "id", "").value_or(""));
    if (block.id.empty()) block.id = madeUpCallId(seed_, calls_, block.name);
    ++calls_;
    closeBlock(out);
    if (!signature.empty()) {
      block.signature = std::string(signature);
      block.signature_origin = Protocol::Gemini;
    }
    Event start;
    start.type = EventType::BlockStart;
    start.index = next_index_++;
    start.block = std::move(block);
    out.push_back(std::move(start));
    open_ = true;
    open_type_ = BlockType::ToolCall;
    json::object const* args = objectMember(call, "args", "");
    if (will_continue) {
      streaming_call_ = true;
      skips_left_ = kMaxSkippedSlots;
      // A copy in default storage: `args` lives in the chunk's scratch memory.
      partial_args_ = args != nullptr ? json::value(json::object(*args, json::storage_ptr()))
                                      : json::value(json::object());
      if (json::array const* partial = arrayMember(call, "partialArgs", "partial_args")) {
        for (auto const& entry : *partial) {
          if (entry.is_object()) applyPartialArg(partial_args_, entry.get_object(), skips_left_);
        }
      }
      return;
    }
    delta(EventType::ArgumentsDelta, args != nullptr ? json::serialize(*args) : "{}", out);
    closeBlock(out);
  }

  /// Ends a call whose arguments were being gathered (Vertex partialArgs).
  void finishCall(std::vector<Event>& out) {
    if (!streaming_call_) return;
    streaming_call_ = false;
    if (!partial_args_.is_object()) partial_args_ = json::object();
    delta(EventType::ArgumentsDelta, json::serialize(partial_args_), out);
    partial_args_ = nullptr;
    closeBlock(out);
  }

  void openBlock(BlockType type, std::string_view signature, std::vector<Event>& out) {
    closeBlock(out);
    Event start;
    start.type = EventType::BlockStart;
    start.index = next_index_++;
    start.block.type = type;
    start.block.signature = std::string(signature);
    // A Gemini thinking block's signatures, now or in later deltas, are Gemini's.
    if (!signature.empty() || type == BlockType::Thinking) {
      start.block.signature_origin = Protocol::Gemini;
    }
    out.push_back(std::move(start));
    open_ = true;
    open_type_ = type;
  }

  void closeBlock(std::vector<Event>& out) {
    if (!open_) return;
    Event stop;
    stop.type = EventType::BlockStop;
    stop.index = next_index_ - 1;
    out.push_back(std::move(stop));
    open_ = false;
  }

  void delta(EventType type, std::string_view text, std::vector<Event>& out) {
    Event event;
    event.type = type;
    event.index = next_index_ - 1;
    event.text = std::string(text);
    out.push_back(std::move(event));
  }

  Mode mode_ = Mode::Unknown;
  protocol::SseParser sse_;
  std::vector<protocol::SseEvent> events_;
  std::size_t pending_bytes_ = 0;
  JsonArraySplitter splitter_;
  std::vector<std::string> elements_;
  std::string object_;

  bool started_ = false;
  bool over_ = false;  ///< MessageStop or Error sent: the rest is ignored
  bool open_ = false;
  BlockType open_type_ = BlockType::Text;
  int next_index_ = 0;
  std::size_t calls_ = 0;
  std::string seed_;
  std::optional<Usage> last_usage_;
  bool streaming_call_ = false;
  json::value partial_args_;
  std::size_t skips_left_ = 0;  ///< of kMaxSkippedSlots, for the call being gathered
};

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() { return std::make_unique<Decoder>(); }

}  // namespace llmux::translate::gemini
