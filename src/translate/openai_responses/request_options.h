#pragma once

// Top-level options of a Responses API request body, decoded into the neutral request.

#include <boost/json/value.hpp>
#include <string>

#include "core/result.h"
#include "translate/neutral.h"

namespace llmux::translate::openai_responses {

/// `tools`: function tools; built-in and namespace tools are recorded in `dropped`.
Result<void> decodeTools(boost::json::value const& value, Request& request);
/// `tool_choice`: a mode string, a named function, or allowed_tools (its mode only).
Result<void> decodeToolChoice(boost::json::value const& value, Request& request);
/// `reasoning`: effort ("none" = off) and summary (the client wants reasoning text back).
Result<void> decodeReasoning(boost::json::value const& value, Request& request);
/// `text`: the output format (json_object, json_schema); verbosity is dropped.
Result<void> decodeText(boost::json::value const& value, Request& request);

/// Records a field the neutral model cannot hold, once.
void dropField(Request& request, std::string name);

}  // namespace llmux::translate::openai_responses
