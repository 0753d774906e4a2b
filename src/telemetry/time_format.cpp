#include "telemetry/time_format.h"

#include <chrono>

namespace llmux::telemetry {
namespace {

void appendDigits(std::string& out, unsigned value, int width) {
  char buf[8];
  for (int i = width - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out.append(buf, static_cast<std::size_t>(width));
}

}  // namespace

void appendRfc3339Millis(std::string& out, WallTime t) {
  using namespace std::chrono;
  auto ms = time_point_cast<milliseconds>(t);
  if (ms.time_since_epoch().count() < 0) ms = time_point<system_clock, milliseconds>{};
  auto day = floor<days>(ms);
  year_month_day ymd{day};
  hh_mm_ss<milliseconds> tod{ms - day};
  appendDigits(out, static_cast<unsigned>(static_cast<int>(ymd.year())), 4);
  out.push_back('-');
  appendDigits(out, static_cast<unsigned>(ymd.month()), 2);
  out.push_back('-');
  appendDigits(out, static_cast<unsigned>(ymd.day()), 2);
  out.push_back('T');
  appendDigits(out, static_cast<unsigned>(tod.hours().count()), 2);
  out.push_back(':');
  appendDigits(out, static_cast<unsigned>(tod.minutes().count()), 2);
  out.push_back(':');
  appendDigits(out, static_cast<unsigned>(tod.seconds().count()), 2);
  out.push_back('.');
  appendDigits(out, static_cast<unsigned>(tod.subseconds().count()), 3);
  out.push_back('Z');
}

std::string formatRfc3339Millis(WallTime t) {
  std::string out;
  out.reserve(24);
  appendRfc3339Millis(out, t);
  return out;
}

}  // namespace llmux::telemetry
