#include "telemetry/time_format.h"

#include <chrono>

namespace llmux::telemetry {
namespace {

char* putDigits(char* p, unsigned value, int width) {
  for (int i = width - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  return p + width;
}

}  // namespace

void appendRfc3339Millis(std::string& out, WallTime t) {
  using namespace std::chrono;
  auto ms = time_point_cast<milliseconds>(t);
  if (ms.time_since_epoch().count() < 0) ms = time_point<system_clock, milliseconds>{};
  auto day = floor<days>(ms);
  year_month_day ymd{day};
  auto in_day = static_cast<unsigned>((ms - day).count());  // milliseconds into the day
  char buf[24];
  char* p = putDigits(buf, static_cast<unsigned>(static_cast<int>(ymd.year())), 4);
  *p++ = '-';
  p = putDigits(p, static_cast<unsigned>(ymd.month()), 2);
  *p++ = '-';
  p = putDigits(p, static_cast<unsigned>(ymd.day()), 2);
  *p++ = 'T';
  p = putDigits(p, in_day / 3'600'000, 2);
  *p++ = ':';
  p = putDigits(p, in_day / 60'000 % 60, 2);
  *p++ = ':';
  p = putDigits(p, in_day / 1000 % 60, 2);
  *p++ = '.';
  p = putDigits(p, in_day % 1000, 3);
  *p++ = 'Z';
  out.append(buf, p);
}

std::string formatRfc3339Millis(WallTime t) {
  std::string out;
  out.reserve(24);
  appendRfc3339Millis(out, t);
  return out;
}

}  // namespace llmux::telemetry
