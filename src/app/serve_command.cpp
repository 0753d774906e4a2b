#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "app/commands.h"
#include "app/mock_instance.h"
#include "app/shutdown.h"
#include "app/process_setup.h"
#include "app/reload_state.h"
#include "app/version.h"
#include "alerts/alert_loop.h"
#include "config/database_parser.h"
#include "config/managed_objects.h"
#include "config/embedded_default.h"
#include "config/loader.h"
#include "core/ids.h"
#include "http/server.h"
#include "http/upstream_connection.h"
#include "net/resolver.h"
#include "net/tls.h"
#include "net/worker_pool.h"
#include "proxy/alert_observation.h"
#include "proxy/gateway_handler.h"
#include "proxy/inspection_board.h"
#include "proxy/managed_config.h"
#include "proxy/console_sessions.h"
#include "proxy/request_tail.h"
#include "proxy/inspection_runner.h"
#include "proxy/inspection_scheduler.h"
#include "proxy/probe_book.h"
#include "proxy/probe_scheduler.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "shared_state/shared_limits.h"
#include "routing/router_state.h"
#include "routing/video_jobs.h"
#include "racing/racing_state.h"
#include "store/freeze_store.h"
#include "store/freeze_writer.h"
#include "store/postgres_freeze_store.h"
#include "store/postgres_lease.h"
#include "config/address.h"
#include "payloads/payload_writer.h"
#include "store/postgres_request_log.h"
#include "store/postgres_request_log_reader.h"
#include "store/postgres_video_job_store.h"
#include "store/shared_state_sync.h"
#include "proxy/latency_router_sync.h"
#include "store/postgres_managed_object_store.h"
#include "store/postgres_racing_store.h"
#include "store/managed_object_store.h"
#include "store/racing_store.h"
#include "store/racing_writer.h"
#include "store/sqlite_request_log_reader.h"
#include "store/sqlite_store.h"
#include "store/state_dir.h"
#include "store/video_job_store.h"
#include "store/video_job_writer.h"
#include "telemetry/access_log.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "telemetry/request_metrics.h"

