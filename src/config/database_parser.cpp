#include "config/database_parser.h"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <optional>

namespace llmux::config {
namespace {

constexpr std::string_view kMask = "***";

/// Why `url` is not a PostgreSQL URL libpq accepts, or nullopt. Never quotes the URL (it holds a
/// password).
std::optional<std::string> invalidReason(std::string_view url) {
  if (!url.starts_with("postgres://") && !url.starts_with("postgresql://")) {
    return "expected a postgres:// or postgresql:// URL "
           "(postgres://user:password@host:port/database)";
  }
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return "not a valid URL (" + parsed.error().message() + ")";
  if (parsed->has_fragment()) return "a database URL has no #fragment";
  return std::nullopt;
}

}  // namespace

std::string maskedDatabaseUrl(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    auto colon = url.find(':');
    return colon == std::string_view::npos
               ? std::string(kMask)
               : std::string(url.substr(0, colon)) + "://" + std::string(kMask);
  }
  boost::urls::url masked(*parsed);
  if (masked.has_password()) masked.set_password(kMask);
  for (auto it = masked.params().begin(); it != masked.params().end(); ++it) {
    if ((*it).key == "password") it = masked.params().replace(it, {"password", kMask});
  }
  return std::string(masked.buffer());
}

namespace detail {

void readDatabase(YamlReader& reader, Fields const& root, EnvLookup const& env,
                  Settings& settings) {
  YAML::Node const* node = root.find("database");
  if (node == nullptr) return;
  std::string const path = root.path("database");
  auto fields = reader.strictMap(*node, path,
                                 {"url", "url_env", "replica", "heartbeat_ms", "heartbeat_lapse_ms",
                                  "sync_interval_ms"});
  if (!fields) return;
  YAML::Node const* url = fields->find("url");
  YAML::Node const* url_env = fields->find("url_env");
  if ((url == nullptr) == (url_env == nullptr)) {
    reader.fail(path, "give exactly one of url and url_env");
    return;
  }
  DatabaseSettings database;
  std::string field_path;
  if (url != nullptr) {
    field_path = fields->path("url");
    auto text = reader.nonEmptyString(*url, field_path);
    if (!text) return;
    auto value = expandVariables(*text, env);
    if (!value) {
      reader.fail(field_path, value.error().message);
      return;
    }
    database.url = std::move(*value);
  } else {
    field_path = fields->path("url_env");
    auto variable = reader.nonEmptyString(*url_env, field_path);
    if (!variable) return;
    auto value = env(*variable);
    if (!value || value->empty()) {
      reader.fail(field_path, "environment variable " + *variable + " is not set");
      return;
    }
    database.url = std::move(*value);
    database.url_env = *variable;
  }
  if (auto why = invalidReason(database.url)) {
    reader.fail(field_path, *why);
    return;
  }
  if (YAML::Node const* replica = fields->find("replica")) {
    // `${VAR}` allowed: replicas sharing one file name themselves from their environment.
    auto name = reader.nonEmptyString(*replica, fields->path("replica"));
    if (!name) return;
    auto value = expandVariables(*name, env);
    if (!value || value->empty()) {
      reader.fail(fields->path("replica"),
                  value ? "must not be empty" : value.error().message);
      return;
    }
    database.replica = std::move(*value);
  }
  auto readMillis = [&](std::string_view name, Millis& target, long long min, long long max) {
    YAML::Node const* value = fields->find(name);
    if (value == nullptr) return true;
    auto ms = reader.integer(*value, fields->path(name), min, max);
    if (ms) target = Millis(*ms);
    return ms.has_value();
  };
  if (!readMillis("heartbeat_ms", database.heartbeat, 100, 60'000) ||
      !readMillis("heartbeat_lapse_ms", database.heartbeat_lapse, 1000, 3'600'000) ||
      !readMillis("sync_interval_ms", database.sync_interval, 50, 60'000)) {
    return;
  }
  if (database.heartbeat_lapse < database.heartbeat * 3) {
    reader.fail(fields->path("heartbeat_lapse_ms"),
                "must be at least 3 times heartbeat_ms (" +
                    std::to_string(database.heartbeat.count()) +
                    "): a replica that misses one beat is not dead");
    return;
  }
  settings.database = std::move(database);
}

}  // namespace detail
}  // namespace llmux::config
