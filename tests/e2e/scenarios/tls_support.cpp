#include "tls_support.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lifecycle_support.h"

namespace llmux::e2e {

bool acceptsOnLoopback(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

void TlsE2eTest::sh(std::string const& command) {
  ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", "cd '" + temp().path() + "' && " + command};
  auto process = spawn(std::move(options));
  ASSERT_TRUE(process.ok()) << process.error().message;
  auto exit = (*process)->waitExit(Millis(20'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  ASSERT_EQ(exit->code, 0) << command << "\n" << (*process)->output(Stream::Stderr);
}

void TlsE2eTest::makeCertificates(std::vector<std::string> const& names) {
  sh("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=llmux-test-ca "
     "-keyout ca.key -out ca.pem 2>/dev/null");
  for (std::string const& name : names) {
    sh("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + name +
       ".key -out " + name + ".csr 2>/dev/null && printf 'subjectAltName=DNS:" + name +
       "' > " + name + ".ext && openssl x509 -req -in " + name + ".csr -CA ca.pem -CAkey ca.key "
       "-CAcreateserial -days 2 -extfile " + name + ".ext -out " + name + ".pem 2>/dev/null");
  }
}

void TlsE2eTest::startTlsFront(std::uint16_t upstream_port,
                               std::vector<std::pair<std::uint16_t, std::string>> const& servers) {
  std::string dir = temp().path();
  std::string conf = "daemon off; master_process off; worker_processes 1;\n"
                     "error_log " + dir + "/nginx-error.log; pid " + dir + "/nginx.pid;\n"
                     "events { worker_connections 64; }\nhttp {\n"
                     " log_format reuse '$connection $connection_requests';\n"
                     " access_log " + dir + "/nginx-access.log reuse;\n"
                     " client_body_temp_path " + dir + "/nginx-body; proxy_temp_path " + dir + "/nginx-proxy;\n"
                     " fastcgi_temp_path " + dir + "/nginx-fcgi; uwsgi_temp_path " + dir + "/nginx-uwsgi;\n"
                     " scgi_temp_path " + dir + "/nginx-scgi;\n";
  for (auto const& [port, name] : servers) {
    conf += " server {\n  listen 127.0.0.1:" + std::to_string(port) + " ssl;\n  ssl_certificate " +
            dir + "/" + name + ".pem; ssl_certificate_key " + dir + "/" + name + ".key;\n"
            "  location / { proxy_pass http://127.0.0.1:" + std::to_string(upstream_port) +
            "; proxy_http_version 1.1; proxy_buffering off; }\n }\n";
  }
  conf += "}\n";
  std::string path = writeTempFile(conf, ".conf");
  ChildOptions options;
  options.program = access("/usr/sbin/nginx", X_OK) == 0 ? "/usr/sbin/nginx" : "nginx";
  options.args = {"-c", path, "-p", dir};
  auto nginx = spawn(std::move(options));
  ASSERT_TRUE(nginx.ok()) << nginx.error().message;
  ASSERT_TRUE(lifecycle::eventually([&] {
    for (auto const& [port, name] : servers) {
      if (!acceptsOnLoopback(port)) return false;
    }
    return true;
  })) << (*nginx)->output(Stream::Stderr);
}

}  // namespace llmux::e2e
