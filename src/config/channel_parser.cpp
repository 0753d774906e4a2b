#include "config/channel_parser.h"
#include "config/probes_parser.h"

#include <algorithm>
#include <fstream>
#include <array>

#include "config/address.h"
#include "config/egress_parser.h"
#include "config/inspection_parser.h"
#include "config/key_id.h"
#include "config/media_parser.h"
#include "config/resilience_parser.h"
#include "config/row_paths_parser.h"
#include "core/http_syntax.h"
#include "core/strings.h"

namespace llmux::config::detail {
namespace {

constexpr long long kMaxTimeoutMs = 24LL * 3600 * 1000;  // one day
constexpr long long kMaxWeight = 1'000'000;

/// Headers the HTTP client owns; setting them from the configuration would break framing.
constexpr std::array<std::string_view, 9> kReservedHeaders = {
    "host", "content-length", "transfer-encoding", "connection", "keep-alive",
    "te",   "trailer",        "upgrade",           "proxy-connection"};

bool isQueryNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("-._~").find(c) != std::string_view::npos;
}

std::string protocolChoices() {
  std::string out;
  for (Protocol p : kAllProtocols) {
    if (!out.empty()) out += ", ";
    out += protocolName(p);
  }
  return out;
}

constexpr long long kMaxQuota = 1'000'000'000'000'000LL;  // tokens or requests per day
constexpr long long kMaxRate = 1'000'000'000'000LL;         // requests or tokens per minute
constexpr long long kMaxConcurrency = 1'000'000;
constexpr long long kMaxContextWindow = 100'000'000;        // tokens

std::optional<Billing> readBilling(YamlReader& reader, YAML::Node const& node,
                                   std::string const& path) {
  auto text = reader.string(node, path);
  if (!text) return std::nullopt;
  if (*text == "per_token") return Billing::PerToken;
  if (*text == "per_request") return Billing::PerRequest;
  reader.fail(path, "unknown billing \"" + *text + "\" (expected per_token or per_request)");
  return std::nullopt;
}

/// The attributes of a key written as a mapping (everything but the secret).
void readKeyAttributes(YamlReader& reader, Fields const& fields, ChannelKey& key) {
  if (YAML::Node const* node = fields.find("name")) {
    if (auto name = reader.string(*node, fields.path("name"))) {
      if (isValidName(*name)) {
        key.name = std::move(*name);
      } else {
        reader.fail(fields.path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
      }
    }
  }
  if (YAML::Node const* node = fields.find("billing")) {
    if (auto billing = readBilling(reader, *node, fields.path("billing"))) key.billing = *billing;
  }
  auto integer = [&](std::string_view name, long long max) -> std::optional<std::int64_t> {
    YAML::Node const* node = fields.find(name);
    if (node == nullptr) return std::nullopt;
    return reader.integer(*node, fields.path(name), 1, max);
  };
  key.daily_quota = integer("daily_quota", kMaxQuota);
  key.limits.rpm = integer("rpm", kMaxRate);
  key.limits.tpm = integer("tpm", kMaxRate);
  key.limits.concurrency = integer("concurrency", kMaxConcurrency);
  if (auto weight = integer("weight", kMaxWeight)) key.weight = static_cast<int>(*weight);
  if (YAML::Node const* node = fields.find("enabled")) {
    if (auto on = reader.boolean(*node, fields.path("enabled"))) key.enabled = *on;
  }
}

/// One `keys:` item: a secret string (the short form) or a mapping with the secret and the
/// account's attributes. nullopt when it could not be read (reported). `secret_path` is where
/// a duplicate secret is reported.
std::optional<ChannelKey> readKey(YamlReader& reader, YAML::Node const& node,
                                  std::string const& item_path, EnvLookup const& env,
                                  std::string const& channel_name, std::size_t index,
                                  std::vector<Proxy> const& proxies, std::string& secret_path) {
  secret_path = item_path;
  if (!node.IsMap()) {
    auto secret = expandedString(reader, node, item_path, env);
    if (!secret) return std::nullopt;
    if (auto problem = secretProblem(*secret); !problem.empty()) {
      reader.fail(item_path, std::string(problem));
      return std::nullopt;
    }
    return makeChannelKey(channel_name, index, std::move(*secret));
  }
  auto fields = reader.strictMap(node, item_path,
                                 {"key", "key_env", "name", "billing", "daily_quota", "rpm", "tpm",
                                  "concurrency", "weight", "enabled", "proxy"});
  if (!fields) return std::nullopt;
  ChannelKey attributes;
  readKeyAttributes(reader, *fields, attributes);
  auto secret = readSecretFields(reader, *fields, "key", "key_env", env, secret_path);
  if (!secret) return std::nullopt;
  ChannelKey key = makeChannelKey(channel_name, index, std::move(*secret));
  if (!attributes.name.empty()) key.label = channel_name + "/" + attributes.name;
  key.name = std::move(attributes.name);
  key.billing = attributes.billing;
  key.daily_quota = attributes.daily_quota;
  key.limits = attributes.limits;
  key.weight = attributes.weight;
  key.enabled = attributes.enabled;
  if (YAML::Node const* proxy = fields->find("proxy")) {
    key.proxy = readProxyBinding(reader, *proxy, fields->path("proxy"), proxies);
  }
  return key;
}

void readKeys(YamlReader& reader, Fields const& fields, EnvLookup const& env,
              std::vector<Proxy> const& proxies, Channel& channel) {
  YAML::Node const* node = reader.require(fields, "keys");
  if (node == nullptr) return;
  std::string const path = fields.path("keys");
  auto items = reader.list(*node, path);
  if (!items) return;
  if (items->empty()) {
    reader.fail(path, "at least one key is required");
    return;
  }
  std::vector<std::size_t> indexes;  // channel.keys[k] came from items[indexes[k]]
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = indexPath(path, i);
    std::string secret_path;
    auto key = readKey(reader, (*items)[i], item_path, env, channel.name, i, proxies, secret_path);
    if (!key) continue;
    auto same = std::find_if(channel.keys.begin(), channel.keys.end(),
                             [&](ChannelKey const& other) { return other.secret == key->secret; });
    if (same != channel.keys.end()) {
      std::size_t first = indexes[static_cast<std::size_t>(same - channel.keys.begin())];
      reader.fail(secret_path, "duplicate key (same secret as " + indexPath(path, first) + ")");
      continue;
    }
    if (!key->name.empty()) {
      auto named = std::find_if(channel.keys.begin(), channel.keys.end(),
                                [&](ChannelKey const& other) { return other.name == key->name; });
      if (named != channel.keys.end()) {
        std::size_t first = indexes[static_cast<std::size_t>(named - channel.keys.begin())];
        reader.fail(fieldPath(item_path, "name"), "duplicate key name \"" + key->name +
                                                      "\" (also " + indexPath(path, first) + ")");
        continue;
      }
    }
    channel.keys.push_back(std::move(*key));
    indexes.push_back(i);
  }
}

std::optional<bool> optionalBoolean(YamlReader& reader, Fields const& fields, std::string_view key) {
  YAML::Node const* node = fields.find(key);
  if (node == nullptr) return std::nullopt;
  return reader.boolean(*node, fields.path(key));
}

/// `capabilities:` — model (or "*") -> {tools, vision, reasoning, context_window}.
void readCapabilities(YamlReader& reader, Fields const& fields, Channel& channel) {
  YAML::Node const* node = fields.find("capabilities");
  if (node == nullptr) return;
  std::string const path = fields.path("capabilities");
  auto entries = reader.anyMap(*node, path);
  if (!entries) return;
  for (auto& [model, value] : *entries) {
    std::string const entry_path = fieldPath(path, model);
    if (model != "*" && !channel.serves(model)) {
      reader.fail(entry_path, "the channel does not serve model \"" + model + "\" (or use \"*\")");
      continue;
    }
    auto caps_fields =
        reader.strictMap(value, entry_path, {"tools", "vision", "reasoning", "context_window"});
    if (!caps_fields) continue;
    ModelCapabilities caps;
    caps.tools = optionalBoolean(reader, *caps_fields, "tools");
    caps.vision = optionalBoolean(reader, *caps_fields, "vision");
    caps.reasoning = optionalBoolean(reader, *caps_fields, "reasoning");
    if (YAML::Node const* window = caps_fields->find("context_window")) {
      caps.context_window =
          reader.integer(*window, caps_fields->path("context_window"), 1, kMaxContextWindow);
    }
    channel.capabilities.emplace(model, caps);
  }
}

void readModels(YamlReader& reader, Fields const& fields, Channel& channel) {
  std::string const models_path = fields.path("models");
  YAML::Node const* models_node = fields.find("models");
  bool models_empty = false;  // written as an empty list
  if (models_node != nullptr) {
    if (auto models = reader.stringList(*models_node, models_path)) {
      models_empty = models_node->size() == 0;
      for (std::size_t i = 0; i < models->size(); ++i) {
        std::string& model = (*models)[i];
        if (std::find(channel.models.begin(), channel.models.end(), model) != channel.models.end()) {
          reader.fail(indexPath(models_path, i), "duplicate model \"" + model + "\"");
          continue;
        }
        channel.models.push_back(std::move(model));
      }
    }
  }
  bool map_given = false;
  if (YAML::Node const* node = fields.find("model_map")) {
    std::string const map_path = fields.path("model_map");
    if (auto entries = reader.anyMap(*node, map_path)) {
      map_given = !entries->empty();
      for (auto& [client_name, value] : *entries) {
        std::string const entry_path = fieldPath(map_path, client_name);
        if (client_name.empty()) {
          reader.fail(entry_path, "model name must not be empty");
          continue;
        }
        if (auto upstream = reader.nonEmptyString(value, entry_path)) {
          channel.model_map.emplace(client_name, std::move(*upstream));
        }
      }
    }
  }
  if (map_given) return;
  if (models_node == nullptr) {
    reader.fail(models_path, "required field is missing (or give a model_map)");
  } else if (models_empty) {
    reader.fail(models_path, "at least one model is required (or a model_map entry)");
  }
}

void readHeaders(YamlReader& reader, Fields const& fields, EnvLookup const& env,
                 Channel& channel) {
  YAML::Node const* node = fields.find("headers");
  if (node == nullptr) return;
  std::string const path = fields.path("headers");
  auto entries = reader.anyMap(*node, path);
  if (!entries) return;
  for (auto& [name, value] : *entries) {
    std::string const entry_path = fieldPath(path, name);
    if (!isHeaderName(name)) {
      reader.fail(entry_path, "not a valid HTTP header name");
      continue;
    }
    std::string const lower = toLower(name);
    if (std::find(kReservedHeaders.begin(), kReservedHeaders.end(), lower) !=
        kReservedHeaders.end()) {
      reader.fail(entry_path, "header is managed by llmux and cannot be set");
      continue;
    }
    auto text = expandedString(reader, value, entry_path, env);
    if (!text) continue;
    if (!isSafeHeaderValue(*text)) {
      reader.fail(entry_path, "header value must not contain control characters");
      continue;
    }
    channel.headers.add(name, *text);
  }
}

void readTimeouts(YamlReader& reader, Fields const& fields, Channel& channel) {
  YAML::Node const* node = fields.find("timeouts");
  if (node == nullptr) return;
  auto timeouts = reader.strictMap(*node, fields.path("timeouts"),
                                   {"connect_ms", "first_byte_ms", "first_token_ms",
                                    "first_token_reasoning_ms", "idle_ms", "total_ms"});
  if (!timeouts) return;
  auto read = [&](Fields const& in, std::string_view key, Millis& target) {
    if (YAML::Node const* value = in.find(key)) {
      if (auto ms = reader.integer(*value, in.path(key), 1, kMaxTimeoutMs)) target = Millis(*ms);
    }
  };
  read(*timeouts, "connect_ms", channel.timeouts.connect);
  read(*timeouts, "first_byte_ms", channel.timeouts.first_byte);
  read(*timeouts, "first_token_ms", channel.timeouts.first_token);
  read(*timeouts, "idle_ms", channel.timeouts.idle);
  read(*timeouts, "total_ms", channel.timeouts.total);
  if (YAML::Node const* node = timeouts->find("first_token_reasoning_ms")) {
    std::string const path = timeouts->path("first_token_reasoning_ms");
    auto levels = reader.strictMap(*node, path, {"low", "medium", "high"});
    if (!levels) return;
    ReasoningFirstToken& reasoning = channel.timeouts.first_token_reasoning;
    read(*levels, "low", reasoning.low);
    read(*levels, "medium", reasoning.medium);
    read(*levels, "high", reasoning.high);
    if (reasoning.low > reasoning.medium || reasoning.medium > reasoning.high) {
      reader.fail(path, "expected low <= medium <= high (more effort thinks longer)");
    }
  }
}


bool readBaseUrl(YamlReader& reader, YAML::Node const& node, std::string const& path,
                 EnvLookup const& env, std::string& base_url, UpstreamUrl& url) {
  auto text = expandedString(reader, node, path, env);
  if (!text) return false;
  auto parsed = parseBaseUrl(*text);
  if (!parsed) {
    reader.fail(path, parsed.error().message);
    return false;
  }
  url = std::move(*parsed);
  base_url = std::move(*text);
  return true;
}

bool readAuth(YamlReader& reader, YAML::Node const& node, std::string const& path, AuthSpec& auth) {
  auto text = reader.string(node, path);
  if (!text) return false;
  auto parsed = parseAuthSpec(*text);
  if (!parsed) {
    reader.fail(path, parsed.error().message);
    return false;
  }
  auth = std::move(*parsed);
  return true;
}

/// `protocol` + `base_url` (+ `auth`, `chat_path`, `models_path`) for a channel speaking one
/// protocol, or `protocols:` rows ({protocol, base_url, auth, chat_path, models_path}, base_url
/// and auth defaulting to the channel's; paths belong to one protocol, so they are per row).
void readProtocolRows(YamlReader& reader, Fields const& fields, EnvLookup const& env,
                      Channel& channel) {
  YAML::Node const* single = fields.find("protocol");
  YAML::Node const* rows = fields.find("protocols");
  if (YAML::Node const* node = fields.find("auth")) readAuth(reader, *node, fields.path("auth"), channel.auth);
  bool has_base = false;
  if (YAML::Node const* node = fields.find("base_url")) {
    has_base = readBaseUrl(reader, *node, fields.path("base_url"), env, channel.base_url, channel.url);
  }
  if (single && rows) {
    reader.fail(fields.path("protocols"), "give either protocol or protocols, not both");
    return;
  }
  if (!rows) {
    std::optional<Protocol> protocol;
    if (!single) {
      reader.fail(fields.path("protocol"), "required field is missing (or give protocols)");
    } else {
      protocol = readProtocol(reader, *single, fields.path("protocol"));
    }
    if (protocol) channel.protocol = *protocol;
    if (!fields.find("base_url")) reader.fail(fields.path("base_url"), "required field is missing");
    channel.useSingleRow();
    // Checked against the protocol they are for: without one, there is nothing to check.
    if (protocol) readRowPaths(reader, fields, *protocol, channel.rows.front().paths);
    return;
  }
  rejectRowPaths(reader, fields, "set it on each protocols row (a path belongs to one protocol)");
  std::string const rows_path = fields.path("protocols");
  auto items = reader.list(*rows, rows_path);
  if (!items) return;
  if (items->empty()) reader.fail(rows_path, "at least one protocol row is required");
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const row_path = indexPath(rows_path, i);
    auto row_fields = reader.strictMap(
        (*items)[i], row_path, {"protocol", "base_url", "auth", "chat_path", "models_path"});
    if (!row_fields) continue;
    ProtocolRow row{channel.protocol, channel.base_url, channel.url, channel.auth};
    if (YAML::Node const* node = reader.require(*row_fields, "protocol")) {
      auto protocol = readProtocol(reader, *node, row_fields->path("protocol"));
      if (!protocol) continue;
      row.protocol = *protocol;
    } else {
      continue;
    }
    if (channel.rowFor(row.protocol)) {
      reader.fail(row_fields->path("protocol"),
                  "duplicate protocol row \"" + std::string(protocolName(row.protocol)) + "\"");
      continue;
    }
    if (YAML::Node const* node = row_fields->find("base_url")) {
      readBaseUrl(reader, *node, row_fields->path("base_url"), env, row.base_url, row.url);
    } else if (!has_base) {
      reader.fail(row_fields->path("base_url"), "required when the channel has no base_url");
    }
    if (YAML::Node const* node = row_fields->find("auth")) {
      readAuth(reader, *node, row_fields->path("auth"), row.auth);
    }
    readRowPaths(reader, *row_fields, row.protocol, row.paths);
    channel.rows.push_back(std::move(row));
  }
  if (!channel.rows.empty()) {
    ProtocolRow const& first = channel.rows.front();
    channel.protocol = first.protocol;
    channel.base_url = first.base_url;
    channel.url = first.url;
    channel.auth = first.auth;
  }
}

}  // namespace

