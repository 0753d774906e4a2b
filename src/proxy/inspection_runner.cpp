#include "proxy/inspection_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "config/model_refresh.h"
#include "core/ids.h"
#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"
#include "protocol/upstream_models.h"
#include "protocol/upstream_path.h"
#include "proxy/attempt_clock.h"
#include "proxy/forwarder_support.h"
#include "proxy/upstream_request.h"
#include "telemetry/log.h"
#include "translate/presets.h"

namespace llmux::proxy {
namespace {

using net::Task;

/// A list or a balance is small; a relay answering more is not answering a list.
constexpr std::size_t kMaxAnswerBytes = 8u << 20;
/// Every request of a refresh or probe ends within this, whatever the channel's timeouts.
constexpr Millis kRequestDeadline{30'000};

config::Channel const* channelNamed(config::Settings const& settings, std::string const& name) {
  for (auto const& channel : settings.channels) {
    if (channel.name == name) return &channel;
  }
  return nullptr;
}

config::ChannelKey const* firstEnabledKey(config::Channel const& channel) {
  for (auto const& key : channel.keys) {
    if (key.enabled) return &key;
  }
  return nullptr;
}

/// The query of a list's first page: the largest page the provider allows, so few are needed.
std::string firstPageQuery(Protocol protocol) {
  if (protocol == Protocol::Anthropic) return "limit=1000";
  if (protocol == Protocol::Gemini) return "pageSize=1000";
  return {};
}

std::string dateText(std::chrono::sys_days day) {
  std::chrono::year_month_day ymd{day};
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return text;
}

}  // namespace

std::string billingUsageQuery(WallTime now) {
  auto const today = std::chrono::floor<std::chrono::days>(now);
  return "start_date=" + dateText(today - std::chrono::days(99)) +
         "&end_date=" + dateText(today + std::chrono::days(1));
}

Task<Result<std::string>> InspectionRunner::get(config::Settings const& settings,
                                                config::Channel const& channel,
                                                config::ChannelKey const& key, std::string path,
                                                std::string query) {
  if (cancellation_.cancelled()) co_return makeError(ErrorKind::Cancelled, "shutting down");
  config::ProtocolRow const& row = channel.rows.front();
  UpstreamTarget target = upstreamTargetAt(channel, row, key, std::move(path), query);
  routeThroughExit(target, config::proxyFor(settings, channel, key, row), channel, row, key);
  HeaderList preset_headers;
  if (channel.client_preset && presetProtocol(*channel.client_preset) == row.protocol) {
    preset_headers = translate::presetHeaders(*channel.client_preset, {});
  }
  auto head = buildUpstreamHead("GET", target, HeaderList{}, ForwardedHeaders::Generic,
                                preset_headers, channel, row, key, newRequestId(), 0);
  if (!head) co_return head.error();

  MonoTime const started = MonoClock::now();
  forwarding::AttemptClock const clock = forwarding::AttemptClock::start(started, channel.timeouts, false,
                                                 forwarding::ReasoningTier::None, started + kRequestDeadline);
  auto connection = co_await pool_.acquire(
      target.peer, clock.connectBy(started, channel.timeouts.connect), &cancellation_);
  if (!connection) co_return connection.error();
  http::UpstreamExchange exchange(pool_, std::move(*connection));
  forwarding::AbortOnCancel abort_on_cancel(cancellation_, exchange);
  auto sent =
      co_await exchange.start({*head}, clock.headBy(MonoClock::now(), channel.timeouts.first_byte));
  if (!sent) co_return sent.error();
  int const status = exchange.status();
  auto body = co_await forwarding::readWholeBody(exchange, clock, kMaxAnswerBytes);
  if (!body) co_return body.error();
  exchange.finish();
  if (status != 200) {
    // Not the body: an upstream's error page may quote the key.
    co_return makeError(ErrorKind::UpstreamStatus,
                        "GET " + target.path_and_query.substr(0, target.path_and_query.find('?')) +
                            " answered HTTP " + std::to_string(status));
  }
  co_return std::move(*body);
}

Task<void> InspectionRunner::refreshModels(std::string name) {
  auto const catalog = config_.current();  // pinned for the whole refresh
  config::Settings const& settings = catalog->settings();
  config::Channel const* channel = channelNamed(settings, name);
  if (channel == nullptr || !channel->inspection) co_return;
  config::ModelListInspection const& spec = channel->inspection->models;
  config::ProtocolRow const& row = channel->rows.front();

  ModelListCheck check;
  check.served = config::upstreamModelNames(*channel);
  config::ChannelKey const* key = firstEnabledKey(*channel);
  std::string const path =
      spec.path.empty() ? protocol::modelsPath(row.protocol, rowPaths(row)) : spec.path;
  std::string const first_query = firstPageQuery(row.protocol);
  std::string query = first_query;
  if (key == nullptr) check.error = "the channel has no enabled key";
  for (int page = 0; key != nullptr && page < kMaxPages; ++page) {
    auto body = co_await get(settings, *channel, *key, path, query);
    if (!body) {
      check.error = body.error().message;
      break;
    }
    auto parsed = protocol::parseModelListPage(row.protocol, *body);
    if (!parsed) {
      check.error = parsed.error().message;
      break;
    }
    check.upstream.insert(check.upstream.end(), parsed->ids.begin(), parsed->ids.end());
    if (!parsed->next_query) break;
    if (page + 1 == kMaxPages) {
      telemetry::logWarn("inspection: channel {}: the model list has more than {} pages; the "
                         "rest is not read",
                         name, kMaxPages);
    }
    query = first_query.empty() ? *parsed->next_query : first_query + "&" + *parsed->next_query;
  }
  check.at = shared_.clock.wallNow();
  if (check.error.empty()) {
    std::sort(check.upstream.begin(), check.upstream.end());
    check.upstream.erase(std::unique(check.upstream.begin(), check.upstream.end()),
                         check.upstream.end());
    check.diff = config::diffModelLists(check.served, check.upstream);
    // An empty list says more about the relay than about its models: never served as such.
    if (spec.auto_update && !check.diff.empty() && !check.upstream.empty() &&
        shared_.serve_listed(name, check.upstream)) {
      check.auto_updated = true;
      telemetry::logInfo("inspection: channel {}: now serves the {} model(s) its upstream lists "
                         "(auto_update: {} added, {} dropped)",
                         name, check.upstream.size(), check.diff.added.size(),
                         check.diff.dropped.size());
    }
  }
  shared_.board.recordModels(name, std::move(check));
}

Task<Result<double>> InspectionRunner::readBalance(config::Settings const& settings,
                                                   config::Channel const& channel,
                                                   config::ChannelKey const& key,
                                                   config::BalanceInspection const& spec) {
  if (spec.style == config::BalanceStyle::Pointer) {
    auto body = co_await get(settings, channel, key, spec.path, {});
    if (!body) co_return body.error();
    auto value = protocol::numberAtPointer(*body, spec.pointer);
    if (!value) co_return value.error();
    co_return *value * spec.scale;
  }
  std::string_view const prefix = channel.rows.front().url.path_prefix;
  auto subscription = co_await get(settings, channel, key,
                                   protocol::v1Path(prefix, "/dashboard/billing/subscription"), {});
  if (!subscription) co_return subscription.error();
  auto usage = co_await get(settings, channel, key,
                            protocol::v1Path(prefix, "/dashboard/billing/usage"),
                            billingUsageQuery(shared_.clock.wallNow()));
  if (!usage) co_return usage.error();
  co_return protocol::openAiBillingBalance(*subscription, *usage);
}

Task<void> InspectionRunner::probeBalances(std::string name) {
  auto const catalog = config_.current();
  config::Settings const& settings = catalog->settings();
  config::Channel const* channel = channelNamed(settings, name);
  if (channel == nullptr || !channel->inspection || !channel->inspection->balance) co_return;
  config::BalanceInspection const& spec = *channel->inspection->balance;
  for (config::ChannelKey const& key : channel->keys) {
    if (!key.enabled) continue;
    auto balance = co_await readBalance(settings, *channel, key, spec);
    BalanceCheck check{key.label, shared_.clock.wallNow()};
    if (balance) {
      check.balance = *balance;
    } else {
      check.error = balance.error().message;
    }
    shared_.board.recordBalance(name, std::move(check), spec.min);
    if (cancellation_.cancelled()) co_return;
  }
}

}  // namespace llmux::proxy
