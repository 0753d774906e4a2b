#pragma once

// The request log's admin endpoints (docs/admin-api.md): GET /admin/requests,
// GET /admin/requests/{id} and GET /admin/usage, read through a store::RequestLogReader.

#include <optional>
#include <string>
#include <string_view>

#include "store/request_log_params.h"
#include "store/request_log_reader.h"

namespace llmux::proxy {

/// A query string split at '&' and '=', each part percent-decoded ('+' stays '+': RFC 3339
/// offsets need no escaping). nullopt when a part is badly encoded.
std::optional<store::QueryParams> splitQuery(std::string_view query);

/// One request with its attempts: every column of its row, never a secret (the log holds none).
std::string loggedRequestJson(store::LoggedRequest const& request);
/// The same for a request known by its record (the live tail's, before any row is read back).
std::string requestJson(RequestRecord const& record, std::int64_t seq, std::string_view state,
                        std::string_view replica);
/// `{"requests":[...],"next_before":seq|null}`.
std::string requestPageJson(store::RequestPage const& page);
/// `{"rows":[...],"truncated":bool}`.
std::string usageJson(store::UsageReport const& report);

}  // namespace llmux::proxy
