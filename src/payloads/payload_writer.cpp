#include "payloads/payload_writer.h"

#include <cmath>
#include <random>

#include "payloads/json_each_row.h"
#include "telemetry/failure_burst_log.h"
#include "telemetry/log.h"

namespace llmux::payloads {
namespace {

/// A cheap per-thread draw for sampling (splitmix64): no lock, no system call.
std::uint64_t nextDraw() {
  thread_local std::uint64_t state = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t thresholdFor(double share) {
  if (share <= 0) return 0;
  if (share >= 1) return UINT64_MAX;
  return static_cast<std::uint64_t>(std::ldexp(share, 64));
}

}  // namespace

PayloadWriter::PayloadWriter(std::unique_ptr<StatementTransport> transport,
                             PayloadWriterOptions options, CaptureOptions capture)
    : transport_(std::move(transport)),
      options_(std::move(options)),
      capture_(std::make_shared<CaptureOptions const>(std::move(capture))),
      sample_threshold_(thresholdFor(options_.sample)),
      retention_days_(options_.retention_days) {
  thread_ = std::thread([this] { run(); });
}

PayloadWriter::~PayloadWriter() { stop(); }

bool PayloadWriter::sampled() const {
  if (sample_threshold_ == UINT64_MAX) return true;
  return sample_threshold_ != 0 && nextDraw() < sample_threshold_;
}

std::shared_ptr<RequestCapture> PayloadWriter::startCapture(std::string request_id,
                                                            std::int64_t ts) const {
  return std::make_shared<RequestCapture>(capture_, std::move(request_id), ts);
}

void PayloadWriter::submit(std::vector<PayloadRow> rows) {
  if (rows.empty()) return;
  std::size_t weight = 0;
  for (auto const& row : rows) weight += row.weight();
  {
    std::lock_guard lock(mutex_);
    if (!stopping_ && queued_bytes_ + weight <= options_.queue_bytes) {
      queued_bytes_ += weight;
      for (auto& row : rows) queue_.push_back(std::move(row));
      if (queued_bytes_ >= options_.batch_bytes) wake_.notify_one();
      return;
    }
  }
  // A whole request's rows go or stay together: half a request is worth less than another whole.
  dropped_.fetch_add(rows.size(), std::memory_order_relaxed);
}

std::function<Result<std::string>()> PayloadWriter::readBack(std::string_view request_id) const {
  return [transport = transport_, query = selectRequestStatement(options_.database, options_.table, request_id),
          timeout = options_.statement_timeout] { return transport->run(query, {}, timeout); };
}

PayloadStats PayloadWriter::stats() const {
  PayloadStats stats;
  stats.written = written_.load(std::memory_order_relaxed);
  stats.dropped = dropped_.load(std::memory_order_relaxed);
  stats.batches_dropped = batches_dropped_.load(std::memory_order_relaxed);
  stats.expiry_failures = expiry_failures_.load(std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  stats.queued_bytes = queued_bytes_;
  return stats;
}

void PayloadWriter::setRetentionDays(int days) {
  retention_days_.store(days, std::memory_order_relaxed);
}

void PayloadWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

Result<std::string> PayloadWriter::ensureTable(Millis timeout) {
  if (table_ready_) return std::string();
  auto created = transport_->run(createTableStatement(options_.database, options_.table), {}, timeout);
  table_ready_ = static_cast<bool>(created);
  return created;
}

void PayloadWriter::expireIfDue(MonoTime now) {
  int const days = retention_days_.load(std::memory_order_relaxed);
  if (days <= 0 || now < next_expiry_) return;
  next_expiry_ = now + options_.expiry_interval;
  auto const cutoff = WallClock::now() - std::chrono::days(days);
  std::int64_t const before =
      std::chrono::duration_cast<std::chrono::seconds>(cutoff.time_since_epoch()).count();
  Result<std::string> done = ensureTable(options_.statement_timeout);
  if (done) {
    done = transport_->run(deleteOlderStatement(options_.database, options_.table, before), {},
                           options_.statement_timeout);
  }
  if (done) {
    expiry_log_.succeeded();
    return;
  }
  expiry_failures_.fetch_add(1, std::memory_order_relaxed);
  expiry_log_.failed(now, done.error().message);
  table_ready_ = false;  // a server that came back empty gets its table again
}

void PayloadWriter::run() {
  telemetry::FailureBurstLog failures("payload batch to ClickHouse", std::chrono::minutes(1));
  MonoTime shutdown_deadline{};
  for (;;) {
    std::vector<PayloadRow> batch;
    bool stopping = false;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, options_.flush_interval,
                     [&] { return stopping_ || queued_bytes_ >= options_.batch_bytes; });
      stopping = stopping_;
      std::size_t bytes = 0;
      while (!queue_.empty() && (batch.empty() || bytes + queue_.front().weight() <= options_.batch_bytes)) {
        bytes += queue_.front().weight();
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_bytes_ -= bytes;
    }
    // Between two batches, on this thread: a slow ClickHouse delays captures, never a request.
    if (!stopping) expireIfDue(MonoClock::now());
    Millis timeout = options_.statement_timeout;
    if (stopping) {
      if (shutdown_deadline == MonoTime{}) shutdown_deadline = MonoClock::now() + options_.shutdown_bound;
      timeout = std::min(timeout, std::chrono::duration_cast<Millis>(shutdown_deadline - MonoClock::now()));
      if (timeout <= Millis(0)) {
        // Out of time: what is left is given up on, counted.
        std::lock_guard lock(mutex_);
        dropped_.fetch_add(batch.size() + queue_.size(), std::memory_order_relaxed);
        queue_.clear();
        queued_bytes_ = 0;
        return;
      }
    }
    if (batch.empty()) {
      if (stopping) return;
      continue;
    }
    std::size_t const rows = batch.size();
    Result<std::string> sent = ensureTable(timeout);
    if (sent) {
      std::string body;
      for (auto const& row : batch) appendJsonEachRow(body, row);
      batch.clear();
      sent = transport_->run(insertStatement(options_.database, options_.table), body, timeout);
    }
    if (sent) {
      written_.fetch_add(rows, std::memory_order_relaxed);
      failures.succeeded();
    } else {
      batches_dropped_.fetch_add(1, std::memory_order_relaxed);
      dropped_.fetch_add(rows, std::memory_order_relaxed);
      failures.failed(MonoClock::now(), sent.error().message);
      table_ready_ = false;  // a server that came back empty gets its table again
    }
  }
}

}  // namespace llmux::payloads
