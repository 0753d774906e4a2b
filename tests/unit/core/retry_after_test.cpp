#include "core/retry_after.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace llmux {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Sun, 06 Nov 1994 08:49:37 GMT
WallTime const kDate = WallTime(seconds(784111777));

HeaderList one(std::string_view name, std::string_view value) {
  HeaderList list;
  list.add(name, value);
  return list;
}

TEST(RetryAfter, Seconds) {
  WallTime now = kDate;
  EXPECT_EQ(parseRetryAfter(one("Retry-After", "30"), now), milliseconds(30000));
  EXPECT_EQ(parseRetryAfter(one("retry-after", " 0 "), now), milliseconds(0));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "1.5"), now), milliseconds(1500));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "0.0005"), now), milliseconds(1));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "34.4"), now), milliseconds(34400));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "99999999999999999999"), now),
            milliseconds(365LL * 24 * 3600 * 1000));
}

TEST(RetryAfter, MillisecondsHeaderWins) {
  HeaderList both;
  both.add("retry-after", "30");
  both.add("retry-after-ms", "250");
  EXPECT_EQ(parseRetryAfter(both, kDate), milliseconds(250));
  EXPECT_EQ(parseRetryAfter(one("retry-after-ms", "12.6"), kDate), milliseconds(13));
  // A malformed retry-after-ms falls back to retry-after.
  HeaderList bad_ms;
  bad_ms.add("retry-after-ms", "soon");
  bad_ms.add("retry-after", "2");
  EXPECT_EQ(parseRetryAfter(bad_ms, kDate), milliseconds(2000));
}

TEST(RetryAfter, HttpDatesInEveryForm) {
  WallTime now = kDate - seconds(90);
  EXPECT_EQ(parseRetryAfter(one("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"), now),
            milliseconds(90000));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "Sunday, 06-Nov-94 08:49:37 GMT"), now),
            milliseconds(90000));
  EXPECT_EQ(parseRetryAfter(one("retry-after", "Sun Nov  6 08:49:37 1994"), now),
            milliseconds(90000));
  // A date already past means "now".
  EXPECT_EQ(
      parseRetryAfter(one("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"), kDate + seconds(5)),
      milliseconds(0));
  EXPECT_EQ(parseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT"), WallTime(seconds(0)));
  EXPECT_EQ(parseHttpDate("Tue, 29 Feb 2028 23:59:59 GMT"), WallTime(seconds(1835481599)));
}

TEST(RetryAfter, IgnoresWhatIsNotAValue) {
  for (std::string_view bad : {"", "-1", "+5", "1e3", "0x10", "inf", "nan", "1.2.3", ".", "soon",
                               "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT",
                               "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT",
                               "Sun, 06 Foo 1994 08:49:37 GMT"}) {
    EXPECT_EQ(parseRetryAfter(one("retry-after", bad), kDate), std::nullopt) << bad;
  }
  EXPECT_EQ(parseRetryAfter(HeaderList{}, kDate), std::nullopt);
}

}  // namespace
}  // namespace llmux

namespace llmux {
namespace {

TEST(GoogleRetryDelay, ReadsRetryInfoFromTheErrorBody) {
  // The recorded Gemini 429 (tests/data/fixtures/gemini/vercel-ai--google-429-retry-info.json).
  std::ifstream in(std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/gemini/vercel-ai--google-429-retry-info.json");
  std::stringstream recorded;
  recorded << in.rdbuf();
  ASSERT_FALSE(recorded.str().empty());
  EXPECT_EQ(parseGoogleRetryDelay(recorded.str()), std::chrono::milliseconds(34'400));
  EXPECT_EQ(parseGoogleRetryDelay(R"({"retryDelay":"2s"})"), std::chrono::milliseconds(2'000));
  EXPECT_FALSE(parseGoogleRetryDelay(R"({"error":{"code":429}})"));
  EXPECT_FALSE(parseGoogleRetryDelay(R"({"retryDelay":"soon"})"));
  EXPECT_FALSE(parseGoogleRetryDelay(R"({"retryDelay": 5})"));
}

}  // namespace
}  // namespace llmux
