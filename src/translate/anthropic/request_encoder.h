#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic {

/// encodeRequest (codec.h), also naming in `dropped` what the body leaves out or changes
/// because Anthropic would refuse it (thinking constraints, unsendable blocks, fields it lacks).
Result<std::string> encodeRequestReporting(Request const& request, std::string_view upstream_model,
                                           std::vector<std::string>& dropped);

}  // namespace llmux::translate::anthropic
