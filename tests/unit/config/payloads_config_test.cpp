// The `payloads:` section: where captured bodies go (ClickHouse over HTTP), how many and how much,
// what is blanked; the password only from the environment.

#include <gtest/gtest.h>

#include "config/payloads_parser.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

std::string document(std::string const& payloads) { return testing::minimalFileWith(payloads); }

TEST(PayloadsConfig, AbsentMeansNothingIsCaptured) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->payloads);
}

TEST(PayloadsConfig, DefaultsAndEveryField) {
  auto defaults = loaded(document("payloads: {clickhouse_url: \"http://127.0.0.1:8123\"}\n"));
  ASSERT_TRUE(defaults && defaults->payloads);
  auto const& d = *defaults->payloads;
  EXPECT_EQ(d.clickhouse.host, "127.0.0.1");
  EXPECT_EQ(d.clickhouse.port, 8123);
  EXPECT_EQ(d.user, "default");
  EXPECT_EQ(d.password, "");
  EXPECT_EQ(d.database, "default");
  EXPECT_EQ(d.table, "llmux_payloads");
  EXPECT_EQ(d.sample, 1.0);
  EXPECT_EQ(d.max_bytes, 1048576u);
  EXPECT_EQ(d.redact, (Lines{"api_key", "authorization"}));

  auto env = fakeEnv({{"CH_PASSWORD", "ch-s3cret"}});
  auto full = loaded(document("payloads:\n  clickhouse_url: \"http://ch.internal:18123\"\n"
                              "  user: llmux\n  password_env: CH_PASSWORD\n  database: logs\n"
                              "  table: bodies\n  sample: 0.25\n  max_bytes: 4096\n"
                              "  redact: [API_Key, x-secret]\n  queue_bytes: 2097152\n"),
                     env);
  ASSERT_TRUE(full && full->payloads);
  auto const& f = *full->payloads;
  EXPECT_EQ(f.clickhouse.host, "ch.internal");
  EXPECT_EQ(f.clickhouse.port, 18123);
  EXPECT_EQ(f.user, "llmux");
  EXPECT_EQ(f.password, "ch-s3cret");
  EXPECT_EQ(f.password_env, "CH_PASSWORD");
  EXPECT_EQ(f.database, "logs");
  EXPECT_EQ(f.table, "bodies");
  EXPECT_EQ(f.sample, 0.25);
  EXPECT_EQ(f.max_bytes, 4096u);
  EXPECT_EQ(f.redact, (Lines{"api_key", "x-secret"}));  // compared without case
  EXPECT_EQ(f.queue_bytes, 2097152u);
}

TEST(PayloadsConfig, BadSectionsAreReportedWithTheirPaths) {
  EXPECT_EQ(issuesOf(document("payloads: {sample: 0.5}\n")),
            Lines{"payloads.clickhouse_url: required field is missing"});
  EXPECT_EQ(issuesOf(document("payloads: {clickhouse_url: \"https://ch:8443\"}\n")),
            Lines{"payloads.clickhouse_url: expected an http:// URL (ClickHouse's HTTP interface; "
                  "https is not supported)"});
  EXPECT_EQ(issuesOf(document("payloads: {clickhouse_url: \"http://ch:8123/x\"}\n")),
            Lines{"payloads.clickhouse_url: expected no path (http://host:8123)"});
  EXPECT_EQ(issuesOf(document("payloads: {clickhouse_url: \"http://ch\", password_env: NOPE}\n")),
            Lines{"payloads.password_env: environment variable NOPE is not set"});
  EXPECT_EQ(issuesOf(document("payloads: {clickhouse_url: \"http://ch\", table: \"a;drop\"}\n")),
            Lines{"payloads.table: expected a name of letters, digits and '_'"});
  EXPECT_EQ(issuesOf(document("payloads: {clickhouse_url: \"http://ch\", redact: [a, \"\"]}\n")),
            Lines{"payloads.redact[1]: must not be empty"});
  Lines sample = issuesOf(document("payloads: {clickhouse_url: \"http://ch\", sample: 1.5}\n"));
  ASSERT_EQ(sample.size(), 1u);
  EXPECT_TRUE(sample[0].starts_with("payloads.sample: ")) << sample[0];
  Lines max_bytes = issuesOf(document("payloads: {clickhouse_url: \"http://ch\", max_bytes: 0}\n"));
  ASSERT_EQ(max_bytes.size(), 1u);
  EXPECT_TRUE(max_bytes[0].starts_with("payloads.max_bytes: ")) << max_bytes[0];
  // A password in the file has no key to go in.
  Lines password = issuesOf(document("payloads: {clickhouse_url: \"http://ch\", password: pw}\n"));
  ASSERT_EQ(password.size(), 1u);
  EXPECT_TRUE(password[0].starts_with("payloads.password: unknown key")) << password[0];
}

}  // namespace
}  // namespace llmux::config
