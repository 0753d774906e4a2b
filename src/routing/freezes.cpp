#include "routing/freezes.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <utility>

#include "core/ids.h"
#include "core/strings.h"

namespace llmux::routing {
namespace {

using namespace std::chrono;

// --- small parsers for the reset times upstreams announce ---------------------------------------
// Routing stays free of protocol/: these are the few formats a freeze needs.

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// A non-negative decimal ("12", "1.5", ".5") at the front of `s`, consumed; nullopt when none.
std::optional<double> takeDecimal(std::string_view& s) {
  double value = 0;
  double weight = 0.1;
  bool digits = false;
  bool dot = false;
  std::size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.' && !dot) {
      dot = true;
    } else if (isDigit(c)) {
      digits = true;
      if (dot) {
        value += (c - '0') * weight;
        weight /= 10;
      } else {
        value = value * 10 + (c - '0');
      }
    } else {
      break;
    }
  }
  if (!digits) return std::nullopt;
  s.remove_prefix(i);
  return value;
}

/// A Go-style duration as OpenAI sends it ("6m0s", "1s", "20ms", "1h2m3s", "0.5s"); a bare
/// number is seconds. nullopt when malformed.
std::optional<Millis> parseGoDuration(std::string_view s) {
  s = trimSpaces(s);
  if (s.empty()) return std::nullopt;
  double ms = 0;
  bool first = true;
  while (!s.empty()) {
    auto number = takeDecimal(s);
    if (!number) return std::nullopt;
    double scale = 0;
    if (s.empty()) {
      if (!first) return std::nullopt;  // "1m30" is malformed; a lone "30" is seconds
      scale = 1000;
    } else if (s.starts_with("ms")) {
      scale = 1, s.remove_prefix(2);
    } else if (s.starts_with("us")) {
      scale = 1e-3, s.remove_prefix(2);
    } else if (s.starts_with("\xC2\xB5s")) {  // "µs"
      scale = 1e-3, s.remove_prefix(3);
    } else if (s.starts_with("ns")) {
      scale = 1e-6, s.remove_prefix(2);
    } else if (s.front() == 'h') {
      scale = 3'600'000, s.remove_prefix(1);
    } else if (s.front() == 'm') {
      scale = 60'000, s.remove_prefix(1);
    } else if (s.front() == 's') {
      scale = 1000, s.remove_prefix(1);
    } else {
      return std::nullopt;
    }
    ms += *number * scale;
    first = false;
  }
  constexpr double kYearMs = 365.0 * 24 * 3600 * 1000;  // nobody resets a limit in a year
  return Millis(static_cast<Millis::rep>(std::ceil(std::min(ms, kYearMs))));
}

std::optional<int> fixedDigits(std::string_view s, std::size_t at, std::size_t count) {
  if (at + count > s.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!isDigit(s[i])) return std::nullopt;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

std::optional<WallTime> civilTime(int year, int month, int day, int hour, int minute,
                                  int second) {
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  year_month_day ymd{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                     std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) return std::nullopt;
  return time_point_cast<WallClock::duration>(sys_days{ymd} + hours{hour} + minutes{minute} +
                                              seconds{second});
}

/// RFC 3339 ("2024-05-01T12:00:30Z", "2024-05-01T12:00:30.5+02:00"), as Anthropic sends it.
std::optional<WallTime> parseRfc3339(std::string_view s) {
  s = trimSpaces(s);
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return std::nullopt;
  auto year = fixedDigits(s, 0, 4), month = fixedDigits(s, 5, 2), day = fixedDigits(s, 8, 2);
  auto hour = fixedDigits(s, 11, 2), minute = fixedDigits(s, 14, 2), sec = fixedDigits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !sec) return std::nullopt;
  auto base = civilTime(*year, *month, *day, *hour, *minute, *sec);
  if (!base) return std::nullopt;
  std::string_view rest = s.substr(19);
  WallClock::duration fraction{0};
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    double weight = 0.1, value = 0;
    std::size_t n = 0;
    while (n < rest.size() && isDigit(rest[n])) value += (rest[n++] - '0') * weight, weight /= 10;
    if (n == 0) return std::nullopt;
    rest.remove_prefix(n);
    fraction = duration_cast<WallClock::duration>(duration<double>(value));
  }
  if (rest == "Z" || rest == "z") return *base + fraction;
  if (rest.size() != 6 || (rest[0] != '+' && rest[0] != '-') || rest[3] != ':') return std::nullopt;
  auto off_h = fixedDigits(rest, 1, 2), off_m = fixedDigits(rest, 4, 2);
  if (!off_h || !off_m) return std::nullopt;
  auto offset = hours{*off_h} + minutes{*off_m};
  // "+02:00" is two hours ahead of UTC: the UTC instant is earlier.
  return rest[0] == '+' ? *base + fraction - offset : *base + fraction + offset;
}

