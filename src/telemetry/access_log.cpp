#include "telemetry/access_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/json_text.h"
#include "telemetry/time_format.h"

namespace llmux::telemetry {
namespace {

/// `key` is written as it is: the member's name in quotes and the colon (R"("route":)"), so that
/// each of the forty-odd members of a line costs one append, not three.
void appendKey(std::string& out, std::string_view key) {
  out += key;
}

void appendStringField(std::string& out, std::string_view key, std::string_view value) {
  appendKey(out, key);
  appendJsonString(out, value);
  out.push_back(',');
}

template <class Int>
void appendIntField(std::string& out, std::string_view key, Int value) {
  appendKey(out, key);
  char buf[24];
  auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  out.append(buf, end);
  out.push_back(',');
}

// A finite number in its shortest exact form ("2", "0.0425"); null otherwise. Only media units
// and costs use it: off the per-request hot path of chat.
void appendNumberField(std::string& out, std::string_view key, double value) {
  appendKey(out, key);
  if (!std::isfinite(value)) {
    out += "null,";
    return;
  }
  char buf[32];
  auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  out.append(buf, end);
  out.push_back(',');
}

// Milliseconds rounded to the microsecond ("12.5", "3", "0.042"); null when negative (never
// happened) or not finite. Integer arithmetic: shortest-double formatting costs far more.
void appendMillisField(std::string& out, std::string_view key, double ms) {
  appendKey(out, key);
  if (ms < 0 || !std::isfinite(ms)) {
    out += "null,";
    return;
  }
  char buf[40];
  char* p = buf;
  if (ms >= 1e12) {  // decades: no fraction worth printing, and beyond what micros can count
    p = std::to_chars(buf, buf + sizeof buf, std::round(ms)).ptr;
  } else {
    auto micros = static_cast<std::uint64_t>(std::llround(ms * 1000.0));
    p = std::to_chars(buf, buf + sizeof buf, micros / 1000).ptr;
    auto frac = static_cast<unsigned>(micros % 1000);
    if (frac != 0) {
      *p++ = '.';
      *p++ = static_cast<char>('0' + frac / 100);
      frac %= 100;
      if (frac != 0) {
        *p++ = static_cast<char>('0' + frac / 10);
        frac %= 10;
        if (frac != 0) *p++ = static_cast<char>('0' + frac);
      }
    }
  }
  out.append(buf, p);
  out.push_back(',');
}

void appendAttempts(std::string& out, std::vector<AttemptRecord> const& attempts) {
  appendKey(out, R"("attempt_list":)");
  out.push_back('[');
  for (AttemptRecord const& a : attempts) {
    out.push_back('{');
    appendStringField(out, R"("channel":)", a.channel);
    appendStringField(out, R"("key_label":)", a.key_label);
    if (!a.upstream_model.empty()) appendStringField(out, R"("upstream_model":)", a.upstream_model);
    appendIntField(out, R"("status":)", a.status);
    appendStringField(out, R"("outcome":)", a.outcome.text());
    if (!a.upstream_protocol.empty()) appendStringField(out, R"("upstream_protocol":)", a.upstream_protocol);
    if (a.translated) out += "\"translated\":true,";
    appendMillisField(out, R"("first_byte_ms":)", a.first_byte_ms);
    if (a.first_token_ms >= 0) appendMillisField(out, R"("first_token_ms":)", a.first_token_ms);
    if (!a.strategy.empty()) appendStringField(out, R"("strategy":)", a.strategy);
    if (a.score >= 0) appendMillisField(out, R"("score":)", a.score);
    if (!a.factors.empty()) appendStringField(out, R"("factors":)", a.factors);
    if (a.depth > 0) appendIntField(out, R"("depth":)", a.depth);
    if (a.role != AttemptRole::None) appendStringField(out, R"("role":)", attemptRoleName(a.role));
    if (a.usage) appendIntField(out, R"("tokens":)", a.usage->total());
    out.back() = '}';
    out.push_back(',');
  }
  if (out.back() == ',') out.pop_back();
  out += "],";
}

/// "usage":{input, output, cache_read, cache_write, reasoning, total[, estimated]} or null.
void appendUsage(std::string& out, std::optional<TokenUsage> const& usage,
                 std::string_view key = R"("usage":)") {
  appendKey(out, key);
  if (!usage) {
    out += "null,";
    return;
  }
  out.push_back('{');
  appendIntField(out, R"("input":)", usage->input);
  appendIntField(out, R"("output":)", usage->output);
  appendIntField(out, R"("cache_read":)", usage->cache_read);
  appendIntField(out, R"("cache_write":)", usage->cache_write);
  appendIntField(out, R"("reasoning":)", usage->reasoning);
  appendIntField(out, R"("total":)", usage->total());
  if (usage->estimated) out += "\"estimated\":true,";
  out.back() = '}';
  out.push_back(',');
}

Result<int> openAppend(std::string const& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) {
    return makeError(ErrorKind::Internal,
                     fmt::format("cannot open access log '{}': {}", path, std::strerror(errno)));
  }
  return fd;
}

}  // namespace

