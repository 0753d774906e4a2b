#pragma once

#include <cstdint>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::protocol {

/// What a request needs from the model that serves it. The router's gate (routing/
/// capabilities.h) has a struct with the same fields; protocol does not depend on routing, so the
/// caller copies.
struct RequestNeeds {
  bool tools = false;              ///< the request offers at least one tool (function calling)
  bool vision = false;             ///< an image is part of the conversation
  std::int64_t prompt_tokens = 0;  ///< estimate: body bytes / 4, base64 payloads not counted
};

/// Reads what a request body of `protocol` needs, in one pass over the bytes (no document tree).
///  - tools: a non-empty top-level `tools` array (Chat, Responses, Anthropic); for Gemini, a
///    `tools` entry with a non-empty `functionDeclarations` (search or code execution tools alone
///    are not function calling).
///  - vision: an image part in the conversation (`messages`, Responses `input`, Gemini
///    `contents`): Chat `{"type": "image_url"}`, Responses `{"type": "input_image"}`, Anthropic
///    `{"type": "image"}` (tool results included), Gemini `inlineData` / `fileData` with an image/*
///    mimeType.
///  - prompt_tokens: about 4 bytes of JSON per token, the usual rule of thumb for English text
///    and code; it overestimates a little (JSON punctuation) which is the safe side for a context
///    window check. Strings holding base64 data in the conversation (a `data` field or a `data:`
///    URI) are left out: an image costs a fixed number of tokens, not its size.
/// A body that is not a JSON object gets only the size estimate.
RequestNeeds needsOf(Protocol protocol, std::string_view body);

}  // namespace llmux::protocol
