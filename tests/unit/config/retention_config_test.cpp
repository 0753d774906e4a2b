// The `retention:` section: how long each table keeps its rows, with the request log's older
// name `log.request_log_retention_days` still read as the same setting.

#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

std::string document(std::string const& sections) { return testing::minimalFileWith(sections); }

TEST(RetentionConfig, AbsentKeepsTheDefaults) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->retention.request_log_days, 30);
  EXPECT_EQ(settings->retention.video_jobs_days, 7);
  EXPECT_EQ(settings->retention.payloads_days, 0);
}

TEST(RetentionConfig, EveryTableTakesItsValue) {
  auto settings = loaded(
      document("retention:\n  request_log_days: 0\n  video_jobs_days: 2\n  payloads_days: 90\n"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->retention.request_log_days, 0);
  EXPECT_EQ(settings->retention.video_jobs_days, 2);
  EXPECT_EQ(settings->retention.payloads_days, 90);

  auto partial = loaded(document("retention: {video_jobs_days: 365}\n"));
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->retention.request_log_days, 30);
  EXPECT_EQ(partial->retention.video_jobs_days, 365);
}

TEST(RetentionConfig, TheLogKeyIsTheSameSetting) {
  auto old_name = loaded(document("log: {request_log_retention_days: 12}\n"));
  ASSERT_TRUE(old_name);
  EXPECT_EQ(old_name->retention.request_log_days, 12);

  auto both_agree = loaded(
      document("log: {request_log_retention_days: 12}\nretention: {request_log_days: 12}\n"));
  ASSERT_TRUE(both_agree);
  EXPECT_EQ(both_agree->retention.request_log_days, 12);

  EXPECT_EQ(issuesOf(document(
                "log: {request_log_retention_days: 12}\nretention: {request_log_days: 14}\n")),
            Lines{"retention.request_log_days: differs from log.request_log_retention_days (12), "
                  "the same setting: give one of them"});
  // Either order in the file: the two are compared once both are read.
  EXPECT_EQ(issuesOf(document(
                "retention: {request_log_days: 0}\nlog: {request_log_retention_days: 30}\n")),
            Lines{"retention.request_log_days: differs from log.request_log_retention_days (30), "
                  "the same setting: give one of them"});
}

TEST(RetentionConfig, BadValuesAndKeysAreReported) {
  EXPECT_EQ(issuesOf(document("retention: {request_log_days: -1}\n")),
            Lines{"retention.request_log_days: must be from 0 to 36500"});
  EXPECT_EQ(issuesOf(document("retention: {video_jobs_days: 0}\n")),
            Lines{"retention.video_jobs_days: must be from 1 to 365"});
  EXPECT_EQ(issuesOf(document("retention: {video_jobs_days: 366}\n")),
            Lines{"retention.video_jobs_days: must be from 1 to 365"});
  EXPECT_EQ(issuesOf(document("retention: {payloads_days: 36501}\n")),
            Lines{"retention.payloads_days: must be from 0 to 36500"});
  Lines wrong_type = issuesOf(document("retention: {payloads_days: week}\n"));
  ASSERT_EQ(wrong_type.size(), 1u);
  EXPECT_TRUE(wrong_type[0].starts_with("retention.payloads_days: ")) << wrong_type[0];
  EXPECT_EQ(issuesOf(document("retention: {freezes_days: 3}\n")),
            Lines{"retention.freezes_days: unknown key (expected one of request_log_days, "
                  "video_jobs_days, payloads_days)"});
  Lines not_a_map = issuesOf(document("retention: 30\n"));
  ASSERT_EQ(not_a_map.size(), 1u);
  EXPECT_TRUE(not_a_map[0].starts_with("retention: ")) << not_a_map[0];
}

}  // namespace
}  // namespace llmux::config
