#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_record.h"
#include "core/result.h"

namespace llmux::store {

/// A search of the request log (GET /admin/requests). Empty texts and absent bounds do not
/// filter. Times are Unix ms: `from` inclusive, `to` exclusive.
struct RequestSearch {
  std::optional<std::int64_t> from_ms;
  std::optional<std::int64_t> to_ms;
  std::string gateway_key;  ///< the gateway key's name
  std::string model;        ///< as the client asked
  std::string channel;      ///< the channel that answered
  /// HTTP status to the client in [status_min, status_max] (one code, or a class like 4xx).
  std::optional<int> status_min;
  std::optional<int> status_max;
  std::string state;       ///< in_progress, done or interrupted
  std::string request_id;  ///< ids may come from clients: several rows may share one
  std::size_t limit = 50;
  std::optional<std::int64_t> before;  ///< only rows with a smaller `seq` (the next page)
};

/// One row of the request log with its attempts in order.
struct LoggedRequest {
  std::int64_t seq = 0;
  std::string state;    ///< in_progress, done or interrupted
  std::string replica;  ///< the writer's replica id ("" when none was recorded)
  RequestRecord record;
};

/// A page of a search, newest first; `next_before` is the cursor of the next page (none: last).
struct RequestPage {
  std::vector<LoggedRequest> requests;
  std::optional<std::int64_t> next_before;
};

enum class UsageGroup : unsigned char { None, GatewayKey, Model, Channel };
enum class UsageBucket : unsigned char { None, Minute, Hour, Day };

/// Aggregates of finished requests (GET /admin/usage) started in [from_ms, to_ms).
struct UsageQuery {
  std::int64_t from_ms = 0;
  std::int64_t to_ms = 0;
  UsageGroup group = UsageGroup::None;
  UsageBucket bucket = UsageBucket::None;
};

/// One group × bucket. Outcomes as the SLOs count them (telemetry::clientOutcomeOf); tokens and
/// cost are the sums of what the data path wrote (rows without usage count 0).
/// The upper bounds (ms) of the first-byte histogram a usage row keeps: its percentiles are read
/// off it (exact SQL percentiles would need every row's value, and SQLite has no percentile).
inline constexpr double kFirstByteBoundsMs[] = {25,   50,   100,  200,   300,   500,   750,
                                                1000, 1500, 2000, 3000,  5000,  7500,  10000,
                                                15000, 20000, 30000, 60000, 120000};
inline constexpr std::size_t kFirstByteBounds = std::size(kFirstByteBoundsMs);

struct UsageRow {
  std::optional<std::string> group;        ///< none without a grouping
  std::optional<std::int64_t> bucket_ms;   ///< the bucket's start (UTC); none without buckets
  std::uint64_t requests = 0;
  std::uint64_t succeeded = 0;
  std::uint64_t failed = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t rejected = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  double cost_usd = 0;
  /// The answered (2xx) requests' time to the client's first byte — a stream's first token, as
  /// the gateway commits on the first content: how many have one, and how many of them came
  /// under each of kFirstByteBoundsMs.
  std::uint64_t first_byte_samples = 0;
  std::array<std::uint64_t, kFirstByteBounds> first_byte_under{};
};

/// The `p` quantile (0 < p < 1) of a row's first-byte times, read off its histogram (linear
/// within a bin; past the last bound, the last bound); nullopt without samples.
std::optional<double> firstBytePercentile(UsageRow const& row, double p);

struct UsageReport {
  std::vector<UsageRow> rows;  ///< by group, then bucket
  bool truncated = false;      ///< more rows than kMaxUsageRows: narrow the range or grouping
};

inline constexpr std::size_t kMaxSearchLimit = 500;
inline constexpr std::size_t kMaxUsageRows = 10'000;

/// Reads the request log back for the admin API, from the store the writer writes (SQLite or
/// PostgreSQL). Synchronous and thread-safe: call it off the I/O threads.
class RequestLogReader {
 public:
  virtual ~RequestLogReader() = default;

  /// The rows matching `search`, newest (highest `seq`) first, at most `search.limit`.
  virtual Result<RequestPage> search(RequestSearch const& search) = 0;
  /// The newest row with this request id; none when there is no such row.
  virtual Result<std::optional<LoggedRequest>> get(std::string_view request_id) = 0;
  virtual Result<UsageReport> usage(UsageQuery const& query) = 0;
};

}  // namespace llmux::store
