// Neutral events -> the Anthropic Messages SSE stream its official SDK expects (REFERENCE.md §3.4;
// CLIENTS.md: every frame has an `event:` line, message_delta carries usage.output_tokens).
#include <optional>

#include "protocol/error_shapes.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/json_out.h"
#include "translate/anthropic/wire.h"

namespace llmux::translate::anthropic {
namespace {

class Encoder final : public StreamEncoder {
 public:
  explicit Encoder(EncodeOptions options) : options_(std::move(options)) {}

  void encode(Event const& event, std::string& out) override {
    if (finished_) return;
    switch (event.type) {
      case EventType::MessageStart:
        if (started_ || start_pending_) return;
        id_ = messageId(event.id, options_.id);
        model_ = options_.model.empty() ? event.model : options_.model;
        start_pending_ = true;  // sent with the first event that is not usage (it may carry input)
        return;
      case EventType::UsageUpdate:
        usage_ = event.usage;
        return;
      case EventType::Error:
        if (started_ || start_pending_) flushStart(out);
        if (open_ && open_->stopped) closeBlock(out, nullptr);
        fail(event, out);
        return;
      default:
        break;
    }
    flushStart(out);
    // A stopped thinking block still open waits for this event: the block that follows it may
    // carry its signature.
    if (open_ && open_->stopped) {
      closeBlock(out, event.type == EventType::BlockStart ? &event.block : nullptr);
    }
    switch (event.type) {
      case EventType::BlockStart:
        blockStart(event, out);
        break;
      case EventType::TextDelta:
        if (open(event.index, BlockType::Text) && !event.text.empty()) {
          delta(out, "text_delta", "text", event.text);
        }
        break;
      case EventType::ThinkingDelta:
        if (open(event.index, BlockType::Thinking) && !event.text.empty()) {
          delta(out, "thinking_delta", "thinking", event.text);
        }
        break;
      case EventType::SignatureDelta:
        // Anthropic sends one signature_delta right before content_block_stop: gather the pieces.
        if (open(event.index, BlockType::Thinking)) open_->signature += event.text;
        break;
      case EventType::ArgumentsDelta:
        if (open(event.index, BlockType::ToolCall) && !event.text.empty()) {
          delta(out, "input_json_delta", "partial_json", event.text);
        }
        break;
      case EventType::BlockStop:
        if (open_ && open_->neutral == event.index) {
          if (signedByNextBlock(*open_)) {
            open_->stopped = true;
          } else {
            closeBlock(out, nullptr);
          }
        }
        break;
      case EventType::MessageStop:
        messageStop(event, out);
        break;
      default:
        break;
    }
  }

 private:
  struct OpenBlock {
    int neutral = 0;
    int index = 0;
    BlockType type = BlockType::Text;
    bool skipped = false;  ///< a block Anthropic answers cannot hold: its events are ignored
    std::string signature;
    std::optional<Protocol> origin;
    bool stopped = false;  ///< its BlockStop came, its content_block_stop waits (signedByNextBlock)
  };

  /// Gemini signs its thoughts on the part after them, which in a stream comes after the thinking
  /// block's stop: an unsigned Gemini thinking block stays open until the next event shows
  /// whether that part carries the signature (Anthropic sends signature_delta before the stop).
  static bool signedByNextBlock(OpenBlock const& block) {
    return !block.skipped && block.type == BlockType::Thinking && block.signature.empty() &&
           block.origin == Protocol::Gemini;
  }

  void frame(std::string& out, std::string_view name) {
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += data_;
    out += "\n\n";
  }

  void flushStart(std::string& out) {
    if (started_) return;
    started_ = true;
    start_pending_ = false;
    if (id_.empty()) id_ = messageId({}, options_.id);
    if (model_.empty()) model_ = options_.model;
    data_.clear();
    JsonOut j(data_);
    j.beginObject().str("type", "message_start").beginObject("message");
    j.str("id", id_).str("type", "message").str("role", "assistant").str("model", model_);
    j.beginArray("content").endArray().null("stop_reason").null("stop_sequence");
    j.beginObject("usage");
    writeUsageFields(j, usage_);
    j.endObject().endObject().endObject();
    frame(out, "message_start");
  }

  bool open(int neutral, BlockType type) const {
    return open_ && !open_->skipped && open_->neutral == neutral && open_->type == type;
  }

