#include "proxy/attempt_request.h"

#include "http/server_request.h"
#include "proxy/preset_request.h"
#include "proxy/translation.h"
#include "translate/presets.h"

namespace llmux::proxy {
namespace {

/// With `out.target` and `out.body` made: the exit the key takes, then the head.
void finishAttemptRequest(RequestContext& ctx, config::Channel const& channel,
                          config::ProtocolRow const& row, config::ChannelKey const& key,
                          HeaderList const& preset_headers, AttemptRequest& out) {
  routeThroughExit(out.target, config::proxyFor(ctx.catalog->settings(), channel, key, row), channel,
                   row, key);
  auto head = buildUpstreamHead(
      ctx.request.method, out.target, ctx.request.headers,
      out.translated ? ForwardedHeaders::Generic : ForwardedHeaders::EndToEnd, preset_headers,
      channel, row, key, ctx.request_id, out.body.size());
  if (!head) {
    out.problem = head.error().kind == ErrorKind::InvalidRequest
                      ? AttemptRequest::Problem::ClientRequest
                      : AttemptRequest::Problem::Misconfigured;
    out.error = head.error();
    return;
  }
  out.head = std::move(*head);
}

}  // namespace

void buildAttemptRequest(RequestContext& ctx, config::Channel const& channel,
                         config::ProtocolRow const& row, config::ChannelKey const& key,
                         std::string const& upstream_model, AttemptRequest& out) {
  if (ctx.modality) {
    // Media requests go as they came, to the channel's OpenAI row (docs/media.md): the client's
    // bytes (a JSON body or a multipart upload) with only the model renamed in place; no
    // translation, no client preset.
    out.translated = false;
    out.body = protocol::spliceModel(ctx.request.body, ctx.profile, upstream_model);
    out.target = upstreamTarget(channel, row, key, ctx.route, upstream_model, ctx.request.query());
    finishAttemptRequest(ctx, channel, row, key, HeaderList{}, out);
    return;
  }
  // Same protocol: the client's bytes with the model spliced in. Another protocol: the request
  // translated through the neutral model (see translation.h).
  out.translated = row.protocol != ctx.protocol;
  if (out.translated) {
    if (auto decoded = decodeClientRequest(ctx); !decoded) {
      out.problem = AttemptRequest::Problem::ClientRequest;
      out.error = decoded.error();
      return;
    }
    auto made = translatedBody(ctx, row.protocol, upstream_model, channel.presetFor(ctx.profile.model));
    if (!made) {
      out.problem = AttemptRequest::Problem::Untranslatable;
      out.error = made.error();
      return;
    }
    out.owned_body = std::move(*made);
    out.body.before = out.owned_body;
  } else {
    PassthroughSource source = passthroughSource(ctx);
    out.body = protocol::spliceModel(source.body, source.profile, upstream_model);
  }

  std::string query = out.translated ? translatedQuery(row.protocol, ctx.profile.stream)
                                     : std::string(ctx.request.query());
  // A client preset: the request as that client would send it (its headers, query and default
  // fields where the caller set none).
  std::optional<PresetRequest> preset = presetRequestFor(ctx, channel, upstream_model, query);
  if (preset) {
    std::string whole = out.translated ? out.owned_body : out.body.joined();
    if (auto filled = translate::withPresetFields(preset->preset, whole, preset->context())) {
      out.owned_body = std::move(*filled);
      out.body = protocol::SplicedBody{.before = out.owned_body};
    }
    query = joinQuery(std::move(query), preset->query);
  }

  protocol::Route const& route = out.translated
                                     ? targetRoute(row.protocol, upstream_model, ctx.profile.stream)
                                     : ctx.route;
  out.target = upstreamTarget(channel, row, key, route, upstream_model, query);
  finishAttemptRequest(ctx, channel, row, key, preset ? preset->headers : HeaderList{}, out);
}

}  // namespace llmux::proxy
