#pragma once

// The mock provider's journal (`GET /_mock/journal`, `DELETE /_mock/journal`) as the scenarios
// read it: one entry per request the mock served, with the bytes it received and answered.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/http_headers.h"
#include "core/result.h"

namespace llmux::e2e {

/// One request the mock provider served.
struct JournalEntry {
  std::uint64_t seq = 0;
  std::string method, path, query;
  HeaderList headers;
  std::string body;
  int status = 0;
  std::string response_body;
  std::string outcome;
  double started_at_ms = 0;
  double finished_at_ms = 0;
  std::optional<double> client_gone_at_ms;

  /// First value of a header (case-insensitive), "" when absent.
  std::string_view header(std::string_view name) const;
  /// The upstream key the gateway presented: the Bearer token, the x-api-key or x-goog-api-key
  /// value, else the `key` query parameter ("" when there is none).
  std::string upstreamKey() const;
};

/// The journal, ordered by the time each request started, ties by `seq` (the mock appends an
/// entry when its answer is written, so a timed-out attempt can land after the one that followed
/// it).
Result<std::vector<JournalEntry>> fetchJournal(std::uint16_t mock_port);
/// Empties the journal.
Result<void> clearJournal(std::uint16_t mock_port);
/// Polls the journal until it holds at least `count` entries; an error when it does not by
/// `timeout` (the mock may lag a moment behind what the client has read).
Result<std::vector<JournalEntry>> waitForJournal(std::uint16_t mock_port, std::size_t count,
                                                 Millis timeout = Millis(5'000));
/// The upstream keys of `entries`, in order.
std::vector<std::string> keysOf(std::vector<JournalEntry> const& entries);
/// How many fields called `name` (case-insensitive) `headers` holds.
std::size_t headerCount(HeaderList const& headers, std::string_view name);

}  // namespace llmux::e2e
