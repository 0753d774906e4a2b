#include "config/resilience_parser.h"

#include <charconv>

#include "config/channel_parser.h"

namespace llmux::config::detail {
namespace {

constexpr long long kMaxRate = 1'000'000'000'000LL;  // requests or tokens per minute / day
constexpr long long kMaxConcurrency = 1'000'000;
constexpr long long kMaxMillis = 24LL * 3600 * 1000;
constexpr double kMaxUsd = 1e12;

/// Reads `fields[name]` as milliseconds in [1, max] into `target` when present.
void readMillis(YamlReader& reader, Fields const& fields, std::string_view name, Millis& target,
                long long max = kMaxMillis) {
  if (YAML::Node const* node = fields.find(name)) {
    if (auto ms = reader.integer(*node, fields.path(name), 1, max)) target = Millis(*ms);
  }
}

/// Reads `fields[name]` as a whole number in [1, max] into `target` when present.
template <class Int>
void readCount(YamlReader& reader, Fields const& fields, std::string_view name, Int& target,
               long long max) {
  if (YAML::Node const* node = fields.find(name)) {
    if (auto n = reader.integer(*node, fields.path(name), 1, max)) target = static_cast<Int>(*n);
  }
}

/// `storm:` inside `breaker:` — `off` or a mapping.
void readStorm(YamlReader& reader, YAML::Node const& node, std::string const& path,
               BreakerSettings& breaker) {
  if (node.IsScalar()) {
    if (node.Scalar() == "off") {
      breaker.storm_enabled = false;
    } else {
      reader.fail(path, "expected off or a mapping of window_ms, ratio, min_samples, open_ms");
    }
    return;
  }
  auto fields = reader.strictMap(node, path, {"window_ms", "ratio", "min_samples", "open_ms"});
  if (!fields) return;
  readMillis(reader, *fields, "window_ms", breaker.storm_window, 3'600'000);
  readCount(reader, *fields, "min_samples", breaker.storm_min_samples, 1'000'000);
  readMillis(reader, *fields, "open_ms", breaker.storm_open_for);
  if (YAML::Node const* ratio = fields->find("ratio")) {
    if (auto value = reader.number(*ratio, fields->path("ratio"), 0.001, 1)) {
      breaker.storm_ratio = *value;
    }
  }
}

void readBreaker(YamlReader& reader, YAML::Node const& node, std::string const& path,
                 BreakerSettings& breaker) {
  if (node.IsScalar()) {
    if (node.Scalar() == "off") {
      breaker.enabled = false;
      breaker.storm_enabled = false;
    } else {
      reader.fail(path, "expected off or a mapping of failure_threshold, open_ms, probe_timeout_ms, storm");
    }
    return;
  }
  auto fields = reader.strictMap(node, path, {"failure_threshold", "open_ms", "probe_timeout_ms", "storm"});
  if (!fields) return;
  readCount(reader, *fields, "failure_threshold", breaker.failure_threshold, 1'000'000);
  readMillis(reader, *fields, "open_ms", breaker.open_for);
  readMillis(reader, *fields, "probe_timeout_ms", breaker.probe_timeout);
  if (YAML::Node const* storm = fields->find("storm")) {
    readStorm(reader, *storm, fields->path("storm"), breaker);
  }
}

void readBucketLimits(YamlReader& reader, YAML::Node const& node, std::string const& path,
                      BucketLimits& limits) {
  auto fields = reader.strictMap(node, path, {"rpm", "tpm"});
  if (!fields) return;
  readCount(reader, *fields, "rpm", limits.rpm, kMaxRate);
  readCount(reader, *fields, "tpm", limits.tpm, kMaxRate);
  if (!limits.any() && fields->find("rpm") == nullptr && fields->find("tpm") == nullptr) {
    reader.fail(path, "give rpm, tpm or both");
  }
}

void readRedis(YamlReader& reader, YAML::Node const& node, std::string const& path,
               EnvLookup const& env, Settings& settings) {
  auto fields = reader.strictMap(node, path, {"url", "password_env", "timeout_ms", "cooldown_ms", "prefix"});
  if (!fields) return;
  RedisSettings redis;
  if (YAML::Node const* url = reader.require(*fields, "url")) {
    if (auto text = reader.nonEmptyString(*url, fields->path("url"))) {
      std::string why;
      if (!parseRedisUrl(*text, redis, why)) reader.fail(fields->path("url"), why);
    }
  }
  if (YAML::Node const* name = fields->find("password_env")) {
    if (auto variable = reader.nonEmptyString(*name, fields->path("password_env"))) {
      auto value = env(*variable);
      if (!value || value->empty()) {
        reader.fail(fields->path("password_env"), "environment variable " + *variable + " is not set");
      } else {
        redis.password = std::move(*value);
      }
    }
  }
  readMillis(reader, *fields, "timeout_ms", redis.timeout, 60'000);
  readMillis(reader, *fields, "cooldown_ms", redis.cooldown, 3'600'000);
  if (YAML::Node const* prefix = fields->find("prefix")) {
    if (auto text = reader.string(*prefix, fields->path("prefix"))) redis.prefix = std::move(*text);
  }
  settings.redis = std::move(redis);
}

void readPrices(YamlReader& reader, YAML::Node const& node, std::string const& path, Settings& settings) {
  auto entries = reader.anyMap(node, path);
  if (!entries) return;
  for (auto const& [model, value] : *entries) {
    std::string const entry_path = fieldPath(path, model);
    auto fields = reader.strictMap(value, entry_path,
                                   {"input", "output", "per_image", "per_second",
                                    "per_million_characters"});
    if (!fields) continue;
    ModelPrice price;
    for (auto [name, target] :
         {std::pair{"input", &price.input}, std::pair{"output", &price.output},
          std::pair{"per_image", &price.per_image}, std::pair{"per_second", &price.per_second},
          std::pair{"per_million_characters", &price.per_million_characters}}) {
      if (YAML::Node const* n = fields->find(name)) {
        if (auto usd = reader.number(*n, fields->path(name), 0, 1e6)) *target = *usd;
      }
    }
    bool const tokens = fields->find("input") || fields->find("output");
    bool const media = fields->find("per_image") || fields->find("per_second") ||
                       fields->find("per_million_characters");
    // Token prices come as a pair (a forgotten output price would make output free); an entry
    // of media prices only (an image model) needs neither.
    if (tokens || !media) {
      for (std::string_view name : {"input", "output"}) reader.require(*fields, name);  // reports
    }
    settings.prices[model] = price;
  }
}

}  // namespace

bool parseRedisUrl(std::string_view url, RedisSettings& out, std::string& why) {
  constexpr std::string_view kScheme = "redis://";
  if (!url.starts_with(kScheme)) {
    why = "expected redis://[:password@]host[:port][/db] (rediss:// is not supported)";
    return false;
  }
  std::string_view rest = url.substr(kScheme.size());
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view credentials = rest.substr(0, at);
    if (auto colon = credentials.find(':'); colon != std::string_view::npos) {
      credentials = credentials.substr(colon + 1);  // "user:password" or ":password"
    }
    out.password = std::string(credentials);
    rest = rest.substr(at + 1);
  }
  std::string_view db;
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  std::string_view port;
  if (auto colon = rest.rfind(':'); colon != std::string_view::npos && rest.find(']') == std::string_view::npos) {
    port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) {
    why = "the URL has no host";
    return false;
  }
  out.host = std::string(rest);
  if (!port.empty()) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      why = "bad port \"" + std::string(port) + "\"";
      return false;
    }
    out.port = static_cast<std::uint16_t>(value);
  }
  if (!db.empty()) {
    int value = 0;
    auto [end, ec] = std::from_chars(db.data(), db.data() + db.size(), value);
    if (ec != std::errc() || end != db.data() + db.size() || value < 0 || value > 15) {
      why = "bad database number \"" + std::string(db) + "\" (0 to 15)";
      return false;
    }
    out.db = value;
  }
  return true;
}

