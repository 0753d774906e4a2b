#pragma once

// What the admin API's unit tests share: a handler over real tables and a manual clock, called
// the way the gateway calls it, with the answer recorded.

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "http/cancellation.h"
#include "http/response_writer.h"
#include "http/server_request.h"
#include "protocol/routes.h"
#include "proxy/admin_handler.h"
#include "racing/racing_state.h"

namespace llmux::proxy {

/// Keeps what the handler sent.
class RecordingWriter final : public http::ResponseWriter {
 public:
  net::Task<bool> send(int s, HeaderList const& h, std::string_view b) override {
    status = s;
    headers = h;
    body = std::string(b);
    co_return true;
  }
  net::Task<bool> beginBody(int, HeaderList const&, std::optional<std::uint64_t>,
                            std::string_view) override {
    co_return false;
  }
  net::Task<bool> writeBody(std::string_view) override { co_return false; }
  net::Task<bool> endBody(std::string_view) override { co_return false; }
  void breakConnection() override {}
  bool headSent() const override { return status != 0; }
  std::uint64_t bodyBytesSent() const override { return body.size(); }
  MonoTime firstByteAt() const override { return {}; }
  http::Cancellation& cancellation() override { return cancellation_; }

  int status = 0;
  HeaderList headers;
  std::string body;

 private:
  http::Cancellation cancellation_;
};

inline std::shared_ptr<const routing::Catalog> catalogOf(config::Settings settings) {
  return std::make_shared<const routing::Catalog>(
      std::make_shared<config::Settings>(std::move(settings)));
}

inline std::shared_ptr<const routing::Catalog> catalogWithToken(std::string token) {
  config::Settings settings;
  if (!token.empty()) settings.admin_tokens.push_back({"admin", token, false});
  settings.admin_token = std::move(token);
  return catalogOf(std::move(settings));
}

struct Exchange {
  int status;
  std::string body;
};

class AdminHandlerTest : public ::testing::Test {
 protected:
  Exchange call(std::string method, std::string path, std::string token, std::string body = {}) {
    HeaderList headers;
    if (!token.empty()) headers.add("Authorization", "Bearer " + token);
    return callWith(std::move(method), std::move(path), std::move(headers), std::move(body));
  }

  Exchange callWith(std::string method, std::string path, HeaderList headers, std::string body = {}) {
    http::ServerRequest request;
    request.method = method;
    request.target = path;
    request.body = std::move(body);
    request.headers = std::move(headers);
    RecordingWriter writer;
    RequestContext ctx{request, writer};
    ctx.catalog = catalog;
    ctx.request_id = "req-1";
    ctx.route = protocol::matchRoute(method, path).route;
    boost::asio::io_context io;
    boost::asio::co_spawn(io, handler.serve(ctx), boost::asio::detached);
    io.run();
    EXPECT_EQ(ctx.record.status, writer.status);
    return {writer.status, writer.body};
  }

  ManualTimeSource clock;
  routing::FreezeTable freezes{clock};
  routing::BreakerBoard breakers;
  racing::RacingState racing{config::RacingSettings{}};
  AdminHandler handler{freezes, breakers, racing, clock};
  std::shared_ptr<const routing::Catalog> catalog = catalogWithToken("adm");
};

}  // namespace llmux::proxy
