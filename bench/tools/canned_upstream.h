#pragma once
// A canned HTTP/1.1 upstream for the failover benchmark: one thread, blocking sockets watched by
// poll(), keep-alive and any number of connections at once (a gateway pools them and may open a
// new one at any time); every complete request gets the same answer. Per request it notes when
// its first bytes were read and when the answer's write() returned, on CLOCK_MONOTONIC, so the
// benchmark can pair one upstream's answer with the other upstream's arrival.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace llmux::bench {

/// Nanoseconds on CLOCK_MONOTONIC: the one clock every timestamp of the failover benchmark uses.
std::int64_t monotonicNs();

/// One request an upstream read, and what became of its answer.
struct ServedRequest {
  /// Right after the read() that returned the request's first bytes.
  std::int64_t arrived_ns = 0;
  /// Right before the write() of the answer. On loopback the peer may be woken inside that
  /// write() and run on this core before it returns, so the answer may be on the wire as early
  /// as this.
  std::int64_t write_started_ns = 0;
  /// Right after the write() of the whole answer returned; 0: not yet.
  std::int64_t written_ns = 0;
  /// The peer was gone before the answer was written.
  bool write_failed = false;
};

/// What an upstream's connections did so far.
struct ConnectionTally {
  std::size_t accepted = 0;  ///< connections accepted
  std::size_t eofs = 0;      ///< connections the peer closed with a FIN
  std::size_t resets = 0;    ///< connections that ended in a read error (RST: data left unread)
  std::size_t cut = 0;       ///< connections that ended in the middle of a request
};

/// The upstream: `listen`, then `serve` on a thread of its own until `stop`.
class CannedUpstream {
 public:
  /// `answer` is the raw HTTP/1.1 response sent, in one write, for every request.
  explicit CannedUpstream(std::string answer);
  ~CannedUpstream();
  CannedUpstream(CannedUpstream const&) = delete;
  CannedUpstream& operator=(CannedUpstream const&) = delete;

  /// Binds 127.0.0.1:`port` (0: any free port) and listens; false with `error` set if it cannot.
  bool listen(std::uint16_t port, std::string& error);
  /// The port bound by `listen`.
  std::uint16_t port() const { return port_; }

  /// Accepts connections and answers requests until `stop` is called; blocks.
  void serve();
  /// Makes `serve` return (callable from any thread).
  void stop();

  /// Complete requests read so far. Counted before the answer is written, so once a peer has
  /// seen the answer of request i, received() > i.
  std::size_t received() const;
  /// Request `index` (0-based) once its answer was written or failed; nullopt if that did not
  /// happen within `timeout` (or the request was never received).
  std::optional<ServedRequest> waitAnswered(std::size_t index,
                                            std::chrono::milliseconds timeout) const;
  /// The connection counters so far.
  ConnectionTally tally() const;

 private:
  struct Connection;

  void acceptOne();
  /// Reads what is there; false when the connection is finished and must be closed.
  bool readFrom(Connection& connection);
  /// Answers every complete request in the connection's buffer; false if the write failed.
  bool answerComplete(Connection& connection);

  std::string answer_;
  int listener_ = -1;
  int wake_ = -1;  ///< eventfd that `stop` signals
  std::uint16_t port_ = 0;
  std::vector<Connection> connections_;  ///< touched by the serving thread only

  mutable std::mutex mutex_;
  mutable std::condition_variable answered_;
  std::vector<ServedRequest> requests_;  ///< guarded by mutex_
  ConnectionTally tally_;                ///< guarded by mutex_
};

}  // namespace llmux::bench
