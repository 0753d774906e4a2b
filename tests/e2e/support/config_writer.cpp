#include "e2e/support/config_writer.h"

#include <charconv>
#include <cstdio>

namespace llmux::e2e {
namespace {

std::string flowList(std::vector<std::string> const& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(yamlQuote(items[i]));
  }
  return out + "]";
}

std::string flowMap(StringPairs const& pairs) {
  std::string out = "{";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(yamlQuote(pairs[i].first)).append(": ").append(yamlQuote(pairs[i].second));
  }
  return out + "}";
}

/// A YAML number: integers as they are, fractions in the shortest form that reads back exactly.
std::string number(long long value) { return std::to_string(value); }
std::string number(int value) { return std::to_string(value); }
std::string number(double value) {
  char text[32];
  auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

/// Builds a flow mapping "{a: 1, b: 2}" from the fields that are set.
class FlowMap {
 public:
  template <typename T>
  FlowMap& add(char const* name, std::optional<T> const& value) {
    if (value) raw(name, number(*value));
    return *this;
  }
  FlowMap& raw(std::string_view name, std::string_view value) {
    if (!out_.empty()) out_.append(", ");
    out_.append(name).append(": ").append(value);
    return *this;
  }
  std::string str() const { return "{" + out_ + "}"; }

 private:
  std::string out_;
};

std::string flowTimeouts(TimeoutsSpec const& t) {
  FlowMap map;
  map.add("connect_ms", t.connect_ms)
      .add("first_byte_ms", t.first_byte_ms)
      .add("first_token_ms", t.first_token_ms)
      .add("idle_ms", t.idle_ms)
      .add("total_ms", t.total_ms);
  if (auto const& r = t.first_token_reasoning_ms) {
    map.raw("first_token_reasoning_ms",
            FlowMap().add("low", r->low).add("medium", r->medium).add("high", r->high).str());
  }
  return map.str();
}

std::string flowStorm(StormSpec const& s) {
  if (s.off) return "off";
  return FlowMap()
      .add("window_ms", s.window_ms)
      .add("ratio", s.ratio)
      .add("min_samples", s.min_samples)
      .add("open_ms", s.open_ms)
      .str();
}

std::string flowBreaker(BreakerSpec const& b) {
  if (b.off) return "off";
  FlowMap map;
  map.add("failure_threshold", b.failure_threshold)
      .add("open_ms", b.open_ms)
      .add("probe_timeout_ms", b.probe_timeout_ms);
  if (b.storm) map.raw("storm", flowStorm(*b.storm));
  return map.str();
}

std::string flowBucket(BucketSpec const& b) {
  return FlowMap().add("rpm", b.rpm).add("tpm", b.tpm).str();
}

std::string flowLimits(ClientLimitsSpec const& l) {
  return FlowMap()
      .add("rpm", l.rpm)
      .add("rpd", l.rpd)
      .add("tpm", l.tpm)
      .add("concurrency", l.concurrency)
      .add("daily_tokens", l.daily_tokens)
      .add("monthly_tokens", l.monthly_tokens)
      .add("daily_cost_usd", l.daily_cost_usd)
      .add("monthly_cost_usd", l.monthly_cost_usd)
      .str();
}

/// `yaml` with `indent` put in front of every non-empty line, ending with a newline.
std::string indented(std::string_view yaml, std::string_view indent) {
  std::string out;
  while (!yaml.empty()) {
    auto nl = yaml.find('\n');
    std::string_view line = yaml.substr(0, nl);
    if (!line.empty()) out.append(indent).append(line);
    out.append("\n");
    yaml = nl == std::string_view::npos ? std::string_view() : yaml.substr(nl + 1);
  }
  return out;
}

void writeChannel(ChannelSpec const& c, std::string& out) {
  out.append("  - name: ").append(yamlQuote(c.name)).append("\n");
  out.append("    protocol: ").append(protocolName(c.protocol)).append("\n");
  out.append("    base_url: ").append(yamlQuote(c.base_url)).append("\n");
  if (!c.keys.empty()) out.append("    keys: ").append(flowList(c.keys)).append("\n");
  if (!c.models.empty()) out.append("    models: ").append(flowList(c.models)).append("\n");
  if (!c.model_map.empty()) out.append("    model_map: ").append(flowMap(c.model_map)).append("\n");
  if (!c.headers.empty()) out.append("    headers: ").append(flowMap(c.headers)).append("\n");
  if (c.timeouts) out.append("    timeouts: ").append(flowTimeouts(*c.timeouts)).append("\n");
  if (c.breaker) out.append("    breaker: ").append(flowBreaker(*c.breaker)).append("\n");
  if (!c.model_limits.empty()) {
    FlowMap limits;
    for (auto const& [model, bucket] : c.model_limits) limits.raw(yamlQuote(model), flowBucket(bucket));
    out.append("    model_limits: ").append(limits.str()).append("\n");
  }
  if (c.priority) out.append("    priority: ").append(std::to_string(*c.priority)).append("\n");
  if (c.weight) out.append("    weight: ").append(std::to_string(*c.weight)).append("\n");
  out.append(indented(c.extra_yaml, "    "));
}

}  // namespace

std::string yamlQuote(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02x", c);
      out.append(escape);
    } else {
      out.push_back(ch);
    }
  }
  return out + "\"";
}

std::string loopbackUrl(std::uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

std::string toYaml(GatewayConfig const& config) {
  std::string out = "listen: " + yamlQuote(config.listen) + "\n";
  if (!config.gateway_keys.empty()) {
    out.append("gateway_keys:\n");
    for (auto const& key : config.gateway_keys) {
      out.append("  - name: ").append(yamlQuote(key.name)).append("\n");
      out.append("    key: ").append(yamlQuote(key.key)).append("\n");
      if (!key.strategy.empty()) out.append("    strategy: ").append(key.strategy).append("\n");
      if (key.limits) out.append("    limits: ").append(flowLimits(*key.limits)).append("\n");
    }
  }
  if (!config.channels.empty()) {
    out.append("channels:\n");
    for (auto const& channel : config.channels) writeChannel(channel, out);
  }
  if (config.buckets) {
    out.append("buckets: ")
        .append(FlowMap()
                    .add("max_wait_ms", config.buckets->max_wait_ms)
                    .add("expected_output_tokens", config.buckets->expected_output_tokens)
                    .str())
        .append("\n");
  }
  if (config.redis) {
    FlowMap redis;
    redis.raw("url", yamlQuote(config.redis->url))
        .add("timeout_ms", config.redis->timeout_ms)
        .add("cooldown_ms", config.redis->cooldown_ms);
    if (config.redis->prefix) redis.raw("prefix", yamlQuote(*config.redis->prefix));
    out.append("redis: ").append(redis.str()).append("\n");
  }
  if (!config.extra_yaml.empty()) {
    out.append(config.extra_yaml);
    if (out.back() != '\n') out.push_back('\n');
  }
  return out;
}

}  // namespace llmux::e2e
