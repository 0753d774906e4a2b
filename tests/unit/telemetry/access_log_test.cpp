#include "telemetry/access_log.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/ids.h"

namespace llmux::telemetry {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

RequestRecord sampleRecord() {
  RequestRecord r;
  r.request_id = "req-1";
  r.started_at = WallTime(std::chrono::milliseconds(1'700'000'000'123));
  r.route = "/v1/messages";
  r.client_protocol = "anthropic";
  r.gateway_key = "team-a";
  r.client = "claude-code";
  r.model = "claude \"quoted\"\nmodel";
  r.stream = true;
  r.channel = "backup";
  r.key_label = "backup#1";
  r.status = 200;
  r.attempts.push_back(
      {"primary", "primary#0", "claude-x", 529, AttemptOutcome::failover("status_529"), 12.3456, 13});
  r.attempts.push_back({"backup", "backup#1", "claude-x", 200, AttemptOutcome::ok(), -1, 900.5});
  r.first_byte_ms = 250.0004;
  r.total_ms = 1200.25;
  r.overhead_ms = 0.0421;
  r.bytes_in = 321;
  r.bytes_out = 98765;
  return r;
}

std::vector<std::string> readLines(fs::path const& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("llmux-access-" + newRequestId())) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  fs::path const& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(AccessLine, IsOneJsonObjectWithEveryField) {
  std::string line = formatAccessLine(sampleRecord());
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "exactly one line";

  json::object o = json::parse(line).as_object();
  EXPECT_EQ(o.at("request_id").as_string(), "req-1");
  EXPECT_EQ(o.at("time").as_string(), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(o.at("route").as_string(), "/v1/messages");
  EXPECT_EQ(o.at("protocol").as_string(), "anthropic");
  EXPECT_EQ(o.at("gateway_key").as_string(), "team-a");
  EXPECT_EQ(o.at("client").as_string(), "claude-code");
  EXPECT_EQ(o.at("model").as_string(), "claude \"quoted\"\nmodel");
  EXPECT_EQ(o.at("stream").as_bool(), true);
  EXPECT_EQ(o.at("channel").as_string(), "backup");
  EXPECT_EQ(o.at("key_label").as_string(), "backup#1");
  EXPECT_EQ(o.at("attempts").to_number<int>(), 2);
  EXPECT_EQ(o.at("status").to_number<int>(), 200);
  EXPECT_EQ(o.at("error").as_string(), "");
  EXPECT_DOUBLE_EQ(o.at("first_byte_ms").to_number<double>(), 250.0);
  EXPECT_DOUBLE_EQ(o.at("total_ms").to_number<double>(), 1200.25);
  EXPECT_DOUBLE_EQ(o.at("overhead_ms").to_number<double>(), 0.042);
  EXPECT_EQ(o.at("bytes_in").to_number<std::uint64_t>(), 321u);
  EXPECT_EQ(o.at("bytes_out").to_number<std::uint64_t>(), 98765u);

  json::array const& attempts = o.at("attempt_list").as_array();
  ASSERT_EQ(attempts.size(), 2u);
  json::object const& first = attempts[0].as_object();
  EXPECT_EQ(first.at("channel").as_string(), "primary");
  EXPECT_EQ(first.at("key_label").as_string(), "primary#0");
  EXPECT_EQ(first.at("status").to_number<int>(), 529);
  EXPECT_EQ(first.at("outcome").as_string(), "failover:status_529");
  EXPECT_DOUBLE_EQ(first.at("first_byte_ms").to_number<double>(), 12.346);
  EXPECT_TRUE(attempts[1].as_object().at("first_byte_ms").is_null());
  EXPECT_FALSE(first.contains("first_token_ms")) << "no content came";
  EXPECT_TRUE(o.at("usage").is_null()) << "no usage reported";
  EXPECT_EQ(o.size(), 20u) << line;
}

TEST(AccessLine, UsageIsTheNormalisedRecordWithItsTotalAndHowItWasObtained) {
  RequestRecord r = sampleRecord();
  r.usage = TokenUsage{.input = 1200, .cache_read = 1000, .cache_write = 100, .output = 80,
                       .reasoning = 30, .estimated = true};
  r.attempts[1].upstream_protocol = "openai-chat";
  r.attempts[1].translated = true;
  json::object o = json::parse(formatAccessLine(r)).as_object();
  json::object const& usage = o.at("usage").as_object();
  EXPECT_EQ(usage.at("input").to_number<int>(), 1200);
  EXPECT_EQ(usage.at("cache_read").to_number<int>(), 1000);
  EXPECT_EQ(usage.at("cache_write").to_number<int>(), 100);
  EXPECT_EQ(usage.at("output").to_number<int>(), 80);
  EXPECT_EQ(usage.at("reasoning").to_number<int>(), 30);
  EXPECT_EQ(usage.at("total").to_number<int>(), 1280) << "input + output, cache not added again";
  EXPECT_EQ(usage.at("estimated").as_bool(), true);
  json::object const& answered = o.at("attempt_list").as_array()[1].as_object();
  EXPECT_EQ(answered.at("upstream_protocol").as_string(), "openai-chat");
  EXPECT_EQ(answered.at("translated").as_bool(), true);
  EXPECT_FALSE(o.at("attempt_list").as_array()[0].as_object().contains("translated"));
}

TEST(AccessLine, AStreamAttemptCarriesItsFirstContentTime) {
  RequestRecord r = sampleRecord();
  r.attempts[1].first_byte_ms = 4.5;
  r.attempts[1].first_token_ms = 312.25;
  json::object o = json::parse(formatAccessLine(r)).as_object();
  json::object const& answered = o.at("attempt_list").as_array()[1].as_object();
  EXPECT_DOUBLE_EQ(answered.at("first_byte_ms").to_number<double>(), 4.5);
  EXPECT_DOUBLE_EQ(answered.at("first_token_ms").to_number<double>(), 312.25);
}

TEST(AccessLine, NoAttemptsAndNoFirstByte) {
  RequestRecord r;
  r.request_id = "r";
  r.status = 401;
  r.error = "unknown gateway key";
  json::object o = json::parse(formatAccessLine(r)).as_object();
  EXPECT_TRUE(o.at("attempt_list").as_array().empty());
  EXPECT_EQ(o.at("attempts").to_number<int>(), 0);
  EXPECT_TRUE(o.at("first_byte_ms").is_null());
  EXPECT_EQ(o.at("error").as_string(), "unknown gateway key");
  EXPECT_EQ(o.at("stream").as_bool(), false);
}

TEST(AccessLine, DurationsAreCompactDecimalsRoundedToTheMicrosecond) {
  RequestRecord r;
  r.first_byte_ms = 0.05;
  r.total_ms = 3;
  r.overhead_ms = 0.0004;  // rounds to 0
  std::string line = formatAccessLine(r);
  EXPECT_NE(line.find("\"first_byte_ms\":0.05,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"total_ms\":3,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"overhead_ms\":0,"), std::string::npos) << line;
  r.total_ms = 1234567.8915;
  line = formatAccessLine(r);
  EXPECT_NE(line.find("\"total_ms\":1234567.892,"), std::string::npos) << line;
}

TEST(AccessLogFile, LinesFromSeveralThreadsAllArriveWholeAfterFlush) {
  TempDir dir;
  fs::path path = dir.path() / "access.log";
  // A long interval and a small threshold: size-triggered writes and flush() do the work.
  AccessLogOptions options;
  options.flush_interval = std::chrono::hours(1);
  options.flush_bytes = 4096;
  auto log = AccessLog::open(path.string(), options);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_TRUE((*log)->enabled());

  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < kPerThread; ++i) {
        RequestRecord r = sampleRecord();
        r.request_id = std::to_string(t) + "-" + std::to_string(i);
        (*log)->write(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  (*log)->flush();

  auto lines = readLines(path);
  ASSERT_EQ(lines.size(), std::size_t{kThreads} * kPerThread);
  std::set<std::string> ids;
  for (auto const& line : lines)
    ids.insert(std::string(json::parse(line).at("request_id").as_string()));
  EXPECT_EQ(ids.size(), lines.size());
  EXPECT_EQ((*log)->droppedLines(), 0u);
  EXPECT_EQ((*log)->writeErrors(), 0u);
}

TEST(AccessLogFile, AppendsToAnExistingFileAndFlushesOnDestruction) {
  TempDir dir;
  fs::path path = dir.path() / "access.log";
  std::ofstream(path) << "previous line\n";
  {
    auto log = AccessLog::open(path.string());
    ASSERT_TRUE(log.ok());
    (*log)->write(sampleRecord());
  }
  auto lines = readLines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "previous line");
  EXPECT_EQ(json::parse(lines[1]).at("request_id").as_string(), "req-1");
}

TEST(AccessLogFile, ReopenFollowsRotation) {
  TempDir dir;
  fs::path path = dir.path() / "access.log";
  auto log = AccessLog::open(path.string());
  ASSERT_TRUE(log.ok());
  (*log)->write(sampleRecord());
  (*log)->flush();
  fs::rename(path, dir.path() / "access.log.1");
  ASSERT_TRUE((*log)->reopen().ok());
  (*log)->write(sampleRecord());
  (*log)->flush();
  EXPECT_EQ(readLines(path).size(), 1u);
  EXPECT_EQ(readLines(dir.path() / "access.log.1").size(), 1u);
}

TEST(AccessLogFile, DropsAndCountsWhenThePendingBufferIsFull) {
  TempDir dir;
  fs::path path = dir.path() / "access.log";
  AccessLogOptions options;
  options.flush_interval = std::chrono::hours(1);
  options.max_pending_bytes = formatAccessLine(sampleRecord()).size() * 2;
  auto log = AccessLog::open(path.string(), options);
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 3; ++i) (*log)->write(sampleRecord());
  (*log)->flush();
  EXPECT_EQ((*log)->droppedLines(), 1u);
  EXPECT_EQ(readLines(path).size(), 2u);
}

TEST(AccessLogDestinations, OffAndErrors) {
  auto off = AccessLog::open("off");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE((*off)->enabled());
  (*off)->write(sampleRecord());
  (*off)->flush();
  EXPECT_EQ((*off)->droppedLines(), 0u);

  EXPECT_TRUE(AccessLog::open("stderr").ok());
  auto bad = AccessLog::open("/nonexistent-dir-for-llmux/access.log");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/nonexistent-dir-for-llmux/access.log"), std::string::npos);
  EXPECT_FALSE(AccessLog::open("").ok());
}

}  // namespace
}  // namespace llmux::telemetry
