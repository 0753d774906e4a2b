#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {

/// A loopback TCP server that plays a fixed script of reads and writes on a thread of its own, for
/// byte-exact tests: a misbehaving upstream, odd chunk boundaries, a pause between two frames.
///
///   ScriptedServer server;
///   server.accept().expect("\r\n\r\n").send("HTTP/1.1 200 OK\r\n...").close().start();
///   ... drive a client at server.port() ...
///   ASSERT_TRUE(server.finish(Millis(1000)).ok());
///
/// Reads and accepts fail the script after `stepTimeout` (5 s unless changed).
class ScriptedServer {
 public:
  /// Binds 127.0.0.1 on a free port; throws std::runtime_error if it cannot (test set-up).
  ScriptedServer();
  ScriptedServer(ScriptedServer const&) = delete;
  ScriptedServer& operator=(ScriptedServer const&) = delete;
  /// Stops the script wherever it is and closes every connection.
  ~ScriptedServer();

  std::uint16_t port() const { return port_; }
  ScriptedServer& stepTimeout(Millis timeout);

  /// Waits for the next connection; later steps act on it.
  ScriptedServer& accept();
  /// Reads until the bytes not yet matched on this connection contain `marker`, and consumes them
  /// through the marker.
  ScriptedServer& expect(std::string marker);
  /// Reads until `n` more bytes came, and consumes them.
  ScriptedServer& expectBytes(std::size_t n);
  /// Writes `bytes` (TCP_NODELAY is set, so a following pause separates segments).
  ScriptedServer& send(std::string bytes);
  ScriptedServer& pause(Millis duration);
  /// Closes this connection (CloseMode::Reset sends a TCP reset).
  ScriptedServer& close(CloseMode mode = CloseMode::Graceful);
  /// Reads until the client closes the connection; `clientReset()` then says how it closed.
  ScriptedServer& expectClose();
  /// Fails the script if a new connection arrives within `window` (one that does is accepted
  /// and counted, so `connections()` and `received()` show it).
  ScriptedServer& expectNoConnection(Millis window);

  /// Runs the script on the server's thread. Steps cannot be added afterwards.
  void start();
  /// Waits for the script's end; the first failed step's error otherwise (or Timeout).
  Result<void> finish(Millis timeout);
  /// Waits until the first `steps` steps have run (false after `timeout` or a failed step), so a
  /// test can act after, say, a close was sent.
  bool waitForSteps(std::size_t steps, Millis timeout);

  /// Every byte received on connection `index` (0 = first accepted).
  std::string received(std::size_t index = 0) const;
  std::size_t connections() const;
  /// Whether the last `expectClose` step saw a reset rather than an orderly close.
  bool clientReset() const;

 private:
  struct Step {
    enum class Kind {
      Accept,
      Expect,
      ExpectBytes,
      Send,
      Pause,
      Close,
      ExpectClose,
      ExpectNoConnection
    } kind;
    std::string bytes;
    std::size_t count = 0;
    Millis duration{0};
    CloseMode mode = CloseMode::Graceful;
  };

  ScriptedServer& add(Step step);
  void run();
  Result<void> runStep(Step const& step);
  /// One read on the current connection into `pending_`; 0 means EOF. Honours `stop_`.
  Result<std::size_t> readMore(MonoTime deadline);

  UniqueFd listener_;
  std::uint16_t port_ = 0;
  Millis step_timeout_{5'000};
  std::vector<Step> steps_;
  std::thread thread_;
  std::atomic<bool> stop_{false};

  // Owned by the script thread while it runs.
  std::vector<UniqueFd> sockets_;
  std::string pending_;  ///< received on the current connection, not yet matched

  mutable std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::size_t steps_done_ = 0;
  std::string failure_;
  std::vector<std::string> received_;
  bool client_reset_ = false;
};

}  // namespace llmux::e2e
