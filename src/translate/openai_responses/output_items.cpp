#include "translate/openai_responses/output_items.h"

#include "translate/openai_responses/json_out.h"
#include "translate/openai_responses/wire.h"

namespace llmux::translate::openai_responses {

void appendOutputItem(std::string& out, OutputItem const& item, bool done) {
  ObjectWriter w(out);
  w.str("id", item.id);
  switch (item.kind) {
    case ItemKind::Message: {
      w.str("type", "message").str("status", done ? "completed" : "in_progress");
      std::string& c = w.key("content");
      c.push_back('[');
      if (done) {
        for (std::size_t i = 0; i < item.texts.size(); ++i) {
          if (i > 0) c.push_back(',');
          c += "{\"type\":\"output_text\",\"annotations\":[],\"logprobs\":[],\"text\":";
          appendString(c, item.texts[i]);
          c.push_back('}');
        }
      }
      c.push_back(']');
      w.str("role", "assistant");
      break;
    }
    case ItemKind::FunctionCall:
      w.str("type", "function_call").str("status", done ? "completed" : "in_progress");
      w.str("arguments", done ? std::string_view(item.arguments) : std::string_view());
      w.str("call_id", item.call_id).str("name", item.name);
      break;
    case ItemKind::Reasoning: {
      w.str("type", "reasoning");
      std::string& s = w.key("summary");
      s.push_back('[');
      if (done) {
        for (std::size_t i = 0; i < item.texts.size(); ++i) {
          if (i > 0) s.push_back(',');
          s += "{\"type\":\"summary_text\",\"text\":";
          appendString(s, item.texts[i]);
          s.push_back('}');
        }
      }
      s.push_back(']');
      if (done && !item.encrypted.empty()) w.str("encrypted_content", item.encrypted);
      break;
    }
  }
  w.close();
}

void appendResponseObject(std::string& out, ResponseHead const& head, std::string_view status,
                          std::string_view incomplete_reason, std::string_view output,
                          Usage const* usage, std::string_view error) {
  ObjectWriter w(out);
  w.str("id", head.id).str("object", "response").integer("created_at", head.created_at);
  w.str("status", status).boolean("background", false);
  if (error.empty()) {
    w.null("error");
  } else {
    w.raw("error", error);
  }
  if (incomplete_reason.empty()) {
    w.null("incomplete_details");
  } else {
    std::string& d = w.key("incomplete_details");
    d += "{\"reason\":";
    appendString(d, incomplete_reason);
    d.push_back('}');
  }
  w.null("instructions").null("max_output_tokens").str("model", head.model);
  w.raw("output", output).boolean("parallel_tool_calls", true).null("previous_response_id");
  w.raw("reasoning", "{\"effort\":null,\"summary\":null}").null("temperature");
  w.raw("text", "{\"format\":{\"type\":\"text\"}}").str("tool_choice", "auto").raw("tools", "[]");
  w.null("top_p").str("truncation", "disabled");
  if (usage) {
    appendUsage(w.key("usage"), *usage);
  } else {
    w.null("usage");
  }
  w.null("user").raw("metadata", "{}");
  w.close();
}

}  // namespace llmux::translate::openai_responses
