#include "config/payloads_parser.h"

#include <algorithm>

#include "config/address.h"
#include "config/channel_parser.h"
#include "core/strings.h"

namespace llmux::config::detail {
namespace {

/// A ClickHouse database or table name as written unquoted in a statement.
bool isIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  if (name.front() >= '0' && name.front() <= '9') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void readIdentifier(YamlReader& reader, Fields const& fields, std::string_view name,
                    std::string& target) {
  YAML::Node const* node = fields.find(name);
  if (node == nullptr) return;
  auto text = reader.nonEmptyString(*node, fields.path(name));
  if (!text) return;
  if (!isIdentifier(*text)) {
    reader.fail(fields.path(name), "expected a name of letters, digits and '_'");
    return;
  }
  target = std::move(*text);
}

}  // namespace

void readPayloads(YamlReader& reader, Fields const& root, EnvLookup const& env,
                  Settings& settings) {
  YAML::Node const* node = root.find("payloads");
  if (node == nullptr) return;
  std::string const path = root.path("payloads");
  auto fields = reader.strictMap(*node, path,
                                 {"clickhouse_url", "user", "password_env", "database", "table",
                                  "sample", "max_bytes", "redact", "queue_bytes"});
  if (!fields) return;
  PayloadSettings payloads;
  if (YAML::Node const* url = reader.require(*fields, "clickhouse_url")) {
    if (auto text = reader.nonEmptyString(*url, fields->path("clickhouse_url"))) {
      auto parsed = parseBaseUrl(*text);
      if (!parsed) {
        reader.fail(fields->path("clickhouse_url"), parsed.error().message);
      } else if (parsed->tls) {
        reader.fail(fields->path("clickhouse_url"),
                    "expected an http:// URL (ClickHouse's HTTP interface; https is not supported)");
      } else if (!parsed->path_prefix.empty()) {
        reader.fail(fields->path("clickhouse_url"), "expected no path (http://host:8123)");
      } else {
        payloads.clickhouse = std::move(*parsed);
      }
    }
  }
  if (YAML::Node const* user = fields->find("user")) {
    if (auto text = reader.nonEmptyString(*user, fields->path("user"))) payloads.user = std::move(*text);
  }
  // The password only from the environment: a configuration file is often shared or committed.
  if (YAML::Node const* name = fields->find("password_env")) {
    std::string secret_path;
    if (auto value = readSecret(reader, nullptr, "", name, fields->path("password_env"), env, secret_path)) {
      payloads.password = std::move(*value);
      payloads.password_env = name->as<std::string>();  // read as a string by readSecret
    }
  }
  readIdentifier(reader, *fields, "database", payloads.database);
  readIdentifier(reader, *fields, "table", payloads.table);
  if (YAML::Node const* sample = fields->find("sample")) {
    if (auto value = reader.number(*sample, fields->path("sample"), 0.0, 1.0)) payloads.sample = *value;
  }
  if (YAML::Node const* max_bytes = fields->find("max_bytes")) {
    if (auto value = reader.integer(*max_bytes, fields->path("max_bytes"), 1, 64LL << 20)) {
      payloads.max_bytes = static_cast<std::size_t>(*value);
    }
  }
  if (YAML::Node const* queue = fields->find("queue_bytes")) {
    if (auto value = reader.integer(*queue, fields->path("queue_bytes"), 1LL << 20, 4LL << 30)) {
      payloads.queue_bytes = static_cast<std::size_t>(*value);
    }
  }
  if (YAML::Node const* redact = fields->find("redact")) {
    if (auto names = reader.stringList(*redact, fields->path("redact"))) {  // none empty
      payloads.redact.clear();
      for (auto const& name : *names) payloads.redact.push_back(toLower(name));
    }
  }
  settings.payloads = std::move(payloads);
}

}  // namespace llmux::config::detail
