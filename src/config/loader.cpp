#include "config/loader.h"
#include "config/probes_parser.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "config/address.h"
#include "config/alerts_parser.h"
#include "config/body_limits_parser.h"
#include "config/channel_parser.h"
#include "config/database_parser.h"
#include "config/payloads_parser.h"
#include "config/egress_parser.h"
#include "config/resilience_parser.h"
#include "config/retention_parser.h"
#include "config/routing_parser.h"
#include "config/yaml_reader.h"

namespace llmux::config {
namespace {

using detail::Fields;
using detail::YamlReader;

constexpr long long kMaxServerTimeoutMs = 24LL * 3600 * 1000;

/// A string value with ${VAR} expanded.
std::optional<std::string> expanded(YamlReader& reader, YAML::Node const& node,
                                    std::string const& path, EnvLookup const& env) {
  auto raw = reader.string(node, path);
  if (!raw) return std::nullopt;
  auto value = expandVariables(*raw, env);
  if (!value) {
    reader.fail(path, value.error().message);
    return std::nullopt;
  }
  return std::move(*value);
}

/// A listen address (`listen`, `admin_listen`, `metrics_listen`) into `target`.
void readAddress(YamlReader& reader, Fields const& root, EnvLookup const& env, std::string_view key,
                 std::string& target) {
  YAML::Node const* node = root.find(key);
  if (node == nullptr) return;
  auto text = expanded(reader, *node, root.path(key), env);
  if (!text) return;
  if (auto address = parseListenAddress(*text); !address) {
    reader.fail(root.path(key), address.error().message);
    return;
  }
  target = std::move(*text);
}

void readListen(YamlReader& reader, Fields const& root, EnvLookup const& env, Settings& settings) {
  readAddress(reader, root, env, "listen", settings.server.listen);
  readAddress(reader, root, env, "admin_listen", settings.server.admin_listen);
  readAddress(reader, root, env, "metrics_listen", settings.server.metrics_listen);
  // The point of a separate address is that the client port does not serve it.
  for (std::string_view key : {"admin_listen", "metrics_listen"}) {
    std::string const& address =
        key == "admin_listen" ? settings.server.admin_listen : settings.server.metrics_listen;
    if (!address.empty() && address == settings.server.listen) {
      reader.fail(root.path(key), "must differ from listen");
    }
  }
}

void readServer(YamlReader& reader, Fields const& root, Settings& settings) {
  YAML::Node const* node = root.find("server");
  if (node == nullptr) return;
  auto fields = reader.strictMap(*node, root.path("server"),
                                 {"threads", "max_body_bytes", "max_header_bytes",
                                  "max_header_count", "max_connections", "max_buffered_body_bytes",
                                  "body_min_rate", "body_rate_grace_ms", "header_timeout_ms",
                                  "body_timeout_ms", "keepalive_timeout_ms", "lame_duck_ms",
                                  "drain_timeout_ms", "body_limits"});
  if (!fields) return;
  ServerSettings& server = settings.server;
  auto integer = [&](std::string_view key, long long min, long long max) -> std::optional<long long> {
    YAML::Node const* value = fields->find(key);
    if (value == nullptr) return std::nullopt;
    return reader.integer(*value, fields->path(key), min, max);
  };
  auto millis = [&](std::string_view key, Millis& target) {
    if (auto ms = integer(key, 1, kMaxServerTimeoutMs)) target = Millis(*ms);
  };
  if (auto v = integer("threads", 0, 1024)) server.threads = static_cast<unsigned>(*v);
  if (auto v = integer("max_body_bytes", 1, 1LL << 40)) server.max_body_bytes = *v;
  if (YAML::Node const* limits = fields->find("body_limits")) {
    detail::readBodyLimits(reader, *limits, fields->path("body_limits"), server);
  }
  if (auto v = integer("max_header_bytes", 1024, 16LL << 20)) server.max_header_bytes = *v;
  if (auto v = integer("max_header_count", 8, 10'000)) server.max_header_count = *v;
  if (auto v = integer("max_connections", 1, 10'000'000)) server.max_connections = *v;
  if (auto v = integer("max_buffered_body_bytes", 1LL << 20, 1LL << 40)) {
    server.max_buffered_body_bytes = *v;
  }
  if (auto v = integer("body_min_rate", 0, 1LL << 30)) server.body_min_rate = *v;
  millis("body_rate_grace_ms", server.body_rate_grace);
  millis("header_timeout_ms", server.header_timeout);
  millis("body_timeout_ms", server.body_timeout);
  millis("keepalive_timeout_ms", server.keepalive_timeout);
  if (auto ms = integer("lame_duck_ms", 0, kMaxServerTimeoutMs)) server.lame_duck = Millis(*ms);
  millis("drain_timeout_ms", server.drain_timeout);
}

/// Returns `request_log_retention_days` when given and valid: the older name of
/// `retention.request_log_days`, which readRetention checks against it.
std::optional<int> readLog(YamlReader& reader, Fields const& root, EnvLookup const& env,
                           Settings& settings) {
  YAML::Node const* node = root.find("log");
  if (node == nullptr) return std::nullopt;
  auto fields =
      reader.strictMap(*node, root.path("log"),
                       {"access_log", "request_log", "request_log_retention_days", "level"});
  if (!fields) return std::nullopt;
  std::optional<int> retention_days;
  if (YAML::Node const* value = fields->find("access_log")) {
    std::string const path = fields->path("access_log");
    if (auto text = expanded(reader, *value, path, env)) {
      if (text->empty()) {
        reader.fail(path, "must not be empty (use off to disable the access log)");
      } else {
        settings.log.access_log = std::move(*text);
      }
    }
  }
  if (YAML::Node const* value = fields->find("request_log")) {
    if (auto on = reader.boolean(*value, fields->path("request_log"))) settings.log.request_log = *on;
  }
  if (YAML::Node const* value = fields->find("request_log_retention_days")) {
    std::string const path = fields->path("request_log_retention_days");
    if (auto days = reader.integer(*value, path, 0, detail::kMaxRetentionDays)) {
      retention_days = static_cast<int>(*days);
      settings.retention.request_log_days = *retention_days;
    }
  }
  if (YAML::Node const* value = fields->find("level")) {
    if (auto level = reader.string(*value, fields->path("level"))) {
      if (*level == "debug" || *level == "info" || *level == "warn" || *level == "error") {
        settings.log.level = std::move(*level);
      } else {
        reader.fail(fields->path("level"),
                    "unknown level \"" + *level + "\" (expected debug, info, warn, error)");
      }
    }
  }
  return retention_days;
}

void readGatewayKey(YamlReader& reader, Fields const& fields, EnvLookup const& env,
                    GatewayKey& key, std::string& secret_path) {
  if (YAML::Node const* node = reader.require(fields, "name")) {
    if (auto name = reader.string(*node, fields.path("name"))) {
      if (detail::isValidName(*name)) {
        key.name = std::move(*name);
      } else {
        reader.fail(fields.path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
      }
    }
  }
  if (auto secret = detail::readSecretFields(reader, fields, "key", "key_env", env, secret_path)) {
    key.secret = std::move(*secret);
  } else {
    secret_path.clear();
  }
  if (YAML::Node const* node = fields.find("strategy")) {
    if (auto name = reader.string(*node, fields.path("strategy"))) {
      if (auto strategy = parseStrategy(*name)) {
        key.strategy = *strategy;
      } else {
        reader.fail(fields.path("strategy"), "unknown strategy \"" + *name + "\" (expected " +
                                                 detail::strategyChoices() + ")");
      }
    }
  }
  if (YAML::Node const* node = fields.find("cost_preference")) {
    key.cost_preference = detail::readCostPreference(reader, *node, fields.path("cost_preference"));
  }
  detail::readClientLimits(reader, fields, key);
}

void readGatewayKeys(YamlReader& reader, Fields const& root, EnvLookup const& env,
                     Settings& settings) {
  YAML::Node const* node = reader.require(root, "gateway_keys");
  if (node == nullptr) return;
  std::string const path = root.path("gateway_keys");
  auto items = reader.list(*node, path);
  if (!items) return;
  if (items->empty()) reader.fail(path, "at least one gateway key is required");
  std::vector<std::pair<std::size_t, std::string>> seen_names;    // index, name
  std::vector<std::pair<std::size_t, std::string>> seen_secrets;  // index, secret
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = detail::indexPath(path, i);
    auto fields = reader.strictMap((*items)[i], item_path, {"name", "key", "key_env", "strategy", "limits",
                                                                  "cost_preference"});
    if (!fields) continue;
    GatewayKey key;
    std::string secret_path;  // set when a secret was read
    readGatewayKey(reader, *fields, env, key, secret_path);
    if (!key.name.empty()) {
      for (auto const& [index, name] : seen_names) {
        if (name == key.name) {
          reader.fail(fields->path("name"), "duplicate gateway key name \"" + key.name +
                                                "\" (also " + detail::indexPath(path, index) + ")");
          break;
        }
      }
      seen_names.emplace_back(i, key.name);
    }
    if (!secret_path.empty()) {
      for (auto const& [index, secret] : seen_secrets) {
        if (secret == key.secret) {
          reader.fail(secret_path, "duplicate gateway key (same secret as " +
                                       detail::indexPath(path, index) + ")");
          break;
        }
      }
      seen_secrets.emplace_back(i, key.secret);
    }
    settings.gateway_keys.push_back(std::move(key));
  }
}

void readSettings(YamlReader& reader, YAML::Node const& root_node, EnvLookup const& env,
                  Settings& settings) {
  auto root = reader.strictMap(root_node, "",
                               {"listen", "admin_listen", "metrics_listen", "server", "log",
                                "state_dir", "gateway_keys", "channels", "admin_token",
                                "admin_token_env", "admin_tokens", "metrics_token", "metrics_token_env",
                                "model_groups", "fallbacks",
                                "freeze_rules", "default_freeze_rules", "retry", "buckets", "redis",
                                 "database", "payloads", "prices", "racing", "proxies", "slo",
                                 "alerts", "probes", "retention"});
  if (!root) return;
  readListen(reader, *root, env, settings);
  readServer(reader, *root, settings);
  std::optional<int> log_retention = readLog(reader, *root, env, settings);
  detail::readRetention(reader, *root, log_retention, settings);
  if (YAML::Node const* node = root->find("state_dir")) {
    if (auto dir = expanded(reader, *node, root->path("state_dir"), env)) {
      settings.state_dir = std::move(*dir);
    }
  }
  readGatewayKeys(reader, *root, env, settings);
  detail::readProxies(reader, *root, env, settings);  // before the channels, which name them
  if (YAML::Node const* node = reader.require(*root, "channels")) {
    settings.channels =
        detail::parseChannels(*node, root->path("channels"), reader, env, settings.proxies);
  }
  detail::applyEnvironmentProxies(reader, env, settings);
  // After the channels and gateway keys: groups and fallbacks name served models, and the admin
  // token must differ from every gateway key.
  detail::readRoutingSettings(reader, *root, env, settings);
  detail::readResilienceSettings(reader, *root, env, settings);
  detail::readDatabase(reader, *root, env, settings);
  detail::readPayloads(reader, *root, env, settings);
  detail::readAlertSettings(reader, *root, env, settings);
  detail::readProbeSettings(reader, *root, settings);  // after the channels: it checks their names
}

}  // namespace

namespace {

/// The one YAML document of `yaml_text`; nullopt (with the issue) when it is not one.
std::optional<YAML::Node> oneDocument(std::string_view yaml_text, std::vector<ConfigIssue>& issues) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(yaml_text));
  } catch (YAML::Exception const& e) {
    std::string message = "YAML syntax error";
    if (!e.mark.is_null()) {
      message += " at line " + std::to_string(e.mark.line + 1) + ", column " +
                 std::to_string(e.mark.column + 1);
    }
    issues.push_back({"", message + ": " + e.msg});
    return std::nullopt;
  }
  if (documents.empty() || documents.front().IsNull()) {
    issues.push_back({"", "the configuration is empty"});
    return std::nullopt;
  }
  if (documents.size() > 1) {
    issues.push_back({"", "expected one YAML document, found " + std::to_string(documents.size())});
    return std::nullopt;
  }
  return documents.front();
}

/// The text of the file at `path`; nullopt (with the issue) when it cannot be read.
std::optional<std::string> fileText(std::string const& path, std::vector<ConfigIssue>& issues) {
  auto unreadable = [&](std::string why) {
    issues.push_back({"", "cannot read configuration file " + path + ": " + why});
    return std::nullopt;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return unreadable("is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable(errno != 0 ? std::strerror(errno) : "cannot open");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return unreadable("read error");
  return text;
}

}  // namespace

LoadOutcome parseSettings(std::string_view yaml_text, EnvLookup const& env) {
  LoadOutcome outcome;
  auto root = oneDocument(yaml_text, outcome.issues);
  if (!root) return outcome;
  return parseSettingsTree(*root, env);
}

std::optional<YAML::Node> readConfigTree(std::string const& path,
                                         std::vector<ConfigIssue>& issues) {
  auto text = fileText(path, issues);
  if (!text) return std::nullopt;
  return oneDocument(*text, issues);
}

LoadOutcome parseSettingsTree(YAML::Node const& root, EnvLookup const& env) {
  LoadOutcome outcome;
  auto settings = std::make_shared<Settings>();
  YamlReader reader(outcome.issues);
  try {
    readSettings(reader, root, env, *settings);
  } catch (YAML::Exception const& e) {  // not expected: the reader checks types before reading
    outcome.issues.push_back({"", std::string("cannot read the configuration: ") + e.msg});
  }
  if (outcome.issues.empty()) outcome.settings = std::move(settings);
  return outcome;
}

LoadOutcome loadSettingsFile(std::string const& path, EnvLookup const& env) {
  LoadOutcome outcome;
  auto text = fileText(path, outcome.issues);
  if (!text) return outcome;
  return parseSettings(*text, env);
}

}  // namespace llmux::config
