#include "config/settings.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace llmux::config {

namespace {
constexpr std::array<std::pair<Strategy, std::string_view>, 6> kStrategies = {{
    {Strategy::Sequential, "sequential"},
    {Strategy::Random, "random"},
    {Strategy::ModelRandom, "model-random"},
    {Strategy::GlobalRandom, "global-random"},
    {Strategy::Intelligent, "intelligent"},
    {Strategy::Fast, "fast"},
}};
}  // namespace

std::string_view modalityName(Modality modality) {
  switch (modality) {
    case Modality::Images: return "images";
    case Modality::Videos: return "videos";
    case Modality::Speech: return "speech";
    case Modality::Transcriptions: return "transcriptions";
    case Modality::Embeddings: return "embeddings";
  }
  return "images";
}

std::size_t ServerSettings::bodyLimitFor(std::string_view route_label, bool upload) const {
  if (auto it = body_limits.find(route_label); it != body_limits.end()) return it->second;
  return upload ? std::max(kUploadBodyLimit, max_body_bytes) : max_body_bytes;
}

std::string_view strategyName(Strategy strategy) {
  for (auto const& [value, name] : kStrategies) {
    if (value == strategy) return name;
  }
  return "intelligent";
}

std::optional<Strategy> parseStrategy(std::string_view name) {
  for (auto const& [value, known] : kStrategies) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::string_view costPreferenceName(CostPreference preference) {
  switch (preference) {
    case CostPreference::QualityFirst: return "quality_first";
    case CostPreference::Balanced: return "balanced";
    case CostPreference::CostFirst: return "cost_first";
  }
  return "balanced";
}

std::string_view webhookKindName(WebhookKind kind) {
  switch (kind) {
    case WebhookKind::Webhook: return "webhook";
    case WebhookKind::Slack: return "slack";
    case WebhookKind::Feishu: return "feishu";
    case WebhookKind::DingTalk: return "dingtalk";
    case WebhookKind::WeCom: return "wecom";
  }
  return "webhook";
}

std::optional<WebhookKind> parseWebhookKind(std::string_view name) {
  for (auto kind : {WebhookKind::Webhook, WebhookKind::Slack, WebhookKind::Feishu,
                    WebhookKind::DingTalk, WebhookKind::WeCom}) {
    if (webhookKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string_view proxyModeName(ProxyMode mode) {
  switch (mode) {
    case ProxyMode::Network: return "network";
    case ProxyMode::UrlPrefix: return "url_prefix";
    case ProxyMode::Direct: return "direct";
    case ProxyMode::Node: return "node";
  }
  return "direct";
}

Proxy const* proxyFor(Settings const& settings, Channel const& channel, ChannelKey const& key,
                      ProtocolRow const& row) {
  std::optional<std::size_t> index = key.proxy;
  if (!index) index = channel.proxy;
  if (!index) index = row.environment_proxy;
  if (!index || *index >= settings.proxies.size()) return nullptr;
  Proxy const& proxy = settings.proxies[*index];
  return proxy.mode == ProxyMode::Direct ? nullptr : &proxy;
}

std::string channelRoute(Settings const& settings, Channel const& channel) {
  std::string route = channel.tls_ca_file;
  for (ProtocolRow const& row : channel.rows) {
    route += '\n' + std::string(protocolName(row.protocol)) + ' ' + row.base_url + ' ' +
             row.paths.chat + ' ' + row.paths.models;
    // The exits the keys take, each once: a key added on an exit already in use changes nothing.
    std::set<std::string> exits;
    for (ChannelKey const& key : channel.keys) {
      Proxy const* proxy = proxyFor(settings, channel, key, row);
      exits.insert(proxy == nullptr    ? std::string("direct")
                   : proxy->egress     ? proxy->egress->identity
                                       : proxy->name + "@" + proxy->url);
    }
    for (std::string const& exit : exits) route += ' ' + exit;
  }
  // Media requests go to their own paths: a modality turned on, or moved, is a new endpoint (the
  // row they are sent on follows from the rows above).
  for (std::size_t i = 0; i < kModalityCount; ++i) {
    MediaEndpoint const& endpoint = channel.media.endpoints[i];
    if (!endpoint.enabled) continue;
    route += "\nmedia " + std::string(modalityName(static_cast<Modality>(i))) + ' ' +
             endpoint.path + ' ' + endpoint.edits_path;
  }
  return route;
}

std::optional<CostPreference> parseCostPreference(std::string_view name) {
  for (auto preference :
       {CostPreference::QualityFirst, CostPreference::Balanced, CostPreference::CostFirst}) {
    if (costPreferenceName(preference) == name) return preference;
  }
  return std::nullopt;
}

std::string_view freezeObjectName(FreezeObject object) {
  switch (object) {
    case FreezeObject::Key: return "key";
    case FreezeObject::KeyModel: return "key+model";
    case FreezeObject::Channel: return "channel";
    case FreezeObject::ChannelModel: return "channel+model";
  }
  return "key";
}

std::optional<FreezeObject> freezeObjectNamed(std::string_view name) {
  for (auto object : {FreezeObject::Key, FreezeObject::KeyModel, FreezeObject::Channel,
                      FreezeObject::ChannelModel}) {
    if (freezeObjectName(object) == name) return object;
  }
  return std::nullopt;
}

std::optional<FreezePeriod> freezePeriodNamed(std::string_view name) {
  for (auto period : {FreezePeriod::Fixed, FreezePeriod::Today, FreezePeriod::Week,
                      FreezePeriod::Month, FreezePeriod::Forever, FreezePeriod::UpstreamReset}) {
    if (freezePeriodName(period) == name) return period;
  }
  return std::nullopt;
}

std::string_view freezePeriodName(FreezePeriod period) {
  switch (period) {
    case FreezePeriod::Fixed: return "fixed";
    case FreezePeriod::Today: return "today";
    case FreezePeriod::Week: return "week";
    case FreezePeriod::Month: return "month";
    case FreezePeriod::Forever: return "forever";
    case FreezePeriod::UpstreamReset: return "reset";
  }
  return "fixed";
}

AuthSpec resolveAuth(Protocol protocol, AuthSpec const& auth) {
  if (auth.style != AuthStyle::Default) return auth;
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses: return AuthSpec{AuthStyle::Bearer, ""};
    case Protocol::Anthropic: return AuthSpec{AuthStyle::XApiKey, ""};
    case Protocol::Gemini: return AuthSpec{AuthStyle::Header, "x-goog-api-key"};
  }
  return AuthSpec{AuthStyle::Bearer, ""};
}

ProtocolRow const* Channel::rowFor(Protocol wanted) const {
  for (auto const& row : rows) {
    if (row.protocol == wanted && !row.preset_only) return &row;
  }
  return nullptr;
}

std::optional<ClientPreset> Channel::presetFor(std::string const& client_model) const {
  auto it = model_presets.find(client_model);
  if (it != model_presets.end()) return it->second;
  return client_preset;
}

std::size_t Channel::rowIndexFor(Protocol client_protocol, std::string const& client_model) const {
  std::optional<ClientPreset> preset = presetFor(client_model);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (preset ? rows[r].protocol == presetProtocol(*preset)
               : rows[r].protocol == client_protocol && !rows[r].preset_only) {
      return r;
    }
  }
  return 0;
}

void Channel::useSingleRow() { rows = {ProtocolRow{protocol, base_url, url, auth}}; }

bool Channel::serves(std::string_view model) const {
  if (std::find(models.begin(), models.end(), model) != models.end()) return true;
  return model_map.find(std::string(model)) != model_map.end();
}

std::string const& Channel::upstreamModel(std::string const& client_model) const {
  auto it = model_map.find(client_model);
  return it != model_map.end() ? it->second : client_model;
}

std::string_view builtinProbeName(BuiltinProbe probe) {
  switch (probe) {
    case BuiltinProbe::Chat: return "chat";
    case BuiltinProbe::Stream: return "stream";
    case BuiltinProbe::Tools: return "tools";
    case BuiltinProbe::Thinking: return "thinking";
    case BuiltinProbe::MultiTurn: return "multi_turn";
    case BuiltinProbe::Image: return "image";
    case BuiltinProbe::Video: return "video";
    case BuiltinProbe::Speech: return "speech";
  }
  return "chat";
}

std::optional<BuiltinProbe> parseBuiltinProbe(std::string_view name) {
  for (BuiltinProbe probe : kAllBuiltinProbes) {
    if (builtinProbeName(probe) == name) return probe;
  }
  return std::nullopt;
}

std::optional<Modality> probeModality(BuiltinProbe probe) {
  switch (probe) {
    case BuiltinProbe::Image: return Modality::Images;
    case BuiltinProbe::Video: return Modality::Videos;
    case BuiltinProbe::Speech: return Modality::Speech;
    default: return std::nullopt;
  }
}

}  // namespace llmux::config