void appendAccessLine(std::string& out, RequestRecord const& r) {
  out.push_back('{');
  appendStringField(out, R"("request_id":)", r.request_id);
  appendKey(out, R"("time":)");
  out.push_back('"');
  appendRfc3339Millis(out, r.started_at);
  out += "\",";
  appendStringField(out, R"("route":)", r.route);
  appendStringField(out, R"("protocol":)", r.client_protocol);
  appendStringField(out, R"("gateway_key":)", r.gateway_key);
  appendStringField(out, R"("client":)", r.client);
  appendStringField(out, R"("model":)", r.model);
  appendKey(out, R"("stream":)");
  out += r.stream ? "true," : "false,";
  appendStringField(out, R"("channel":)", r.channel);
  appendStringField(out, R"("key_label":)", r.key_label);
  appendIntField(out, R"("attempts":)", r.attempts.size());
  appendAttempts(out, r.attempts);
  appendIntField(out, R"("status":)", r.status);
  appendStringField(out, R"("error":)", r.error);
  appendMillisField(out, R"("first_byte_ms":)", r.first_byte_ms);
  appendMillisField(out, R"("total_ms":)", r.total_ms);
  appendMillisField(out, R"("overhead_ms":)", r.overhead_ms);
  appendIntField(out, R"("bytes_in":)", r.bytes_in);
  appendIntField(out, R"("bytes_out":)", r.bytes_out);
  appendUsage(out, r.usage);
  if (r.racing_overhead) appendUsage(out, r.racing_overhead, R"("racing_overhead":)");
  if (r.media) {
    // {"modality":"images","unit":"images","quantity":2}
    appendKey(out, R"("media":)");
    out.push_back('{');
    appendStringField(out, R"("modality":)", r.media->modality);
    appendStringField(out, R"("unit":)", r.media->unit);
    appendNumberField(out, R"("quantity":)", r.media->quantity);
    out.back() = '}';
    out.push_back(',');
  }
  if (r.cost_usd) appendNumberField(out, R"("cost_usd":)", *r.cost_usd);
  out.back() = '}';
  out.push_back('\n');
}

std::string formatAccessLine(RequestRecord const& record) {
  std::string line;
  line.reserve(1024);
  appendAccessLine(line, record);
  return line;
}

Result<std::unique_ptr<AccessLog>> AccessLog::open(std::string_view destination,
                                                   AccessLogOptions options) {
  std::unique_ptr<AccessLog> log;
  if (destination == "off") {
    log.reset(new AccessLog(-1, false, {}, options));
  } else if (destination == "stdout") {
    log.reset(new AccessLog(STDOUT_FILENO, false, {}, options));
  } else if (destination == "stderr") {
    log.reset(new AccessLog(STDERR_FILENO, false, {}, options));
  } else if (destination.empty()) {
    return makeError(ErrorKind::Internal, "access log destination is empty");
  } else {
    std::string path(destination);
    auto fd = openAppend(path);
    if (!fd.ok()) return fd.takeError();
    log.reset(new AccessLog(*fd, true, std::move(path), options));
  }
  return log;
}

AccessLog::AccessLog(int fd, bool owns_fd, std::string path, AccessLogOptions options)
    : options_(options), path_(std::move(path)), owns_fd_(owns_fd), enabled_(fd >= 0), fd_(fd) {
  if (enabled_) thread_ = std::thread([this] { run(); });
}

AccessLog::~AccessLog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void AccessLog::write(RequestRecord const& record) {
  if (!enabled_) return;
  // Formatted outside the lock, into this thread's own buffer (no allocation once it has grown).
  thread_local std::string line;
  line.clear();
  appendAccessLine(line, record);
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    if (pending_.size() + line.size() > options_.max_pending_bytes) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    // Wake the writer only when crossing the threshold: one notify per batch, not per line.
    wake = pending_.size() < options_.flush_bytes &&
           pending_.size() + line.size() >= options_.flush_bytes;
    pending_ += line;
    appended_ += line.size();
  }
  if (wake) wake_.notify_one();
}

void AccessLog::flush() {
  if (!enabled_) return;
  std::unique_lock lock(mutex_);
  std::uint64_t target = appended_;
  if (handled_ >= target) return;
  flush_requested_ = true;
  wake_.notify_one();
  flushed_.wait(lock, [&] { return handled_ >= target; });
}

Result<void> AccessLog::reopen() {
  if (!owns_fd_) return {};
  auto fd = openAppend(path_);
  if (!fd.ok()) return fd.takeError();
  std::lock_guard lock(io_mutex_);
  ::close(fd_);
  fd_ = *fd;
  return {};
}

void AccessLog::run() {
  std::string batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, options_.flush_interval, [&] {
      return stopping_ || flush_requested_ || pending_.size() >= options_.flush_bytes;
    });
    if (pending_.empty()) {
      if (stopping_) return;
      flush_requested_ = false;  // asked while the previous batch was being written: done
      continue;
    }
    batch.swap(pending_);  // pending_ keeps the batch's old capacity for the next round
    std::uint64_t upto = appended_;
    flush_requested_ = false;
    lock.unlock();
    writeAll(batch);
    batch.clear();
    lock.lock();
    handled_ = upto;
    flushed_.notify_all();
  }
}

void AccessLog::writeAll(std::string_view data) {
  std::lock_guard lock(io_mutex_);
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      write_errors_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace llmux::telemetry
