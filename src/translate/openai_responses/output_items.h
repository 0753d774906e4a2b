#pragma once

// Output items and the response object as the Responses API writes them (REFERENCE.md §2.3),
// shared by the response encoder and the stream encoder (whose response.completed repeats them).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "translate/neutral.h"

namespace llmux::translate::openai_responses {

enum class ItemKind { Message, FunctionCall, Reasoning };

/// One output item, in whatever state a stream has it.
struct OutputItem {
  ItemKind kind = ItemKind::Message;
  std::string id;                  ///< msg_… / fc_… / rs_…
  std::vector<std::string> texts;  ///< Message: output_text parts; Reasoning: summary parts
  std::string call_id;             ///< FunctionCall
  std::string name;                ///< FunctionCall
  std::string arguments;           ///< FunctionCall: JSON text
  std::string encrypted;           ///< Reasoning: encrypted_content ("" = leave it out)
};

/// Appends the item as `output_item.added` shows it (`done` false: empty content, "in_progress")
/// or as `output_item.done` and the final response show it.
void appendOutputItem(std::string& out, OutputItem const& item, bool done);

/// The top of a response object.
struct ResponseHead {
  std::string id;
  std::string model;
  std::int64_t created_at = 0;
};

/// Appends a whole response object. `output` is the JSON array text of its items; `usage` may be
/// null (in progress). `incomplete_reason` "" writes incomplete_details null; `error` is the JSON
/// text of the error object of a failed response ("" writes null).
void appendResponseObject(std::string& out, ResponseHead const& head, std::string_view status,
                          std::string_view incomplete_reason, std::string_view output,
                          Usage const* usage, std::string_view error = {});

}  // namespace llmux::translate::openai_responses
