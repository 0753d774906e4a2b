// Neutral events as the Responses API's event stream (REFERENCE.md §2.4, CLIENTS.md): `event:`
// lines, a running sequence_number, output items added/done in opening order, content parts,
// deltas, and one terminal event whose response repeats every item with the usage.
#include "protocol/error_shapes.h"
#include "translate/errors.h"
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/json_out.h"
#include "translate/openai_responses/output_items.h"
#include "translate/openai_responses/wire.h"

namespace llmux::translate::openai_responses {
namespace {

enum class Open { None, Message, FunctionCall, Reasoning, Ignored };

class Encoder final : public StreamEncoder {
 public:
  explicit Encoder(EncodeOptions options) : options_(std::move(options)) {}

  void encode(Event const& event, std::string& out) override;

 private:
  // Frames: `event: <type>` + `data: {"type":…,"sequence_number":…` + members + `}`.
  void begin(std::string& out, std::string_view type);
  void end(std::string& out) { out += "}\n\n"; }
  void itemRef(std::string& out);  // ,"item_id":…,"output_index":…

  void start(std::string_view id, std::string_view model, std::string& out);
  void openBlock(Block const& block, std::string& out);
  void addItem(std::string& out);
  void closeBlock(std::string& out);
  void textDelta(std::string_view text, std::string& out);
  void thinkingDelta(std::string_view text, std::string& out);
  void argumentsDelta(std::string_view text, std::string& out);
  void finish(StopReason stop, std::string& out);
  void fail(int status, std::string_view message, std::string& out);

  EncodeOptions options_;
  ResponseHead head_;
  std::string stem_;  ///< the response id without "resp_", for item ids
  bool started_ = false;
  bool finished_ = false;
  std::int64_t sequence_ = 0;
  std::int64_t next_output_ = 0;
  std::string output_ = "[";  ///< completed items, for the terminal response
  std::optional<Usage> usage_;

