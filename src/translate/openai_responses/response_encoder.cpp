// The neutral response as a Responses API response object (REFERENCE.md §2.3).
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/output_items.h"
#include "translate/openai_responses/wire.h"

namespace llmux::translate::openai_responses {
namespace {

std::string itemId(std::string_view prefix, std::string_view item_id, std::string_view stem,
                   std::size_t index) {
  if (item_id.starts_with(prefix) && item_id.size() > prefix.size()) return std::string(item_id);
  return std::string(prefix) + std::string(stem) + "_" + std::to_string(index);
}

}  // namespace

std::string encodeResponse(Response const& response, EncodeOptions const& options) {
  ResponseHead head;
  head.id = protocolId("resp_", response.id.empty() ? options.id : response.id, options.id);
  head.model = options.model.empty() ? response.model : options.model;
  head.created_at = options.created;
  std::string_view stem = std::string_view(head.id).substr(5);

  std::vector<OutputItem> items;
  std::string last_text_item;  ///< the item_id of the message item still open, if any
  for (Block const& b : response.content) {
    switch (b.type) {
      case BlockType::Text: {
        // Parts of one upstream message item stay together; other texts get an item each.
        bool join = !items.empty() && items.back().kind == ItemKind::Message &&
                    !b.item_id.empty() && b.item_id == last_text_item;
        if (!join) {
          OutputItem item{.kind = ItemKind::Message,
                          .id = itemId("msg_", b.item_id, stem, items.size())};
          items.push_back(std::move(item));
        }
        items.back().texts.push_back(b.text);
        last_text_item = b.item_id;
        continue;
      }
      case BlockType::ToolCall: {
        OutputItem item{.kind = ItemKind::FunctionCall,
                        .id = itemId("fc_", b.item_id, stem, items.size())};
        item.call_id =
            b.id.empty() ? "call_" + std::string(stem) + "_" + std::to_string(items.size()) : b.id;
        item.name = b.name;
        item.arguments = b.arguments.empty() ? "{}" : b.arguments;
        items.push_back(std::move(item));
        break;
      }
      case BlockType::Thinking:
      case BlockType::RedactedThinking: {
        bool ours = b.signature_origin == Protocol::OpenAiResponses;
        std::string encrypted = clientEncryptedContent(b.signature, b.signature_origin,
                                                       b.type == BlockType::RedactedThinking);
        std::string text = b.type == BlockType::Thinking ? b.text : std::string();
        // Nothing this client can use, unless it is an upstream Responses item (its id counts).
        if (text.empty() && encrypted.empty() && !(ours && !b.item_id.empty())) break;
        // An upstream item id is kept only with its own encrypted reasoning.
        bool upstream_id = ours && b.item_id.starts_with("rs_") && b.item_id.size() > 3;
        OutputItem item{.kind = ItemKind::Reasoning,
                        .id = upstream_id ? b.item_id : mintedReasoningId(stem, items.size())};
        if (!text.empty()) item.texts.push_back(std::move(text));
        item.encrypted = std::move(encrypted);
        items.push_back(std::move(item));
        break;
      }
      default:
        break;  // images, documents and tool results have no output item here
    }
    last_text_item.clear();
  }

  std::string output = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) output.push_back(',');
    appendOutputItem(output, items[i], true);
  }
  output.push_back(']');

  StatusOut status = statusFor(response.stop);
  std::string out;
  out.reserve(output.size() + 768);
  appendResponseObject(out, head, status.status, status.incomplete_reason, output,
                       response.usage ? &*response.usage : nullptr);
  return out;
}

}  // namespace llmux::translate::openai_responses