std::optional<Protocol> readProtocol(YamlReader& reader, YAML::Node const& node, std::string const& path) {
  auto text = reader.string(node, path);
  if (!text) return std::nullopt;
  auto protocol = parseProtocol(*text);
  if (!protocol) {
    reader.fail(path, "unknown protocol \"" + *text + "\" (expected " + protocolChoices() + ")");
  }
  return protocol;
}

std::optional<ClientPreset> presetNamed(YamlReader& reader, YAML::Node const& node,
                                        std::string const& path) {
  auto name = reader.string(node, path);
  if (!name) return std::nullopt;
  auto preset = parseClientPreset(*name);
  if (!preset) {
    std::string known;
    for (ClientPreset p : kAllClientPresets) {
      known += (known.empty() ? "" : ", ") + std::string(clientPresetName(p));
    }
    reader.fail(path, "unknown client preset \"" + *name + "\" (expected one of " + known + ")");
  }
  return preset;
}

namespace {

/// `client_preset:` and `model_presets:`; then a row for each preset protocol no written row
/// speaks (the first row's address and auth in that protocol: the preset decides the protocol).
void readPresets(YamlReader& reader, Fields const& fields, Channel& channel) {
  if (YAML::Node const* node = fields.find("client_preset")) {
    channel.client_preset = presetNamed(reader, *node, fields.path("client_preset"));
  }
  if (YAML::Node const* node = fields.find("model_presets")) {
    std::string const path = fields.path("model_presets");
    if (auto entries = reader.anyMap(*node, path)) {
      for (auto& [model, value] : *entries) {
        std::string const entry_path = fieldPath(path, model);
        if (!channel.serves(model)) {
          reader.fail(entry_path, "the channel does not serve model \"" + model + "\"");
          continue;
        }
        if (auto preset = presetNamed(reader, value, entry_path)) {
          channel.model_presets.emplace(model, *preset);
        }
      }
    }
  }
  if (channel.rows.empty()) return;
  std::vector<ClientPreset> used;
  if (channel.client_preset) used.push_back(*channel.client_preset);
  for (auto const& [model, preset] : channel.model_presets) used.push_back(preset);
  for (ClientPreset preset : used) {
    Protocol protocol = presetProtocol(preset);
    bool spoken = std::any_of(channel.rows.begin(), channel.rows.end(),
                              [&](ProtocolRow const& row) { return row.protocol == protocol; });
    if (spoken) continue;
    ProtocolRow row = channel.rows.front();
    row.protocol = protocol;
    row.paths = {};  // the first row's paths are for its own protocol: this one's are standard
    row.preset_only = true;
    channel.rows.push_back(std::move(row));
  }
}

Channel parseChannel(YamlReader& reader, Fields const& fields, EnvLookup const& env,
                     std::vector<Proxy> const& proxies) {
  Channel channel;
  if (YAML::Node const* node = reader.require(fields, "name")) {
    if (auto name = reader.string(*node, fields.path("name"))) {
      if (isValidName(*name)) {
        channel.name = std::move(*name);
      } else {
        reader.fail(fields.path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
      }
    }
  }
  readProtocolRows(reader, fields, env, channel);
  readKeys(reader, fields, env, proxies, channel);
  readModels(reader, fields, channel);
  readPresets(reader, fields, channel);
  readMedia(reader, fields, channel);  // after the preset rows: it must tell them apart
  readCapabilities(reader, fields, channel);
  readHeaders(reader, fields, env, channel);
  readTimeouts(reader, fields, channel);
  readChannelResilience(reader, fields, channel);
  readInspection(reader, fields, channel);
  if (YAML::Node const* node = fields.find("probes")) {
    channel.probes = parseChannelProbes(reader, *node, fields.path("probes"), channel);
  }
  if (YAML::Node const* node = fields.find("priority")) {
    if (auto value = reader.integer(*node, fields.path("priority"), -1'000'000, 1'000'000)) {
      channel.priority = static_cast<int>(*value);
    }
  }
  if (YAML::Node const* node = fields.find("weight")) {
    if (auto value = reader.integer(*node, fields.path("weight"), 1, kMaxWeight)) {
      channel.weight = static_cast<int>(*value);
    }
  }
  if (YAML::Node const* node = fields.find("enabled")) {
    if (auto value = reader.boolean(*node, fields.path("enabled"))) channel.enabled = *value;
  }
  if (YAML::Node const* node = fields.find("expose_rate_limit_headers")) {
    if (auto value = reader.boolean(*node, fields.path("expose_rate_limit_headers"))) {
      channel.expose_rate_limit_headers = *value;
    }
  }
  if (YAML::Node const* node = fields.find("racing")) {
    if (auto racing = reader.strictMap(*node, fields.path("racing"), {"enabled"})) {
      if (YAML::Node const* enabled = racing->find("enabled")) {
        channel.racing_enabled = reader.boolean(*enabled, racing->path("enabled"));
      }
    }
  }
  if (YAML::Node const* node = fields.find("proxy")) {
    channel.proxy = readProxyBinding(reader, *node, fields.path("proxy"), proxies);
  }
  if (YAML::Node const* node = fields.find("exclusive_connections")) {
    if (auto value = reader.boolean(*node, fields.path("exclusive_connections"))) {
      channel.exclusive_connections = *value;
    }
  }
  if (YAML::Node const* node = fields.find("tls_ca_file")) {
    std::string const path = fields.path("tls_ca_file");
    if (auto file = expandedString(reader, *node, path, env)) {
      if (!channel.base_url.empty() && !channel.url.tls) {
        reader.fail(path, "only applies to an https base_url");
      } else if (!std::ifstream(*file).good()) {
        reader.fail(path, "cannot read the CA file");
      } else {
        channel.tls_ca_file = std::move(*file);
      }
    }
  }
  return channel;
}

}  // namespace

std::optional<std::string> expandedString(YamlReader& reader, YAML::Node const& node,
                                          std::string const& path, EnvLookup const& env) {
  auto raw = reader.string(node, path);
  if (!raw) return std::nullopt;
  auto expanded = expandVariables(*raw, env);
  if (!expanded) {
    reader.fail(path, expanded.error().message);
    return std::nullopt;
  }
  return std::move(*expanded);
}

std::optional<std::string> readSecretFields(YamlReader& reader, Fields const& fields,
                                            std::string_view literal_key, std::string_view env_key,
                                            EnvLookup const& env, std::string& secret_path) {
  YAML::Node const* literal = fields.find(literal_key);
  YAML::Node const* from_env = fields.find(env_key);
  if (literal != nullptr && from_env != nullptr) {
    reader.fail(fields.path(), "set either " + std::string(literal_key) + " or " +
                                   std::string(env_key) + ", not both");
    return std::nullopt;
  }
  if (literal == nullptr && from_env == nullptr) {
    reader.fail(fields.path(), "one of " + std::string(literal_key) + " or " +
                                   std::string(env_key) + " is required");
    return std::nullopt;
  }
  return readSecret(reader, literal, fields.path(literal_key), from_env, fields.path(env_key), env,
                    secret_path);
}

std::optional<std::string> readSecret(YamlReader& reader, YAML::Node const* literal,
                                      std::string const& literal_path, YAML::Node const* from_env,
                                      std::string const& env_path, EnvLookup const& env,
                                      std::string& secret_path) {
  std::optional<std::string> secret;
  if (literal != nullptr) {
    secret_path = literal_path;
    secret = expandedString(reader, *literal, literal_path, env);
  } else {
    secret_path = env_path;
    auto variable = reader.string(*from_env, env_path);
    if (!variable) {
      // reported
    } else if (!isVariableName(*variable)) {
      reader.fail(env_path, "not an environment variable name");
    } else if (auto value = env(*variable)) {
      secret = std::move(*value);
    } else {
      reader.fail(env_path, "environment variable " + *variable + " is not set");
    }
  }
  if (secret) {
    // Checked here once for every secret (channel keys, gateway keys, tokens, passwords): a
    // value that could break a header line or a URL never reaches the wire.
    if (auto problem = secretProblem(*secret); !problem.empty()) {
      reader.fail(secret_path, std::string(problem));
      secret.reset();
    }
  }
  return secret;
}

bool isValidName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
  });
}