  // The item being streamed.
  Open open_ = Open::None;
  OutputItem item_;
  std::int64_t output_index_ = 0;
  bool added_ = false;      ///< its output_item.added went out
  bool part_open_ = false;  ///< Reasoning: its summary part was added
  std::string text_;        ///< text, arguments or summary so far
  std::string signature_;
  std::optional<Protocol> signature_origin_;
  bool signature_ours_ = false;
  bool redacted_ = false;
  bool keep_empty_ = false;  ///< Reasoning: an upstream Responses item, shown even when empty
};

void Encoder::begin(std::string& out, std::string_view type) {
  out += "event: ";
  out += type;
  out += "\ndata: {\"type\":\"";
  out += type;
  out += "\",\"sequence_number\":";
  out += std::to_string(sequence_++);
}

void Encoder::itemRef(std::string& out) {
  out += ",\"item_id\":";
  appendString(out, item_.id);
  out += ",\"output_index\":";
  out += std::to_string(output_index_);
}

void Encoder::start(std::string_view id, std::string_view model, std::string& out) {
  if (started_) return;
  started_ = true;
  head_.id = protocolId("resp_", id.empty() ? std::string_view(options_.id) : id, options_.id);
  head_.model = options_.model.empty() ? std::string(model) : options_.model;
  head_.created_at = options_.created;
  stem_ = head_.id.substr(5);
  for (std::string_view type : {"response.created", "response.in_progress"}) {
    begin(out, type);
    out += ",\"response\":";
    appendResponseObject(out, head_, "in_progress", "", "[]", nullptr);
    end(out);
  }
}

void Encoder::encode(Event const& event, std::string& out) {
  if (finished_) return;
  switch (event.type) {
    case EventType::MessageStart:
      start(event.id, event.model, out);
      return;
    case EventType::UsageUpdate:
      usage_ = event.usage;
      return;
    case EventType::Error:
      fail(event.error_status, event.text, out);
      return;
    default:
      break;
  }
  start("", "", out);
  switch (event.type) {
    case EventType::BlockStart:
      openBlock(event.block, out);
      break;
    case EventType::TextDelta:
      textDelta(event.text, out);
      break;
    case EventType::ThinkingDelta:
      thinkingDelta(event.text, out);
      break;
    case EventType::SignatureDelta:
      if (open_ == Open::None) openBlock(Block{.type = BlockType::Thinking}, out);
      if (open_ == Open::Reasoning) signature_ += event.text;
      break;
    case EventType::ArgumentsDelta:
      argumentsDelta(event.text, out);
      break;
    case EventType::BlockStop:
      closeBlock(out);
      break;
    case EventType::MessageStop:
      finish(event.stop, out);
      break;
    default:
      break;
  }
}

void Encoder::openBlock(Block const& block, std::string& out) {
  closeBlock(out);  // blocks do not interleave; a missing stop is supplied
  item_ = OutputItem{};
  text_.clear();
  signature_.clear();
  added_ = false;
  part_open_ = false;
  output_index_ = next_output_;
  std::string n = "_" + std::to_string(output_index_);
  auto idFor = [&](std::string_view prefix) {
    bool keep = block.item_id.starts_with(prefix) && block.item_id.size() > prefix.size();
    return keep ? block.item_id : std::string(prefix) + stem_ + n;
  };
  switch (block.type) {
    case BlockType::Text:
      open_ = Open::Message;
      item_.kind = ItemKind::Message;
      item_.id = idFor("msg_");
      addItem(out);
      begin(out, "response.content_part.added");
      itemRef(out);
      out +=
          ",\"content_index\":0,\"part\":{\"type\":\"output_text\",\"annotations\":[],"
          "\"logprobs\":[],\"text\":\"\"}";
      end(out);
      break;
    case BlockType::ToolCall:
      open_ = Open::FunctionCall;
      item_.kind = ItemKind::FunctionCall;
      item_.id = idFor("fc_");
      item_.call_id = block.id.empty() ? "call_" + stem_ + n : block.id;
      item_.name = block.name;
      addItem(out);
      if (!block.arguments.empty() && block.arguments != "{}") argumentsDelta(block.arguments, out);
      break;
    case BlockType::Thinking:
    case BlockType::RedactedThinking:
      // Held until there is something to show (text, or encrypted content: the upstream's own or
      // another provider's signature, tagged); a block with neither becomes no item at all.
      open_ = Open::Reasoning;
      item_.kind = ItemKind::Reasoning;
      signature_ours_ = block.signature_origin == Protocol::OpenAiResponses;
      signature_origin_ = block.signature_origin;
      redacted_ = block.type == BlockType::RedactedThinking;
      // An upstream item id is kept only with its own encrypted reasoning; others are minted.
      item_.id = signature_ours_ && block.item_id.starts_with("rs_") && block.item_id.size() > 3
                     ? block.item_id
                     : mintedReasoningId(stem_, static_cast<std::size_t>(output_index_));
      keep_empty_ = signature_ours_ && item_.id == block.item_id;
      signature_ = block.signature;
      if (block.type == BlockType::Thinking && !block.text.empty()) thinkingDelta(block.text, out);
      break;
    default:
      open_ = Open::Ignored;  // images, documents: no streamed output item
      break;
  }
}

void Encoder::addItem(std::string& out) {
  added_ = true;
  ++next_output_;
  begin(out, "response.output_item.added");
  out += ",\"output_index\":";
  out += std::to_string(output_index_);
  out += ",\"item\":";
  appendOutputItem(out, item_, false);
  end(out);
}

void Encoder::textDelta(std::string_view text, std::string& out) {
  if (open_ != Open::Message) openBlock(Block{.type = BlockType::Text}, out);
  if (text.empty()) return;
  begin(out, "response.output_text.delta");
  itemRef(out);
  out += ",\"content_index\":0,\"delta\":";
  appendString(out, text);
  out += ",\"logprobs\":[]";
  end(out);
  text_ += text;
}

void Encoder::thinkingDelta(std::string_view text, std::string& out) {
  if (open_ != Open::Reasoning) openBlock(Block{.type = BlockType::Thinking}, out);
  if (text.empty()) return;
  if (!added_) addItem(out);
  if (!part_open_) {
    part_open_ = true;
    begin(out, "response.reasoning_summary_part.added");
    itemRef(out);
    out += ",\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":\"\"}";
    end(out);
  }
  begin(out, "response.reasoning_summary_text.delta");
  itemRef(out);
  out += ",\"summary_index\":0,\"delta\":";
  appendString(out, text);
  end(out);
  text_ += text;
}

void Encoder::argumentsDelta(std::string_view text, std::string& out) {
  if (open_ != Open::FunctionCall) openBlock(Block{.type = BlockType::ToolCall}, out);
  if (text.empty()) return;
  begin(out, "response.function_call_arguments.delta");
  itemRef(out);
  out += ",\"delta\":";
  appendString(out, text);
  end(out);
  text_ += text;
}

void Encoder::closeBlock(std::string& out) {
  Open was = open_;
  if (was == Open::FunctionCall && text_.empty()) {
    argumentsDelta("{}", out);  // a call without arguments takes none
  }
  open_ = Open::None;
  switch (was) {
    case Open::Message:
      item_.texts.push_back(text_);
      begin(out, "response.output_text.done");
      itemRef(out);
      out += ",\"content_index\":0,\"text\":";
      appendString(out, text_);
      out += ",\"logprobs\":[]";
      end(out);
      begin(out, "response.content_part.done");
      itemRef(out);
      out +=
          ",\"content_index\":0,\"part\":{\"type\":\"output_text\",\"annotations\":[],"
          "\"logprobs\":[],\"text\":";
      appendString(out, text_);
      out += '}';
      end(out);
      break;
    case Open::FunctionCall:
      item_.arguments = text_;
      begin(out, "response.function_call_arguments.done");
      itemRef(out);
      out += ",\"arguments\":";
      appendString(out, text_);
      end(out);
      break;
    case Open::Reasoning:
      item_.encrypted = clientEncryptedContent(signature_, signature_origin_, redacted_);
      // Nothing for this client, unless it is an upstream Responses item (its id counts).
      if (!added_ && item_.encrypted.empty() && !keep_empty_) return;
      if (!added_) addItem(out);
      if (part_open_) {
        item_.texts.push_back(text_);
        begin(out, "response.reasoning_summary_text.done");
        itemRef(out);
        out += ",\"summary_index\":0,\"text\":";
        appendString(out, text_);
        end(out);
        begin(out, "response.reasoning_summary_part.done");
        itemRef(out);
        out += ",\"summary_index\":0,\"part\":{\"type\":\"summary_text\",\"text\":";
        appendString(out, text_);
        out += '}';
        end(out);
      }
      break;
    case Open::None:
    case Open::Ignored:
      return;
  }
  begin(out, "response.output_item.done");
  out += ",\"output_index\":";
  out += std::to_string(output_index_);
  out += ",\"item\":";
  std::size_t at = out.size();
  appendOutputItem(out, item_, true);
  if (output_.size() > 1) output_.push_back(',');
  output_.append(out, at, out.size() - at);
  end(out);
}

void Encoder::finish(StopReason stop, std::string& out) {
  closeBlock(out);
  StatusOut status = statusFor(stop);
  std::string_view type =
      status.status == "completed" ? "response.completed" : "response.incomplete";
  begin(out, type);
  out += ",\"response\":";
  output_.push_back(']');
  appendResponseObject(out, head_, status.status, status.incomplete_reason, output_,
                       usage_ ? &*usage_ : nullptr);
  end(out);
  finished_ = true;
}

void Encoder::fail(int status, std::string_view message, std::string& out) {
  start("", "", out);
  if (status < 400) status = 500;
  protocol::OpenAiErrorClass cls = protocol::openAiErrorClass(status);
  // response.error.code is a required string: the type stands in when OpenAI has no code. Codex
  // recognises a context overflow by OpenAI's code only.
  std::string_view code = cls.code.empty() ? cls.type : cls.code;
  if (isContextOverflow("", message)) {
    cls.type = "invalid_request_error";
    code = "context_length_exceeded";
  }
  // The SDK's type reads code/message at the top, the API nests them: write both (REFERENCE §2.4).
  begin(out, "error");
  out += ",\"code\":";
  appendString(out, code);
  out += ",\"message\":";
  appendString(out, message);
  out += ",\"param\":null,\"error\":{\"type\":";
  appendString(out, cls.type);
  out += ",\"code\":";
  appendString(out, code);
  out += ",\"message\":";
  appendString(out, message);
  out += ",\"param\":null}";
  end(out);

  std::string error = "{\"code\":";
  appendString(error, code);
  error += ",\"message\":";
  appendString(error, message);
  error += '}';
  begin(out, "response.failed");
  out += ",\"response\":";
  output_.push_back(']');
  appendResponseObject(out, head_, "failed", "", output_, usage_ ? &*usage_ : nullptr, error);
  end(out);
  finished_ = true;
}

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options) {
  return std::make_unique<Encoder>(options);
}

}  // namespace llmux::translate::openai_responses
