// Neutral events as an OpenAI Chat Completions stream (REFERENCE.md §1.4), chunk by chunk, the
// way the official SDK's accumulator expects it: `role` on the first delta, every tool call under
// its own `tool_calls[].index` with its id and name only on its first fragment, the finish chunk,
// the usage chunk (`choices: []`) only when the client asked for it, then `data: [DONE]`.

#include <string>
#include <map>

#include "protocol/error_shapes.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/json_out.h"
#include "translate/openai_chat/wire.h"
#include "translate/usage.h"

namespace llmux::translate::openai_chat {
namespace {

class ChatStreamEncoder final : public StreamEncoder {
 public:
  explicit ChatStreamEncoder(EncodeOptions options) : options_(std::move(options)) {}

  void encode(Event const& event, std::string& out) override {
    if (ended_) return;
    switch (event.type) {
      case EventType::MessageStart: begin(event.id, event.model, out); break;
      case EventType::BlockStart: onBlockStart(event, out); break;
      case EventType::TextDelta: contentDelta("content", event.text, out); break;
      case EventType::ThinkingDelta: contentDelta("reasoning_content", event.text, out); break;
      case EventType::ArgumentsDelta: argumentsDelta(event, out); break;
      case EventType::SignatureDelta: break;  // no Chat form: only meaningful upstream
      case EventType::BlockStop: closeTool(event.index, out); break;
      case EventType::UsageUpdate: usage_ = event.usage; break;
      case EventType::MessageStop: end(event.stop, out); break;
      case EventType::Error: error(event, out); break;
    }
  }

 private:
  /// The role chunk, once, before anything else (also when MessageStart never came).
  void begin(std::string_view id, std::string_view model, std::string& out) {
    if (started_) return;
    started_ = true;
    id_ = completionId(id, options_.id.empty() ? std::string_view("llmux") : options_.id);
    model_ = options_.model.empty() ? std::string(model) : options_.model;
    // Everything a chunk starts with, written once.
    JsonOut head(prefix_);
    prefix_ = "data: ";
    head.beginObject().str("id", id_).str("object", "chat.completion.chunk");
    head.num("created", options_.created).str("model", model_);
    head.key("choices");
    chunk(out, R"({"role":"assistant","content":""})");
  }

  /// One chunk whose only choice carries `delta` (a JSON object text).
  void chunk(std::string& out, std::string_view delta, std::string_view finish_reason = {}) {
    out.append(prefix_);
    out.append(R"([{"index":0,"delta":)");
    out.append(delta);
    out.append(R"(,"logprobs":null,"finish_reason":)");
    if (finish_reason.empty()) {
      out.append("null");
    } else {
      out.push_back('"');
      out.append(finish_reason);
      out.push_back('"');
    }
    out.append("}]");
    if (options_.include_usage) out.append(R"(,"usage":null)");
    out.append("}\n\n");
  }

  void onBlockStart(Event const& event, std::string& out) {
    begin({}, {}, out);
    if (event.block.type != BlockType::ToolCall) return;
    int tool_index = static_cast<int>(tool_indexes_.size());
    tool_indexes_[event.index] = ToolState{tool_index, false};
    std::string call_id =
        event.block.id.empty() ? inventedCallId(id_, tool_indexes_.size() - 1) : event.block.id;
    scratch_.clear();
    JsonOut d(scratch_);
    d.beginObject().beginArray("tool_calls").beginObject().num("index", std::int64_t{tool_index});
    d.str("id", call_id).str("type", "function").beginObject("function");
    d.str("name", event.block.name).str("arguments", "").endObject().endObject().endArray();
    d.endObject();
    chunk(out, scratch_);
  }

  void contentDelta(std::string_view field, std::string_view text, std::string& out) {
    begin({}, {}, out);
    if (text.empty()) return;
    output_bytes_ += text.size();
    scratch_.clear();
    JsonOut d(scratch_);
    d.beginObject().str(field, text).endObject();
    chunk(out, scratch_);
  }

  void argumentsDelta(Event const& event, std::string& out) {
    begin({}, {}, out);
    auto it = tool_indexes_.find(event.index);
    // Fragments of a call whose start never came cannot be placed (no id, no name).
    if (it == tool_indexes_.end() || event.text.empty()) return;
    output_bytes_ += event.text.size();
    it->second.has_arguments = true;
    writeArguments(it->second.index, event.text, out);
  }

  void writeArguments(int tool_index, std::string_view arguments, std::string& out) {
    scratch_.clear();
    JsonOut d(scratch_);
    d.beginObject().beginArray("tool_calls").beginObject().num("index", std::int64_t{tool_index});
    d.beginObject("function").str("arguments", arguments).endObject().endObject().endArray();
    d.endObject();
    chunk(out, scratch_);
  }

  /// A call that ends without arguments gets "{}", as OpenAI sends it: the client parses the
  /// joined fragments as JSON.
  void closeTool(int block_index, std::string& out) {
    auto it = tool_indexes_.find(block_index);
    if (it == tool_indexes_.end() || it->second.has_arguments) return;
    it->second.has_arguments = true;
    writeArguments(it->second.index, "{}", out);
  }

  void end(StopReason stop, std::string& out) {
    begin({}, {}, out);
    for (auto const& entry : tool_indexes_) closeTool(entry.first, out);
    chunk(out, "{}", finishReasonFor(stop, !tool_indexes_.empty()));
    if (options_.include_usage) {
      Usage usage = usage_.value_or(Usage{});
      // The zero-completion fallback (usage.h): output counted as 0 for content that was sent.
      if (usage.output == 0 && output_bytes_ > 0) {
        usage.output = estimateTokensForBytes(output_bytes_);
        usage.estimated = true;
      }
      std::string body;
      JsonOut u(body);
      out.append(prefix_, 0, prefix_.size() - std::string_view(R"("choices":)").size());
      u.key("choices").beginArray().endArray();
      writeUsage(u, usage);
      out.append(body);
      out.append("}\n\n");
    }
    out.append("data: [DONE]\n\n");
    ended_ = true;
  }

  void error(Event const& event, std::string& out) {
    protocol::StreamErrorContext context;
    context.response_id = id_;
    context.model = model_.empty() ? options_.model : model_;
    context.created_at = options_.created;
    int status = event.error_status >= 400 ? event.error_status : 500;
    out.append(protocol::renderStreamError(Protocol::OpenAiChat, status, event.text, context));
    ended_ = true;
  }

  EncodeOptions options_;
  bool started_ = false;
  bool ended_ = false;
  std::string id_, model_;
  std::string prefix_;   ///< `data: {"id":…,"model":…,"choices":`
  std::string scratch_;  ///< the delta being written
  struct ToolState {
    int index = 0;               ///< its tool_calls[].index
    bool has_arguments = false;  ///< a non-empty fragment went out
  };
  std::map<int, ToolState> tool_indexes_;  ///< by neutral block index
  std::optional<Usage> usage_;
  std::size_t output_bytes_ = 0;
};

}  // namespace

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options) {
  return std::make_unique<ChatStreamEncoder>(options);
}

}  // namespace llmux::translate::openai_chat
