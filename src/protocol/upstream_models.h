#pragma once

// Reading an upstream's model list and a relay's balance (no I/O: the gateway's inspection
// fetches the bytes; docs/operations.md, "Model lists and balances").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/wire_protocol.h"

namespace llmux::protocol {

/// One page of a model list.
struct ModelListPage {
  std::vector<std::string> ids;  ///< in the upstream's order
  /// The query that asks for the next page ("after_id=...", "pageToken=..."), nullopt on the
  /// last page.
  std::optional<std::string> next_query;
};

/// A model list page as `protocol`'s provider answers it: OpenAI and Anthropic `data[].id`
/// (Anthropic pages on `has_more` / `last_id`), Gemini `models[].name` without "models/" (pages
/// on `nextPageToken`). An error when the body is not such a list.
Result<ModelListPage> parseModelListPage(Protocol protocol, std::string_view body);

/// The number at the RFC 6901 `pointer` in the JSON `body` (a JSON number, or a string holding
/// one, as some relays send amounts); an error naming what was missing.
Result<double> numberAtPointer(std::string_view body, std::string_view pointer);

/// An OpenAI-style relay's balance in USD (new-api, one-api): the `hard_limit_usd` of
/// GET /v1/dashboard/billing/subscription less the `total_usage` (in cents) of
/// GET /v1/dashboard/billing/usage.
Result<double> openAiBillingBalance(std::string_view subscription_body,
                                    std::string_view usage_body);

}  // namespace llmux::protocol
