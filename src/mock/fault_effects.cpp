#include "mock/fault_effects.h"

#include <algorithm>

#include "mock/mock_errors.h"

namespace llmux::mock {
namespace {

/// Spreads keep-alive chunks over the wait of the first content chunk `first`, one every
/// `interval`, the content keeping what is left of its delay. Returns how many were inserted.
std::size_t addKeepAlives(MockReply& reply, std::size_t first, std::chrono::milliseconds interval,
                          std::string const& bytes) {
  std::chrono::milliseconds wait = reply.chunks[first].delay;
  std::vector<MockChunk> pings;
  while (wait > interval) {
    pings.push_back(MockChunk{interval, bytes});
    wait -= interval;
  }
  reply.chunks[first].delay = wait;
  reply.chunks.insert(reply.chunks.begin() + static_cast<std::ptrdiff_t>(first), pings.begin(),
                      pings.end());
  return pings.size();
}

}  // namespace

void applyBodyFaults(Rendered& rendered, FaultPlan const& plan,
                     std::optional<std::string> const& keep_alive_bytes) {
  MockReply& reply = rendered.reply;
  if (reply.chunks.empty()) return;
  if (reply.streaming && plan.chunk_delay.count() > 0) {
    for (auto& chunk : reply.chunks) chunk.delay = plan.chunk_delay;
  }
  std::size_t first = std::min(rendered.first_content, reply.chunks.size() - 1);
  if (Fault const* slow = plan.find(FaultKind::SlowFirstToken)) {
    reply.chunks[first].delay += slow->duration;
    Fault const* keep_alive = plan.find(FaultKind::KeepAlive);
    if (keep_alive != nullptr && reply.streaming && keep_alive_bytes) {
      first += addKeepAlives(reply, first, keep_alive->duration, *keep_alive_bytes);
    }
  }
  Fault const* stall = plan.find(FaultKind::Stall);
  Fault const* cut = plan.find(FaultKind::Cut);
  if (stall == nullptr && cut == nullptr) return;
  if (!reply.streaming) {
    // A whole body cannot stop half way with a content-length: send it chunked, half of it.
    std::string& body = reply.chunks.front().bytes;
    body.resize(body.size() / 2);
    reply.streaming = true;
  } else if (first + 1 < reply.chunks.size()) {
    reply.chunks.resize(first + 1);  // the stream head and one content event
  }
  if (stall != nullptr) {
    reply.ending = MockEnding::Stall;
    reply.stall_for = stall->duration;
  } else {
    reply.ending = MockEnding::Cut;
  }
}

std::optional<MockReply> statusFault(FaultPlan const& plan, FaultCounters& counters, Vendor vendor,
                                     IdSource& ids, std::string_view model) {
  std::optional<MockReply> reply;
  for (auto const& fault : plan.faults) {
    bool due = false;
    if (fault.kind == FaultKind::FailNth) {
      due = counters.increment(fault.counter_key) == fault.nth;
    } else if (fault.kind == FaultKind::FailEvery) {
      due = counters.increment(fault.counter_key) % fault.nth == 0;
    } else {
      due = fault.kind == FaultKind::Status;
    }
    if (!due || reply) continue;
    reply = fault.status == 429 ? rateLimitedError(vendor, ids, fault.retry_after_s, model)
                                : statusError(vendor, ids, fault.status, model);
  }
  return reply;
}

}  // namespace llmux::mock
