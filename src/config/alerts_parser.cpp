#include "config/alerts_parser.h"

#include "config/address.h"
#include "config/channel_parser.h"

namespace llmux::config::detail {
namespace {

constexpr long long kMaxMillis = 7LL * 24 * 3600 * 1000;
constexpr long long kMaxEvaluationsPerWindow = 10'000;

void readMillis(YamlReader& reader, Fields const& fields, std::string_view name, Millis& target) {
  if (YAML::Node const* node = fields.find(name)) {
    if (auto ms = reader.integer(*node, fields.path(name), 1, kMaxMillis)) target = Millis(*ms);
  }
}

void readRatio(YamlReader& reader, Fields const& fields, std::string_view name, double& target,
               double min, double max) {
  if (YAML::Node const* node = fields.find(name)) {
    if (auto value = reader.number(*node, fields.path(name), min, max)) target = *value;
  }
}

void readSlo(YamlReader& reader, YAML::Node const& node, std::string const& path,
             SloSettings& slo) {
  auto fields = reader.strictMap(node, path, {"success_rate", "first_token_p95_ms"});
  if (!fields) return;
  if (YAML::Node const* rate = fields->find("success_rate")) {
    // 1 would leave no error budget: every burn rate infinite.
    if (auto value = reader.number(*rate, fields->path("success_rate"), 0.5, 0.99999)) {
      slo.success_rate = *value;
    }
  }
  readMillis(reader, *fields, "first_token_p95_ms", slo.first_token_p95);
}

void readWebhook(YamlReader& reader, YAML::Node const& node, std::string const& path,
                 EnvLookup const& env, std::size_t index, std::vector<Webhook>& out) {
  auto fields = reader.strictMap(node, path, {"kind", "url", "url_env", "secret_env"});
  if (!fields) return;
  Webhook hook;
  bool ok = true;
  if (YAML::Node const* kind = reader.require(*fields, "kind")) {
    if (auto name = reader.string(*kind, fields->path("kind"))) {
      if (auto parsed = parseWebhookKind(*name)) {
        hook.kind = *parsed;
      } else {
        reader.fail(fields->path("kind"),
                    "expected one of webhook, slack, feishu, dingtalk, wecom");
        ok = false;
      }
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }
  std::string url_path;
  auto url = readSecretFields(reader, *fields, "url", "url_env", env, url_path);
  if (url) {
    std::string why;
    if (!parseWebhookUrl(*url, hook, why)) {
      reader.fail(url_path, why);
      ok = false;
    }
  } else {
    ok = false;
  }
  if (YAML::Node const* secret = fields->find("secret_env")) {
    if (ok && hook.kind != WebhookKind::DingTalk && hook.kind != WebhookKind::Feishu) {
      reader.fail(fields->path("secret_env"),
                  "only dingtalk and feishu robots sign their messages");
      ok = false;
    }
    std::string secret_path;
    auto value =
        readSecret(reader, nullptr, "", secret, fields->path("secret_env"), env, secret_path);
    if (value) {
      hook.secret = std::move(*value);
    } else {
      ok = false;
    }
  }
  if (!ok) return;
  hook.name = std::string(webhookKindName(hook.kind)) + "#" + std::to_string(index);
  out.push_back(std::move(hook));
}

void readAlerts(YamlReader& reader, YAML::Node const& node, std::string const& path,
                EnvLookup const& env, AlertSettings& alerts) {
  auto fields = reader.strictMap(
      node, path,
      {"interval_ms", "window_ms", "cooldown_ms", "min_samples", "first_token_ceiling_ms",
       "burn_rate", "breaker_open_ms", "rate_limited_share", "budget_share", "webhooks"});
  if (!fields) return;
  readMillis(reader, *fields, "interval_ms", alerts.interval);
  readMillis(reader, *fields, "window_ms", alerts.window);
  readMillis(reader, *fields, "cooldown_ms", alerts.cooldown);
  readMillis(reader, *fields, "first_token_ceiling_ms", alerts.first_token_ceiling);
  readMillis(reader, *fields, "breaker_open_ms", alerts.breaker_open);
  if (YAML::Node const* samples = fields->find("min_samples")) {
    if (auto n = reader.integer(*samples, fields->path("min_samples"), 1, 1'000'000)) {
      alerts.min_samples = *n;
    }
  }
  readRatio(reader, *fields, "burn_rate", alerts.burn_rate, 0.01, 1e6);
  readRatio(reader, *fields, "rate_limited_share", alerts.rate_limited_share, 0.0001, 1);
  readRatio(reader, *fields, "budget_share", alerts.budget_share, 0.01, 1);
  if (alerts.window < alerts.interval) {
    reader.fail(fields->path("window_ms"),
                "must be at least interval_ms (" + std::to_string(alerts.interval.count()) + ")");
  } else if (alerts.window / alerts.interval > kMaxEvaluationsPerWindow) {
    // The loop keeps the counts of every evaluation in the window.
    reader.fail(fields->path("window_ms"),
                "must be at most " + std::to_string(kMaxEvaluationsPerWindow) +
                    " times interval_ms (" + std::to_string(alerts.interval.count()) + ")");
  }
  if (YAML::Node const* hooks = fields->find("webhooks")) {
    std::string const hooks_path = fields->path("webhooks");
    if (auto items = reader.list(*hooks, hooks_path)) {
      for (std::size_t i = 0; i < items->size(); ++i) {
        readWebhook(reader, (*items)[i], indexPath(hooks_path, i), env, i, alerts.webhooks);
      }
    }
  }
}

}  // namespace

bool parseWebhookUrl(std::string_view url, Webhook& out, std::string& why) {
  std::string_view base = url;
  std::string_view query;
  if (auto mark = url.find('?'); mark != std::string_view::npos) {
    base = url.substr(0, mark);
    query = url.substr(mark + 1);
  }
  // parseBaseUrl refuses a query, which robots need; its path rules are ours otherwise.
  auto target = parseBaseUrl(base);
  if (!target) {
    why = target.error().message;
    return false;
  }
  if (query.find('#') != std::string_view::npos) {
    why = "a webhook URL takes no fragment";
    return false;
  }
  out.target = std::move(*target);
  if (out.target.path_prefix.empty()) out.target.path_prefix = "/";
  out.query = std::string(query);
  return true;
}

void readAlertSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                       Settings& settings) {
  if (YAML::Node const* slo = root.find("slo"))
    readSlo(reader, *slo, root.path("slo"), settings.slo);
  if (YAML::Node const* alerts = root.find("alerts")) {
    AlertSettings parsed;
    readAlerts(reader, *alerts, root.path("alerts"), env, parsed);
    settings.alerts = std::move(parsed);
  }
}

}  // namespace llmux::config::detail
