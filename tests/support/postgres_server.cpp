#include "support/postgres_server.h"

#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/redis_server.h"  // freeLoopbackPort, findOnPath

namespace llmux::test_support {
namespace {

/// The directory of initdb and pg_ctl: Debian's versioned one (the highest version), else PATH's.
std::filesystem::path findBinaries() {
  std::error_code ec;
  std::vector<std::filesystem::path> versions;
  for (auto const& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    versions.push_back(entry.path() / "bin");
  }
  auto version = [](std::filesystem::path const& bin) {
    return std::atof(bin.parent_path().filename().c_str());
  };
  std::sort(versions.begin(), versions.end(),
            [&](auto const& a, auto const& b) { return version(a) > version(b); });
  for (auto const& dir : versions) {
    if (::access((dir / "pg_ctl").c_str(), X_OK) == 0 &&
        ::access((dir / "initdb").c_str(), X_OK) == 0) {
      return dir;
    }
  }
  std::filesystem::path const pg_ctl = findOnPath("pg_ctl");
  if (!pg_ctl.empty() && ::access((pg_ctl.parent_path() / "initdb").c_str(), X_OK) == 0) {
    return pg_ctl.parent_path();
  }
  return {};
}

}  // namespace

std::unique_ptr<PostgresServer> PostgresServer::start(std::string& error) {
  std::unique_ptr<PostgresServer> server(new PostgresServer());
  server->bin_ = findBinaries();
  if (server->bin_.empty()) {
    error =
        "initdb and pg_ctl not found (in /usr/lib/postgresql/*/bin or on PATH): the "
        "PostgreSQL tests need a real server (install Debian's postgresql package; "
        "scripts/bootstrap does)";
    return nullptr;
  }
  std::string dir_template = (std::filesystem::temp_directory_path() / "llmux-pg-XXXXXX").string();
  if (!::mkdtemp(dir_template.data())) {
    error = std::string("mkdtemp: ") + std::strerror(errno);
    return nullptr;
  }
  server->dir_ = dir_template;
  if (::geteuid() == 0) {
    passwd const* user = ::getpwnam("postgres");
    if (user == nullptr) {
      error =
          "running as root and there is no postgres user to run PostgreSQL as (it refuses root)";
      return nullptr;
    }
    if (::chown(server->dir_.c_str(), user->pw_uid, user->pw_gid) != 0) {
      error = "chown " + server->dir_.string() + ": " + std::strerror(errno);
      return nullptr;
    }
    server->as_postgres_ = true;
  }
  std::string output;
  if (!server->runAsOwner("initdb -D " + (server->dir_ / "data").string() +
                              " -U llmux --auth=trust -E UTF8 --no-sync --no-instructions",
                          output)) {
    error = "initdb failed:\n" + output;
    return nullptr;
  }
  // A port found free may be taken before the server binds it: then try another.
  for (int attempt = 0; attempt < 3; ++attempt) {
    server->port_ = freeLoopbackPort();
    if (server->startServer(error)) return server;
  }
  return nullptr;
}

bool PostgresServer::runAsOwner(std::string const& command, std::string& output) {
  std::string line = "cd " + dir_.string() + " && ";
  if (as_postgres_) line += "runuser -u postgres -- ";
  line += (bin_ / command).string() + " 2>&1";
  FILE* pipe = ::popen(line.c_str(), "r");
  if (pipe == nullptr) {
    output = std::string("popen: ") + std::strerror(errno);
    return false;
  }
  output.clear();
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  return ::pclose(pipe) == 0;
}

bool PostgresServer::startServer(std::string& error) {
  std::string output;
  std::string const options = "-p " + std::to_string(port_) + " -k " + dir_.string() +
                              " -c listen_addresses=127.0.0.1 -c fsync=off "
                              "-c full_page_writes=off -c synchronous_commit=off";
  if (!runAsOwner("pg_ctl start -w -t 60 -D " + (dir_ / "data").string() + " -l " +
                      (dir_ / "server.log").string() + " -o '" + options + "'",
                  output)) {
    std::string log;
    if (FILE* f = std::fopen((dir_ / "server.log").c_str(), "r")) {
      char buffer[4096];
      while (std::size_t n = std::fread(buffer, 1, sizeof buffer, f)) log.append(buffer, n);
      std::fclose(f);
    }
    error = "pg_ctl start failed:\n" + output + "\nserver log:\n" + log;
    return false;
  }
  running_ = true;
  return true;
}

PostgresServer::~PostgresServer() {
  resume();
  if (running_) {
    std::string ignored;
    runAsOwner("pg_ctl stop -m immediate -w -D " + (dir_ / "data").string(), ignored);
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string PostgresServer::url(std::string const& database) const {
  return "postgres://llmux@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::optional<std::vector<std::string>> postgresLines(std::string const& url,
                                                      std::string const& sql, std::string& error) {
  auto rows = postgresQuery(url, sql, error);
  if (!rows) return std::nullopt;
  std::vector<std::string> lines;
  for (auto const& row : *rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "|";
      line += row[i] ? *row[i] : "\\N";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

bool PostgresServer::createDatabase(std::string const& name, std::string& error) {
  return postgresQuery(url("postgres"), "CREATE DATABASE " + name, error).has_value();
}

bool PostgresServer::stop(std::string& error) {
  std::string output;
  if (!runAsOwner("pg_ctl stop -m fast -w -D " + (dir_ / "data").string(), output)) {
    error = "pg_ctl stop failed:\n" + output;
    return false;
  }
  running_ = false;
  return true;
}

bool PostgresServer::restart(std::string& error) {
  return startServer(error);
}

bool PostgresServer::pause(std::string& error) {
  std::ifstream pid_file(dir_ / "data" / "postmaster.pid");
  int postmaster = 0;
  if (!(pid_file >> postmaster) || postmaster <= 0) {
    error = "no postmaster.pid: the server is not running";
    return false;
  }
  paused_ = {postmaster};
  // Its children: every process whose parent is the postmaster (/proc/<pid>/stat's 4th field).
  std::error_code ec;
  for (auto const& entry : std::filesystem::directory_iterator("/proc", ec)) {
    std::string const name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    auto close = line.rfind(')');  // the command may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    std::string state;
    int parent = 0;
    if (fields >> state >> parent && parent == postmaster) paused_.push_back(std::stoi(name));
  }
  for (int pid : paused_) ::kill(pid, SIGSTOP);
  return true;
}

void PostgresServer::resume() {
  for (int pid : paused_) ::kill(pid, SIGCONT);
  paused_.clear();
}

std::optional<std::vector<std::vector<std::optional<std::string>>>> postgresQuery(
    std::string const& url, std::string const& sql, std::string& error) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
    PQfinish(conn);
    return std::nullopt;
  }
  PGresult* result = PQexec(conn, sql.c_str());
  ExecStatusType status = PQresultStatus(result);
  std::optional<std::vector<std::vector<std::optional<std::string>>>> rows;
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
    rows.emplace();
    for (int r = 0; r < PQntuples(result); ++r) {
      auto& row = rows->emplace_back();
      for (int c = 0; c < PQnfields(result); ++c) {
        if (PQgetisnull(result, r, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(PQgetvalue(result, r, c));
        }
      }
    }
  } else {
    error = PQerrorMessage(conn);
  }
  PQclear(result);
  PQfinish(conn);
  return rows;
}

}  // namespace llmux::test_support