Result<AuthSpec> parseAuthSpec(std::string_view text) {
  if (text == "default") return AuthSpec{AuthStyle::Default, ""};
  if (text == "bearer") return AuthSpec{AuthStyle::Bearer, ""};
  if (text == "x-api-key") return AuthSpec{AuthStyle::XApiKey, ""};
  if (auto parts = splitOnce(text, ':')) {
    auto [kind, name] = *parts;
    if (kind == "header") {
      if (!isHeaderName(name)) {
        return makeError(ErrorKind::InvalidRequest, "header:NAME needs a valid HTTP header name");
      }
      return AuthSpec{AuthStyle::Header, std::string(name)};
    }
    if (kind == "query") {
      if (name.empty() || !std::all_of(name.begin(), name.end(), isQueryNameChar)) {
        return makeError(ErrorKind::InvalidRequest,
                         "query:NAME needs a parameter name of letters, digits, '-', '.', '_', '~'");
      }
      return AuthSpec{AuthStyle::Query, std::string(name)};
    }
  }
  return makeError(ErrorKind::InvalidRequest,
                   "unknown auth style \"" + std::string(text) +
                       "\" (expected default, bearer, x-api-key, header:NAME or query:NAME)");
}

std::vector<Channel> parseChannels(YAML::Node const& node, std::string const& path,
                                   YamlReader& reader, EnvLookup const& env,
                                   std::vector<Proxy> const& proxies) {
  std::vector<Channel> channels;
  auto items = reader.list(node, path);
  if (!items) return channels;
  if (items->empty()) reader.fail(path, "at least one channel is required");
  std::vector<std::size_t> indexes;  // of each named channel, to point at the first duplicate
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = indexPath(path, i);
    auto fields = reader.strictMap((*items)[i], item_path,
                                   {"name", "protocol", "base_url", "keys", "models", "model_map",
                                    "auth", "headers", "timeouts", "priority", "weight",
                                    "enabled", "tls_ca_file", "protocols", "chat_path",
                                    "models_path", "client_preset",
                                    "model_presets", "capabilities", "breaker", "model_limits",
                                    "expose_rate_limit_headers", "racing", "proxy",
                                    "exclusive_connections", "media", "inspection",
                                     "probes"});
    if (!fields) continue;
    Channel channel = parseChannel(reader, *fields, env, proxies);
    if (!channel.name.empty()) {
      for (std::size_t k = 0; k < channels.size(); ++k) {
        if (channels[k].name == channel.name) {
          reader.fail(fields->path("name"), "duplicate channel name \"" + channel.name +
                                                "\" (also " + indexPath(path, indexes[k]) + ")");
          break;
        }
      }
    }
    channels.push_back(std::move(channel));
    indexes.push_back(i);
  }
  return channels;
}

}  // namespace llmux::config::detail