namespace llmux::app {
namespace {

/// One worker's share of the gateway: its upstream pool and request handler (the DNS cache is
/// the process's, shared by every worker).
struct GatewayWorker {
  GatewayWorker(net::asio::io_context& io, boost::asio::ssl::context& tls,
                net::CachingResolver& resolver, proxy::GatewayServices& services)
      : pool(io, tls, resolver), handler(services, pool) {}
  http::UpstreamPool pool;
  proxy::GatewayHandler handler;
};

http::ServerLimits serverLimits(config::ServerSettings const& s) {
  http::ServerLimits limits;
  limits.max_body_bytes = s.max_body_bytes;
  limits.max_header_bytes = s.max_header_bytes;
  limits.max_header_count = s.max_header_count;
  limits.max_connections = s.max_connections;
  limits.max_buffered_body_bytes = s.max_buffered_body_bytes;
  limits.body_min_rate = s.body_min_rate;
  limits.body_rate_grace = s.body_rate_grace;
  limits.header_timeout = s.header_timeout;
  limits.body_timeout = s.body_timeout;
  limits.keepalive_timeout = s.keepalive_timeout;
  return limits;
}

void applyLogLevel(config::Settings const& settings) {
  if (auto level = telemetry::parseLogLevel(settings.log.level)) telemetry::setLogLevel(*level);
}

/// A secret of the embedded default: `$variable`, else the one generated on the first run
/// (`prefix` and 48 hex digits) and kept in the state database as `setting`, so it does not change
/// between runs. The gateway key and the admin token (the console's sign-in).
std::string keptSecret(store::SqliteStore& store, char const* variable, std::string const& setting,
                       std::string const& prefix) {
  if (char const* chosen = std::getenv(variable); chosen && *chosen) return chosen;
  if (auto kept = store.getSetting(setting)) return *kept;
  std::string secret = prefix + randomHex(24);
  store.putSetting(setting, secret);
  return secret;
}

void printEmbeddedWelcome(config::Settings const& settings, std::string const& address,
                          routing::Catalog const& catalog) {
  std::printf("llmux %s: embedded default configuration (no --config)\n", kVersion);
  std::printf("  gateway key: %s\n", settings.gateway_keys.front().secret.c_str());
  std::printf("  admin token: %s\n", settings.admin_token.c_str());
  std::printf("  console: http://%s/console/ (sign in with the admin token)\n", address.c_str());
  std::printf("  channels:");
  for (auto const& c : settings.channels) std::printf(" %s(%s)", c.name.c_str(), std::string(protocolName(c.protocol)).c_str());
  std::printf("\n  models:");
  for (auto const& m : catalog.modelNames()) std::printf(" %s", m.c_str());
  std::printf("\n  try: curl http://%s/v1/chat/completions -H 'Authorization: Bearer %s' "
              "-H 'Content-Type: application/json' -d '{\"model\":\"demo\",\"messages\":"
              "[{\"role\":\"user\",\"content\":\"Hello\"}]}'\n",
              address.c_str(), settings.gateway_keys.front().secret.c_str());
  std::fflush(stdout);
}

/// How alert messages name this replica: the host name and the client port.
std::string alertInstanceName(unsigned port) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "llmux:" + std::to_string(port);
  return std::string(host) + ":" + std::to_string(port);
}

/// The payload writer of `payloads:` (its password from the environment, never logged), deleting
/// the rows older than `retention_days` (0: none).
std::unique_ptr<payloads::PayloadWriter> makePayloadWriter(config::PayloadSettings const& settings,
                                                           int retention_days) {
  payloads::ClickHouseEndpoint endpoint{settings.clickhouse.host, settings.clickhouse.port,
                                        settings.user, settings.password};
  payloads::PayloadWriterOptions options;
  options.database = settings.database;
  options.table = settings.table;
  options.sample = settings.sample;
  options.queue_bytes = settings.queue_bytes;
  options.retention_days = retention_days;
  payloads::CaptureOptions capture{settings.max_bytes, settings.redact};
  telemetry::logInfo("payloads: {} of requests captured to ClickHouse at {} ({}.{})", settings.sample,
                     config::originOf(settings.clickhouse), settings.database, settings.table);
  return std::make_unique<payloads::PayloadWriter>(
      std::make_unique<payloads::ClickHouseHttp>(std::move(endpoint)), std::move(options),
      std::move(capture));
}

}  // namespace

