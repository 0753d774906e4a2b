#include "proxy/probe_book.h"

#include <chrono>
#include <cmath>

#include <boost/json.hpp>

#include "proxy/admin_handler.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {
namespace json = boost::json;

ProbeAdmission ProbeBook::tryStart(unsigned max_concurrent, unsigned max_per_hour) {
  MonoTime now = clock_.now();
  std::lock_guard lock(mutex_);
  while (!started_.empty() && now - started_.front() >= std::chrono::hours(1)) started_.pop_front();
  if (running_ >= max_concurrent) return ProbeAdmission::Busy;
  if (started_.size() >= max_per_hour) return ProbeAdmission::HourlyCap;
  ++running_;
  started_.push_back(now);
  return ProbeAdmission::Admitted;
}

void ProbeBook::finish() {
  std::lock_guard lock(mutex_);
  if (running_ > 0) --running_;
}

unsigned ProbeBook::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

void ProbeBook::record(ProbeResult const& result) {
  {
    std::lock_guard lock(mutex_);
    latest_[Key{result.channel, result.key_label, result.model, result.scenario}] = result;
  }
  std::string_view verdict = result.pass ? "pass" : "fail";
  metrics_.counter(telemetry::MetricId::ProbesTotal)
      .labels({result.channel, result.scenario, verdict})
      .inc();
  metrics_.gauge(telemetry::MetricId::ProbeLastResult)
      .labels({result.channel, result.key_label, result.model, result.scenario})
      .set(result.pass ? 1 : 0);
  if (result.pass) {
    telemetry::logInfo(
        "probe {} channel={} key={} model={} scenario={} status={} latency_ms={:.0f} "
        "lifted_freezes={} kept_forever={} pause_cleared={} breaker_reset={}",
        verdict, result.channel, result.key_label, result.model, result.scenario, result.status,
        result.latency_ms, result.freezes_lifted.size(), result.freezes_kept, result.pause_cleared,
        result.breaker_reset);
  } else {
    telemetry::logWarn("probe {} channel={} key={} model={} scenario={} status={} latency_ms={:.0f} "
                       "reason={}",
                       verdict, result.channel, result.key_label, result.model, result.scenario,
                       result.status, result.latency_ms, result.reason);
  }
}

std::vector<ProbeResult> ProbeBook::latest() const {
  std::lock_guard lock(mutex_);
  std::vector<ProbeResult> out;
  out.reserve(latest_.size());
  for (auto const& [key, result] : latest_) out.push_back(result);
  return out;
}

namespace {

json::object resultObject(ProbeResult const& r) {
  json::array freezes;
  for (auto const& id : r.freezes_lifted) freezes.emplace_back(id);
  return json::object{
      {"channel", r.channel},
      {"key", r.key_label},
      {"model", r.model},
      {"scenario", r.scenario},
      {"pass", r.pass},
      {"reason", r.reason},
      {"status", r.status},
      {"latency_ms", std::round(r.latency_ms * 10) / 10},
      {"at", rfc3339Utc(r.at)},
      {"scheduled", r.scheduled},
      {"lifted", json::object{{"pause", r.pause_cleared},
                              {"freezes", std::move(freezes)},
                              {"freezes_kept", r.freezes_kept},
                              {"breakers", r.breaker_reset}}},
  };
}

}  // namespace

std::string probeResultJson(ProbeResult const& result) {
  return json::serialize(resultObject(result));
}

std::string probeResultsJson(std::vector<ProbeResult> const& results) {
  json::array list;
  for (auto const& r : results) list.emplace_back(resultObject(r));
  return json::serialize(json::object{{"probes", std::move(list)}});
}

}  // namespace llmux::proxy
