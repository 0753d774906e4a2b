// The media side of the gateway's pipeline (docs/media.md): what inspection reads from a media
// request, and the video jobs' affinity — a job is polled and downloaded through the channel and
// key that created it, by the gateway key that created it. (Part of GatewayHandler.)
#include "http/server_request.h"
#include "protocol/media_request.h"
#include "proxy/gateway_handler.h"
#include "config/media_routes.h"
#include "routing/video_jobs.h"
#include "telemetry/log.h"

namespace llmux::proxy {

using protocol::RouteKind;

namespace {

bool isVideoPoll(RouteKind kind) {
  return kind == RouteKind::VideoRetrieve || kind == RouteKind::VideoContent;
}

/// The name the channel sends upstream for `client_model` now (a view of the Settings' own
/// string, as a planned candidate holds), or the job's when the channel no longer lists it.
routing::ModelName upstreamNameOf(config::Channel const& channel, std::string const& client_model,
                                  std::string const& fallback) {
  if (auto it = channel.model_map.find(client_model); it != channel.model_map.end()) {
    return routing::ModelName(it->second);
  }
  for (auto const& model : channel.models) {
    if (model == client_model) return routing::ModelName(model);
  }
  return routing::ModelName(fallback);
}

}  // namespace

std::optional<std::string> GatewayHandler::inspectMedia(RequestContext& ctx) {
  ctx.modality = config::modalityOf(ctx.route.kind);
  ctx.client = protocol::detectClient(ctx.request.headers, "", "");
  ctx.record.client = std::string(protocol::clientKindName(ctx.client));
  if (isVideoPoll(ctx.route.kind)) return std::nullopt;  // no body: the job names the model
  auto media = protocol::inspectMediaRequest(ctx.route, ctx.request.headers.get("content-type"),
                                             ctx.request.body);
  if (!media) return std::move(media.error().message);
  ctx.profile = std::move(media->profile);
  ctx.media_ask = media->ask;
  ctx.record.model = ctx.profile.model;
  return std::nullopt;
}

std::optional<routing::PlannedCandidate> GatewayHandler::videoJobOwner(RequestContext& ctx,
                                                                       std::string& problem) {
  std::string const& id = ctx.route.video_id;
  auto job = services_.video_jobs.find(id);
  // Another tenant's job is answered exactly as an unknown one: its existence is not theirs.
  if (!job || job->gateway_key != ctx.gateway_key->name) {
    problem = "no video found with id '" + id + "'";
    return std::nullopt;
  }
  auto const& settings = ctx.catalog->settings();
  auto channel_index = ctx.catalog->channelIndex(job->channel);
  std::optional<std::size_t> key_index;
  if (channel_index) {
    auto const& keys = settings.channels[*channel_index].keys;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].id == job->key_id) key_index = k;
    }
  }
  if (!channel_index || !key_index || !settings.channels[*channel_index].media.enables(config::Modality::Videos)) {
    telemetry::logWarn("request {}: video {} was created through channel '{}', whose key or video "
                       "endpoint is no longer configured",
                       ctx.request_id, id, job->channel);
    problem = "video '" + id + "' was created through an upstream that is no longer configured";
    return std::nullopt;
  }
  config::Channel const& channel = settings.channels[*channel_index];
  ctx.profile.model = job->client_model;
  ctx.record.model = job->client_model;
  routing::PlannedCandidate owner;
  owner.channel = *channel_index;
  owner.row = channel.media.row;
  owner.key = *key_index;
  // Views of strings that outlive the request: the channel's own names, else the request's.
  owner.model = routing::ModelName(ctx.profile.model);
  owner.upstream_model = upstreamNameOf(channel, ctx.profile.model, ctx.profile.model);
  owner.passthrough = true;
  return owner;
}

void GatewayHandler::rememberVideoJob(RequestContext& ctx) {
  if (ctx.route.kind != RouteKind::VideoCreate || ctx.video_job_id.empty()) return;
  if (ctx.record.status < 200 || ctx.record.status >= 300 || ctx.record.attempts.empty()) return;
  AttemptRecord const& answering = ctx.record.attempts.back();
  auto const& settings = ctx.catalog->settings();
  auto channel_index = ctx.catalog->channelIndex(answering.channel);
  if (!channel_index) return;
  for (auto const& key : settings.channels[*channel_index].keys) {
    if (key.label != answering.key_label) continue;
    routing::VideoJob job;
    job.id = ctx.video_job_id;
    job.gateway_key = ctx.gateway_key->name;
    job.channel = answering.channel;
    job.key_id = key.id;
    job.client_model = ctx.profile.model;
    job.upstream_model = answering.upstream_model;
    services_.video_jobs.remember(std::move(job));
    return;
  }
}

}  // namespace llmux::proxy
