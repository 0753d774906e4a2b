#pragma once

#include <chrono>
#include <mutex>
#include <string>

#include "store/postgres_connection.h"
#include "store/request_log_reader.h"

namespace llmux::store {

/// The request log in PostgreSQL (`database:`), read back on a connection of its own (the
/// writer's is never borrowed: a slow search delays no row). Each call reads one snapshot
/// (a read-only REPEATABLE READ transaction); a call without a usable connection connects first,
/// bounded by the connection's timeouts. Thread-safe (one mutex around the connection); never
/// call it on an I/O thread.
class PostgresRequestLogReader final : public RequestLogReader {
 public:
  explicit PostgresRequestLogReader(std::string url,
                                    std::chrono::milliseconds answer_timeout =
                                        PostgresConnection::kAnswerTimeout);

  Result<RequestPage> search(RequestSearch const& search) override;
  Result<std::optional<LoggedRequest>> get(std::string_view request_id) override;
  Result<UsageReport> usage(UsageQuery const& query) override;

 private:
  template <class Read>
  auto inSnapshot(Read&& read) -> decltype(read());

  std::mutex mutex_;
  PostgresConnection db_;
};

}  // namespace llmux::store
