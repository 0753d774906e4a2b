#pragma once

#include <string>
#include <string_view>

#include "e2e/support/recording_upstream.h"

// Shared by the security scenarios: an upstream that answers like a provider of each protocol
// (non-stream), so the gateway can serve clients from it, while it records every byte.
namespace llmux::e2e::security {

/// A minimal successful non-stream answer for the protocol the request's path names
/// (/v1/messages, /v1/chat/completions, /v1/responses, Gemini's :generateContent).
std::string providerAnswer(RecordedRequest const& request);

/// Lines of `text` that contain `needle`, for failure messages.
std::string linesWith(std::string_view text, std::string_view needle);

}  // namespace llmux::e2e::security
