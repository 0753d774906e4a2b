#include "store/request_log_params.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "core/retry_after.h"  // parseRfc3339
#include "store/sqlite_db.h"   // toUnixMillis

namespace llmux::store {
namespace {

Error invalid(std::string_view name, std::string_view what) {
  return makeError(ErrorKind::InvalidRequest, "query parameter '" + std::string(name) + "': " + std::string(what));
}

std::optional<std::int64_t> wholeNumber(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// An instant as RFC 3339 or Unix milliseconds.
Result<std::int64_t> instant(std::string_view name, std::string_view text) {
  if (auto ms = wholeNumber(text); ms && *ms >= 0) return *ms;
  if (auto t = parseRfc3339(text)) return toUnixMillis(*t);
  return invalid(name, "expected an RFC 3339 time or Unix milliseconds");
}

/// The status filter: one code (100..599), or a class "2xx" … "5xx".
Result<std::pair<int, int>> statusRange(std::string_view text) {
  if (text.size() == 3 && text[0] >= '1' && text[0] <= '5' && text.substr(1) == "xx") {
    int const base = (text[0] - '0') * 100;
    return std::pair{base, base + 99};
  }
  if (auto code = wholeNumber(text); code && *code >= 100 && *code <= 599) {
    return std::pair{static_cast<int>(*code), static_cast<int>(*code)};
  }
  return invalid("status", "expected a status code (429) or a class (2xx, 4xx, 5xx)");
}

bool knownState(std::string_view state) {
  return state == "in_progress" || state == "done" || state == "interrupted";
}

/// Walks `params`: refuses one given twice or empty (a typo would otherwise widen the search),
/// reads `from` and `to`, and hands every other to `other` (which refuses what it does not know).
template <class Other>
Result<void> eachParam(QueryParams const& params, std::optional<std::int64_t>& from,
                       std::optional<std::int64_t>& to, Other&& other) {
  std::vector<std::string_view> seen;
  for (auto const& [name, value] : params) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return invalid(name, "given more than once");
    }
    seen.push_back(name);
    if (value.empty()) return invalid(name, "empty");
    if (name == "from" || name == "to") {
      auto ms = instant(name, value);
      if (!ms.ok()) return ms.takeError();
      (name == "from" ? from : to) = *ms;
    } else if (auto taken = other(name, value); !taken.ok()) {
      return taken;
    }
  }
  return {};
}

}  // namespace

Result<RequestSearch> parseRequestSearch(QueryParams const& params) {
  RequestSearch search;
  auto walked = eachParam(params, search.from_ms, search.to_ms,
                          [&](std::string const& name, std::string const& value) -> Result<void> {
    if (name == "gateway_key") {
      search.gateway_key = value;
    } else if (name == "model") {
      search.model = value;
    } else if (name == "channel") {
      search.channel = value;
    } else if (name == "request_id") {
      search.request_id = value;
    } else if (name == "state") {
      if (!knownState(value)) return invalid(name, "expected in_progress, done or interrupted");
      search.state = value;
    } else if (name == "status") {
      auto range = statusRange(value);
      if (!range.ok()) return range.takeError();
      search.status_min = range->first;
      search.status_max = range->second;
    } else if (name == "limit") {
      auto limit = wholeNumber(value);
      if (!limit || *limit < 1 || *limit > static_cast<std::int64_t>(kMaxSearchLimit)) {
        return invalid(name, "expected a number from 1 to " + std::to_string(kMaxSearchLimit));
      }
      search.limit = static_cast<std::size_t>(*limit);
    } else if (name == "before") {
      auto before = wholeNumber(value);
      if (!before || *before < 1) return invalid(name, "expected a seq (next_before of the previous page)");
      search.before = *before;
    } else {
      return invalid(name, "unknown");
    }
    return {};
  });
  if (!walked.ok()) return walked.error();
  if (search.from_ms && search.to_ms && *search.from_ms > *search.to_ms) {
    return invalid("from", "after 'to'");
  }
  return search;
}

Result<UsageQuery> parseUsageQuery(QueryParams const& params, WallTime now) {
  UsageQuery query;
  std::optional<std::int64_t> from;
  std::optional<std::int64_t> to;
  auto walked = eachParam(params, from, to,
                          [&](std::string const& name, std::string const& value) -> Result<void> {
    if (name == "group_by") {
      if (value == "gateway_key") query.group = UsageGroup::GatewayKey;
      else if (value == "model") query.group = UsageGroup::Model;
      else if (value == "channel") query.group = UsageGroup::Channel;
      else return invalid(name, "expected gateway_key, model or channel");
    } else if (name == "bucket") {
      if (value == "minute") query.bucket = UsageBucket::Minute;
      else if (value == "hour") query.bucket = UsageBucket::Hour;
      else if (value == "day") query.bucket = UsageBucket::Day;
      else return invalid(name, "expected minute, hour or day");
    } else {
      return invalid(name, "unknown");
    }
    return {};
  });
  if (!walked.ok()) return walked.error();
  constexpr std::int64_t kDayMs = 86'400'000;
  query.to_ms = to.value_or(toUnixMillis(now));
  query.from_ms = from.value_or(query.to_ms - kDayMs);
  if (query.from_ms > query.to_ms) return invalid("from", "after 'to'");
  if (query.to_ms - query.from_ms > kMaxUsageRange.count() * kDayMs) {
    return invalid("to", "the range is over " + std::to_string(kMaxUsageRange.count()) + " days");
  }
  if (query.bucket == UsageBucket::Minute && query.to_ms - query.from_ms > kDayMs) {
    return invalid("bucket", "minutes cover at most one day: narrow 'from' and 'to'");
  }
  return query;
}

}  // namespace llmux::store
