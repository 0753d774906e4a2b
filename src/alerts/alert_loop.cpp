#include "alerts/alert_loop.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "alerts/messages.h"
#include "config/address.h"
#include "http/cancellation.h"
#include "http/peer_address.h"
#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"
#include "net/asio_types.h"
#include "net/resolver.h"
#include "net/tls.h"
#include "routing/rate_limits.h"
#include "shared_state/redis_client.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::alerts {

namespace asio = boost::asio;
using net::kUseTuple;
using net::Task;

namespace {

constexpr Millis kDeliveryTimeout{10'000};
constexpr std::size_t kMaxAnswerBytes = 64 * 1024;

/// Takes or renews the lease for `owner`: 1 held, 0 another replica holds it.
constexpr std::string_view kLeaseScript = R"lua(
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
  return 1
end
return 0
)lua";

/// Whether a robot's answer says it took the message: the robots answer 200 with an error code
/// in the body ({"errcode":310000,...}, {"code":19021,...}).
bool robotAccepted(std::string_view answer) {
  for (std::string_view field : {"\"errcode\":", "\"code\":", "\"StatusCode\":"}) {
    auto at = answer.find(field);
    if (at == std::string_view::npos) continue;
    auto rest = answer.substr(at + field.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return rest.starts_with("0") && (rest.size() == 1 || rest[1] < '0' || rest[1] > '9');
  }
  return true;
}

}  // namespace

void publishSloTargets(telemetry::MetricsRegistry& registry, config::SloSettings const& slo) {
  auto& targets = registry.gauge(telemetry::MetricId::SloTarget);
  targets.labels({"success_rate"}).set(slo.success_rate);
  targets.labels({"first_token_p95_seconds"})
      .set(std::chrono::duration<double>(slo.first_token_p95).count());
}

struct AlertLoop::Impl {
  Impl(TimeSource const& clock, telemetry::MetricsRegistry& registry, Observe observe,
       Options options)
      : clock(clock),
        registry(registry),
        observe(std::move(observe)),
        options(std::move(options)),
        evaluator(this->options.slo, this->options.alerts, telemetry::kClientSecondsBuckets,
                  clock.now()),
        timer(io) {}

  TimeSource const& clock;
  telemetry::MetricsRegistry& registry;
  Observe observe;
  Options options;  ///< the loop thread's copy (reconfigure posts to it)
  Evaluator evaluator;
  net::asio::io_context io;
  /// Its own: gone before `io`, so no lookup's answer is posted to a context that is gone.
  net::CachingResolver resolver;
  net::Timer timer;
  std::unique_ptr<asio::ssl::context> tls;
  std::unique_ptr<http::UpstreamPool> pool;
  std::unique_ptr<shared_state::RedisClient> redis;
  bool stopping = false;
  /// Fired by stop(): a delivery under way ends at once (its connect, or its exchange).
  http::Cancellation cancellation;
  bool lease_failed_logged = false;
  std::thread thread;

  /// The database's lease, when there is one (no Redis): a replica that cannot tell delivers.
  bool holdDatabaseLease() {
    if (!options.database_lease) return true;
    std::optional<bool> held = options.database_lease();
    if (!held) {
      if (!lease_failed_logged) {
        telemetry::logWarn("alerts: the lease in PostgreSQL cannot be read; this replica sends "
                           "its alerts on its own until it can");
        lease_failed_logged = true;
      }
      return true;
    }
    lease_failed_logged = false;
    return *held;
  }

  /// Whether this replica delivers this time.
  Task<bool> holdLease() {
    if (!redis) co_return holdDatabaseLease();
    Millis ttl = options.alerts.interval * 2 + Millis(1000);
    std::vector<std::string> args{
        "EVAL",          std::string(kLeaseScript),  "1", options.redis->prefix + "alerts:lease",
        options.replica, std::to_string(ttl.count())};
    auto reply = co_await redis->call(std::move(args));
    if (stopping) co_return false;  // stop() closed the connection under the call
    if (!reply || reply->isError()) {
      if (!lease_failed_logged) {
        telemetry::logWarn(
            "alerts: the lease in Redis cannot be read ({}); this replica sends "
            "its alerts on its own until it can",
            reply ? reply->text : reply.error().message);
        lease_failed_logged = true;
      }
      co_return true;
    }
    lease_failed_logged = false;
    co_return reply->kind == shared_state::RedisReply::Kind::Integer && reply->integer == 1;
  }

