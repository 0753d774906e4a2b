#include "support/redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace llmux::test_support {
namespace {

// A loaded CI machine starts redis-server in well under a second; this only bounds a hang.
constexpr std::chrono::seconds kReadyTimeout{15};

/// Reads the server's stdout until it says it is ready; false when it exits or takes too long.
bool waitReady(int fd, std::string& log) {
  auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  char buffer[4096];
  while (log.find("Ready to accept connections") == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    log.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

std::string findOnPath(std::string_view program) {
  char const* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

std::uint16_t freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t length = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::unique_ptr<RedisServer> RedisServer::start(std::vector<std::string> const& extra,
                                                std::string& error) {
  // The bootstrap installs Debian's redis-server package.
  std::string binary = findOnPath("redis-server");
  if (binary.empty()) {
    error = "redis-server not found on PATH: the shared-limit tests need a real Redis "
            "(install Debian's redis-server package; scripts/bootstrap does)";
    return nullptr;
  }
  std::string log;
  // A port found free may be taken before the server binds it: then it exits, and we try another.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::unique_ptr<RedisServer> server(new RedisServer());
    std::string dir_template = (std::filesystem::temp_directory_path() / "llmux-redis-XXXXXX").string();
    if (!::mkdtemp(dir_template.data())) {
      error = std::string("mkdtemp: ") + std::strerror(errno);
      return nullptr;
    }
    server->dir_ = dir_template;
    server->port_ = freeLoopbackPort();

    std::vector<std::string> args = {binary, "--port", std::to_string(server->port_),
                                     "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                                     "--dir", server->dir_.string(), "--daemonize", "no"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) {
      error = std::string("pipe: ") + std::strerror(errno);
      return nullptr;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    int spawned = ::posix_spawn(&server->pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    server->log_fd_ = pipe_fds[0];
    if (spawned != 0) {
      server->pid_ = -1;
      error = "cannot start " + binary + ": " + std::strerror(spawned);
      return nullptr;
    }
    log.clear();
    if (waitReady(server->log_fd_, log)) return server;
  }
  error = "redis-server did not become ready; its output:\n" + log;
  return nullptr;
}

RedisServer::~RedisServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (log_fd_ >= 0) ::close(log_fd_);
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

void RedisServer::pause() {
  ::kill(pid_, SIGSTOP);
}

void RedisServer::resume() {
  ::kill(pid_, SIGCONT);
}

}  // namespace llmux::test_support
