#pragma once

// The query parameters of the request log's admin endpoints (docs/admin-api.md), checked before
// any query runs: an error names the parameter.

#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "store/request_log_reader.h"

namespace llmux::store {

/// A query string's parameters, percent-decoded, in order.
using QueryParams = std::vector<std::pair<std::string, std::string>>;

/// The widest range GET /admin/usage reads.
inline constexpr std::chrono::days kMaxUsageRange{400};

/// GET /admin/requests: from, to (RFC 3339 or Unix ms), gateway_key, model, channel, status
/// (a code like 429, or 2xx / 4xx / 5xx), state, request_id, limit (1..500, default 50), before.
Result<RequestSearch> parseRequestSearch(QueryParams const& params);

/// GET /admin/usage: from and to (default: the day before `now`), group_by (gateway_key, model
/// or channel), bucket (hour or day). A range over kMaxUsageRange is refused.
Result<UsageQuery> parseUsageQuery(QueryParams const& params, WallTime now);

}  // namespace llmux::store