  /// Fills `observation.budgets` from Redis, where the replicas keep the budgets' spending
  /// (shared_state/redis_limits.h: `client:<key>:tokens:<day>` and the like). Left unknown when
  /// Redis does not answer.
  Task<void> readBudgets(Observation& observation) {
    if (!redis || observation.budgets_in_redis.empty()) co_return;
    WallTime const wall = clock.wallNow();
    std::string const day = routing::utcDayStamp(wall);
    std::string const month = routing::utcMonthStamp(wall);
    std::vector<std::string> args{"MGET"};
    for (BudgetUse const& use : observation.budgets_in_redis) {
      bool const daily = use.budget.starts_with("daily");
      bool const tokens = use.budget.ends_with("tokens");
      args.push_back(options.redis->prefix + "client:" + use.key +
                     (tokens ? ":tokens:" : ":cost:") + (daily ? day : month));
    }
    auto reply = co_await redis->call(std::move(args));
    if (!reply || reply->kind != shared_state::RedisReply::Kind::Array ||
        reply->elements.size() != observation.budgets_in_redis.size()) {
      co_return;
    }
    std::vector<BudgetUse> budgets = observation.budgets_in_redis;
    for (std::size_t i = 0; i < budgets.size(); ++i) {
      auto const& element = reply->elements[i];
      budgets[i].used = element.isNil() ? 0 : std::strtod(element.text.c_str(), nullptr);
    }
    observation.budgets = std::move(budgets);
  }

  /// POSTs one message to one webhook; an error says why it was not taken.
  Task<Result<void>> post(config::Webhook hook, WebhookRequest request) {
    MonoTime deadline = MonoClock::now() + kDeliveryTimeout;
    http::PeerAddress peer;
    peer.tls = hook.target.tls;
    peer.host = hook.target.host;
    peer.port = hook.target.port;
    auto connection = co_await pool->connectNew(peer, deadline, &cancellation);
    if (!connection) co_return connection.error();
    http::UpstreamExchange exchange(*pool, std::move(*connection));
    std::size_t watch = cancellation.add([&exchange](http::CancelReason) { exchange.abort(); });
    auto answered = co_await sendOn(exchange, request, hook, deadline);
    cancellation.remove(watch);
    co_return answered;
  }

  /// Sends the request on `exchange` and judges the answer.
  Task<Result<void>> sendOn(http::UpstreamExchange& exchange, WebhookRequest const& request,
                            config::Webhook const& hook, MonoTime deadline) {
    std::string head = "POST " + request.target +
                       " HTTP/1.1\r\nHost: " + config::hostHeaderValue(hook.target) +
                       "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: " +
                       std::to_string(request.body.size()) +
                       "\r\nUser-Agent: llmux-alerts\r\nConnection: close\r\n\r\n";
    auto started = co_await exchange.start({head, request.body}, deadline);
    if (!started) co_return started.error();
    std::string answer;
    while (!exchange.done() && answer.size() < kMaxAnswerBytes) {
      auto piece = co_await exchange.readBody(deadline);
      if (!piece) co_return piece.error();
      answer.append(*piece);
    }
    exchange.abort();
    int status = exchange.status();
    if (status < 200 || status > 299) {
      co_return makeError(ErrorKind::UpstreamStatus, "answered HTTP " + std::to_string(status));
    }
    if (hook.kind != config::WebhookKind::Webhook && hook.kind != config::WebhookKind::Slack &&
        !robotAccepted(answer)) {
      co_return makeError(ErrorKind::UpstreamStatus,
                          "refused the message: " + answer.substr(0, 200));
    }
    co_return Result<void>{};
  }

  void count(AlertMessage const& message, std::string_view result) {
    registry.counter(telemetry::MetricId::AlertMessagesTotal)
        .labels({alertNameText(message.alert), message.firing ? "firing" : "resolved", result})
        .inc();
  }