void readChannelResilience(YamlReader& reader, Fields const& fields, Channel& channel) {
  if (YAML::Node const* node = fields.find("breaker")) {
    readBreaker(reader, *node, fields.path("breaker"), channel.breaker);
  }
  if (YAML::Node const* node = fields.find("model_limits")) {
    std::string const path = fields.path("model_limits");
    auto entries = reader.anyMap(*node, path);
    if (!entries) return;
    for (auto const& [model, value] : *entries) {
      BucketLimits limits;
      readBucketLimits(reader, value, fieldPath(path, model), limits);
      channel.model_limits[model] = limits;
    }
  }
}

void readClientLimits(YamlReader& reader, Fields const& fields, GatewayKey& key) {
  YAML::Node const* node = fields.find("limits");
  if (node == nullptr) return;
  auto limits = reader.strictMap(*node, fields.path("limits"),
                                 {"rpm", "rpd", "tpm", "concurrency", "daily_tokens",
                                  "monthly_tokens", "daily_cost_usd", "monthly_cost_usd"});
  if (!limits) return;
  ClientLimits& out = key.limits;
  readCount(reader, *limits, "rpm", out.rpm, kMaxRate);
  readCount(reader, *limits, "rpd", out.rpd, kMaxRate);
  readCount(reader, *limits, "tpm", out.tpm, kMaxRate);
  readCount(reader, *limits, "concurrency", out.concurrency, kMaxConcurrency);
  readCount(reader, *limits, "daily_tokens", out.daily_tokens, kMaxRate);
  readCount(reader, *limits, "monthly_tokens", out.monthly_tokens, kMaxRate);
  for (auto [name, target] : {std::pair{"daily_cost_usd", &out.daily_cost_usd},
                              std::pair{"monthly_cost_usd", &out.monthly_cost_usd}}) {
    if (YAML::Node const* n = limits->find(name)) {
      if (auto usd = reader.number(*n, limits->path(name), 0.000001, kMaxUsd)) *target = *usd;
    }
  }
}

void readResilienceSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                            Settings& settings) {
  if (YAML::Node const* node = root.find("buckets")) {
    if (auto fields = reader.strictMap(*node, root.path("buckets"), {"max_wait_ms", "expected_output_tokens"})) {
      if (YAML::Node const* wait = fields->find("max_wait_ms")) {
        // 0 is allowed: never wait, go at once (and count the overflow).
        if (auto ms = reader.integer(*wait, fields->path("max_wait_ms"), 0, 3'600'000)) {
          settings.buckets.max_wait = Millis(*ms);
        }
      }
      readCount(reader, *fields, "expected_output_tokens", settings.buckets.expected_output_tokens, 10'000'000);
    }
  }
  if (YAML::Node const* node = root.find("redis")) readRedis(reader, *node, root.path("redis"), env, settings);
  if (YAML::Node const* node = root.find("prices")) readPrices(reader, *node, root.path("prices"), settings);
}

}  // namespace llmux::config::detail
