#include "proxy/probe_scheduler.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>

#include "http/cancellation.h"
#include "http/upstream_connection.h"
#include "net/asio_types.h"
#include "proxy/probe_runner.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {
namespace asio = net::asio;
using net::Task;

namespace {
/// How often the loop looks for due probes: the granularity of intervals.
constexpr auto kTick = std::chrono::milliseconds(200);
/// How long stop() waits for cancelled probes to end.
constexpr auto kStopGrace = std::chrono::seconds(3);
}  // namespace

struct ProbeScheduler::State : std::enable_shared_from_this<State> {
  State(GatewayServices& services, ProbeBook& book, std::vector<http::UpstreamPool*> pools)
      : services(services), book(book), pools(std::move(pools)), rng(std::random_device{}()) {}

  /// One scheduled (channel, key, model, scenario) at one interval.
  struct Entry {
    MonoTime due{};
    bool running = false;
  };
  struct InFlight {
    unsigned worker = 0;
    std::shared_ptr<http::Cancellation> cancellation;
  };

  GatewayServices& services;
  ProbeBook& book;
  std::vector<http::UpstreamPool*> pools;
  // The loop's own (first worker's thread only).
  std::map<std::string, Entry> entries;
  std::mt19937_64 rng;
  unsigned next_worker = 0;
  MonoTime hourly_logged{};
  net::Timer* timer = nullptr;
  bool stopping = false;
  // Shared with the workers running probes and with stop().
  std::mutex mutex;
  std::condition_variable idle;
  std::map<std::uint64_t, InFlight> in_flight;
  std::uint64_t next_flight = 0;

  asio::io_context& loopContext() { return pools.front()->io(); }

  /// The next turn after `now`: one interval, plus up to `jitter`.
  MonoTime nextTurn(MonoTime now, config::ChannelProbes const& probes) {
    Millis jitter{0};
    if (probes.jitter.count() > 0) {
      jitter = Millis(std::uniform_int_distribution<std::int64_t>(0, probes.jitter.count())(rng));
    }
    return now + *probes.interval + jitter;
  }

  static Task<void> loop(std::shared_ptr<State> self) {
    net::Timer wait(co_await asio::this_coro::executor);
    self->timer = &wait;
    while (!self->stopping) {
      self->tick();
      wait.expires_after(kTick);
      co_await wait.async_wait(net::kUseTuple);
    }
    self->timer = nullptr;
  }

  void tick() {
    auto catalog = services.config.current();
    auto const& settings = catalog->settings();
    MonoTime const now = MonoClock::now();
    std::set<std::string> current;
    for (auto const& channel : settings.channels) {
      if (!channel.enabled || !channel.probes || !channel.probes->interval) continue;
      config::ChannelProbes const& probes = *channel.probes;
      for (auto const& key : channel.keys) {
        if (!key.enabled) continue;
        for (auto const& model : probes.modelsOf(channel.models)) {
          for (auto const& scenario : probes.scenarios) {
            std::string id = channel.name + '\n' + key.id + '\n' + model + '\n' + scenario + '\n' +
                             std::to_string(probes.interval->count());
            current.insert(id);
            auto [it, fresh] = entries.try_emplace(id);
            Entry& entry = it->second;
            if (fresh) entry.due = nextTurn(now, probes);
            if (entry.running || entry.due > now) continue;
            switch (book.tryStart(settings.probes.max_concurrent, settings.probes.max_per_hour)) {
              case ProbeAdmission::Admitted:
                if (launch(catalog, channel, key, model, scenario, id)) {
                  entry.running = true;
                } else {
                  book.finish();
                  entry.due = nextTurn(now, probes);
                }
                break;
              case ProbeAdmission::Busy:
                entry.due = nextTurn(now, probes);
                skipped("concurrency");
                break;
              case ProbeAdmission::HourlyCap:
                entry.due = nextTurn(now, probes);
                skipped("hourly");
                if (now - hourly_logged >= std::chrono::minutes(1) || hourly_logged == MonoTime{}) {
                  hourly_logged = now;
                  telemetry::logWarn("probes: max_per_hour ({}) reached; scheduled probes wait "
                                     "for their next turn",
                                     settings.probes.max_per_hour);
                }
                break;
            }
          }
        }
      }
    }
    // Probes no longer configured (a reload) are forgotten once they finished.
    std::erase_if(entries, [&](auto const& e) { return !e.second.running && !current.contains(e.first); });
  }

