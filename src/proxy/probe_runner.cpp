#include "proxy/probe_runner.h"

#include <charconv>

#include "config/media_routes.h"
#include "core/ids.h"
#include "http/cancellation.h"
#include "http/response_writer.h"
#include "http/server_request.h"
#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"
#include "protocol/inspect.h"
#include "protocol/media_request.h"
#include "protocol/routes.h"
#include "proxy/attempt_request.h"
#include "proxy/forwarder_support.h"
#include "routing/breakers.h"
#include "routing/freezes.h"

namespace llmux::proxy {
namespace {

using forwarding::AttemptClock;

/// The largest answer a probe reads (an image's base64, a few seconds of audio).
constexpr std::size_t kMaxProbeAnswerBytes = 16u << 20;

/// A probe has no client: what the request context would write goes nowhere.
class DiscardingWriter final : public http::ResponseWriter {
 public:
  explicit DiscardingWriter(http::Cancellation& cancellation) : cancellation_(cancellation) {}
  net::Task<bool> send(int, HeaderList const&, std::string_view) override { co_return false; }
  net::Task<bool> beginBody(int, HeaderList const&, std::optional<std::uint64_t>,
                            std::string_view) override {
    co_return false;
  }
  net::Task<bool> writeBody(std::string_view) override { co_return false; }
  net::Task<bool> endBody(std::string_view) override { co_return false; }
  void breakConnection() override {}
  bool headSent() const override { return false; }
  std::uint64_t bodyBytesSent() const override { return 0; }
  MonoTime firstByteAt() const override { return {}; }
  http::Cancellation& cancellation() override { return cancellation_; }

