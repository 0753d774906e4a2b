#pragma once

#include <string>

#include "core/wire_protocol.h"
#include "e2e/support/recording_upstream.h"

// Answers of an upstream that speaks like a provider of each protocol (non-stream), so the
// gateway can serve clients from a RecordingUpstream: shared by the security and passthrough
// scenarios.
namespace llmux::e2e {

/// A minimal successful non-stream answer in `protocol` (raw response bytes).
std::string providerAnswerIn(Protocol protocol);

/// The same for the protocol the request's standard path names (/v1/messages,
/// /v1/chat/completions, /v1/responses, Gemini's :generateContent; OpenAI Chat otherwise).
std::string providerAnswer(RecordedRequest const& request);

}  // namespace llmux::e2e
