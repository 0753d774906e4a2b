// Neutral events → the stream a Gemini client expects (REFERENCE §4.4, §9.4; CLIENTS.md):
// `data: <GenerateContentResponse>\r\n\r\n` frames with no event names and no terminator, each
// chunk holding only new parts plus the latest usageMetadata; the last chunk carries finishReason
// and the final usage. Text and thoughts go out as they arrive; a function call goes out whole
// when its block ends, because Gemini's `args` is a complete object. Without `?alt=sse` the same
// chunks are written as the elements of one JSON array.
#include <optional>
#include <string>

#include "protocol/error_shapes.h"
#include "translate/gemini/codec.h"
#include "translate/gemini/common.h"
#include "translate/gemini/parts.h"

namespace llmux::translate::gemini {

using namespace detail;

namespace {

class Encoder final : public StreamEncoder {
 public:
  Encoder(EncodeOptions options, StreamFraming framing)
      : options_(std::move(options)), framing_(framing), id_(options_.id), model_(options_.model) {}

  void encode(Event const& event, std::string& out) override {
    if (over_) return;
    switch (event.type) {
      case EventType::MessageStart:
        if (!event.id.empty()) id_ = event.id;
        if (options_.model.empty() && !event.model.empty()) model_ = event.model;
        break;
      case EventType::BlockStart:
        blockStart(event.block, out);
        break;
      case EventType::TextDelta:
        if (open_ && type_ == BlockType::Text) textPart(event.text, false, out);
        break;
      case EventType::ThinkingDelta:
        if (open_ && type_ == BlockType::Thinking) textPart(event.text, true, out);
        break;
      case EventType::SignatureDelta:
        // Only Gemini can read a Gemini signature; another provider's is dropped.
        if (open_ && gemini_signatures_) pending_signature_ += event.text;
        break;
      case EventType::ArgumentsDelta:
        if (open_ && type_ == BlockType::ToolCall) call_arguments_ += event.text;
        break;
      case EventType::BlockStop:
        blockStop(out);
        break;
      case EventType::UsageUpdate:
        usage_ = event.usage;
        break;
      case EventType::MessageStop:
        blockStop(out);
        finalChunk(event.stop, out);
        break;
      case EventType::Error:
        errorFrame(event, out);
        break;
    }
  }

 private:
  void blockStart(Block const& block, std::string& out) {
    blockStop(out);
    open_ = true;
    type_ = block.type;
    emitted_ = false;
    gemini_signatures_ = block.signature_origin == Protocol::Gemini;
    pending_signature_ = std::string(geminiSignature(block));
    if (block.type == BlockType::ToolCall) {
      call_id_ = block.id;
      call_name_ = block.name;
      call_arguments_.clear();  // the arguments come as ArgumentsDelta events
    } else if (block.type == BlockType::Image || block.type == BlockType::Document) {
      std::string part = "{";
      if (appendMediaMember(part, block)) {
        part += '}';
        chunk(part, {}, out);
      }
      open_ = false;
    } else if (block.type != BlockType::Text && block.type != BlockType::Thinking) {
      open_ = false;  // redacted thinking, results: nothing a Gemini client can read
    }
  }

  void textPart(std::string_view text, bool thought, std::string& out) {
    if (text.empty()) return;
    std::string part;
    appendTextPart(part, text, thought, pending_signature_);
    pending_signature_.clear();
    emitted_ = true;
    chunk(part, {}, out);
  }

  void blockStop(std::string& out) {
    if (!open_) return;
    open_ = false;
    if (type_ == BlockType::ToolCall) {
      // A call another provider made has no Gemini signature: the client must still be able to
      // send it back to Gemini 3 itself (the first call of a turn is the one Gemini checks).
      if (pending_signature_.empty() && !call_sent_ && needsForeignCallSignature(model_)) {
        pending_signature_ = kForeignCallSignature;
      }
      call_sent_ = true;
      std::string part;
      appendCallPart(part, call_name_, argumentsObjectText(call_arguments_), call_id_,
                     pending_signature_);
      pending_signature_.clear();
      chunk(part, {}, out);
      return;
    }
    if (pending_signature_.empty()) return;
    // A signature that came after the text (or alone): it goes on an empty part of its own.
    std::string part;
    appendTextPart(part, "", type_ == BlockType::Thinking && emitted_, pending_signature_);
    pending_signature_.clear();
    chunk(part, {}, out);
  }

  void finalChunk(StopReason stop, std::string& out) {
    if (!usage_) usage_ = Usage{};
    chunk("{\"text\":\"\"}", finishReasonFor(stop), out);
    if (framing_ == StreamFraming::JsonArray) out += "\n]";
    over_ = true;
  }

  void errorFrame(Event const& event, std::string& out) {
    int status = event.error_status >= 400 && event.error_status <= 599 ? event.error_status : 500;
    if (framing_ == StreamFraming::Sse) {
      protocol::StreamErrorContext context{id_, model_, options_.created};
      out += protocol::renderStreamError(Protocol::Gemini, status, event.text, context);
    } else {
      std::string body = protocol::renderErrorBody(Protocol::Gemini, status, event.text);
      out += started_ ? "\n,\r\n" : "[";
      out += body;
      out += "\n]";
    }
    over_ = true;
  }

  /// One GenerateContentResponse holding `parts` (a comma-separated list of part objects).
  void chunk(std::string_view parts, std::string_view finish, std::string& out) {
    std::string body = "{\"candidates\":[{\"content\":{\"parts\":[";
    body += parts;
    body += "],\"role\":\"model\"}";
    if (!finish.empty()) {
      body += ",\"finishReason\":\"";
      body += finish;
      body += '"';
    }
    body += ",\"index\":0}]";
    if (usage_) {
      body += ',';
      appendUsageMetadata(body, *usage_);
    }
    body += ",\"modelVersion\":";
    appendJsonText(body, model_);
    body += ",\"responseId\":";
    appendJsonText(body, id_);
    body += '}';
    if (framing_ == StreamFraming::Sse) {
      out += "data: ";
      out += body;
      out += "\r\n\r\n";
    } else {
      out += started_ ? "\n,\r\n" : "[";
      out += body;
    }
    started_ = true;
  }

  EncodeOptions options_;
  StreamFraming framing_;
  std::string id_;
  std::string model_;
  std::optional<Usage> usage_;
  bool started_ = false;  ///< a chunk was written
  bool over_ = false;     ///< the final chunk or an error was written

  bool open_ = false;
  BlockType type_ = BlockType::Text;
  bool emitted_ = false;            ///< the open block has written a part
  bool gemini_signatures_ = false;  ///< the open block's signatures are Gemini's
  std::string pending_signature_;
  bool call_sent_ = false;  ///< a function call was written (only the first one needs a signature)
  std::string call_id_;
  std::string call_name_;
  std::string call_arguments_;
};

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options) {
  return std::make_unique<Encoder>(options, StreamFraming::Sse);
}

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options,
                                                 StreamFraming framing) {
  return std::make_unique<Encoder>(options, framing);
}

}  // namespace llmux::translate::gemini
