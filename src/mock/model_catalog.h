#pragma once

// The mock's model lists and relay balances, and the control routes that change them at run
// time (docs/mock-provider.md, "Model lists and balances"): a test makes the upstream add or
// drop a model, or page its list, without restarting the mock.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http_headers.h"
#include "core/wire_protocol.h"
#include "mock/mock_ids.h"
#include "mock/mock_reply.h"

namespace llmux::mock {

struct MockRequest;

/// What GET /mock/state answers and PUT /mock/models, PUT /mock/balance change.
struct CatalogState {
  /// The ids every protocol lists (Gemini's as "models/<id>"); nullopt: each provider's own.
  std::optional<std::vector<std::string>> models;
  std::optional<std::size_t> page_size;  ///< caps every page (Anthropic and Gemini lists)
  double hard_limit_usd = 100;           ///< GET /v1/dashboard/billing/subscription
  double total_usage_cents = 2500;       ///< GET /v1/dashboard/billing/usage
  double balance = 42.5;                 ///< GET /api/balance at /data/balance
};

/// Thread-safe.
class ModelCatalog {
 public:
  /// PUT /mock/models {"models":[...],"page_size":N} (null restores the providers' lists),
  /// PUT /mock/balance {"hard_limit_usd","total_usage","balance"}; nullopt for other paths.
  std::optional<MockReply> control(MockRequest const& request);

  /// The list of `protocol` (x-mock-models: a,b,c in the request wins over the state), paged by
  /// the request's `limit`/`after_id` (Anthropic) or `pageSize`/`pageToken` (Gemini).
  MockReply list(MockRequest const& request, Protocol protocol, IdSource& ids);

  /// GET …/v1/dashboard/billing/subscription, …/usage (new-api / one-api shapes) and
  /// /api/balance; nullopt for other paths.
  std::optional<MockReply> billing(MockRequest const& request, IdSource& ids);

 private:
  CatalogState snapshot() const;

  mutable std::mutex mutex_;
  CatalogState state_;
};

/// Whether the request is one of the billing routes `ModelCatalog::billing` answers.
bool isBillingPath(std::string_view path);

}  // namespace llmux::mock
