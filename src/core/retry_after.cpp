#include "core/retry_after.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <array>
#include <string_view>

#include "core/strings.h"

namespace llmux {

using namespace std::chrono;

namespace {

using std::chrono::milliseconds;

constexpr double kMaxMillis = 365.0 * 24 * 3600 * 1000;

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// A non-negative decimal "12", "1.5", ".5" or "3." scaled to milliseconds. No sign, exponent,
/// hex, inf or nan.
std::optional<milliseconds> parseDecimal(std::string_view s, double scale_to_ms) {
  if (s.empty()) return std::nullopt;
  double integer = 0;
  double fraction = 0;
  double weight = 0.1;
  bool seen_digit = false;
  bool seen_dot = false;
  for (char c : s) {
    if (c == '.') {
      if (seen_dot) return std::nullopt;
      seen_dot = true;
    } else if (isDigit(c)) {
      seen_digit = true;
      if (seen_dot) {
        fraction += (c - '0') * weight;
        weight /= 10;
      } else if (integer < kMaxMillis) {  // beyond that the cap applies anyway
        integer = integer * 10 + (c - '0');
      }
    } else {
      return std::nullopt;
    }
  }
  if (!seen_digit) return std::nullopt;
  double ms = (integer + fraction) * scale_to_ms;
  if (ms > kMaxMillis) ms = kMaxMillis;
  return milliseconds(static_cast<long long>(ms + 0.5));
}

std::optional<int> parseFixed(std::string_view s, std::size_t digits) {
  if (s.size() != digits) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (!isDigit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::optional<unsigned> parseMonth(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < kMonths.size(); ++i) {
    if (s == kMonths[i]) return i + 1;
  }
  return std::nullopt;
}

/// "HH:MM:SS" -> seconds of the day.
std::optional<int> parseClock(std::string_view s) {
  if (s.size() != 8 || s[2] != ':' || s[5] != ':') return std::nullopt;
  auto h = parseFixed(s.substr(0, 2), 2);
  auto m = parseFixed(s.substr(3, 2), 2);
  auto sec = parseFixed(s.substr(6, 2), 2);
  if (!h || !m || !sec || *h > 23 || *m > 59 || *sec > 60) return std::nullopt;
  return *h * 3600 + *m * 60 + *sec;
}

std::optional<WallTime> makeTime(int year, unsigned month, int day, int seconds_of_day) {
  using namespace std::chrono;
  year_month_day ymd{std::chrono::year{year}, std::chrono::month{month},
                     std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok()) return std::nullopt;
  return time_point_cast<WallClock::duration>(sys_days{ymd} + seconds{seconds_of_day});
}

/// Splits on single spaces; false when there are not exactly `n` tokens.
template <std::size_t N>
bool splitSpaces(std::string_view s, std::array<std::string_view, N>& out) {
  std::size_t count = 0;
  while (!s.empty()) {
    auto space = s.find(' ');
    std::string_view token = s.substr(0, space);
    if (!token.empty()) {
      if (count == N) return false;
      out[count++] = token;
    }
    if (space == std::string_view::npos) break;
    s.remove_prefix(space + 1);
  }
  return count == N;
}

// Helpers of the rate-limit reset formats below.

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
    } else if ((c >= '0' && c <= '9')) {
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

std::optional<int> fixedDigits(std::string_view s, std::size_t at, std::size_t count) {
  if (at + count > s.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!(s[i] >= '0' && s[i] <= '9')) return std::nullopt;
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

}  // namespace

std::optional<WallTime> parseHttpDate(std::string_view text) {
  text = trimSpaces(text);
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  std::array<std::string_view, 6> imf;
  if (splitSpaces(text, imf) && imf[0].size() == 4 && imf[0].back() == ',' && imf[5] == "GMT") {
    auto day = parseFixed(imf[1], 2);
    auto month = parseMonth(imf[2]);
    auto year = parseFixed(imf[3], 4);
    auto clock = parseClock(imf[4]);
    if (!day || !month || !year || !clock) return std::nullopt;
    return makeTime(*year, *month, *day, *clock);
  }
  // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" (two-digit years: 70-99 -> 19xx)
  std::array<std::string_view, 4> rfc850;
  if (splitSpaces(text, rfc850) && rfc850[0].ends_with(',') && rfc850[3] == "GMT") {
    std::string_view date = rfc850[1];
    if (date.size() != 9 || date[2] != '-' || date[6] != '-') return std::nullopt;
    auto day = parseFixed(date.substr(0, 2), 2);
    auto month = parseMonth(date.substr(3, 3));
    auto yy = parseFixed(date.substr(7, 2), 2);
    auto clock = parseClock(rfc850[2]);
    if (!day || !month || !yy || !clock) return std::nullopt;
    return makeTime(*yy < 70 ? 2000 + *yy : 1900 + *yy, *month, *day, *clock);
  }
  // asctime: "Sun Nov  6 08:49:37 1994"
  std::array<std::string_view, 5> asc;
  if (splitSpaces(text, asc) && asc[0].size() == 3) {
    auto month = parseMonth(asc[1]);
    std::optional<int> day = asc[2].size() == 1 ? parseFixed(asc[2], 1) : parseFixed(asc[2], 2);
    auto clock = parseClock(asc[3]);
    auto year = parseFixed(asc[4], 4);
    if (!month || !day || !clock || !year) return std::nullopt;
    return makeTime(*year, *month, *day, *clock);
  }
  return std::nullopt;
}

std::optional<milliseconds> parseRetryAfter(HeaderList const& headers, WallTime now) {
  if (auto ms = headers.find("retry-after-ms")) {
    if (auto v = parseDecimal(trimSpaces(*ms), 1.0)) return v;
  }
  auto value = headers.find("retry-after");
  if (!value) return std::nullopt;
  std::string_view text = trimSpaces(*value);
  if (auto v = parseDecimal(text, 1000.0)) return v;
  auto date = parseHttpDate(text);
  if (!date) return std::nullopt;
  if (*date <= now) return milliseconds(0);
  auto wait = std::chrono::duration_cast<milliseconds>(*date - now);
  return std::min(wait, milliseconds(static_cast<long long>(kMaxMillis)));
}

std::optional<milliseconds> parseGoogleRetryDelay(std::string_view body) {
  constexpr std::string_view kField = "\"retryDelay\"";
  auto at = body.find(kField);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = body.substr(at + kField.size());
  auto skip = [&rest] {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n' || rest.front() == '\r' ||
                             rest.front() == '\t')) {
      rest.remove_prefix(1);
    }
  };
  skip();
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest.remove_prefix(1);
  skip();
  if (rest.empty() || rest.front() != '"') return std::nullopt;
  rest.remove_prefix(1);
  auto end = rest.find('"');
  if (end == std::string_view::npos || end == 0 || rest[end - 1] != 's') return std::nullopt;
  return parseDecimal(rest.substr(0, end - 1), 1000.0);  // a protobuf Duration: "<seconds>s"
}

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
    while (n < rest.size() && (rest[n] >= '0' && rest[n] <= '9')) value += (rest[n++] - '0') * weight, weight /= 10;
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


std::array<AnnouncedLimit, kAnnouncedLimitCount> announcedLimits(HeaderList const& headers, WallTime now) {
  struct Names {
    std::string_view remaining, reset;
    bool instant;  ///< the reset is an RFC 3339 instant (Anthropic), else a duration (OpenAI)
  };
  static constexpr std::array<Names, kAnnouncedLimitCount> kNames = {{
      {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", false},
      {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", false},
      {"anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", true},
      {"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset", true},
      {"anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset", true},
      {"anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset", true},
  }};
  std::array<AnnouncedLimit, kAnnouncedLimitCount> limits{};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (auto remaining = headers.find(kNames[i].remaining)) {
      std::string_view text = trimSpaces(*remaining);
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec == std::errc() && end == text.data() + text.size()) limits[i].remaining = value;
    }
    if (auto reset = headers.find(kNames[i].reset)) {
      if (kNames[i].instant) {
        limits[i].reset = parseRfc3339(*reset);
      } else if (auto wait = parseGoDuration(*reset)) {
        limits[i].reset = now + std::chrono::duration_cast<WallClock::duration>(*wait);
      }
    }
  }
  return limits;
}

}  // namespace llmux
