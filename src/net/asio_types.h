#pragma once

// Short names for the Asio/Beast vocabulary used by the network modules. Include this (and the
// narrow Asio headers a file really needs), never the umbrella headers.
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>

#include "net/task.h"

namespace llmux::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;

/// I/O objects bound to the same concrete executor as the coroutines (see net/task.h).
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Acceptor = asio::basic_socket_acceptor<tcp, Executor>;
using Timer = asio::basic_waitable_timer<std::chrono::steady_clock,
                                         asio::wait_traits<std::chrono::steady_clock>, Executor>;

/// Completion token for expected-failure I/O: `auto [ec, n] = co_await op(..., kUseTuple);`
inline constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable_t<Executor>{});

}  // namespace llmux::net
