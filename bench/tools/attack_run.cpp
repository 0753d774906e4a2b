#include "attack_run.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "http_wire.h"

namespace llmux::bench {
namespace {

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// The gateway's resident memory in KiB (0 when it cannot be read).
long rssKib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

enum class Kind { Anonymous, SlowAuthenticated, HeaderFlood };
constexpr char const* kKindNames[] = {"anonymous", "slow_authenticated", "header_flood"};

enum class Stage { Connecting, Sending, Waiting, Answered, Closed };

struct Attacker {
  Kind kind = Kind::Anonymous;
  int fd = -1;
  Stage stage = Stage::Connecting;
  std::string out;        ///< bytes still to write
  Clock::time_point sent{};  ///< when its head was out
  Clock::time_point ended{};
  Clock::time_point next_trickle{};
  ResponseReader reader;
  std::uint64_t body_sent = 0;
};

std::string attackHead(Kind kind, AttackOptions const& o) {
  std::string head = "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\n";
  if (kind != Kind::Anonymous) head += "Authorization: Bearer " + o.key + "\r\n";
  head += "Content-Type: application/json\r\n";
  if (kind == Kind::HeaderFlood) {
    for (int i = 0; i < o.flood_headers; ++i) head += "x:y\r\n";
    return head + "Content-Length: 2\r\n\r\n{}";
  }
  return head + "Content-Length: " + std::to_string(o.declared) + "\r\n\r\n{";
}

/// The legitimate client: one request after another on a kept-alive connection.
struct LegitClient {
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<double> latencies_ms;
  int sent = 0;
  int ok = 0;
  std::map<std::string, int> failures;  ///< status code or "error"

  void run(AttackOptions const& o) {
    std::string body = R"({"model":")" + o.model + R"(","messages":[{"role":"user","content":"hi"}]})";
    std::string request = "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer " +
                          o.key + "\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body;
    int fd = -1;
    while (!stop) {
      if (fd < 0) {
        fd = connectBlocking(o.gateway);
        if (fd >= 0) {
          timeval tv{o.timeout_ms / 1000, (o.timeout_ms % 1000) * 1000};
          ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
          ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        }
      }
      auto start = Clock::now();
      std::string failure;
      ResponseReader reader;
      if (fd < 0) {
        failure = "connect";
      } else if (!writeAll(fd, request)) {
        failure = "write";
      } else {
        char buffer[16384];
        while (reader.state() != ReadState::Done && reader.state() != ReadState::Malformed) {
          ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
          if (n <= 0) {
            reader.onEof();
            break;
          }
          reader.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
        }
        if (reader.state() != ReadState::Done) {
          failure = "no complete answer";
        } else if (reader.status() != 200) {
          failure = std::to_string(reader.status());
        }
      }
      double ms = msBetween(start, Clock::now());
      {
        std::lock_guard lock(mutex);
        ++sent;
        if (failure.empty()) {
          ++ok;
          latencies_ms.push_back(ms);
        } else {
          ++failures[failure];
        }
      }
      if (fd >= 0 && (!failure.empty() || reader.closeAfter())) {
        ::close(fd);
        fd = -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(o.legit_interval_ms));
    }
    if (fd >= 0) ::close(fd);
  }
};

class Attack {
 public:
  explicit Attack(AttackOptions const& o) : o_(o) {}

  int run() {
    raiseFileLimit();
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) {
      std::perror("epoll_create1");
      return 1;
    }
    std::thread legit_thread([this] { legit_.run(o_); });
    // Baseline: the gateway serving the legitimate client alone.
    std::vector<long> baseline;
    for (int i = 0; i < 10; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      baseline.push_back(rssKib(o_.gateway_pid));
    }
    std::sort(baseline.begin(), baseline.end());
    baseline_kib_ = baseline[baseline.size() / 2];
    peak_kib_ = baseline_kib_;
    int legit_before = legit_.ok;

