#include "proxy/probe_admin.h"

#include <boost/json.hpp>

#include "http/response_writer.h"
#include "http/server_request.h"
#include "proxy/admin_handler.h"
#include "proxy/probe_runner.h"

namespace llmux::proxy {
namespace json = boost::json;

Result<ProbeRunAsk> parseProbeRunAsk(std::string_view body) {
  json::error_code ec;
  json::value doc = json::parse(body, ec);
  if (ec || !doc.is_object()) {
    return makeError(ErrorKind::InvalidRequest, "expected a JSON object {\"channel\", \"key\", \"model\", \"scenario\"}");
  }
  json::object const& object = doc.as_object();
  ProbeRunAsk ask;
  auto text = [&](std::string_view name, std::string& out) -> std::optional<Error> {
    json::value const* value = object.if_contains(name);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (name == "key" && value->is_int64() && value->get_int64() >= 0) {
      out = std::to_string(value->get_int64());
      return std::nullopt;
    }
    if (!value->is_string()) {
      return makeError(ErrorKind::InvalidRequest, std::string(name) + " must be a string");
    }
    out = std::string(value->get_string());
    return std::nullopt;
  };
  for (auto const& [name, out] : {std::pair<std::string_view, std::string*>{"channel", &ask.channel},
                                  {"key", &ask.key}, {"model", &ask.model}, {"scenario", &ask.scenario}}) {
    if (auto error = text(name, *out)) return *error;
  }
  for (auto const& [name, value] : object) {
    if (name != "channel" && name != "key" && name != "model" && name != "scenario") {
      return makeError(ErrorKind::InvalidRequest, "unknown field \"" + std::string(name) + "\"");
    }
  }
  if (ask.channel.empty()) return makeError(ErrorKind::InvalidRequest, "channel is required");
  return ask;
}

net::Task<void> serveProbeRun(GatewayServices& services, http::UpstreamPool& pool,
                              RequestContext& ctx) {
  if (services.probes == nullptr) {
    co_await sendAdminJson(ctx, 501, adminErrorJson("probes are not available", "not_implemented_error"),
                           "probes are not available");
    co_return;
  }
  Result<ProbeTarget> target = makeError(ErrorKind::InvalidRequest, "");
  if (auto ask = parseProbeRunAsk(ctx.request.body); !ask) {
    target = ask.error();
  } else {
    target = resolveProbeTarget(ctx.catalog->settings(), ask->channel, ask->key, ask->model,
                                ask->scenario);
  }
  if (!target) {
    std::string message = target.error().message;
    co_await sendAdminJson(ctx, 400, adminErrorJson(message, "invalid_request_error"), message);
    co_return;
  }
  auto const& limits = ctx.catalog->settings().probes;
  switch (services.probes->tryStart(limits.max_concurrent, limits.max_per_hour)) {
    case ProbeAdmission::Admitted: break;
    case ProbeAdmission::Busy: {
      std::string message = "max_concurrent probes are running; try again shortly";
      co_await sendAdminJson(ctx, 429, adminErrorJson(message, "rate_limit_error"), message);
      co_return;
    }
    case ProbeAdmission::HourlyCap: {
      std::string message = "max_per_hour probes were started within the last hour";
      co_await sendAdminJson(ctx, 429, adminErrorJson(message, "rate_limit_error"), message);
      co_return;
    }
  }
  std::string body;
  {
    // The slot is given back however the probe ends (an exception, a cancellation), and before
    // the answer goes out: a caller that starts the next probe on reading it must find it free.
    struct Slot {
      ProbeBook& book;
      ~Slot() { book.finish(); }
    } slot{*services.probes};
    ProbeResult result = co_await runProbe(services, pool, *services.probes, ctx.catalog,
                                           std::move(*target), false, ctx.response->cancellation());
    body = probeResultJson(result);
  }
  co_await sendAdminJson(ctx, 200, std::move(body));
}

}  // namespace llmux::proxy