int runServe(std::string const& config_path) {
  blockShutdownSignals();
  raiseOpenFileLimit();
  auto env = config::processEnvironment();
  bool embedded = config_path.empty();

  config::SettingsPtr settings;
  YAML::Node file_tree;  // the file as read: the admin API's objects are laid over it
  if (!embedded) {
    std::vector<config::ConfigIssue> issues;
    auto tree = config::readConfigTree(config_path, issues);
    auto outcome = tree ? config::parseSettingsTree(*tree, env) : config::LoadOutcome{{}, issues};
    if (!outcome.ok()) {
      std::fputs(config::formatIssues(outcome.issues).c_str(), stderr);
      return 2;
    }
    file_tree = *tree;
    settings = outcome.settings;
  }

  // State first: the embedded default's gateway key lives there.
  auto state_dir = store::resolveStateDir(settings ? settings->state_dir : std::string_view());
  auto store = store::SqliteStore::open(state_dir);
  if (!store) {
    std::fprintf(stderr, "cannot open the state database in %s: %s\n", state_dir.c_str(),
                 store.error().message.c_str());
    return 1;
  }

  // The admin API's objects (docs/admin-api.md) are kept beside the state, or with `database:` in
  // PostgreSQL, shared by every replica; the configuration in force is the file with them laid
  // over. Objects that no longer fit the file are reported and left out until they do.
  std::unique_ptr<store::ManagedObjectRows> object_rows;
  std::vector<config::ManagedObject> objects;
  if (!embedded) {
    if (settings->database) {
      object_rows = std::make_unique<store::PostgresManagedObjectStore>(settings->database->url);
    } else if (auto sqlite_rows = store::SqliteManagedObjectStore::open(state_dir)) {
      object_rows = std::move(*sqlite_rows);
    } else {
      std::fprintf(stderr, "cannot open the admin API's objects in %s: %s\n", state_dir.c_str(),
                   sqlite_rows.error().message.c_str());
      return 1;
    }
    if (auto loaded = object_rows->load(); !loaded.ok()) {
      telemetry::logWarn("admin API objects: cannot read them yet ({}); serving the file alone "
                         "until they are read",
                         loaded.error().message);
    } else if (!loaded->empty()) {
      auto fitting = config::fittingObjects(file_tree, std::move(*loaded), env);
      for (auto const& object : fitting.left_out) {
        telemetry::logError("admin API objects: {} \"{}\" (version {}) does not fit the file; left "
                            "out until a start where it does",
                            config::objectKindName(object.kind), object.name, object.version);
      }
      if (fitting.parsed.ok()) settings = fitting.parsed.settings;
      objects = std::move(fitting.kept);
    }
  }

  unsigned threads = net::effectiveThreadCount(settings ? settings->server.threads : 0);
  net::WorkerPool workers(threads);
  std::unique_ptr<MockInstance> demo_mock;
  if (embedded) {
    demo_mock = std::make_unique<MockInstance>(workers, mock::MockOptions{}, false);
    auto mock_port = demo_mock->listen(net::HostPort{"127.0.0.1", 0});
    if (!mock_port) {
      std::fprintf(stderr, "cannot start the demo mock provider: %s\n", mock_port.error().message.c_str());
      return 1;
    }
    try {
      settings = std::make_shared<const config::Settings>(config::embeddedDefaultSettings(
          env, "http://127.0.0.1:" + std::to_string(*mock_port), keptSecret(**store, "LLMUX_GATEWAY_KEY", "default_gateway_key", "sk-llmux-"),
          keptSecret(**store, "LLMUX_ADMIN_TOKEN", "default_admin_token", "adm-")));
    } catch (std::exception const& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  applyLogLevel(*settings);

  auto access_log = telemetry::AccessLog::open(settings->log.access_log);
  if (!access_log) {
    std::fprintf(stderr, "cannot open the access log: %s\n", access_log.error().message.c_str());
    return 1;
  }
  RealTimeSource clock;
  telemetry::MetricsRegistry metrics_registry;
  telemetry::RequestMetrics request_metrics(metrics_registry);
  routing::KeyHealth key_health(clock);
  routing::Rotation rotation;
  routing::RouterState router_state(clock);
  (*store)->setRetention(std::chrono::days(settings->retention.request_log_days));
  // Freezes outlive restarts: the state database keeps them, or with `database:` PostgreSQL,
  // where every replica reads the others' (SharedStateSync). Request threads only queue the writes;
  // the freeze writer's thread makes them.
  std::unique_ptr<store::FreezeRows> freeze_rows;
  if (settings->database) {
    freeze_rows = std::make_unique<store::PostgresFreezeStore>(settings->database->url);
  } else if (auto sqlite_rows = store::SqliteFreezeStore::open(state_dir)) {
    freeze_rows = std::move(*sqlite_rows);
  } else {
    std::fprintf(stderr, "cannot open the freezes in %s: %s\n", state_dir.c_str(),
                 sqlite_rows.error().message.c_str());
    return 1;
  }
  store::FreezeWriter freeze_writer(*freeze_rows, clock);
  routing::FreezeTable freezes(clock, &freeze_writer);
  try {
    freezes.load();
  } catch (std::exception const& e) {
    if (!settings->database) {
      std::fprintf(stderr, "cannot read the freezes in %s: %s\n", state_dir.c_str(), e.what());
      return 1;
    }
    // The shared store is not reachable yet: the sync takes its freezes in once it is.
    telemetry::logWarn("freezes: PostgreSQL is not usable yet ({}); starting without the stored "
                       "freezes, read as soon as it is",
                       e.what());
  }
  if (settings->database) {
    freeze_writer.onSaved([&freezes](std::string const& id) { freezes.noteStored(id); });
  }
  routing::BreakerBoard breakers;
  // Buckets and gateway-key windows: in Redis when configured (shared by every replica), else
  // this process's own. The Redis address is read once: changing it needs a restart.
  shared_state::SharedLimits limits(clock, settings->redis);
  proxy::ConfigHolder config_holder(std::make_shared<const routing::Catalog>(settings));
  racing::RacingState racing(settings->racing);
  // An operator's racing switches and the latency learning outlive restarts too, written behind
  // the memory by a thread of their own: in the state database, or with `database:` in
  // PostgreSQL, where every replica reads the others' (SharedStateSync).
  std::unique_ptr<store::RacingRows> racing_rows;
  if (settings->database) {
    racing_rows = std::make_unique<store::PostgresRacingStore>(settings->database->url);
  } else if (auto sqlite_rows = store::SqliteRacingStore::open(state_dir)) {
    racing_rows = std::move(*sqlite_rows);
  } else {
    std::fprintf(stderr, "cannot open the racing state in %s: %s\n", state_dir.c_str(),
                 sqlite_rows.error().message.c_str());
    return 1;
  }
  store::RacingWriter racing_writer(*racing_rows, racing, clock);
  if (settings->database) racing_writer.noteStoredLatency();
  if (auto restored = racing_writer.restore(); !restored) {
    if (!settings->database) {
      std::fprintf(stderr, "cannot read the racing state in %s: %s\n", state_dir.c_str(),
                   restored.error().message.c_str());
      return 1;
    }
    telemetry::logWarn("racing state: PostgreSQL is not usable yet ({}); the switches and latency "
                       "penalties are read as soon as it is",
                       restored.error().message);
  }
  // Latency learning's verdicts reach the router's score (and then the writer).
  proxy::LatencyRouterSync latency_sync(racing.latency, router_state, &racing_writer, clock.wallNow());
  // Which channel and key created each video job: its polls and downloads must reach them, also
  // after a restart. Kept behind the memory by a writer thread of their own.
  // With `database:` they are in PostgreSQL, shared: a job can be polled through any replica.
  std::unique_ptr<store::VideoJobRows> video_job_rows;
  store::PostgresVideoJobStore* shared_video_jobs = nullptr;
  if (settings->database) {
    auto shared = std::make_unique<store::PostgresVideoJobStore>(settings->database->url);
    shared_video_jobs = shared.get();
    video_job_rows = std::move(shared);
  } else if (auto sqlite_rows = store::SqliteVideoJobStore::open(state_dir)) {
    video_job_rows = std::move(*sqlite_rows);
  } else {
    std::fprintf(stderr, "cannot open the video jobs in %s: %s\n", state_dir.c_str(),
                 sqlite_rows.error().message.c_str());
    return 1;
  }
  routing::VideoJobTable video_jobs(clock, routing::VideoJobTable::kCapacity,
                                    std::chrono::days(settings->retention.video_jobs_days));
  store::VideoJobWriter video_job_writer(*video_job_rows, video_jobs, clock);
  WallTime const restored_at = clock.wallNow();
  if (auto restored = video_job_writer.restore(); !restored) {
    if (!settings->database) {
      std::fprintf(stderr, "cannot read the video jobs in %s: %s\n", state_dir.c_str(),
                   restored.error().message.c_str());
      return 1;
    }
    telemetry::logWarn("video jobs: PostgreSQL is not usable yet ({}); the jobs of the last {} "
                       "days are read as soon as it is",
                       restored.error().message, video_jobs.retention().count());
  }
  std::atomic<bool> draining{false};
  // With `database:` the request log goes to PostgreSQL (the state database keeps the rest, and
  // its writer keeps expiring the request rows written there before). Its writer has a thread
  // and a connection of its own; an unreachable server delays no start-up and no request.
  std::unique_ptr<store::RequestLogWriter> postgres_log;
  if (settings->database && settings->log.request_log) {
    std::string const where = config::maskedDatabaseUrl(settings->database->url);
    auto backend = std::make_unique<store::PostgresRequestLog>(settings->database->url);
    if (auto connected = backend->reconnect(); !connected) {
      telemetry::logWarn("request log: PostgreSQL at {} is not usable yet ({}); rows queue until "
                         "it is (up to the queue's bound, then they are dropped and counted)",
                         where, connected.error().message);
    } else {
      telemetry::logInfo("request log: PostgreSQL at {}", where);
    }
    store::RequestLogWriterOptions options;
    options.retention = std::chrono::days(settings->retention.request_log_days);
    options.replica = settings->database->replica;
    options.heartbeat_interval = settings->database->heartbeat;
    options.heartbeat_lapse = settings->database->heartbeat_lapse;
    postgres_log = std::make_unique<store::RequestLogWriter>("PostgreSQL request log",
                                                             std::move(backend), options);
  }
  store::RequestLogSink* request_log = nullptr;
  if (postgres_log) {
    request_log = postgres_log.get();
  } else if (settings->log.request_log) {
    request_log = store->get();
  }
  // The request log read back for the admin API, from the store that holds it: PostgreSQL with
  // `database:` (a connection of its own, opened at the first read), else the state database.
  std::unique_ptr<store::RequestLogReader> request_log_reader;
  if (settings->database) {
    request_log_reader = std::make_unique<store::PostgresRequestLogReader>(settings->database->url);
  } else if (auto sqlite_reader = store::SqliteRequestLogReader::open((*store)->databasePath())) {
    request_log_reader = std::move(*sqlite_reader);
  } else {
    std::fprintf(stderr, "cannot open the request log for reading in %s: %s\n", state_dir.c_str(),
                 sqlite_reader.error().message.c_str());
    return 1;
  }
  // Configurations come into force through one path: a reload, an inspection's auto_update, and
  // a change of the admin API's objects.
  ConfigApplier config_applier(config_holder, breakers, settings);
  std::unique_ptr<proxy::ManagedConfig> managed;
  if (!embedded) {
    managed = std::make_unique<proxy::ManagedConfig>(
        file_tree, std::move(objects), *object_rows, env, clock,
        [&config_applier](config::SettingsPtr next) { config_applier.applyFile(std::move(next)); });
  }
  // What other replicas change in the shared store is read back every sync interval.
  std::optional<store::SharedStateSync> shared_sync;
  if (settings->database) {
    std::vector<store::SharedPull> pulls{store::freezePull(*freeze_rows, freezes),
                                         store::racingPull(*racing_rows, racing, racing_writer,
                                                           clock)};
    // After a failed restore, everything the store keeps; else what came after it.
    WallTime const since =
        video_jobs.size() == 0 ? restored_at - video_jobs.retention() : restored_at;
    pulls.push_back(store::videoJobPull(*shared_video_jobs, video_jobs, since));
    if (managed) {
      // Objects changed through another replica come into force here too.
      pulls.push_back({"admin API objects", [&object_rows, &managed]() -> Result<std::size_t> {
                         auto stored = object_rows->load();
                         if (!stored.ok()) return stored.takeError();
                         auto changed = managed->adopt(std::move(*stored));
                         if (!changed.ok()) return changed.takeError();
                         return *changed ? 1 : 0;
                       }});
    }
    shared_sync.emplace(std::move(pulls), settings->database->sync_interval);
  }
  proxy::InspectionBoard inspection_board(metrics_registry);
  proxy::InspectionShared inspection{
      inspection_board, clock,
      [&config_applier](std::string const& channel, std::vector<std::string> const& listed) {
        return config_applier.serveListed(channel, listed);
      }};
  // With `payloads:` sampled requests' bodies go to ClickHouse from a thread of their own; an
  // unreachable server delays no start-up and no request (its batches are dropped and counted).
  std::unique_ptr<payloads::PayloadWriter> payload_writer;
  if (settings->payloads) {
    payload_writer = makePayloadWriter(*settings->payloads, settings->retention.payloads_days);
  }
  proxy::AuthFailureLimiter auth_failures(clock);
  // Health probes: their latest results, caps and counters (docs/operations.md#health-probes).
  proxy::ProbeBook probe_book(metrics_registry, clock);
  proxy::ListenerPlan listener_plan{!settings->server.admin_listen.empty(),
                                    !settings->server.metrics_listen.empty()};
  proxy::GatewayServices services{config_holder,    key_health,   rotation,    router_state,
                                  freezes,          breakers,     limits,      metrics_registry,
                                  request_metrics,  **access_log, request_log, clock,
                                  draining,         auth_failures, listener_plan, racing,
                                  video_jobs,       &inspection,  payload_writer.get(),
                                  &probe_book,      managed.get(),
                                  request_log_reader.get()};
  // The web console's sessions, and the finished requests its live view tails.
  proxy::ConsoleSessions console_sessions(clock);
  proxy::RequestTail request_tail;
  services.console_sessions = &console_sessions;
  services.request_tail = &request_tail;
  if (char const* dir = std::getenv("LLMUX_CONSOLE_DIR"); dir && *dir) {
    services.console_dir = dir;
    telemetry::logInfo("console: files read from {} (LLMUX_CONSOLE_DIR), not the built-in ones", dir);
  }

  auto tls = net::makeClientTlsContext();
  if (!tls) {
    std::fprintf(stderr, "%s\n", tls.error().message.c_str());
    return 1;
  }
  // One resolver for every worker: concurrent connects to a host share one lookup. Declared
  // after the worker loops (gone before them: no answer is posted to a loop that is gone) and
  // before the pools that wait on it.
  net::CachingResolver resolver;
  std::vector<std::unique_ptr<GatewayWorker>> gateway_workers;
  std::vector<http::RequestHandler*> handlers;
  for (unsigned i = 0; i < threads; ++i) {
    gateway_workers.push_back(
        std::make_unique<GatewayWorker>(workers.context(i), **tls, resolver, services));
    handlers.push_back(&gateway_workers.back()->handler);
  }
  // Scheduled probes run on the workers, each with its worker's connection pool.
  std::vector<http::UpstreamPool*> probe_pools;
  for (auto const& worker : gateway_workers) probe_pools.push_back(&worker->pool);
  proxy::ProbeScheduler probe_scheduler(services, probe_book, std::move(probe_pools));
  http::HttpServer server(workers, handlers, serverLimits(settings->server));
  auto address = net::parseHostPort(settings->server.listen);
  if (!address) {
    std::fprintf(stderr, "listen: not a host:port address: %s\n", settings->server.listen.c_str());
    return 2;
  }
  auto port = server.listen(*address);
  if (!port) {
    std::fprintf(stderr, "%s\n", port.error().message.c_str());
    return 1;
  }
  // The operator's addresses: /admin/* and /metrics off the client port when configured (one
  // server when both name the same address).
  std::vector<std::unique_ptr<http::HttpServer>> operator_servers;
  std::vector<std::string> operator_lines;
  auto listenOperator = [&](std::string const& text, proxy::Listener role, char const* what) -> bool {
    auto operator_address = net::parseHostPort(text);
    if (!operator_address) {
      std::fprintf(stderr, "%s: not a host:port address: %s\n", what, text.c_str());
      return false;
    }
    operator_servers.push_back(std::make_unique<http::HttpServer>(
        workers, handlers, serverLimits(settings->server), static_cast<unsigned>(role)));
    auto operator_port = operator_servers.back()->listen(*operator_address);
    if (!operator_port) {
      std::fprintf(stderr, "%s: %s\n", what, operator_port.error().message.c_str());
      return false;
    }
    operator_lines.push_back(std::string(what) + " on " + operator_address->host + ":" +
                             std::to_string(*operator_port));
    return true;
  };
  std::string const& admin_listen = settings->server.admin_listen;
  std::string const& metrics_listen = settings->server.metrics_listen;
  if (!admin_listen.empty() && admin_listen == metrics_listen) {
    if (!listenOperator(admin_listen, proxy::Listener::AdminAndMetrics, "admin and metrics")) return 1;
  } else {
    if (!admin_listen.empty() && !listenOperator(admin_listen, proxy::Listener::Admin, "admin")) return 1;
    if (!metrics_listen.empty() && !listenOperator(metrics_listen, proxy::Listener::Metrics, "metrics")) {
      return 1;
    }
  }
  // SLO targets always; the alert loop when `alerts:` is configured (a thread of its own).
  alerts::publishSloTargets(metrics_registry, settings->slo);
  std::unique_ptr<alerts::AlertLoop> alert_loop;
  std::shared_ptr<store::PostgresLease> alert_lease;
  if (settings->alerts) {
    alerts::AlertLoop::Options options{settings->slo, *settings->alerts, settings->redis,
                                       limits.replica(), alertInstanceName(*port), {}};
    if (!settings->redis && settings->database) {
      // One replica delivers: the one holding the lease in the shared database.
      alert_lease = std::make_shared<store::PostgresLease>(settings->database->url, "alerts");
      options.database_lease = [alert_lease] { return alert_lease->hold(); };
    }
    alert_loop = std::make_unique<alerts::AlertLoop>(
        clock, metrics_registry, [&services] { return proxy::observeGateway(services); },
        std::move(options));
    try {
      alert_loop->start();
    } catch (std::exception const& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  // Scheduled model-list refreshes and balance probes: coroutines on the first worker's loop,
  // its connection pool (the runner's requests go out like that worker's traffic).
  proxy::InspectionRunner scheduled_runner(inspection, gateway_workers[0]->pool, config_holder);
  proxy::InspectionScheduler inspection_scheduler(workers.context(0), scheduled_runner,
                                                  config_holder);
  inspection_scheduler.start();
  limits.start(workers.context(0));
  probe_scheduler.start();
  workers.start();
  std::string bound = address->host + ":" + std::to_string(*port);
  std::printf("listening on %s\n", bound.c_str());
  for (auto const& line : operator_lines) std::printf("%s\n", line.c_str());
  if (embedded) {
    printEmbeddedWelcome(*settings, bound, *config_holder.current());
  } else {
    std::printf("serving %zu model(s) from %zu channel(s)\n",
                config_holder.current()->modelNames().size(), settings->channels.size());
  }
  std::fflush(stdout);
  telemetry::logInfo("llmux {} serving on {} with {} worker thread(s)", kVersion, bound, threads);

  std::function<void()> reload;
  if (!embedded) {
    reload = [&] {
      // The file's new tree with the admin API's objects laid over; it comes into force only
      // when valid (ManagedConfig::reloadFile).
      std::vector<config::ConfigIssue> issues;
      auto tree = config::readConfigTree(config_path, issues);
      auto outcome = tree ? managed->reloadFile(*tree) : config::LoadOutcome{{}, issues};
      if (!outcome.ok()) {
        request_metrics.configReloaded(false);
        telemetry::logError("configuration reload rejected, keeping the current one:\n{}",
                            config::formatIssues(outcome.issues));
        return;
      }
      if (outcome.settings->server.listen != settings->server.listen ||
          outcome.settings->server.admin_listen != settings->server.admin_listen ||
          outcome.settings->server.metrics_listen != settings->server.metrics_listen) {
        telemetry::logWarn("listen address changes need a restart; still on {}", bound);
      }
      if (outcome.settings->redis.has_value() != settings->redis.has_value() ||
          (settings->redis && (outcome.settings->redis->host != settings->redis->host ||
                               outcome.settings->redis->port != settings->redis->port))) {
        telemetry::logWarn("redis changes need a restart; the shared limits keep their connection");
      }
      if (outcome.settings->payloads.has_value() != settings->payloads.has_value() ||
          (settings->payloads && (outcome.settings->payloads->clickhouse != settings->payloads->clickhouse ||
                                  outcome.settings->payloads->sample != settings->payloads->sample ||
                                  outcome.settings->payloads->max_bytes != settings->payloads->max_bytes ||
                                  outcome.settings->payloads->redact != settings->payloads->redact))) {
        telemetry::logWarn("payloads changes need a restart; the capture keeps its settings");
      }
      if (outcome.settings->database.has_value() != settings->database.has_value() ||
          (settings->database && outcome.settings->database->url != settings->database->url)) {
        telemetry::logWarn("database changes need a restart; the request log keeps its store");
      }
      applyLogLevel(*outcome.settings);
      config::RetentionSettings const& retention = outcome.settings->retention;
      (*store)->setRetention(std::chrono::days(retention.request_log_days));
      if (postgres_log) postgres_log->setRetention(std::chrono::days(retention.request_log_days));
      video_jobs.setRetention(std::chrono::days(retention.video_jobs_days));
      if (payload_writer) payload_writer->setRetentionDays(retention.payloads_days);
      racing.apply(outcome.settings->racing);
      if (alert_loop && outcome.settings->alerts) {
        alert_loop->reconfigure(outcome.settings->slo, *outcome.settings->alerts);
      } else if (alert_loop || outcome.settings->alerts) {
        telemetry::logWarn("turning the alert loop on or off needs a restart");
      }
      if (!alert_loop) alerts::publishSloTargets(metrics_registry, outcome.settings->slo);
      request_metrics.configReloaded(true);
      telemetry::logInfo("configuration reloaded from {}: {} channel(s)", config_path,
                         outcome.settings->channels.size());
    };
  }
  std::vector<http::HttpServer*> servers{&server};
  for (auto const& operator_server : operator_servers) servers.push_back(operator_server.get());
  if (demo_mock) servers.push_back(&demo_mock->server());
  serveUntilShutdown(servers, {settings->server.lame_duck, settings->server.drain_timeout}, reload,
                     draining);

  if (alert_loop) alert_loop->stop();
  inspection_scheduler.stop();
  probe_scheduler.stop();  // the probes in flight are cancelled before the loops are stopped
  limits.stop();
  // Idle upstream connections would hold their loops until their timers fire: closed first, on
  // their own threads, so the loops run out of work at once.
  for (unsigned i = 0; i < threads; ++i) {
    workers.post(i, [pool = &gateway_workers[i]->pool] { pool->closeIdle(); });
  }
  bool clean = workers.stop();
  if (!clean) telemetry::logWarn("worker loops still had work after the drain; stopped them");
  (*access_log)->flush();
  (*store)->flush();
  if (postgres_log) postgres_log->flush();
  if (payload_writer) payload_writer->stop();  // the last batches, within a short bound  // gives up at once (counted) when the server is gone
  freeze_writer.flush();  // the freezes applied, lifted or expired during the drain
  racing_writer.flush();  // the learning and switches changed during the drain
  video_job_writer.flush();  // the jobs created during the drain
  telemetry::logInfo("llmux stopped");
  return 0;
}

}  // namespace llmux::app