/// An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the HTTP-date form servers send.
std::optional<WallTime> parseImfFixdate(std::string_view s) {
  s = trimSpaces(s);
  if (s.size() != 29 || s[3] != ',' || s[4] != ' ' || s.substr(25) != " GMT") return std::nullopt;
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto name = s.substr(8, 3);
  auto month = std::find(kMonths.begin(), kMonths.end(), name);
  if (month == kMonths.end() || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[19] != ':' ||
      s[22] != ':') {
    return std::nullopt;
  }
  auto day = fixedDigits(s, 5, 2), year = fixedDigits(s, 12, 4);
  auto hour = fixedDigits(s, 17, 2), minute = fixedDigits(s, 20, 2), sec = fixedDigits(s, 23, 2);
  if (!day || !year || !hour || !minute || !sec) return std::nullopt;
  return civilTime(*year, static_cast<int>(month - kMonths.begin()) + 1, *day, *hour, *minute,
                   *sec);
}

/// Google's RetryInfo in the error body: `"retryDelay": "34s"`.
std::optional<Millis> parseGoogleRetryDelay(std::string_view body) {
  constexpr std::string_view kField = "\"retryDelay\"";
  auto at = body.find(kField);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = body.substr(at + kField.size());
  auto skipSpace = [&rest] {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t' || rest.front() == '\n' ||
                             rest.front() == '\r')) {
      rest.remove_prefix(1);
    }
  };
  skipSpace();
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest.remove_prefix(1);
  skipSpace();
  if (rest.empty() || rest.front() != '"') return std::nullopt;
  rest.remove_prefix(1);
  auto end = rest.find('"');
  if (end == std::string_view::npos || end == 0 || rest[end - 1] != 's') return std::nullopt;
  return parseGoDuration(rest.substr(0, end));
}

WallTime after(WallTime now, Millis wait) {
  return now + duration_cast<WallClock::duration>(wait);
}

/// A rate limit the upstream reports with its remaining budget and its reset.
struct AnnouncedLimit {
  std::string_view remaining;  ///< header with what is left ("0": this limit is the exhausted one)
  std::string_view reset;      ///< header with when it resets
  bool rfc3339;                ///< reset is an instant (Anthropic), else a duration (OpenAI)
};

