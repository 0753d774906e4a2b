#include "e2e/scenarios/resilience_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <deque>
#include <thread>

namespace llmux::e2e::resilience {
namespace json = boost::json;

namespace {

std::string describe(char const* what, JournalEntry const& e, double since, double t0) {
  char text[200];
  std::snprintf(text, sizeof text, "%s: request seq %llu started at +%.0f ms, %.0f ms after", what,
                static_cast<unsigned long long>(e.seq), e.started_at_ms - t0,
                e.started_at_ms - since);
  return text;
}

}  // namespace

StormReplay replayStormRule(std::vector<JournalEntry> const& entries, StormRule const& rule) {
  StormReplay out;
  if (entries.empty()) return out;
  // Two time-ordered streams of events: requests arriving, answers finishing.
  std::vector<std::size_t> by_start(entries.size()), by_finish(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) by_start[i] = by_finish[i] = i;
  std::sort(by_start.begin(), by_start.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].started_at_ms < entries[b].started_at_ms;
  });
  std::sort(by_finish.begin(), by_finish.end(), [&](std::size_t a, std::size_t b) {
    return entries[a].finished_at_ms < entries[b].finished_at_ms;
  });
  double const t0 = entries[by_start.front()].started_at_ms;

  enum class State { Closed, Open, HalfOpen } state = State::Closed;
  std::deque<std::pair<double, bool>> window;  // (finished at, was a 429)
  std::size_t window_429s = 0;
  double opened_at = 0;
  std::size_t probe = 0;
  auto open = [&](double at) {
    state = State::Open;
    opened_at = at;
    ++out.opens;
  };

  std::size_t s = 0, f = 0;
  while (s < by_start.size() || f < by_finish.size()) {
    // An answer finishing at the same moment a request starts is seen first.
    bool answer = s == by_start.size() ||
                  (f < by_finish.size() &&
                   entries[by_finish[f]].finished_at_ms <= entries[by_start[s]].started_at_ms);
    if (answer) {
      std::size_t i = by_finish[f++];
      JournalEntry const& e = entries[i];
      bool limited = e.status == 429;
      if (state == State::Closed) {
        window.emplace_back(e.finished_at_ms, limited);
        window_429s += limited ? 1 : 0;
        while (!window.empty() && window.front().first <= e.finished_at_ms - rule.window_ms) {
          window_429s -= window.front().second ? 1 : 0;
          window.pop_front();
        }
        if (window.size() > rule.min_samples &&
            static_cast<double>(window_429s) > rule.ratio * static_cast<double>(window.size())) {
          open(e.finished_at_ms);
        }
      } else if (state == State::HalfOpen && i == probe) {
        if (limited) {
          open(e.finished_at_ms);
        } else {
          state = State::Closed;
          window.clear();
          window_429s = 0;
        }
      }
      continue;
    }
    std::size_t i = by_start[s++];
    JournalEntry const& e = entries[i];
    if (state == State::Open) {
      double since = e.started_at_ms - opened_at;
      if (since < rule.slack_ms) {
        ++out.skipped_in_flight;
      } else if (since < rule.open_ms - rule.slack_ms) {
        out.violations.push_back(describe("reached while open", e, opened_at, t0));
      } else {
        state = State::HalfOpen;
        probe = i;
        ++out.probes;
      }
    } else if (state == State::HalfOpen) {
      out.violations.push_back(describe("a second request while the probe was out", e,
                                        entries[probe].started_at_ms, t0));
    }
  }
  return out;
}

std::string timeline(std::vector<JournalEntry> const& entries) {
  std::string out;
  if (entries.empty()) return out;
  double t0 = entries.front().started_at_ms;
  for (auto const& e : entries) t0 = std::min(t0, e.started_at_ms);
  for (auto const& e : entries) {
    char line[96];
    std::snprintf(line, sizeof line, "%4llu %d +%.0f..+%.0f ms\n",
                  static_cast<unsigned long long>(e.seq), e.status, e.started_at_ms - t0,
                  e.finished_at_ms - t0);
    out += line;
  }
  return out;
}

json::array breakers(std::uint16_t gateway_port) {
  auto answer = failover::callGateway(gateway_port,
                                      routing_scenarios::adminCall("GET", "/admin/breakers"));
  EXPECT_TRUE(answer.ok()) << answer.error().message;
  if (!answer.ok()) return {};
  EXPECT_EQ(answer->status(), 200) << answer->body;
  auto doc = failover::parseObject(answer->body);
  EXPECT_TRUE(doc.ok()) << answer->body;
  if (!doc.ok()) return {};
  auto const* list = doc->if_contains("breakers");
  EXPECT_TRUE(list != nullptr && list->is_array()) << answer->body;
  if (list == nullptr || !list->is_array()) return {};
  return list->as_array();
}

std::optional<json::object> breakerOf(json::array const& list, std::string_view channel,
                                      std::string_view model) {
  for (auto const& value : list) {
    auto const* o = value.if_object();
    if (o == nullptr) continue;
    auto const* c = o->if_contains("channel");
    auto const* m = o->if_contains("model");
    if (c != nullptr && m != nullptr && c->is_string() && m->is_string() &&
        c->as_string() == channel && m->as_string() == model) {
      return *o;
    }
  }
  return std::nullopt;
}

std::string stateOf(json::object const& entry, std::string_view half) {
  auto const* h = entry.if_contains(half);
  if (h == nullptr || !h->is_object()) return {};
  auto const* state = h->as_object().if_contains("state");
  return state != nullptr && state->is_string() ? std::string(state->as_string()) : std::string();
}

std::size_t runPaced(std::size_t count, std::size_t concurrency, Millis interval,
                     std::function<bool(std::size_t)> const& call) {
  std::atomic<std::size_t> next{0}, passed{0};
  MonoTime start = MonoClock::now();
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < concurrency; ++w) {
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) {
        std::this_thread::sleep_until(start + interval * static_cast<long long>(i));
        if (call(i)) ++passed;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  return passed.load();
}

std::optional<long long> retryAfterSeconds(Response const& response) {
  std::string_view text = response.header("retry-after");
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace llmux::e2e::resilience
