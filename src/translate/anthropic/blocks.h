#pragma once

// Anthropic content blocks <-> neutral blocks, shared by the request and response codecs.

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "translate/anthropic/json_out.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic {

/// Decodes one content block (text, image, document, tool_use, tool_result, thinking,
/// redacted_thinking) and appends it to `out`. Blocks the neutral model cannot hold (server tool
/// blocks, search results, ...) append nothing and add their type to `dropped`, as do fields of a
/// block that are lost (citations, cache_control ttl, document titles). A malformed block is an
/// InvalidRequest error naming `where` (e.g. "messages.2.content.0").
Result<void> decodeBlock(boost::json::object const& block, std::string_view where,
                         std::vector<Block>& out, std::vector<std::string>& dropped);

/// `arguments` when it is the text of a JSON object, "{}" otherwise (Anthropic's tool_use.input
/// must be an object; an upstream's unparsable arguments cannot be carried).
std::string_view argumentsObject(std::string_view arguments);

/// Writes a block of an assistant answer for an Anthropic client: text, thinking (with the
/// signature thinkingSignature gives it — `next` is the block after it, nullptr when none — or
/// unsignedThinkingSignature's; a thinking block with neither text nor signature is left out),
/// redacted_thinking (with a carried signature only), tool_use (id from toolUseId with `id_seed`
/// and `n`). Other types write nothing; returns whether it wrote.
bool writeAnswerBlock(JsonOut& out, Block const& block, Block const* next,
                      std::string_view id_seed, std::size_t n);

}  // namespace llmux::translate::anthropic
