#include "proxy/inspection_board.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdio>

#include "core/json_text.h"
#include "proxy/admin_handler.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {
namespace {

/// The names of `now` that `before` did not have (both sorted).
std::vector<std::string> newNames(std::vector<std::string> const& now,
                                  std::vector<std::string> const& before) {
  std::vector<std::string> fresh;
  std::set_difference(now.begin(), now.end(), before.begin(), before.end(),
                      std::back_inserter(fresh));
  return fresh;
}

void appendNames(std::string& out, std::string_view field, std::vector<std::string> const& names) {
  out += ',';
  appendJsonString(out, field);
  out += ":[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    appendJsonString(out, names[i]);
  }
  out += ']';
}

void appendStringField(std::string& out, std::string_view field, std::string_view value) {
  appendJsonString(out, field);
  out += ':';
  appendJsonString(out, value);
}

/// `null` for "", else the string.
void appendOptionalString(std::string& out, std::string_view value) {
  if (value.empty()) {
    out += "null";
  } else {
    appendJsonString(out, value);
  }
}

std::string numberText(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

config::ModelListDiff InspectionBoard::recordModels(std::string const& channel,
                                                    ModelListCheck check) {
  config::ModelListDiff reported;
  std::lock_guard lock(mutex_);
  ChannelInspection& entry = channels_[channel];
  entry.channel = channel;
  if (!check.error.empty()) {
    telemetry::logWarn("inspection: channel {}: the model list could not be read: {}", channel,
                       check.error);
    // The last list read stays what the admin API shows, with this error.
    if (entry.models) {
      entry.models->error = std::move(check.error);
      entry.models->at = check.at;
    } else {
      entry.models = std::move(check);
    }
    return reported;
  }
  config::ModelListDiff const previous =
      entry.models && entry.models->error.empty() && !entry.models->auto_updated
          ? entry.models->diff
          : config::ModelListDiff{};
  reported.added = newNames(check.diff.added, previous.added);
  reported.dropped = newNames(check.diff.dropped, previous.dropped);
  auto& changes = metrics_.counter(telemetry::MetricId::ModelListChangesTotal);
  for (std::string const& model : reported.added) {
    telemetry::logInfo("inspection: channel {}: the upstream added model {}", channel, model);
    changes.labels({channel, "added"}).inc();
  }
  for (std::string const& model : reported.dropped) {
    telemetry::logWarn("inspection: channel {}: the upstream dropped model {}", channel, model);
    changes.labels({channel, "dropped"}).inc();
  }
  metrics_.gauge(telemetry::MetricId::ChannelModels)
      .labels({channel})
      .set(static_cast<double>(check.upstream.size()));
  entry.models = std::move(check);
  return reported;
}

void InspectionBoard::recordBalance(std::string const& channel, BalanceCheck check,
                                    std::optional<double> min) {
  std::lock_guard lock(mutex_);
  ChannelInspection& entry = channels_[channel];
  entry.channel = channel;
  auto it = std::find_if(entry.balances.begin(), entry.balances.end(),
                         [&](BalanceCheck const& b) { return b.key == check.key; });
  if (it == entry.balances.end()) it = entry.balances.insert(entry.balances.end(), BalanceCheck{check.key});
  if (!check.error.empty()) {
    telemetry::logWarn("inspection: channel {} key {}: the balance could not be read: {}", channel,
                       check.key, check.error);
    it->at = check.at;
    it->error = std::move(check.error);
    return;
  }
  metrics_.gauge(telemetry::MetricId::ChannelBalance).labels({channel, check.key}).set(*check.balance);
  if (min && *check.balance < *min) {
    telemetry::logWarn("inspection: channel {} key {}: balance {} is below the minimum {}", channel,
                       check.key, *check.balance, *min);
  }
  *it = std::move(check);
}

ChannelInspection InspectionBoard::get(std::string const& channel) const {
  std::lock_guard lock(mutex_);
  auto it = channels_.find(channel);
  if (it == channels_.end()) return ChannelInspection{channel, std::nullopt, {}};
  return it->second;
}

std::vector<ChannelInspection> InspectionBoard::all() const {
  std::lock_guard lock(mutex_);
  std::vector<ChannelInspection> out;
  for (auto const& [name, inspection] : channels_) out.push_back(inspection);
  return out;
}

std::string channelInspectionJson(ChannelInspection const& inspection) {
  std::string out = "{";
  appendStringField(out, "channel", inspection.channel);
  out += ",\"models\":";
  if (ModelListCheck const* m = inspection.models ? &*inspection.models : nullptr) {
    out += '{';
    appendStringField(out, "refreshed", rfc3339Utc(m->at));
    out += ",\"error\":";
    appendOptionalString(out, m->error);
    appendNames(out, "served", m->served);
    appendNames(out, "upstream", m->upstream);
    appendNames(out, "added", m->diff.added);
    appendNames(out, "dropped", m->diff.dropped);
    out += ",\"auto_updated\":";
    out += m->auto_updated ? "true" : "false";
    out += '}';
  } else {
    out += "null";
  }
  out += ",\"balances\":[";
  for (std::size_t i = 0; i < inspection.balances.size(); ++i) {
    BalanceCheck const& b = inspection.balances[i];
    if (i > 0) out += ',';
    out += '{';
    appendStringField(out, "key", b.key);
    out += ",\"balance\":";
    out += b.balance ? numberText(*b.balance) : "null";
    out += ',';
    appendStringField(out, "at", rfc3339Utc(b.at));
    out += ",\"error\":";
    appendOptionalString(out, b.error);
    out += '}';
  }
  out += "]}";
  return out;
}

Result<std::string> parseInspectionRun(std::string_view body) {
  boost::system::error_code ec;
  boost::json::value document = boost::json::parse(body, ec);
  auto const* object = ec ? nullptr : document.if_object();
  auto const* channel = object ? object->if_contains("channel") : nullptr;
  if (channel == nullptr || !channel->is_string() || channel->get_string().empty()) {
    return makeError(ErrorKind::InvalidRequest,
                     "expected a JSON body {\"channel\": \"<channel name>\"}");
  }
  return std::string(channel->get_string());
}

std::string inspectionJson(std::vector<ChannelInspection> const& channels) {
  std::string out = "{\"channels\":[";
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (i > 0) out += ',';
    out += channelInspectionJson(channels[i]);
  }
  out += "]}";
  return out;
}

}  // namespace llmux::proxy
