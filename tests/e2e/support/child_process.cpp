#include "e2e/support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "e2e/support/socket_io.h"

extern char** environ;

namespace llmux::e2e {
namespace {

constexpr std::size_t kTailLines = 30;

/// Output captured from one stream.
struct Capture {
  std::string text;
  std::vector<std::string> lines;
  std::size_t line_start = 0;  ///< offset in `text` of the line not yet complete
  bool ended = false;

  void append(char const* data, std::size_t n) {
    text.append(data, n);
    for (std::size_t nl; (nl = text.find('\n', line_start)) != std::string::npos;) {
      std::size_t end = (nl > line_start && text[nl - 1] == '\r') ? nl - 1 : nl;
      lines.emplace_back(text, line_start, end - line_start);
      line_start = nl + 1;
    }
  }
  void end() {
    if (!ended && line_start < text.size()) lines.emplace_back(text, line_start);
    line_start = text.size();
    ended = true;
  }
};

std::string tail(std::vector<std::string> const& lines) {
  std::string out;
  std::size_t first = lines.size() > kTailLines ? lines.size() - kTailLines : 0;
  for (std::size_t i = first; i < lines.size(); ++i)
    out.append("  | ").append(lines[i]).append("\n");
  return out.empty() ? "  (nothing)\n" : out;
}

/// The executable for `program`: itself when it contains a '/', else the first match in PATH.
/// Resolved before fork() because the child may only make async-signal-safe calls.
std::string resolveProgram(std::string const& program) {
  if (program.find('/') != std::string::npos) return program;
  char const* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/bin:/bin";
  while (!dirs.empty()) {
    auto colon = dirs.find(':');
    std::string candidate(dirs.substr(0, colon));
    candidate.append("/").append(program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return program;
}

std::vector<std::string> buildEnvironment(ChildOptions const& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (auto const& [key, value] : options.env) overridden = overridden || key == name;
    if (!overridden) env.emplace_back(entry);
  }
  for (auto const& [key, value] : options.env) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> pointersTo(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

ExitStatus decode(int wstatus) {
  if (WIFEXITED(wstatus)) return ExitStatus{WEXITSTATUS(wstatus), 0};
  if (WIFSIGNALED(wstatus)) return ExitStatus{-1, WTERMSIG(wstatus)};
  return ExitStatus{};
}

/// Runs in the child between fork() and exec(): async-signal-safe calls only.
[[noreturn]] void execChild(pid_t parent, int out_fd, int err_fd, int null_fd, int status_fd,
                            char const* cwd, char const* path, char* const* argv,
                            char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2}) {
    ::sigaction(sig, &dfl, nullptr);
  }
  ::dup2(null_fd, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  if (cwd[0] == '\0' || ::chdir(cwd) == 0) ::execve(path, argv, envp);
  int err = errno;
  [[maybe_unused]] auto n = ::write(status_fd, &err, sizeof err);
  ::_exit(127);
}

}  // namespace

struct ChildProcess::State {
  ChildOptions options;
  pid_t pid = -1;
  bool reaped = false;
  ExitStatus status;

  UniqueFd out_fd, err_fd;
  UniqueFd wake_read, wake_write;  ///< a byte written here stops the reader
  std::thread reader;

  mutable std::mutex mutex;
  std::condition_variable changed;
  Capture captured[2];  ///< indexed by Stream

  Capture& capture(Stream s) { return captured[static_cast<int>(s)]; }
  Capture const& capture(Stream s) const { return captured[static_cast<int>(s)]; }

  /// Reader thread: moves output from the pipes into `captured` until both reach EOF or it is told
  /// to stop (then it takes what is already there and returns).
  void readLoop() {
    UniqueFd* fds[2] = {&out_fd, &err_fd};
    char buf[8192];
    bool stopping = false;
    for (;;) {
      bool open[2] = {fds[0]->valid(), fds[1]->valid()};
      if (!open[0] && !open[1]) return;
      pollfd p[3] = {{open[0] ? fds[0]->get() : -1, POLLIN, 0},
                     {open[1] ? fds[1]->get() : -1, POLLIN, 0},
                     {wake_read.get(), POLLIN, 0}};
      if (!stopping && ::poll(p, 3, -1) < 0 && errno != EINTR) return;
      if (p[2].revents != 0) stopping = true;
      for (int i = 0; i < 2; ++i) {
        if (!open[i] || (!stopping && p[i].revents == 0)) continue;
        ssize_t n = ::read(fds[i]->get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        bool eof = n == 0 || (n < 0 && (errno != EAGAIN || stopping));
        std::lock_guard lock(mutex);
        if (n > 0) captured[i].append(buf, static_cast<std::size_t>(n));
        if (eof) {
          captured[i].end();
          fds[i]->reset();
        }
        changed.notify_all();
      }
    }
  }
};

Result<ChildProcess> ChildProcess::spawn(ChildOptions options) {
  std::string path = resolveProgram(options.program);
  std::vector<std::string> args{options.program};
  args.insert(args.end(), options.args.begin(), options.args.end());
  std::vector<std::string> env = buildEnvironment(options);
  auto argv = pointersTo(args);
  auto envp = pointersTo(env);

  int out[2], err[2], status[2], wake[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      ::pipe2(status, O_CLOEXEC) != 0 || ::pipe2(wake, O_CLOEXEC) != 0) {
    return makeError(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
  }
  UniqueFd out_write(out[1]), err_write(err[1]), status_read(status[0]), status_write(status[1]);
  UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));

  auto state = std::make_unique<State>();
  state->options = std::move(options);
  state->out_fd.reset(out[0]);
  state->err_fd.reset(err[0]);
  state->wake_read.reset(wake[0]);
  state->wake_write.reset(wake[1]);

  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return makeError(ErrorKind::Internal, std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    execChild(parent, out_write.get(), err_write.get(), null_fd.get(), status_write.get(),
              state->options.cwd.c_str(), path.c_str(), argv.data(), envp.data());
  }
  state->pid = pid;
  out_write.reset();
  err_write.reset();
  status_write.reset();

  // The status pipe closes on a successful exec; an errno arrives through it otherwise.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(status_read.get(), &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    return makeError(ErrorKind::Internal,
                     "cannot execute " + state->options.program + ": " + std::strerror(exec_errno));
  }