constexpr AnnouncedLimit kLimits[] = {
    {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", false},
    {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", false},
    {"anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", true},
    {"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset", true},
    {"anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset", true},
    {"anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset",
     true},
};

void keepLatest(std::optional<WallTime>& latest, std::optional<WallTime> candidate) {
  if (candidate && (!latest || *candidate > *latest)) latest = candidate;
}

// --- periods ------------------------------------------------------------------------------------

WallTime endOfToday(WallTime now) {
  return time_point_cast<WallClock::duration>(floor<days>(now) + days{1});
}

WallTime endOfWeek(WallTime now) {
  sys_days today = floor<days>(now);
  days left = Monday - weekday{today};  // 0..6 days to the next Monday
  if (left == days{0}) left = days{7};
  return time_point_cast<WallClock::duration>(today + left);
}

WallTime endOfMonth(WallTime now) {
  year_month_day today{floor<days>(now)};
  year_month next = year_month{today.year(), today.month()} + months{1};
  return time_point_cast<WallClock::duration>(sys_days{next / 1});
}

// --- the table ----------------------------------------------------------------------------------

bool isKeyObject(config::FreezeObject object) {
  return object == config::FreezeObject::Key || object == config::FreezeObject::KeyModel;
}

bool hasModel(config::FreezeObject object) {
  return object == config::FreezeObject::KeyModel || object == config::FreezeObject::ChannelModel;
}

bool sameObject(Freeze const& a, Freeze const& b) {
  return a.object == b.object && a.channel == b.channel && a.key_id == b.key_id &&
         a.model == b.model;
}

bool covers(Freeze const& f, std::string_view channel, std::string_view key_id,
            std::string_view model) {
  switch (f.object) {
    case config::FreezeObject::Key:
      return !f.key_id.empty() && f.key_id == key_id;
    case config::FreezeObject::KeyModel:
      return !f.key_id.empty() && f.key_id == key_id && f.model == model;
    case config::FreezeObject::Channel:
      return f.channel == channel;
    case config::FreezeObject::ChannelModel:
      return f.channel == channel && f.model == model;
  }
  return false;
}

bool expired(Freeze const& f, WallTime now) {
  return f.until && *f.until <= now;
}

}  // namespace

// --- free functions -----------------------------------------------------------------------------

config::FreezeRule const* matchFreezeRule(std::vector<config::FreezeRule> const& rules, int status,
                                          HeaderList const& headers, std::string_view body) {
  for (auto const& rule : rules) {
    if (rule.status != status) continue;
    if (!rule.body_contains.empty() && body.find(rule.body_contains) == std::string_view::npos) {
      continue;
    }
    if (!rule.header.empty()) {
      auto value = headers.find(rule.header);  // names are case-insensitive
      if (!value) continue;
      if (!rule.header_value.empty() && value->find(rule.header_value) == std::string_view::npos) {
        continue;
      }
    }
    return &rule;
  }
  return nullptr;
}

bool freezeRulesNeedBody(std::vector<config::FreezeRule> const& rules, int status) {
  return std::any_of(rules.begin(), rules.end(), [status](config::FreezeRule const& rule) {
    return rule.status == status && !rule.body_contains.empty();
  });
}

std::optional<WallTime> upstreamResetTime(HeaderList const& headers, std::string_view body,
                                          WallTime now) {
  // An explicit "retry after" always counts; among the per-limit resets, the exhausted limits'
  // (remaining 0) when the upstream says which, else the latest of all (never too early).
  std::optional<WallTime> explicit_wait;
  if (auto ms = headers.find("retry-after-ms")) {
    std::string_view text = trimSpaces(*ms);
    if (auto wait = takeDecimal(text); wait && text.empty()) {
      keepLatest(explicit_wait, after(now, Millis(static_cast<Millis::rep>(std::ceil(*wait)))));
    }
  }
  if (auto value = headers.find("retry-after")) {
    std::string_view text = trimSpaces(*value);
    std::string_view number = text;
    if (auto secs = takeDecimal(number); secs && number.empty()) {
      keepLatest(explicit_wait, after(now, Millis(static_cast<Millis::rep>(std::ceil(*secs * 1000)))));
    } else {
      keepLatest(explicit_wait, parseImfFixdate(text));
    }
  }
  if (auto delay = parseGoogleRetryDelay(body)) keepLatest(explicit_wait, after(now, *delay));

  std::optional<WallTime> exhausted, any;
  for (auto const& limit : kLimits) {
    auto reset = headers.find(limit.reset);
    if (!reset) continue;
    std::optional<WallTime> at;
    if (limit.rfc3339) {
      at = parseRfc3339(*reset);
    } else if (auto wait = parseGoDuration(*reset)) {
      at = after(now, *wait);
    }
    keepLatest(any, at);
    auto remaining = headers.find(limit.remaining);
    if (remaining && trimSpaces(*remaining) == "0") keepLatest(exhausted, at);
  }
  std::optional<WallTime> latest = explicit_wait;
  keepLatest(latest, exhausted ? exhausted : any);
  return latest;
}

std::optional<WallTime> freezeEnd(config::FreezePeriod period, WallTime now, Millis duration,
                                  std::optional<WallTime> reset) {
  switch (period) {
    case config::FreezePeriod::Fixed:
      return after(now, duration);
    case config::FreezePeriod::Today:
      return endOfToday(now);
    case config::FreezePeriod::Week:
      return endOfWeek(now);
    case config::FreezePeriod::Month:
      return endOfMonth(now);
    case config::FreezePeriod::Forever:
      return std::nullopt;
    case config::FreezePeriod::UpstreamReset:
      // A reset already past (clock skew, a stale header) must not unfreeze at once.
      return reset && *reset > now ? *reset : endOfToday(now);
  }
  return endOfToday(now);
}

// --- FreezeTable --------------------------------------------------------------------------------

FreezeTable::FreezeTable(TimeSource const& clock, FreezePersistence* persistence)
    : clock_(clock), persistence_(persistence) {}

void FreezeTable::load() {
  if (persistence_ == nullptr) return;
  std::lock_guard persist(persist_mutex_);
  std::vector<Freeze> loaded = persistence_->loadFreezes();  // start-up: failures propagate
  std::stable_sort(loaded.begin(), loaded.end(),
                   [](Freeze const& a, Freeze const& b) { return a.created < b.created; });
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mutex_);
    freezes_ = std::move(loaded);
    count_.store(freezes_.size(), std::memory_order_release);
    gone = dropExpiredLocked(clock_.wallNow());
  }
  for (auto const& id : gone) removePersisted(id);
}

