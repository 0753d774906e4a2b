#pragma once

// Reasoning signatures carried through a client of another protocol (REFERENCE.md §9.5, §9.6).
// Only the provider that minted a signature can read it, so it travels to the client inside that
// client's own opaque field — an Anthropic thinking block's `signature`, a Responses reasoning
// item's `encrypted_content` — tagged "llmux:<protocol>:" (then "redacted:" for redacted
// reasoning, "next:" for a signature of the part after the carrier) so that a later turn restores
// it for that provider's upstream and drops it for every other one. The tag alone,
// "llmux:<protocol>:", is reasoning that provider did not sign: a client that needs a non-empty
// signature gets one, and a later turn reads it back as none.

#include <optional>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::translate {

/// The tag every carried signature starts with.
inline constexpr std::string_view kSignatureTag = "llmux:";

/// What a carried signature belongs to.
enum class SignatureKind {
  Reasoning,  ///< the reasoning block that carries it
  Redacted,   ///< redacted reasoning (Anthropic's redacted_thinking data)
  /// The part right after the carrier in the client's history: Gemini signs its thoughts on the
  /// function call or text part that follows them, which an Anthropic client cannot sign.
  NextPart,
};

/// "llmux:<protocol>:" + ("redacted:" | "next:" by `kind`) + `signature`.
std::string tagSignature(std::string_view signature, Protocol origin,
                         SignatureKind kind = SignatureKind::Reasoning);

/// What a client sent back in its opaque field.
struct CarriedSignature {
  std::string value;               ///< the provider's own signature, tag removed ("" when none)
  std::optional<Protocol> origin;  ///< who minted it; nullopt when the field was empty
  SignatureKind kind = SignatureKind::Reasoning;
};

/// The reverse of tagSignature. A value without the tag is the client protocol's own
/// (`untagged_origin`).
CarriedSignature untagSignature(std::string_view text, Protocol untagged_origin);

}  // namespace llmux::translate
