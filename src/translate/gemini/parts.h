#pragma once

// Gemini `parts` ↔ neutral blocks, the pieces shared by the request, response and stream codecs.
//
// Conventions (docs/translation.md):
//  * `{"text", "thought": true}` is a Thinking block; any part's `thoughtSignature` goes into the
//    block's `signature` with `signature_origin = Gemini`.
//  * An empty, non-thought text part that carries only a signature (Gemini puts one on the last
//    chunk of an answer) is a Thinking block with empty text: other protocols drop it, Gemini gets
//    `{"text": "", "thoughtSignature": …}` back.
//  * inlineData / fileData are Image blocks for image/* types and Document blocks otherwise;
//    Gemini Files API and gs:// URIs are kept as `file_id` (they mean nothing elsewhere).
//  * A functionResponse's `response` object becomes the result's text: the value of a lone
//    `output` / `result` / `content` / `return_value` member, a lone `error` member marks the
//    result as an error (Gemini's own convention), anything else is the object's JSON text.

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "translate/neutral.h"

namespace llmux::translate::gemini::detail {

/// The thoughtSignature Google documents for function calls Gemini did not produce itself
/// (history from another model): Gemini 3 rejects a turn whose first function call carries no
/// signature ("missing thought_signature"). Request encoders send it upstream; answer encoders
/// give it to a Gemini client, so that the client's next turn passes when it is served by Gemini
/// directly (passthrough).
inline constexpr std::string_view kForeignCallSignature = "skip_thought_signature_validator";

/// Whether function calls for `model` need kForeignCallSignature: Gemini 3 checks signatures,
/// 1.x and 2.x do not; names that do not say their version (aliases) get it.
bool needsForeignCallSignature(std::string_view model);

/// The part's thoughtSignature ("" when none).
std::string_view partSignature(boost::json::object const& part);

/// Whether `uri` only means something to Gemini (Files API, Cloud Storage).
bool isGeminiFileUri(std::string_view uri);

/// An inlineData / fileData part as an Image or Document block; nullopt when the part is neither.
/// InvalidRequest when it is one but malformed (no data, no URI).
std::optional<Result<Block>> mediaBlock(boost::json::object const& part);

/// A functionResponse object as a ToolResult block (id and name as given, possibly empty).
Result<Block> toolResultBlock(boost::json::object const& function_response);

/// Media type guessed from the first bytes of base64 data or a URL's extension; "" if unknown.
std::string guessMediaType(std::string_view base64_data, std::string_view url);

/// Splits a `data:<type>;base64,<payload>` URL; nullopt for anything else.
std::optional<std::pair<std::string, std::string>> splitDataUrl(std::string_view url);

/// Appends the member `"inlineData":{…}` or `"fileData":{…}` for an Image / Document block (data
/// URLs become inlineData). Returns false, appending nothing, when the block cannot be expressed
/// for Gemini (a file id of another provider).
bool appendMediaMember(std::string& out, Block const& block);

/// Appends a text part: `{"text":…}`, with `"thought":true` for a thought summary and the
/// signature when one is given.
void appendTextPart(std::string& out, std::string_view text, bool thought,
                    std::string_view signature);

/// Appends a function-call part: `{"functionCall":{"name","args","id"?},"thoughtSignature"?}`.
/// `args_object` must be a compact JSON object text.
void appendCallPart(std::string& out, std::string_view name, std::string_view args_object,
                    std::string_view id, std::string_view signature);

/// The signature to send Gemini for `block`: its own when Gemini minted it, "" otherwise.
std::string_view geminiSignature(Block const& block);

}  // namespace llmux::translate::gemini::detail
