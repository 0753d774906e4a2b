#include "mock/mock_faults.h"

#include "core/strings.h"

namespace llmux::mock {
namespace {

constexpr std::int64_t kDefaultSlowMs = 3000;
constexpr std::int64_t kDefaultStallMs = 60000;
constexpr long long kMaxDelayMs = 24LL * 3600 * 1000;

Error badSpec(std::string_view spec, std::string_view why) {
  std::string message = "invalid x-mock-fault spec '";
  message.append(spec);
  message += "': ";
  message.append(why);
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

/// `value` as milliseconds, or `fallback` when the spec has no value.
Result<std::chrono::milliseconds> delayValue(std::string_view spec, std::string_view value,
                                             bool has_value, std::int64_t fallback) {
  if (!has_value) return std::chrono::milliseconds(fallback);
  auto ms = parseNonNegative(value);
  if (!ms || *ms > kMaxDelayMs) return badSpec(spec, "expected milliseconds");
  return std::chrono::milliseconds(*ms);
}

std::optional<int> statusValue(std::string_view text) {
  auto n = parseNonNegative(text);
  if (!n || *n < 400 || *n > 599) return std::nullopt;
  return static_cast<int>(*n);
}

}  // namespace

Fault const* FaultPlan::find(FaultKind kind) const {
  for (auto const& fault : faults) {
    if (fault.kind == kind) return &fault;
  }
  return nullptr;
}

Result<Fault> parseFault(std::string_view spec) {
  std::string_view name = spec;
  std::string_view value;
  bool has_value = false;
  if (auto parts = splitOnce(spec, '=')) {
    name = parts->first;
    value = parts->second;
    has_value = true;
  }
  Fault fault;
  if (auto status = statusValue(name)) {
    fault.kind = FaultKind::Status;
    fault.status = *status;
    if (has_value) {
      auto seconds = parseNonNegative(value);
      if (*status != 429 || !seconds || *seconds > 86400) {
        return badSpec(spec, "only 429 takes a value (retry-after seconds)");
      }
      fault.retry_after_s = static_cast<int>(*seconds);
    }
    return fault;
  }
  if (name == "slow-first-byte" || name == "slow-first-token" || name == "stall") {
    fault.kind = name == "slow-first-byte"    ? FaultKind::SlowFirstByte
                 : name == "slow-first-token" ? FaultKind::SlowFirstToken
                                              : FaultKind::Stall;
    auto delay = delayValue(spec, value, has_value,
                            fault.kind == FaultKind::Stall ? kDefaultStallMs : kDefaultSlowMs);
    if (!delay) return delay.takeError();
    fault.duration = *delay;
    return fault;
  }
  if (name == "cut" || name == "context-overflow") {
    if (has_value) return badSpec(spec, "takes no value");
    fault.kind = name == "cut" ? FaultKind::Cut : FaultKind::ContextOverflow;
    return fault;
  }
  if (name == "fail-nth" || name == "fail-every") {
    // fail-nth=N[:STATUS][@TAG], fail-every=N[:STATUS][@TAG]; STATUS may be 429=<seconds>. The
    // whole spec keys the counter, so a tag separates channels.
    std::string_view rest = value;
    if (auto at = rest.find('@'); at != std::string_view::npos) rest = rest.substr(0, at);
    std::string_view count = rest;
    if (auto parts = splitOnce(rest, ':')) {
      count = parts->first;
      auto status = parseFault(parts->second);
      if (!status || status->kind != FaultKind::Status) {
        return badSpec(spec, "expected a status between 400 and 599 after ':'");
      }
      fault.status = status->status;
      fault.retry_after_s = status->retry_after_s;
    }
    auto nth = parseNonNegative(count);
    if (!has_value || !nth || *nth == 0) {
      return badSpec(spec, name == "fail-nth" ? "expected fail-nth=N with N >= 1"
                                              : "expected fail-every=N with N >= 1");
    }
    fault.kind = name == "fail-nth" ? FaultKind::FailNth : FaultKind::FailEvery;
    fault.nth = *nth;
    fault.counter_key = std::string(spec);
    return fault;
  }
  if (name == "keep-alive") {
    auto interval = parseNonNegative(value);
    if (!has_value || !interval || *interval == 0 || *interval > kMaxDelayMs) {
      return badSpec(spec, "expected keep-alive=<ms> with ms >= 1");
    }
    fault.kind = FaultKind::KeepAlive;
    fault.duration = std::chrono::milliseconds(*interval);
    return fault;
  }
  return badSpec(spec, "unknown fault");
}

Result<void> addHeaderFaults(std::string_view header_value, FaultPlan& plan) {
  while (!header_value.empty()) {
    std::string_view item = header_value;
    if (auto comma = header_value.find(','); comma != std::string_view::npos) {
      item = header_value.substr(0, comma);
      header_value.remove_prefix(comma + 1);
    } else {
      header_value = {};
    }
    item = trimSpaces(item);
    if (item.empty()) continue;
    auto fault = parseFault(item);
    if (!fault) return fault.takeError();
    plan.faults.push_back(std::move(*fault));
  }
  return {};
}

Result<void> addModelFault(std::string_view model, FaultPlan& plan) {
  if (!model.starts_with(kFaultModelPrefix)) return {};
  auto fault = parseFault(model.substr(kFaultModelPrefix.size()));
  if (!fault) return fault.takeError();
  plan.faults.push_back(std::move(*fault));
  return {};
}

Result<void> setChunkDelay(std::string_view header_value, FaultPlan& plan) {
  auto ms = parseNonNegative(trimSpaces(header_value));
  if (!ms || *ms > kMaxDelayMs) {
    return makeError(ErrorKind::InvalidRequest,
                     "invalid x-mock-chunk-delay: expected milliseconds");
  }
  plan.chunk_delay = std::chrono::milliseconds(*ms);
  return {};
}

Result<std::int64_t> parseVideoPolls(std::string_view header_value) {
  auto polls = parseNonNegative(trimSpaces(header_value));
  if (!polls || *polls < 1 || *polls > 1000) {
    return makeError(ErrorKind::InvalidRequest,
                     "invalid x-mock-video-polls: expected a number of polls from 1 to 1000");
  }
  return static_cast<std::int64_t>(*polls);
}

std::int64_t FaultCounters::increment(std::string const& key) {
  std::lock_guard lock(mutex_);
  return ++counts_[key];
}

}  // namespace llmux::mock