  void skipped(std::string_view reason) {
    services.metrics_registry.counter(telemetry::MetricId::ProbesSkippedTotal).labels({reason}).inc();
  }

  bool launch(std::shared_ptr<const routing::Catalog> const& catalog, config::Channel const& channel,
              config::ChannelKey const& key, std::string const& model, std::string const& scenario,
              std::string const& id) {
    auto target = resolveProbeTarget(catalog->settings(), channel.name, key.label, model, scenario);
    if (!target) {
      telemetry::logWarn("probes: channel {}: {}", channel.name, target.error().message);
      return false;
    }
    unsigned worker = next_worker++ % static_cast<unsigned>(pools.size());
    auto cancellation = std::make_shared<http::Cancellation>();
    std::uint64_t flight = 0;
    {
      std::lock_guard lock(mutex);
      flight = next_flight++;
      in_flight.emplace(flight, InFlight{worker, cancellation});
    }
    asio::co_spawn(pools[worker]->io(),
                   probe(shared_from_this(), worker, catalog, std::move(*target), cancellation,
                         flight, id),
                   asio::detached);
    return true;
  }

  static Task<void> probe(std::shared_ptr<State> self, unsigned worker,
                          std::shared_ptr<const routing::Catalog> catalog, ProbeTarget target,
                          std::shared_ptr<http::Cancellation> cancellation, std::uint64_t flight,
                          std::string id) {
    try {
      co_await runProbe(self->services, *self->pools[worker], self->book, catalog,
                        std::move(target), true, *cancellation);
    } catch (std::exception const& e) {
      telemetry::logError("probes: a scheduled probe failed: {}", e.what());
    }
    self->book.finish();
    {
      std::lock_guard lock(self->mutex);
      self->in_flight.erase(flight);
    }
    self->idle.notify_all();
    // Its next turn is counted from its end, on the loop's thread.
    asio::post(self->loopContext(), [self, id = std::move(id), catalog] {
      auto it = self->entries.find(id);
      if (it == self->entries.end()) return;
      it->second.running = false;
      for (auto const& channel : catalog->settings().channels) {
        if (id.starts_with(channel.name + '\n') && channel.probes && channel.probes->interval) {
          it->second.due = self->nextTurn(MonoClock::now(), *channel.probes);
        }
      }
    });
  }
};

ProbeScheduler::ProbeScheduler(GatewayServices& services, ProbeBook& book,
                               std::vector<http::UpstreamPool*> pools)
    : state_(std::make_shared<State>(services, book, std::move(pools))) {}

ProbeScheduler::~ProbeScheduler() = default;

void ProbeScheduler::start() {
  if (state_->pools.empty()) return;
  asio::co_spawn(state_->loopContext(), State::loop(state_), asio::detached);
}

void ProbeScheduler::stop() {
  if (state_->pools.empty()) return;
  auto state = state_;
  asio::post(state->loopContext(), [state] {
    state->stopping = true;
    if (state->timer) state->timer->cancel();
  });
  std::unique_lock lock(state->mutex);
  for (auto const& [flight, running] : state->in_flight) {
    asio::post(state->pools[running.worker]->io(),
               [cancellation = running.cancellation] { cancellation->cancel(http::CancelReason::Shutdown); });
  }
  state->idle.wait_for(lock, kStopGrace, [&] { return state->in_flight.empty(); });
}

}  // namespace llmux::proxy