  Task<void> deliver(std::vector<AlertMessage> messages) {
    // A copy: a reload may replace the settings while a delivery waits.
    std::vector<config::Webhook> const webhooks = options.alerts.webhooks;
    for (AlertMessage const& message : messages) {
      if (webhooks.empty()) {
        count(message, "logged");
        telemetry::logError("alert: {}", messageText(message, options.instance));
        continue;
      }
      telemetry::logInfo("alert: {}", messageText(message, options.instance));
      for (config::Webhook const& hook : webhooks) {
        auto sent =
            co_await post(hook, renderWebhook(hook, message, options.instance, clock.wallNow()));
        if (stopping) co_return;
        if (sent) {
          count(message, "sent");
        } else {
          // The URL carries the robot's token: the webhook is named by kind and index only.
          telemetry::logError("alert {} could not be delivered to {}: {}",
                              alertNameText(message.alert), hook.name, sent.error().message);
          count(message, "failed");
        }
      }
    }
  }

  void publish() {
    Measurements const& m = evaluator.measurements();
    registry.gauge(telemetry::MetricId::SloErrorBudgetBurnRate).get().set(m.burn_rate);
    auto& active = registry.gauge(telemetry::MetricId::AlertActive);
    for (AlertName name : kAllAlerts) {
      auto it = m.active.find(name);
      active.labels({alertNameText(name)}).set(it == m.active.end() ? 0 : it->second);
    }
  }

  static Task<void> run(std::shared_ptr<Impl> self) {
    while (!self->stopping) {
      self->timer.expires_after(self->options.alerts.interval);
      co_await self->timer.async_wait(kUseTuple);
      if (self->stopping) break;
      Observation observation = self->observe();
      co_await self->readBudgets(observation);
      if (self->stopping) break;
      auto messages =
          self->evaluator.evaluate(self->clock.now(), self->clock.wallNow(), observation);
      self->publish();
      bool const holder = co_await self->holdLease();
      if (self->stopping) break;
      if (!holder) {
        for (auto const& message : messages) self->count(message, "skipped");
        continue;
      }
      if (!messages.empty()) co_await self->deliver(std::move(messages));
    }
    if (self->redis) self->redis->close();
    if (self->pool) self->pool->closeIdle();
  }
};

AlertLoop::AlertLoop(TimeSource const& clock, telemetry::MetricsRegistry& registry, Observe observe,
                     Options options)
    : impl_(std::make_shared<Impl>(clock, registry, std::move(observe), std::move(options))) {}

AlertLoop::~AlertLoop() {
  stop();
}

void AlertLoop::start() {
  Impl& impl = *impl_;
  auto tls = net::makeClientTlsContext();
  if (!tls) throw std::runtime_error("alerts: " + tls.error().message);
  impl.tls = std::move(*tls);
  impl.pool = std::make_unique<http::UpstreamPool>(impl.io, *impl.tls, impl.resolver);
  if (impl.options.redis) {
    auto const& r = *impl.options.redis;
    // A lease is no request's business: a slow Redis may take a second here.
    impl.redis = std::make_unique<shared_state::RedisClient>(
        impl.io, shared_state::RedisConnectOptions{r.host, r.port, r.password, r.db,
                                                   std::max(r.timeout, Millis(1000))});
  }
  publishSloTargets(impl.registry, impl.options.slo);
  asio::co_spawn(impl.io, Impl::run(impl_), asio::detached);
  impl.thread = std::thread([self = impl_] { self->io.run(); });
}

void AlertLoop::reconfigure(config::SloSettings slo, config::AlertSettings alerts) {
  asio::post(impl_->io, [self = impl_, slo, alerts = std::move(alerts)]() mutable {
    self->evaluator.reconfigure(slo, alerts);
    self->options.slo = slo;
    self->options.alerts = std::move(alerts);
    publishSloTargets(self->registry, slo);
  });
}

void AlertLoop::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  // On the loop's thread: the loop ends, and with it the work of the context, whose run() then
  // returns.
  asio::post(impl_->io, [self = impl_] {
    self->stopping = true;
    self->timer.cancel();
    self->cancellation.cancel(http::CancelReason::Shutdown);
    if (self->redis) self->redis->close();
  });
  impl_->thread.join();
}

}  // namespace llmux::alerts