std::optional<Freeze> FreezeTable::frozen(std::string_view channel, std::string_view key_id,
                                          std::string_view model) const {
  // The common case, nothing frozen, costs one load and no lock.
  if (count_.load(std::memory_order_acquire) == 0) return std::nullopt;
  std::optional<Freeze> found;
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(clock_.wallNow());
    for (auto const& f : freezes_) {
      if (covers(f, channel, key_id, model)) {
        found = f;
        break;
      }
    }
  }
  forgetPersisted(gone);
  return found;
}

Freeze FreezeTable::apply(config::FreezeRule const& rule, FreezeTarget const& target,
                          std::optional<WallTime> upstream_reset, std::string reason) {
  WallTime now = clock_.wallNow();
  Freeze wanted;
  wanted.object = rule.object;
  wanted.period = rule.period;
  wanted.channel = target.channel;
  if (isKeyObject(rule.object)) {
    wanted.key_id = target.key_id;
    wanted.key_label = target.key_label;
  }
  if (hasModel(rule.object)) wanted.model = target.model;
  wanted.created = now;
  wanted.until = freezeEnd(rule.period, now, rule.duration, upstream_reset);
  wanted.rule = rule.name;
  wanted.reason = std::move(reason);

  // persist_mutex_ keeps the writes in the order of the changes; mutex_ is never held during I/O,
  // so routing threads are not stalled by a slow disk.
  std::lock_guard persist(persist_mutex_);
  std::vector<std::string> gone;
  Freeze result;
  bool changed = true;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(now);
    auto existing = std::find_if(freezes_.begin(), freezes_.end(),
                                 [&](Freeze const& f) { return sameObject(f, wanted); });
    if (existing != freezes_.end()) {
      // Extend, never shorten: the later end (forever beats any instant) and what caused it.
      bool longer = existing->until && (!wanted.until || *wanted.until > *existing->until);
      if (longer) {
        existing->until = wanted.until;
        existing->period = wanted.period;
        existing->rule = wanted.rule;
        existing->reason = wanted.reason;
      }
      changed = longer;
      result = *existing;
    } else {
      wanted.id = "frz_" + randomHex(8);
      result = wanted;
      if (expired(wanted, now)) {
        changed = false;  // a zero-length freeze: nothing to keep
      } else {
        freezes_.push_back(wanted);
        count_.store(freezes_.size(), std::memory_order_release);
      }
    }
  }
  for (auto const& id : gone) removePersisted(id);
  if (changed && persistence_ != nullptr) {
    try {
      persistence_->saveFreeze(result);
    } catch (std::exception const&) {
      // The freeze still holds in memory; it is only lost at the next restart.
      persistence_failures_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return result;
}

bool FreezeTable::lift(std::string const& id) {
  std::lock_guard persist(persist_mutex_);
  std::vector<std::string> gone;
  bool found = false;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(clock_.wallNow());
    auto it = std::find_if(freezes_.begin(), freezes_.end(),
                           [&](Freeze const& f) { return f.id == id; });
    if (it != freezes_.end()) {
      freezes_.erase(it);
      count_.store(freezes_.size(), std::memory_order_release);
      found = true;
    }
  }
  if (found) gone.push_back(id);
  for (auto const& gone_id : gone) removePersisted(gone_id);
  return found;
}