  void delta(std::string& out, std::string_view type, std::string_view key, std::string_view text) {
    data_.clear();
    JsonOut j(data_);
    j.beginObject().str("type", "content_block_delta").num("index", open_->index);
    j.beginObject("delta").str("type", type).str(key, text).endObject().endObject();
    frame(out, "content_block_delta");
  }

  void blockStart(Event const& event, std::string& out) {
    if (open_) closeBlock(out, &event.block);
    Block const& b = event.block;
    OpenBlock block;
    block.neutral = event.index;
    block.type = b.type;
    block.origin = b.signature_origin;
    data_.clear();
    JsonOut j(data_);
    j.beginObject().str("type", "content_block_start").num("index", next_index_);
    switch (b.type) {
      case BlockType::Text:
        j.beginObject("content_block").str("type", "text").str("text", "").endObject();
        break;
      case BlockType::Thinking:
        j.beginObject("content_block").str("type", "thinking").str("thinking", "");
        j.str("signature", "").endObject();
        block.signature = b.signature;
        break;
      case BlockType::RedactedThinking: {
        std::string payload = clientSignature(b.signature, b.signature_origin);
        if (payload.empty()) {
          block.skipped = true;
          break;
        }
        j.beginObject("content_block").str("type", "redacted_thinking").str("data", payload);
        j.endObject();
        break;
      }
      case BlockType::ToolCall:
        j.beginObject("content_block").str("type", "tool_use");
        j.str("id", toolUseId(b.id, id_, static_cast<std::size_t>(event.index)));
        j.str("name", b.name).beginObject("input").endObject().endObject();
        any_call_ = true;
        break;
      default:
        block.skipped = true;  // images, documents, tool results: not part of an answer
        break;
    }
    if (!block.skipped) {
      j.endObject();
      block.index = next_index_++;
      frame(out, "content_block_start");
    }
    open_ = std::move(block);
    if (open_->skipped) return;
    if (b.type == BlockType::Text && !b.text.empty()) delta(out, "text_delta", "text", b.text);
    if (b.type == BlockType::Thinking && !b.text.empty()) {
      delta(out, "thinking_delta", "thinking", b.text);
    }
    if (b.type == BlockType::ToolCall && !b.arguments.empty()) {
      delta(out, "input_json_delta", "partial_json", b.arguments);
    }
  }

  /// Ends the open block; `next` is the block that follows it (nullptr: none, or not known).
  void closeBlock(std::string& out, Block const* next) {
    if (!open_->skipped) {
      if (open_->type == BlockType::Thinking) {
        // Every thinking block an Anthropic client gets carries a signature.
        std::string signature = thinkingSignature(open_->signature, open_->origin, next);
        if (signature.empty()) signature = unsignedThinkingSignature(open_->origin);
        if (!signature.empty()) delta(out, "signature_delta", "signature", signature);
      }
      data_.clear();
      JsonOut j(data_);
      j.beginObject().str("type", "content_block_stop").num("index", open_->index).endObject();
      frame(out, "content_block_stop");
    }
    open_.reset();
  }

  void messageStop(Event const& event, std::string& out) {
    if (open_) closeBlock(out, nullptr);
    StopReason stop = clientStop(event.stop, any_call_, !event.stop_sequence.empty());
    data_.clear();
    JsonOut j(data_);
    j.beginObject().str("type", "message_delta").beginObject("delta");
    j.str("stop_reason", stopReasonName(stop));
    if (stop == StopReason::StopSequence) {
      j.str("stop_sequence", event.stop_sequence);
    } else {
      j.null("stop_sequence");
    }
    j.endObject().beginObject("usage");
    writeUsageFields(j, usage_);
    j.endObject().endObject();
    frame(out, "message_delta");
    data_ = R"({"type":"message_stop"})";
    frame(out, "message_stop");
    finished_ = true;
  }

  void fail(Event const& event, std::string& out) {
    protocol::StreamErrorContext ctx{id_, model_, options_.created};
    int status = event.error_status != 0 ? event.error_status : 500;
    out += protocol::renderStreamError(Protocol::Anthropic, status,
                                       event.text.empty() ? "upstream error" : event.text, ctx);
    finished_ = true;
  }

  EncodeOptions options_;
  std::string id_;
  std::string model_;
  std::string data_;  ///< the frame being written (kept to reuse its capacity)
  Usage usage_;
  std::optional<OpenBlock> open_;
  int next_index_ = 0;
  bool start_pending_ = false;
  bool started_ = false;
  bool finished_ = false;
  bool any_call_ = false;
};

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options) {
  return std::make_unique<Encoder>(options);
}

}  // namespace llmux::translate::anthropic
