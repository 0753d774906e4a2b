#include "support/clickhouse_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "support/redis_server.h"

extern char** environ;

namespace llmux::test_support {
namespace {

// 18.16 answers /ping within a second on an idle machine; this only bounds a hang.
constexpr std::chrono::seconds kReadyTimeout{30};

/// Whether `GET /ping` on the port answers "Ok.".
bool pings(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    std::string const request = "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
      std::string answer;
      char buffer[1024];
      pollfd p{fd, POLLIN, 0};
      while (::poll(&p, 1, 1000) > 0) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n <= 0) break;
        answer.append(buffer, static_cast<std::size_t>(n));
      }
      ok = answer.starts_with("HTTP/1.1 200") && answer.find("Ok.") != std::string::npos;
    }
  }
  ::close(fd);
  return ok;
}

/// Runs `args` with stdout and stderr into `output`; the exit status, or -1.
int runCapturing(std::vector<std::string> args, std::string& output) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = -1;
  int spawned = ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    output = std::string("cannot start ") + args[0] + ": " + std::strerror(spawned);
    return -1;
  }
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void writeConfig(std::filesystem::path const& dir, std::uint16_t http_port, std::uint16_t tcp_port) {
  std::string const d = dir.string();
  std::ofstream(dir / "config.xml")
      << "<?xml version=\"1.0\"?>\n<yandex>\n"
      << "  <logger><level>warning</level><log>" << d << "/server.log</log><errorlog>" << d
      << "/error.log</errorlog><console>0</console></logger>\n"
      << "  <listen_host>127.0.0.1</listen_host>\n"
      << "  <http_port>" << http_port << "</http_port>\n"
      << "  <tcp_port>" << tcp_port << "</tcp_port>\n"
      << "  <path>" << d << "/data/</path>\n"
      << "  <tmp_path>" << d << "/tmp/</tmp_path>\n"
      << "  <user_files_path>" << d << "/user_files/</user_files_path>\n"
      << "  <format_schema_path>" << d << "/format_schemas/</format_schema_path>\n"
      << "  <users_config>" << d << "/users.xml</users_config>\n"
      << "  <default_profile>default</default_profile>\n"
      << "  <default_database>default</default_database>\n"
      << "  <mark_cache_size>16777216</mark_cache_size>\n"
      << "  <uncompressed_cache_size>16777216</uncompressed_cache_size>\n"
      << "  <max_concurrent_queries>16</max_concurrent_queries>\n"
      << "</yandex>\n";
  std::ofstream(dir / "users.xml")
      << "<?xml version=\"1.0\"?>\n<yandex>\n  <profiles><default/></profiles>\n"
      << "  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>"
      << "<profile>default</profile><quota>default</quota></default></users>\n"
      << "  <quotas><default/></quotas>\n</yandex>\n";
}

}  // namespace

std::unique_ptr<ClickHouseServer> ClickHouseServer::start(std::string& error) {
  // The bootstrap installs Debian's clickhouse-server package (it runs as root as well).
  std::string binary = findOnPath("clickhouse-server");
  if (binary.empty()) {
    error = "clickhouse-server not found on PATH: the payload tests need a real ClickHouse "
            "(install Debian's clickhouse-server package; scripts/bootstrap does)";
    return nullptr;
  }
  // A port found free may be taken before the server binds it: then it exits, and we try others.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::unique_ptr<ClickHouseServer> server(new ClickHouseServer());
    std::string dir_template = (std::filesystem::temp_directory_path() / "llmux-clickhouse-XXXXXX").string();
    if (!::mkdtemp(dir_template.data())) {
      error = std::string("mkdtemp: ") + std::strerror(errno);
      return nullptr;
    }
    server->dir_ = dir_template;
    server->http_port_ = freeLoopbackPort();
    server->tcp_port_ = freeLoopbackPort();
    writeConfig(server->dir_, server->http_port_, server->tcp_port_);
    std::vector<std::string> args = {binary, "--config-file=" + (server->dir_ / "config.xml").string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    std::string const out = (server->dir_ / "stdout.log").string();
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    int spawned = ::posix_spawn(&server->pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      server->pid_ = -1;
      error = "cannot start " + binary + ": " + std::strerror(spawned);
      return nullptr;
    }
    auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pings(server->http_port_)) return server;
      int status = 0;
      if (::waitpid(server->pid_, &status, WNOHANG) == server->pid_) {
        server->pid_ = -1;
        std::ifstream log(server->dir_ / "error.log");
        error = "clickhouse-server exited: " + std::string(std::istreambuf_iterator<char>(log), {});
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (server->pid_ > 0) error = "clickhouse-server did not answer /ping in time";
  }
  return nullptr;
}

ClickHouseServer::~ClickHouseServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::optional<std::vector<std::string>> ClickHouseServer::query(std::string const& sql,
                                                                 std::string& error) const {
  std::string output;
  int code = runCapturing({findOnPath("clickhouse-client"), "--host", "127.0.0.1", "--port",
                           std::to_string(tcp_port_), "--query", sql},
                          output);
  if (code != 0) {
    error = "clickhouse-client failed (" + std::to_string(code) + "): " + output;
    return std::nullopt;
  }
  std::vector<std::string> rows;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    rows.push_back(output.substr(start, end - start));
    start = end + 1;
  }
  return rows;
}

}  // namespace llmux::test_support
