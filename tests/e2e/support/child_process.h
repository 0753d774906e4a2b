#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace llmux::e2e {

/// What to start.
struct ChildOptions {
  std::string program;            ///< a path, or a name looked up in PATH ("sh")
  std::vector<std::string> args;  ///< argv[1..]
  /// Set in (or overriding) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;  ///< working directory; "" keeps the test's
};

/// One of the child's output streams.
enum class Stream {
  Stdout,  ///< file descriptor 1
  Stderr,  ///< file descriptor 2
};

/// How the child ended.
struct ExitStatus {
  int code = -1;   ///< exit code, or -1 when a signal killed it
  int signal = 0;  ///< the signal that killed it, or 0
};

/// A complete line of output ('\n' and a preceding '\r' removed) and its index in its stream.
struct OutputLine {
  std::string text;
  std::size_t index = 0;
};

/// A child process with its stdout and stderr captured through pipes (stdin is /dev/null).
/// The child leads its own process group; destroying the object kills the whole group with
/// SIGKILL and reaps it, so neither a failing test nor a forgotten child leaves processes behind.
/// The child also gets SIGKILL if the test process dies (PR_SET_PDEATHSIG: spawn from a thread that
/// outlives the child, such as the test's main thread).
class ChildProcess {
 public:
  /// Starts the process; fails when it cannot be executed (no such file, not executable).
  static Result<ChildProcess> spawn(ChildOptions options);

  ChildProcess(ChildProcess&&) noexcept;
  ChildProcess& operator=(ChildProcess&&) noexcept;
  ~ChildProcess();

  pid_t pid() const;
  /// "program arg... (pid N, running | exit 3 | signal 9)": for failure messages.
  std::string describe() const;

  /// Waits for a line starting with `prefix` among lines `from_index` onwards of `stream`.
  /// Fails on timeout or when the stream ends first (the child exited); the error says what the
  /// child printed.
  Result<OutputLine> waitForLineStartingWith(std::string_view prefix, Millis timeout,
                                             Stream stream = Stream::Stdout,
                                             std::size_t from_index = 0);
  /// Same, for a line matching `pattern` as a whole (std::regex_match).
  Result<OutputLine> waitForLineMatching(std::regex const& pattern, Millis timeout,
                                         Stream stream = Stream::Stdout,
                                         std::size_t from_index = 0);

  /// Everything the child wrote to `stream` so far.
  std::string output(Stream stream = Stream::Stdout) const;
  /// The complete lines of `stream` so far (a final line without '\n' appears once it ends).
  std::vector<std::string> lines(Stream stream = Stream::Stdout) const;

  /// Sends `signo` (SIGHUP, SIGTERM, SIGINT...) to the child itself.
  Result<void> signal(int signo);
  /// Waits for the child to end and reaps it; then waits (briefly) until its output is all read.
  /// What is left of its process group (background jobs of a shell) is killed at that point.
  /// Calling it again returns the same status.
  Result<ExitStatus> waitExit(Millis timeout);
  /// Whether the child has not ended yet.
  bool running();
  /// SIGKILL to the child's process group, then reap: what the destructor does.
  void kill();

 private:
  struct State;
  explicit ChildProcess(std::unique_ptr<State> state);
  Result<OutputLine> waitForLineWhere(std::function<bool(std::string const&)> const& matches,
                                      std::string const& what, Millis timeout, Stream stream,
                                      std::size_t from_index);
  /// Reaps the child if it has ended; kills what is left of its group first.
  bool reapIfExited();

  std::unique_ptr<State> state_;
};

}  // namespace llmux::e2e
