// The `database:` section: PostgreSQL as the request log's store, its URL from the file or the
// environment, strictly validated, and never shown with its password.

#include <gtest/gtest.h>

#include "config/database_parser.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

std::string document(std::string const& database) { return testing::minimalFileWith(database); }

TEST(DatabaseConfig, AbsentMeansTheRequestLogStaysInSqlite) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->database);
}

TEST(DatabaseConfig, TheUrlComesFromTheFileOrTheEnvironment) {
  auto env = fakeEnv({{"LLMUX_DATABASE_URL", "postgres://llmux:pw@db.example:5433/llmux"},
                      {"DB_PASSWORD", "s3cret"}});
  auto from_env = loaded(document("database: {url_env: LLMUX_DATABASE_URL}\n"), env);
  ASSERT_TRUE(from_env && from_env->database);
  EXPECT_EQ(from_env->database->url, "postgres://llmux:pw@db.example:5433/llmux");
  EXPECT_EQ(from_env->database->url_env, "LLMUX_DATABASE_URL");

  auto in_file = loaded(
      document(
          "database: {url: \"postgresql://llmux:${DB_PASSWORD}@10.0.0.5/logs?sslmode=require\"}\n"),
      env);
  ASSERT_TRUE(in_file && in_file->database);
  EXPECT_EQ(in_file->database->url, "postgresql://llmux:s3cret@10.0.0.5/logs?sslmode=require");
  EXPECT_EQ(in_file->database->url_env, "");
}

TEST(DatabaseConfig, BadSectionsAreReportedWithoutTheUrl) {
  EXPECT_EQ(issuesOf(document("database: {}\n")),
            Lines{"database: give exactly one of url and url_env"});
  EXPECT_EQ(issuesOf(document("database: {url: \"postgres://a@h/d\", url_env: X}\n")),
            Lines{"database: give exactly one of url and url_env"});
  EXPECT_EQ(issuesOf(document("database: {url_env: NOPE}\n")),
            Lines{"database.url_env: environment variable NOPE is not set"});
  Lines wrong_scheme = issuesOf(document("database: {url: \"mysql://u:hunter2@h/d\"}\n"));
  ASSERT_EQ(wrong_scheme.size(), 1u);
  EXPECT_TRUE(wrong_scheme[0].starts_with("database.url: expected a postgres://"))
      << wrong_scheme[0];
  EXPECT_EQ(wrong_scheme[0].find("hunter2"), std::string::npos);
  Lines unknown = issuesOf(document("database: {url: \"postgres://h/d\", pool: 4}\n"));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_TRUE(unknown[0].starts_with("database.pool: unknown key")) << unknown[0];
}

TEST(DatabaseConfig, TheMaskedUrlHidesEveryPassword) {
  EXPECT_EQ(maskedDatabaseUrl("postgres://llmux:s3cret@db:5432/llmux"),
            "postgres://llmux:***@db:5432/llmux");
  EXPECT_EQ(maskedDatabaseUrl("postgres://db/llmux?user=u&password=s3cret&sslmode=require"),
            "postgres://db/llmux?user=u&password=***&sslmode=require");
  EXPECT_EQ(maskedDatabaseUrl("postgres://llmux@db/llmux"), "postgres://llmux@db/llmux");
  EXPECT_EQ(maskedDatabaseUrl("postgres://u:s3cret@[bad"), "postgres://***");
}

}  // namespace
}  // namespace llmux::config

namespace llmux::config {
namespace {

TEST(DatabaseConfig, ReplicaHeartbeatsAndSyncAreTunable) {
  auto defaults = loaded(document("database: {url: \"postgres://h/d\"}\n"));
  ASSERT_TRUE(defaults && defaults->database);
  EXPECT_EQ(defaults->database->replica, "");
  EXPECT_EQ(defaults->database->heartbeat, Millis(2000));
  EXPECT_EQ(defaults->database->heartbeat_lapse, Millis(15000));
  EXPECT_EQ(defaults->database->sync_interval, Millis(500));

  auto tuned = loaded(document("database: {url: \"postgres://h/d\", replica: eu-1, heartbeat_ms: "
                               "500, heartbeat_lapse_ms: 3000, sync_interval_ms: 100}\n"));
  ASSERT_TRUE(tuned && tuned->database);
  EXPECT_EQ(tuned->database->replica, "eu-1");
  EXPECT_EQ(tuned->database->heartbeat, Millis(500));
  EXPECT_EQ(tuned->database->heartbeat_lapse, Millis(3000));
  EXPECT_EQ(tuned->database->sync_interval, Millis(100));

  Lines too_short = issuesOf(document(
      "database: {url: \"postgres://h/d\", heartbeat_ms: 2000, heartbeat_lapse_ms: 4000}\n"));
  ASSERT_EQ(too_short.size(), 1u);
  EXPECT_NE(too_short[0].find("database.heartbeat_lapse_ms"), std::string::npos) << too_short[0];
  EXPECT_NE(too_short[0].find("at least 3 times heartbeat_ms"), std::string::npos) << too_short[0];
  EXPECT_EQ(issuesOf(document("database: {url: \"postgres://h/d\", sync_interval_ms: 10}\n")).size(),
            1u);
}

}  // namespace
}  // namespace llmux::config

#include <fstream>
#include <map>
#include <sstream>

namespace llmux::config {
namespace {

TEST(DatabaseConfig, TheSeveralReplicasExampleLoadsWithItsEnvironmentFile) {
  // deploy/systemd: the fleet's configuration and one replica's environment file, as shipped.
  std::string const dir = std::string(LLMUX_TEST_DATA_DIR) + "/../../deploy/systemd/";
  std::ifstream yaml_file(dir + "llmux.yaml.example");
  std::ifstream env_file(dir + "replica.env.example");
  ASSERT_TRUE(yaml_file && env_file);
  std::stringstream yaml;
  yaml << yaml_file.rdbuf();
  std::map<std::string, std::string> env;
  for (std::string line; std::getline(env_file, line);) {
    auto eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    env.emplace(line.substr(0, eq), line.substr(eq + 1));
  }
  auto settings = loaded(yaml.str(), fakeEnv(env));
  ASSERT_TRUE(settings && settings->database && settings->redis && settings->payloads);
  EXPECT_EQ(settings->database->replica, "a");
  EXPECT_TRUE(settings->alerts.has_value());
}

}  // namespace
}  // namespace llmux::config
