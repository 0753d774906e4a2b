#pragma once

#include <string>
#include <string_view>

// Shared by the security scenarios (their upstream's answers are in provider_answers.h).
namespace llmux::e2e::security {

/// Lines of `text` that contain `needle`, for failure messages.
std::string linesWith(std::string_view text, std::string_view needle);

}  // namespace llmux::e2e::security
