#pragma once

#include <string_view>

#include "core/request_record.h"

namespace llmux::telemetry {

/// How a request ended for its client, as the SLOs count it (docs/operations.md). Only Success
/// and Failed are in the denominator: a client that leaves, or a request refused for its own
/// reasons, says nothing about the service.
enum class ClientOutcome : unsigned char {
  Success,    ///< answered in full
  Failed,     ///< the gateway or its upstreams could not answer (5xx, a broken stream, an
              ///< upstream 429 failover could not absorb)
  Cancelled,  ///< the client left (499)
  Rejected,   ///< the gateway key's limits, authentication, the client's own errors (4xx)
};

/// "success", "failed", "cancelled", "rejected".
std::string_view clientOutcomeName(ClientOutcome outcome);

/// The outcome of a finished request. Unless an attempt answered (ok, or a race won), the
/// attempts' verdict comes first: a last attempt that
/// failed makes the request Failed whatever status reached the client, one that was the
/// client's own error makes it Rejected. Then the status: 499 Cancelled; 2xx/3xx Success unless
/// the answer broke (an error recorded after the head: Failed); 429 Rejected when the gateway
/// key's limits refused it, else Failed (every upstream key throttled); other 4xx Rejected;
/// 5xx, and nothing sent, Failed.
ClientOutcome clientOutcomeOf(RequestRecord const& record);

}  // namespace llmux::telemetry
