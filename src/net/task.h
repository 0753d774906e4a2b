#pragma once

// The coroutine type of the network modules, in a header light enough for interfaces.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

namespace llmux::net {

/// The executor coroutines run on. The concrete io_context executor, not the type-erased
/// any_io_executor: resuming a coroutine then copies no type-erased executor (measurable per
/// request on a busy proxy).
using Executor = boost::asio::io_context::executor_type;

/// A coroutine running on an io_context.
template <class T = void>
using Task = boost::asio::awaitable<T, Executor>;

}  // namespace llmux::net
