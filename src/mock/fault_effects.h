#pragma once

// How the faults a request asks for (mock_faults.h) change its answer: every route applies them
// the same way.

#include <optional>
#include <string>
#include <string_view>

#include "mock/mock_faults.h"
#include "mock/mock_reply.h"

namespace llmux::mock {

/// The error a status fault, a due fail-nth or a due fail-every asks for, if any. Counts every
/// fail-nth and fail-every spec.
std::optional<MockReply> statusFault(FaultPlan const& plan, FaultCounters& counters, Vendor vendor,
                                     IdSource& ids, std::string_view model);

/// Slow first token (with its keep-alives), stall and cut act at the first content chunk; chunk
/// pacing on every chunk. `keep_alive_bytes` keep a quiet stream of this kind open; nullopt when
/// nothing fits it (a JSON array, a binary body).
void applyBodyFaults(Rendered& rendered, FaultPlan const& plan,
                     std::optional<std::string> const& keep_alive_bytes);

}  // namespace llmux::mock