    start_ = Clock::now();
    addAttackers(Kind::Anonymous, o_.anonymous);
    addAttackers(Kind::SlowAuthenticated, o_.slow_authenticated);
    addAttackers(Kind::HeaderFlood, o_.header_flood);
    auto end = start_ + std::chrono::milliseconds(o_.duration_ms);
    auto next_sample = Clock::now();
    while (Clock::now() < end) {
      poll(20);
      trickle();
      if (Clock::now() >= next_sample) {
        peak_kib_ = std::max(peak_kib_, rssKib(o_.gateway_pid));
        next_sample = Clock::now() + std::chrono::milliseconds(100);
      }
    }
    end_kib_ = rssKib(o_.gateway_pid);
    peak_kib_ = std::max(peak_kib_, end_kib_);
    legit_.stop = true;
    legit_thread.join();
    for (auto& a : attackers_) {
      if (a.fd >= 0) ::close(a.fd);
    }
    ::close(epoll_);
    report(legit_before);
    return 0;
  }

 private:
  static void raiseFileLimit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      limit.rlim_cur = limit.rlim_max;
      ::setrlimit(RLIMIT_NOFILE, &limit);
    }
  }

  void addAttackers(Kind kind, int count) {
    for (int i = 0; i < count; ++i) {
      Attacker a;
      a.kind = kind;
      a.out = attackHead(kind, o_);
      a.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (a.fd < 0) {
        ++setup_failures_;
        continue;
      }
      int one = 1;
      ::setsockopt(a.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      int rc = ::connect(a.fd, reinterpret_cast<sockaddr const*>(&o_.gateway), sizeof o_.gateway);
      if (rc != 0 && errno != EINPROGRESS) {
        ::close(a.fd);
        ++setup_failures_;
        continue;
      }
      attackers_.push_back(std::move(a));
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP;
      ev.data.u64 = attackers_.size() - 1;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, attackers_.back().fd, &ev);
    }
  }

  void finish(Attacker& a, Stage stage) {
    a.stage = stage;
    a.ended = Clock::now();
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, a.fd, nullptr);
    ::close(a.fd);
    a.fd = -1;
  }

  void writePending(Attacker& a) {
    while (!a.out.empty()) {
      ssize_t n = ::send(a.fd, a.out.data(), a.out.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN) return;
        finish(a, Stage::Closed);
        return;
      }
      a.out.erase(0, static_cast<std::size_t>(n));
    }
    if (a.stage == Stage::Connecting || a.stage == Stage::Sending) {
      a.stage = Stage::Waiting;
      a.sent = Clock::now();
      a.next_trickle = a.sent + std::chrono::milliseconds(o_.trickle_ms);
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP;
      ev.data.u64 = static_cast<std::uint64_t>(&a - attackers_.data());
      ::epoll_ctl(epoll_, EPOLL_CTL_MOD, a.fd, &ev);
    }
  }

  void readAvailable(Attacker& a) {
    char buffer[4096];
    for (;;) {
      ssize_t n = ::recv(a.fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        a.reader.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EAGAIN) return;
      // Closed or reset: an answer that arrived first still counts as the answer.
      finish(a, a.reader.status() != 0 ? Stage::Answered : Stage::Closed);
      return;
    }
  }

  void poll(int timeout_ms) {
    epoll_event events[256];
    int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      Attacker& a = attackers_[events[i].data.u64];
      if (a.fd < 0) continue;
      if (events[i].events & EPOLLOUT) {
        if (a.stage == Stage::Connecting) a.stage = Stage::Sending;
        writePending(a);
        if (a.fd < 0) continue;
      }
      if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) readAvailable(a);
    }
  }

  void trickle() {
    auto now = Clock::now();
    for (auto& a : attackers_) {
      if (a.fd < 0 || a.stage != Stage::Waiting || a.kind == Kind::HeaderFlood) continue;
      if (now < a.next_trickle) continue;
      a.next_trickle = now + std::chrono::milliseconds(o_.trickle_ms);
      char byte = ' ';
      if (::send(a.fd, &byte, 1, MSG_NOSIGNAL) == 1) ++a.body_sent;
    }
  }

  void report(int legit_before) {
    std::ostringstream json;
    json << "{\"rss_kib\":{\"baseline\":" << baseline_kib_ << ",\"peak\":" << peak_kib_
         << ",\"end\":" << end_kib_ << ",\"peak_over_baseline\":" << (peak_kib_ - baseline_kib_)
         << "},\"setup_failures\":" << setup_failures_ << ",\"attackers\":{";
    std::printf("gateway RSS: baseline %ld KiB, peak %ld KiB (+%ld), end %ld KiB\n", baseline_kib_,
                peak_kib_, peak_kib_ - baseline_kib_, end_kib_);
    for (int k = 0; k < 3; ++k) {
      std::map<int, int> statuses;
      int closed = 0, open = 0, count = 0;
      std::vector<double> cut_ms;
      for (auto const& a : attackers_) {
        if (static_cast<int>(a.kind) != k) continue;
        ++count;
        if (a.stage == Stage::Answered) ++statuses[a.reader.status()];
        if (a.stage == Stage::Closed) ++closed;
        if (a.stage == Stage::Answered || a.stage == Stage::Closed) {
          cut_ms.push_back(msBetween(a.sent == Clock::time_point{} ? start_ : a.sent, a.ended));
        } else {
          ++open;
        }
      }
      if (k > 0) json << ',';
      json << '"' << kKindNames[k] << "\":{\"count\":" << count << ",\"answered\":{";
      bool first = true;
      std::string statuses_text;
      for (auto const& [status, n] : statuses) {
        json << (first ? "" : ",") << '"' << status << "\":" << n;
        statuses_text += " " + std::to_string(n) + "x" + std::to_string(status);
        first = false;
      }
      json << "},\"closed_without_answer\":" << closed << ",\"still_open\":" << open
           << ",\"cut_ms_p50\":" << percentile(cut_ms, 0.5)
           << ",\"cut_ms_max\":" << percentile(cut_ms, 1.0) << '}';
      if (count > 0) {
        std::printf("%-19s %5d: answered%s, closed %d, still open %d, cut after p50 %.0f ms max %.0f ms\n",
                    kKindNames[k], count, statuses_text.empty() ? " none" : statuses_text.c_str(),
                    closed, open, percentile(cut_ms, 0.5), percentile(cut_ms, 1.0));
      }
    }
    std::lock_guard lock(legit_.mutex);
    int failed = legit_.sent - legit_.ok;
    json << "},\"legit\":{\"sent\":" << legit_.sent << ",\"ok\":" << legit_.ok
         << ",\"ok_during_attack\":" << (legit_.ok - legit_before) << ",\"failed\":" << failed
         << ",\"failures\":{";
    bool first = true;
    for (auto const& [why, n] : legit_.failures) {
      json << (first ? "" : ",") << '"' << why << "\":" << n;
      first = false;
    }
    json << "},\"p50_ms\":" << percentile(legit_.latencies_ms, 0.5)
         << ",\"p99_ms\":" << percentile(legit_.latencies_ms, 0.99)
         << ",\"max_ms\":" << percentile(legit_.latencies_ms, 1.0) << "}}";
    std::printf("legitimate client: %d sent, %d ok (%d during the attack), %d failed; p50 %.2f ms, "
                "p99 %.2f ms, max %.2f ms\n",
                legit_.sent, legit_.ok, legit_.ok - legit_before, failed,
                percentile(legit_.latencies_ms, 0.5), percentile(legit_.latencies_ms, 0.99),
                percentile(legit_.latencies_ms, 1.0));
    if (!o_.json_file.empty()) {
      std::ofstream(o_.json_file) << json.str() << "\n";
    }
  }

  AttackOptions const& o_;
  int epoll_ = -1;
  std::vector<Attacker> attackers_;
  LegitClient legit_;
  Clock::time_point start_{};
  long baseline_kib_ = 0;
  long peak_kib_ = 0;
  long end_kib_ = 0;
  int setup_failures_ = 0;
};

}  // namespace

int runAttack(AttackOptions const& options) {
  Attack attack(options);
  return attack.run();
}

}  // namespace llmux::bench
