#include "protocol/retry_after.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/strings.h"

namespace llmux::protocol {
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

}  // namespace llmux::protocol
