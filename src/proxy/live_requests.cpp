#include "proxy/live_requests.h"

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <functional>

#include "http/response_writer.h"
#include "net/asio_types.h"
#include "proxy/off_thread.h"
#include "proxy/request_log_admin.h"
#include "proxy/request_tail.h"
#include "store/request_log_reader.h"

namespace llmux::proxy {
namespace {

constexpr auto kPollEvery = std::chrono::milliseconds(200);
constexpr auto kPingEvery = std::chrono::seconds(15);
constexpr std::size_t kReplayed = 50;

void appendEvent(std::string& out, std::string_view id, std::string_view json) {
  out += "event: request\nid: ";
  out += id;
  out += "\ndata: ";
  out += json;  // one line: the JSON holds no raw line break
  out += "\n\n";
}

/// The newest finished requests of the log as events, oldest first ("" when it cannot be read:
/// the live part still works).
std::string replayedEvents(store::RequestLogReader& log) {
  store::RequestSearch search;
  search.state = "done";
  search.limit = kReplayed;
  auto page = log.search(search);
  if (!page) return {};
  std::string out;
  for (auto it = page->requests.rbegin(); it != page->requests.rend(); ++it) {
    appendEvent(out, it->record.request_id, loggedRequestJson(*it));
  }
  return out;
}

}  // namespace

net::Task<void> serveLiveRequests(RequestContext& ctx, RequestTail& tail,
                                  store::RequestLogReader* log, std::atomic<bool> const& draining) {
  // Watching starts before the log is read, so no request finishing meanwhile is missed (one
  // may then come twice: the page keeps one per id).
  RequestTail::Watch watch(tail);
  std::uint64_t seen = tail.lastSeq();
  std::string first = "retry: 3000\n\n";
  if (log != nullptr) {
    std::function<std::string()> read = [log] { return replayedEvents(*log); };
    first += co_await offThread<std::string>(std::move(read), [](std::string) { return std::string(); });
  }
  HeaderList headers;
  headers.add("Content-Type", "text/event-stream");
  headers.add("Cache-Control", "no-store");
  headers.add("X-Accel-Buffering", "no");  // a reverse proxy in front must not hold events back
  headers.add("X-Request-Id", ctx.request_id);
  ctx.record.status = 200;
  if (!co_await ctx.response->beginBody(200, headers, std::nullopt, first)) co_return;

  net::Timer timer(co_await boost::asio::this_coro::executor);
  http::Cancellation& cancellation = ctx.response->cancellation();
  MonoTime last_write = MonoClock::now();
  while (!cancellation.cancelled() && !draining.load()) {
    timer.expires_after(kPollEvery);
    co_await timer.async_wait(net::kUseTuple);
    std::string out;
    for (auto const& entry : tail.after(seen)) {
      seen = entry.seq;
      appendEvent(out, entry.id, entry.json);
    }
    MonoTime const now = MonoClock::now();
    if (out.empty() && now - last_write >= kPingEvery) out = ": ping\n\n";
    if (out.empty()) continue;
    if (!co_await ctx.response->writeBody(out)) co_return;
    last_write = now;
  }
  co_await ctx.response->endBody("");
}

}  // namespace llmux::proxy