  ::fcntl(state->out_fd.get(), F_SETFL, O_NONBLOCK);
  ::fcntl(state->err_fd.get(), F_SETFL, O_NONBLOCK);
  State* raw = state.get();
  state->reader = std::thread([raw] { raw->readLoop(); });
  return ChildProcess(std::move(state));
}

ChildProcess::ChildProcess(std::unique_ptr<State> state) : state_(std::move(state)) {}
ChildProcess::ChildProcess(ChildProcess&&) noexcept = default;

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (state_) kill();
    state_ = std::move(other.state_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (state_) kill();
}

pid_t ChildProcess::pid() const {
  return state_->pid;
}

std::string ChildProcess::describe() const {
  std::string out = state_->options.program;
  for (auto const& a : state_->options.args) out.append(" ").append(a);
  out.append(" (pid ").append(std::to_string(state_->pid)).append(", ");
  if (!state_->reaped) {
    out.append("running)");
  } else if (state_->status.signal != 0) {
    out.append("killed by signal ").append(std::to_string(state_->status.signal)).append(")");
  } else {
    out.append("exit ").append(std::to_string(state_->status.code)).append(")");
  }
  return out;
}

Result<OutputLine> ChildProcess::waitForLineWhere(
    std::function<bool(std::string const&)> const& matches, std::string const& what, Millis timeout,
    Stream stream, std::size_t from_index) {
  auto deadline = MonoClock::now() + timeout;
  Capture const& capture = state_->capture(stream);
  Capture const& other =
      state_->capture(stream == Stream::Stdout ? Stream::Stderr : Stream::Stdout);
  std::unique_lock lock(state_->mutex);
  for (std::size_t next = from_index;;) {
    for (; next < capture.lines.size(); ++next) {
      if (matches(capture.lines[next])) return OutputLine{capture.lines[next], next};
    }
    if (capture.ended) break;
    if (state_->changed.wait_until(lock, deadline) == std::cv_status::timeout &&
        next == capture.lines.size() && !capture.ended) {
      break;
    }
  }
  bool ended = capture.ended;
  if (ended) {
    // The child is exiting: let the other stream and the exit status catch up for the message.
    state_->changed.wait_for(lock, Millis(1000), [&] { return other.ended; });
    lock.unlock();
    for (int i = 0; i < 100 && !reapIfExited(); ++i) std::this_thread::sleep_for(Millis(5));
    lock.lock();
  }
  std::string message = "no line " + what + (ended ? " before the stream ended" : "") + " within " +
                        std::to_string(timeout.count()) + " ms from " + describe() +
                        "\nthat stream:\n" + tail(capture.lines) + "the other stream:\n" +
                        tail(other.lines);
  return makeError(ended ? ErrorKind::Cancelled : ErrorKind::Timeout, std::move(message));
}

Result<OutputLine> ChildProcess::waitForLineStartingWith(std::string_view prefix, Millis timeout,
                                                         Stream stream, std::size_t from_index) {
  std::string wanted(prefix);
  return waitForLineWhere([&](std::string const& line) { return line.starts_with(wanted); },
                          "starting with '" + wanted + "'", timeout, stream, from_index);
}

Result<OutputLine> ChildProcess::waitForLineMatching(std::regex const& pattern, Millis timeout,
                                                     Stream stream, std::size_t from_index) {
  return waitForLineWhere([&](std::string const& line) { return std::regex_match(line, pattern); },
                          "matching the pattern", timeout, stream, from_index);
}

std::string ChildProcess::output(Stream stream) const {
  std::lock_guard lock(state_->mutex);
  return state_->capture(stream).text;
}

std::vector<std::string> ChildProcess::lines(Stream stream) const {
  std::lock_guard lock(state_->mutex);
  return state_->capture(stream).lines;
}

Result<void> ChildProcess::signal(int signo) {
  if (reapIfExited()) return makeError(ErrorKind::Internal, "cannot signal " + describe());
  if (::kill(state_->pid, signo) != 0) {
    return makeError(ErrorKind::Internal, std::string("kill: ") + std::strerror(errno));
  }
  return {};
}

bool ChildProcess::reapIfExited() {
  if (state_->reaped) return true;
  siginfo_t info{};
  if (::waitid(P_PID, state_->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  if (info.si_pid == 0) return false;
  // Still a zombie, so its pid (the group id) cannot be reused yet: clear the rest of the group.
  ::kill(-state_->pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(state_->pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  state_->status = decode(wstatus);
  state_->reaped = true;
  return true;
}

bool ChildProcess::running() {
  return !reapIfExited();
}

Result<ExitStatus> ChildProcess::waitExit(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  while (!reapIfExited()) {
    if (MonoClock::now() >= deadline) {
      return makeError(
          ErrorKind::Timeout,
          "still running after " + std::to_string(timeout.count()) + " ms: " + describe());
    }
    std::this_thread::sleep_for(Millis(2));
  }
  // Its group is gone, so the pipes reach EOF as soon as the reader has drained them.
  std::unique_lock lock(state_->mutex);
  state_->changed.wait_for(lock, Millis(1000),
                           [&] { return state_->captured[0].ended && state_->captured[1].ended; });
  return state_->status;
}

void ChildProcess::kill() {
  if (!state_->reaped) {
    ::kill(-state_->pid, SIGKILL);
    ::kill(state_->pid, SIGKILL);
    int wstatus = 0;
    while (::waitpid(state_->pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    state_->status = decode(wstatus);
    state_->reaped = true;
  }
  if (state_->reader.joinable()) {
    char stop = 1;
    [[maybe_unused]] auto n = ::write(state_->wake_write.get(), &stop, 1);
    state_->reader.join();
  }
}

}  // namespace llmux::e2e