std::size_t FreezeTable::liftKey(std::string const& key_id) {
  if (key_id.empty()) return 0;
  std::lock_guard persist(persist_mutex_);
  std::vector<std::string> gone;
  std::size_t lifted = 0;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(clock_.wallNow());
    auto keep = std::stable_partition(freezes_.begin(), freezes_.end(),
                                      [&](Freeze const& f) { return f.key_id != key_id; });
    for (auto it = keep; it != freezes_.end(); ++it) gone.push_back(it->id);
    lifted = static_cast<std::size_t>(freezes_.end() - keep);
    freezes_.erase(keep, freezes_.end());
    count_.store(freezes_.size(), std::memory_order_release);
  }
  for (auto const& id : gone) removePersisted(id);
  return lifted;
}

std::vector<Freeze> FreezeTable::list() const {
  std::vector<Freeze> out;
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(clock_.wallNow());
    out = freezes_;
  }
  forgetPersisted(gone);
  return out;
}

std::array<std::size_t, 4> FreezeTable::activeByObject() const {
  std::array<std::size_t, 4> counts{};
  if (count_.load(std::memory_order_acquire) == 0) return counts;
  std::vector<std::string> gone;
  {
    std::lock_guard lock(mutex_);
    gone = dropExpiredLocked(clock_.wallNow());
    for (auto const& f : freezes_) ++counts[static_cast<std::size_t>(f.object)];
  }
  forgetPersisted(gone);
  return counts;
}

std::uint64_t FreezeTable::persistenceFailures() const {
  return persistence_failures_.load(std::memory_order_relaxed);
}

std::vector<std::string> FreezeTable::dropExpiredLocked(WallTime now) const {
  std::vector<std::string> gone;
  auto keep = std::stable_partition(freezes_.begin(), freezes_.end(),
                                    [now](Freeze const& f) { return !expired(f, now); });
  for (auto it = keep; it != freezes_.end(); ++it) gone.push_back(std::move(it->id));
  if (!gone.empty()) {
    freezes_.erase(keep, freezes_.end());
    count_.store(freezes_.size(), std::memory_order_release);
  }
  return gone;
}

void FreezeTable::forgetPersisted(std::vector<std::string> const& ids) const {
  if (ids.empty() || persistence_ == nullptr) return;
  std::lock_guard persist(persist_mutex_);
  for (auto const& id : ids) removePersisted(id);
}

void FreezeTable::removePersisted(std::string const& id) const {
  if (persistence_ == nullptr) return;
  try {
    persistence_->removeFreeze(id);
  } catch (std::exception const&) {
    // The row stays until the next start drops it as expired (or a later lift retries).
    persistence_failures_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace llmux::routing