 private:
  http::Cancellation& cancellation_;
};

/// The row a probe of `scenario` speaks on `channel`: a media scenario the media row, a custom
/// one its protocol's row, else the channel's probe row.
std::size_t probeRow(config::Channel const& channel, ProbeScenario const& scenario) {
  if (scenario.builtin && config::probeModality(*scenario.builtin)) return channel.media.row;
  if (scenario.custom) {
    for (std::size_t i = 0; i < channel.rows.size(); ++i) {
      if (channel.rows[i].protocol == scenario.custom->protocol) return i;
    }
  }
  return channel.probes ? channel.probes->row : 0;
}

/// The channel as the probe uses it: with the probes' preset, when one is configured, instead of
/// the channel's own.
config::Channel probedChannel(config::Channel const& channel) {
  config::Channel copy = channel;
  if (channel.probes && channel.probes->preset) {
    copy.client_preset = channel.probes->preset;
    copy.model_presets.clear();
  }
  return copy;
}

Result<std::size_t> keyIndex(config::Channel const& channel, std::string_view key) {
  for (std::size_t i = 0; i < channel.keys.size(); ++i) {
    if (channel.keys[i].label == key) return i;
  }
  std::size_t index = 0;
  auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
  if (ec == std::errc() && end == key.data() + key.size() && index < channel.keys.size()) return index;
  return makeError(ErrorKind::InvalidRequest, "channel " + channel.name + " has no key \"" +
                                                  std::string(key) + "\" (a label such as \"" +
                                                  channel.name + "#0\" or an index)");
}

/// A pass: what held the key back is lifted (its pauses, its freezes but `forever` ones, the
/// breakers of the probed pair).
void liftKey(GatewayServices& services, config::Channel const& channel, config::ChannelKey const& key,
             std::string const& upstream_model, ProbeResult& result) {
  result.pause_cleared = services.key_health.pausedUntil(key.id, upstream_model).has_value();
  services.key_health.clear(key.id);
  for (auto const& freeze : services.freezes.liftKeyUnlessForever(key.id, result.freezes_kept)) {
    result.freezes_lifted.push_back(freeze.id);
  }
  result.breaker_reset = services.breakers.reset(channel.name, upstream_model);
}

void fail(ProbeResult& result, std::string reason) {
  result.pass = false;
  result.reason = std::move(reason);
}

}  // namespace

Result<ProbeTarget> resolveProbeTarget(config::Settings const& settings, std::string_view channel_name,
                                       std::string_view key, std::string_view model,
                                       std::string_view scenario) {
  ProbeTarget target;
  config::Channel const* channel = nullptr;
  for (std::size_t i = 0; i < settings.channels.size(); ++i) {
    if (settings.channels[i].name == channel_name) {
      channel = &settings.channels[i];
      target.channel = i;
    }
  }
  if (channel == nullptr) {
    return makeError(ErrorKind::InvalidRequest, "unknown channel \"" + std::string(channel_name) + "\"");
  }
  auto index = keyIndex(*channel, key.empty() ? std::string_view("0") : key);
  if (!index) return index.error();
  target.key = *index;
  if (model.empty()) {
    auto models = channel->probes ? channel->probes->modelsOf(channel->models)
                                  : config::ChannelProbes{}.modelsOf(channel->models);
    if (models.empty()) return makeError(ErrorKind::InvalidRequest, "the channel lists no model");
    target.model = models.front();
  } else if (!channel->serves(model)) {
    return makeError(ErrorKind::InvalidRequest, "channel " + channel->name +
                                                    " does not serve model \"" + std::string(model) + "\"");
  } else {
    target.model = std::string(model);
  }
  std::string_view name = scenario;
  if (name.empty()) name = channel->probes ? std::string_view(channel->probes->scenarios.front()) : "chat";
  auto named = ProbeScenario::named(name, settings.probes);
  if (!named) return makeError(ErrorKind::InvalidRequest, "unknown scenario \"" + std::string(name) + "\"");
  if (named->builtin) {
    if (auto modality = config::probeModality(*named->builtin); modality && !channel->media.enables(*modality)) {
      return makeError(ErrorKind::InvalidRequest, "channel " + channel->name + " does not serve " +
                                                      std::string(config::modalityName(*modality)));
    }
  } else if (channel->rowFor(named->custom->protocol) == nullptr) {
    return makeError(ErrorKind::InvalidRequest, "channel " + channel->name + " has no " +
                                                    std::string(protocolName(named->custom->protocol)) +
                                                    " row for scenario \"" + named->name + "\"");
  }
  target.scenario = std::move(*named);
  return target;
}

net::Task<ProbeResult> runProbe(GatewayServices& services, http::UpstreamPool& pool,
                                ProbeBook& book, std::shared_ptr<const routing::Catalog> catalog,
                                ProbeTarget target, bool scheduled,
                                http::Cancellation& cancellation) {
  config::Channel const channel = probedChannel(catalog->settings().channels[target.channel]);
  config::ChannelKey const& key = channel.keys[target.key];
  config::ProtocolRow const& row = channel.rows[probeRow(channel, target.scenario)];
  std::string const upstream_model = channel.upstreamModel(target.model);

  ProbeResult result;
  result.channel = channel.name;
  result.key_label = key.label;
  result.model = target.model;
  result.scenario = target.scenario.name;
  result.scheduled = scheduled;
  result.at = services.clock.wallNow();
  MonoTime const started = MonoClock::now();

  // The scenario's request as a client of the row's protocol would send it; from here on it
  // takes the path of a real request's attempt.
  ProbeCall call = probeCall(target.scenario, row.protocol, target.model);
  http::ServerRequest request;
  request.method = call.method;
  request.target = call.target;
  request.headers = call.headers;
  request.body = std::move(call.body);
  request.head_received = request.body_received = started;
  DiscardingWriter writer(cancellation);
  RequestContext ctx(request, writer, catalog);
  ctx.request_id = "probe-" + newRequestId();
  ctx.started = started;
  auto lookup = protocol::matchRoute(request.method, request.path());
  ctx.route = lookup.route;
  ctx.protocol = lookup.route.protocol.value_or(row.protocol);
  if (protocol::isMediaRoute(ctx.route.kind)) {
    auto media = protocol::inspectMediaRequest(ctx.route, "application/json", request.body);
    if (media) {
      ctx.profile = media->profile;
      ctx.media_ask = media->ask;
      ctx.modality = config::modalityOf(ctx.route.kind);
    } else {
      fail(result, "the scenario's request is invalid: " + media.error().message);
    }
  } else if (auto profile = protocol::inspectRequest(ctx.route, request.body)) {
    ctx.profile = std::move(*profile);
  } else {
    fail(result, "the scenario's request is invalid: " + profile.error().message);
  }

  AttemptRequest out;
  if (result.reason.empty()) {
    buildAttemptRequest(ctx, channel, row, key, upstream_model, out);
    if (out.problem != AttemptRequest::Problem::None) {
      fail(result, "the request cannot be sent: " + out.error.message);
    }
  }
  if (!result.reason.empty()) {
    result.latency_ms = forwarding::msSince(started);
    book.record(result);
    co_return result;
  }

  AttemptClock const clock =
      AttemptClock::start(started, channel.timeouts, call.stream,
                          forwarding::reasoningTierOf(ctx.profile.reasoning),
                          started + channel.timeouts.total);
  std::optional<http::UpstreamExchange> exchange;
  forwarding::SendOutcome sent = co_await forwarding::sendUpstreamRequest(
      pool, out.target.peer,
      {out.head, out.body.before, out.body.model_token, out.body.after, {}, {}}, clock,
      channel.timeouts, cancellation, ctx.upstream_wait, exchange);
  if (sent.error) {
    // A transport error names the step (connect, TLS, timeout), never the key.
    fail(result, sent.error->message);
  } else {
    result.status = exchange->status();
    std::string content_type(exchange->headers().get("content-type"));
    auto body = co_await forwarding::readWholeBody(*exchange, clock, kMaxProbeAnswerBytes);
    if (!body) {
      exchange->abort();
      fail(result, "status " + std::to_string(result.status) + ", reading the answer: " +
                       body.error().message);
    } else {
      exchange->finish();
      ProbeVerdict verdict =
          judgeProbe(target.scenario, row.protocol, result.status, content_type, *body);
      result.pass = verdict.pass;
      if (!verdict.pass) {
        // An error status is told with the start of its message, unless that quotes the key.
        result.reason = result.status >= 200 && result.status < 300
                            ? "status " + std::to_string(result.status) + ": " + verdict.reason
                            : forwarding::freezeReason(result.status, *body, key.secret);
      }
    }
  }
  result.latency_ms = forwarding::msSince(started);
  if (result.pass) liftKey(services, channel, key, upstream_model, result);
  book.record(result);
  co_return result;
}

}  // namespace llmux::proxy
