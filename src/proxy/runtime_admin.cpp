#include "proxy/runtime_admin.h"

#include <boost/json.hpp>
#include <chrono>

#include "proxy/attempt_gates.h"
#include "shared_state/shared_limits.h"

namespace llmux::proxy {
namespace json = boost::json;

namespace {

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

json::value nullIfEmpty(std::string const& text) {
  if (text.empty()) return nullptr;
  return json::value(text);
}

}  // namespace

KeyName keyNameOf(config::Settings const& settings, std::string_view key_id) {
  for (auto const& channel : settings.channels) {
    for (auto const& key : channel.keys) {
      if (key.id == key_id) return {channel.name, key.label};
    }
  }
  return {std::string(), std::string(key_id)};
}

std::string pausesJson(std::vector<routing::PauseView> const& pauses, config::Settings const& settings) {
  json::array list;
  for (auto const& pause : pauses) {
    KeyName name = keyNameOf(settings, pause.key_id);
    list.push_back(json::object{
        {"channel", nullIfEmpty(name.channel)},
        {"key", name.label},
        {"model", nullIfEmpty(pause.model)},
        {"reason", routing::keyPauseName(pause.why)},
        {"remaining_s", std::chrono::duration<double>(pause.remaining).count()}});
  }
  return json::serialize(json::object{{"pauses", std::move(list)}});
}

std::string limitsJson(config::Settings const& settings, shared_state::SharedLimits const& limits,
                       bool shared, WallTime now, MonoTime mono) {
  json::array keys;
  for (auto const& key : settings.gateway_keys) {
    config::ClientLimits const& l = key.limits;
    json::object entry{{"name", key.name},
                       {"limits", json::object{{"rpm", l.rpm},
                                               {"rpd", l.rpd},
                                               {"tpm", l.tpm},
                                               {"concurrency", l.concurrency},
                                               {"daily_tokens", l.daily_tokens},
                                               {"monthly_tokens", l.monthly_tokens},
                                               {"daily_cost_usd", l.daily_cost_usd},
                                               {"monthly_cost_usd", l.monthly_cost_usd}}}};
    if (shared) {
      entry["in_flight"] = nullptr;
      entry["spending"] = nullptr;
    } else {
      routing::ClientSpending spent = limits.localSpending(key.name, now);
      entry["in_flight"] = limits.localInFlight(key.name);
      entry["spending"] = json::object{{"tokens_today", spent.tokens_today},
                                       {"tokens_this_month", spent.tokens_this_month},
                                       {"cost_today", spent.cost_today},
                                       {"cost_this_month", spent.cost_this_month}};
    }
    keys.push_back(std::move(entry));
  }
  // The upstream token buckets: a key's `limits:` and a channel's `model_limits:`, with the levels
  // this process holds (full until first used; with Redis the levels are there: null).
  json::array buckets;
  auto bucket = [&](config::Channel const& channel, config::ChannelKey const* key,
                    std::string const& model, routing::BucketLimits const& cap, std::string const& id) {
    json::object entry{{"channel", channel.name},
                       {"key", key ? json::value(key->label) : json::value(nullptr)},
                       {"model", model.empty() ? json::value(nullptr) : json::value(model)},
                       {"rpm", cap.rpm},
                       {"tpm", cap.tpm}};
    json::value rpm_level = nullptr;
    json::value tpm_level = nullptr;
    if (!shared) {
      auto levels = limits.localBucketLevels(id, cap, mono);
      double const rpm = levels ? levels->first : static_cast<double>(cap.rpm);
      double const tpm = levels ? levels->second : static_cast<double>(cap.tpm);
      if (cap.rpm > 0) rpm_level = rpm;
      if (cap.tpm > 0) tpm_level = tpm;
    }
    entry["rpm_level"] = std::move(rpm_level);
    entry["tpm_level"] = std::move(tpm_level);
    buckets.push_back(std::move(entry));
  };
  for (auto const& channel : settings.channels) {
    for (auto const& key : channel.keys) {
      routing::BucketLimits cap{key.limits.rpm.value_or(0), key.limits.tpm.value_or(0)};
      if (cap.any()) bucket(channel, &key, "", cap, keyBucketId(key));
    }
    for (auto const& [model, cap] : channel.model_limits) {
      if (cap.any()) bucket(channel, nullptr, model, cap, modelBucketId(channel.name, model));
    }
  }
  return json::serialize(json::object{{"shared", shared},
                                      {"gateway_keys", std::move(keys)},
                                      {"buckets", std::move(buckets)}});
}

Result<ManualFreeze> parseManualFreeze(std::string_view body, config::Settings const& settings) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return invalid(R"(the body must be a JSON object, e.g. {"channel": "c", "key": "c#0", "minutes": 60})");
  }
  std::string channel_name, key_label, model, reason, period_name;
  std::optional<std::int64_t> minutes;
  for (auto const& [name, value] : parsed.as_object()) {
    std::string* text = name == "channel" ? &channel_name
                        : name == "key"   ? &key_label
                        : name == "model" ? &model
                        : name == "reason" ? &reason
                        : name == "period" ? &period_name
                                           : nullptr;
    if (text != nullptr) {
      if (!value.is_string()) return invalid("'" + std::string(name) + "' must be a string");
      *text = std::string(value.as_string());
    } else if (name == "minutes") {
      if (!value.is_int64() || value.as_int64() < 1 || value.as_int64() > 525600) {
        return invalid("'minutes' must be a whole number from 1 to 525600");
      }
      minutes = value.as_int64();
    } else {
      return invalid("unknown member '" + std::string(name) +
                     "': channel, key, model, minutes, period and reason can be given");
    }
  }
  if (reason.size() > 200) return invalid("'reason' is longer than 200 characters");
  config::Channel const* channel = nullptr;
  for (auto const& c : settings.channels) {
    if (c.name == channel_name) channel = &c;
  }
  if (channel == nullptr) return invalid("no channel named '" + channel_name + "'");
  ManualFreeze freeze;
  freeze.target.channel = channel->name;
  freeze.target.model = model;
  if (!key_label.empty()) {
    for (auto const& key : channel->keys) {
      if (key.label == key_label) {
        freeze.target.key_id = key.id;
        freeze.target.key_label = key.label;
      }
    }
    if (freeze.target.key_id.empty()) {
      return invalid("channel '" + channel->name + "' has no key labelled '" + key_label + "'");
    }
  }
  bool const keyed = !freeze.target.key_id.empty();
  freeze.rule.name = "manual";
  freeze.rule.object = keyed ? (model.empty() ? config::FreezeObject::Key : config::FreezeObject::KeyModel)
                             : (model.empty() ? config::FreezeObject::Channel
                                              : config::FreezeObject::ChannelModel);
  if (minutes && !period_name.empty()) return invalid("give 'minutes' or 'period', not both");
  if (minutes) {
    freeze.rule.period = config::FreezePeriod::Fixed;
    freeze.rule.duration = std::chrono::minutes(*minutes);
  } else if (period_name.empty()) {
    freeze.rule.period = config::FreezePeriod::Forever;
  } else {
    auto period = config::freezePeriodNamed(period_name);
    if (!period || *period == config::FreezePeriod::Fixed || *period == config::FreezePeriod::UpstreamReset) {
      return invalid("'period' must be \"today\", \"week\", \"month\" or \"forever\"");
    }
    freeze.rule.period = *period;
  }
  freeze.reason = reason.empty() ? "frozen by an operator" : "operator: " + reason;
  return freeze;
}

}  // namespace llmux::proxy
