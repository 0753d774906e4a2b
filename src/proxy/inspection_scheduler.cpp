#include "proxy/inspection_scheduler.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <map>
#include <random>

#include "net/asio_types.h"

namespace llmux::proxy {
namespace {

constexpr Millis kTick{1'000};
constexpr Millis kFirstRunDelay{2'000};
constexpr Millis kMaxFirstRunSpread{60'000};

enum class Check { Models, Balance };

/// When a check runs next, and the interval that was scheduled with.
struct Due {
  MonoTime at{};
  Millis interval{};
};

}  // namespace

struct InspectionScheduler::Impl {
  Impl(boost::asio::io_context& io, InspectionRunner& runner, ConfigHolder& config)
      : io(io), runner(runner), config(config), timer(io.get_executor()), rng(std::random_device{}()) {}

  boost::asio::io_context& io;
  InspectionRunner& runner;
  ConfigHolder& config;
  net::Timer timer;
  std::mt19937_64 rng;
  std::map<std::pair<std::string, Check>, Due> due;
  bool stopping = false;

  Millis uniform(Millis low, Millis high) {
    return Millis(std::uniform_int_distribution<long long>(low.count(), high.count())(rng));
  }

  /// Whether `check` of `channel`, run every `interval` (nullopt: off), is due now; schedules
  /// its next run when it is, and its first when it is new or its interval changed.
  bool isDue(std::string const& channel, Check check, std::optional<Millis> interval,
             MonoTime now, std::map<std::pair<std::string, Check>, Due>& seen) {
    if (!interval) return false;
    auto key = std::make_pair(channel, check);
    auto it = due.find(key);
    if (it == due.end() || it->second.interval != *interval) {
      Millis spread = std::min(*interval / 10, kMaxFirstRunSpread);
      seen[key] = Due{now + kFirstRunDelay + uniform(Millis(0), spread), *interval};
      return false;
    }
    if (now < it->second.at) {
      seen[key] = it->second;
      return false;
    }
    Millis jitter = *interval / 10;
    seen[key] = Due{now + *interval + uniform(-jitter, jitter), *interval};
    return true;
  }

  static net::Task<void> run(std::shared_ptr<Impl> self) {
    while (!self->stopping) {
      self->timer.expires_after(kTick);
      co_await self->timer.async_wait(net::kUseTuple);
      if (self->stopping) break;
      auto const catalog = self->config.current();
      MonoTime const now = MonoClock::now();
      std::map<std::pair<std::string, Check>, Due> seen;  // checks gone from the file are dropped
      std::vector<std::pair<std::string, Check>> runs;
      for (config::Channel const& channel : catalog->settings().channels) {
        if (!channel.inspection) continue;
        if (self->isDue(channel.name, Check::Models, channel.inspection->models.interval, now, seen)) {
          runs.emplace_back(channel.name, Check::Models);
        }
        auto const& balance = channel.inspection->balance;
        if (balance && self->isDue(channel.name, Check::Balance, balance->interval, now, seen)) {
          runs.emplace_back(channel.name, Check::Balance);
        }
      }
      self->due = std::move(seen);
      for (auto const& [channel, check] : runs) {
        if (self->stopping) break;
        if (check == Check::Models) {
          co_await self->runner.refreshModels(channel);
        } else {
          co_await self->runner.probeBalances(channel);
        }
      }
    }
  }
};

InspectionScheduler::InspectionScheduler(boost::asio::io_context& io, InspectionRunner& runner,
                                         ConfigHolder& config)
    : impl_(std::make_shared<Impl>(io, runner, config)) {}

InspectionScheduler::~InspectionScheduler() = default;

void InspectionScheduler::start() {
  boost::asio::co_spawn(impl_->io, Impl::run(impl_), boost::asio::detached);
}

void InspectionScheduler::stop() {
  boost::asio::post(impl_->io, [self = impl_] {
    self->stopping = true;
    self->timer.cancel();
    self->runner.cancel();
  });
}

}  // namespace llmux::proxy
