#pragma once

// Reasoning signatures carried through a client of another protocol (REFERENCE.md §9.5, §9.6).
// Only the provider that minted a signature can read it, so it travels to the client inside that
// client's own opaque field — an Anthropic thinking block's `signature`, a Responses reasoning
// item's `encrypted_content` — tagged "llmux:<protocol>:" (and "redacted:" for redacted reasoning)
// so that a later turn restores it for that provider's upstream and drops it for every other one.

#include <optional>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::translate {

/// The tag every carried signature starts with.
inline constexpr std::string_view kSignatureTag = "llmux:";

/// "llmux:<protocol>:" + ("redacted:" when `redacted`) + `signature`.
std::string tagSignature(std::string_view signature, Protocol origin, bool redacted = false);

/// What a client sent back in its opaque field.
struct CarriedSignature {
  std::string value;               ///< the provider's own signature, tag removed
  std::optional<Protocol> origin;  ///< who minted it; nullopt when `value` is empty
  bool redacted = false;           ///< redacted reasoning (Anthropic's redacted_thinking data)
};

/// The reverse of tagSignature. A value without the tag is the client protocol's own
/// (`untagged_origin`).
CarriedSignature untagSignature(std::string_view text, Protocol untagged_origin);

}  // namespace llmux::translate
