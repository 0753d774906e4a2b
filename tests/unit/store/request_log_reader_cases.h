#pragma once

// What every RequestLogReader must answer (SQLite's and PostgreSQL's), over the same rows written
// by that store's own writer: each filter of a search, paging, a lookup by id and the usage
// aggregates. The store's test file runs each case against its reader.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "sample_records.h"
#include "store/request_log_reader.h"

namespace llmux::store::reader_cases {

constexpr std::int64_t kT = 1'700'000'000'000;  // 2023-11-14T22:13:20Z
constexpr std::int64_t kHour = 3'600'000;
constexpr std::int64_t kDay = 86'400'000;

/// Writes rows through the store's writer (running ones stay `in_progress`), in order: their
/// seqs grow with it.
using WriteRows = std::function<void(std::vector<RequestRecord> const& done, RequestRecord const* running)>;

inline RequestRecord row(std::string id, std::int64_t at, std::string key, std::string model,
                         std::string channel, int status) {
  RequestRecord r;
  r.request_id = std::move(id);
  r.started_at = WallTime(std::chrono::milliseconds(at));
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.gateway_key = std::move(key);
  r.model = std::move(model);
  r.channel = std::move(channel);
  r.key_label = r.channel.empty() ? "" : r.channel + "#0";
  r.status = status;
  r.total_ms = 100;
  return r;
}

inline AttemptRecord attempt(std::string channel, int status, AttemptOutcome outcome) {
  AttemptRecord a;
  a.channel = channel;
  a.key_label = channel + "#0";
  a.upstream_model = "upstream";
  a.status = status;
  a.outcome = std::move(outcome);
  a.duration_ms = 50;
  return a;
}

/// a1 ok, a2 failed over then ok (the sample record), b1 refused by its key's limits, b2 failed
/// upstream, b3 the client left, a3 the client's own error, and one still running.
inline void writeSample(WriteRows const& write) {
  std::vector<RequestRecord> done;
  RequestRecord a1 = row("a1", kT, "team-a", "gpt-4o", "primary", 200);
  a1.attempts.push_back(attempt("primary", 200, AttemptOutcome::ok()));
  a1.usage = TokenUsage{.input = 100, .output = 10};
  a1.cost_usd = 0.01;
  a1.first_byte_ms = 120;
  done.push_back(a1);
  RequestRecord a2 = failedOverRecord("a2");
  a2.started_at = WallTime(std::chrono::milliseconds(kT + kHour));
  a2.cost_usd = 0.02;
  done.push_back(a2);
  RequestRecord b1 = row("b1", kT + 2 * kHour, "team-b", "claude", "", 429);
  b1.error = "gateway key 'team-b' is over its rpm limit; retry after 1 s";
  done.push_back(b1);
  RequestRecord b2 = row("b2", kT + kDay, "team-b", "claude", "primary", 502);
  b2.error = "upstream failed";
  b2.first_byte_ms = 30;  // an error's time is no answer's: left out of the percentiles
  b2.attempts.push_back(attempt("primary", 502, AttemptOutcome::failed("status_502")));
  done.push_back(b2);
  RequestRecord b3 = row("b3", kT + kDay + kHour, "team-b", "gpt-4o", "primary", 499);
  b3.error = "client_gone";
  b3.attempts.push_back(attempt("primary", 0, AttemptOutcome::cancelled()));
  done.push_back(b3);
  RequestRecord a3 = row("a3", kT + 2 * kDay, "team-a", "gpt-4o", "primary", 400);
  a3.error = "bad request";
  a3.attempts.push_back(attempt("primary", 400, AttemptOutcome::clientError()));
  done.push_back(a3);
  RequestRecord running = row("run", kT + 2 * kDay + kHour, "team-a", "gpt-4o", "", 0);
  write(done, &running);
}

inline std::vector<std::string> ids(RequestLogReader& reader, RequestSearch const& search) {
  auto page = reader.search(search);
  EXPECT_TRUE(page.ok()) << page.error().message;
  std::vector<std::string> out;
  if (page.ok()) {
    for (auto const& r : page->requests) out.push_back(r.record.request_id);
  }
  return out;
}

using Ids = std::vector<std::string>;

inline void searchesByEveryFilter(RequestLogReader& reader) {
  RequestSearch all;
  EXPECT_EQ(ids(reader, all), (Ids{"run", "a3", "b3", "b2", "b1", "a2", "a1"}));
  RequestSearch s;
  s.gateway_key = "team-b";
  EXPECT_EQ(ids(reader, s), (Ids{"b3", "b2", "b1"}));
  s = {};
  s.model = "claude";
  EXPECT_EQ(ids(reader, s), (Ids{"b2", "b1"}));
  s = {};
  s.channel = "backup";
  EXPECT_EQ(ids(reader, s), (Ids{"a2"}));
  s = {};
  s.status_min = 400;
  s.status_max = 499;
  EXPECT_EQ(ids(reader, s), (Ids{"a3", "b3", "b1"}));
  s.status_min = s.status_max = 429;
  EXPECT_EQ(ids(reader, s), (Ids{"b1"}));
  s = {};
  s.state = "in_progress";
  EXPECT_EQ(ids(reader, s), (Ids{"run"}));
  s.state = "done";
  EXPECT_EQ(ids(reader, s).size(), 6u);
  s = {};
  s.request_id = "b2";
  EXPECT_EQ(ids(reader, s), (Ids{"b2"}));
  // `from` inclusive, `to` exclusive.
  s = {};
  s.from_ms = kT + kHour;
  s.to_ms = kT + kDay;
  EXPECT_EQ(ids(reader, s), (Ids{"b1", "a2"}));
  // Filters combine.
  s = {};
  s.gateway_key = "team-a";
  s.model = "gpt-4o";
  s.status_min = 200;
  s.status_max = 299;
  EXPECT_EQ(ids(reader, s), (Ids{"a2", "a1"}));
}

inline void pagesWithBefore(RequestLogReader& reader) {
  RequestSearch s;
  s.limit = 2;
  Ids seen;
  int pages = 0;
  for (;;) {
    auto page = reader.search(s);
    ASSERT_TRUE(page.ok()) << page.error().message;
    ++pages;
    ASSERT_LE(page->requests.size(), 2u);
    for (auto const& r : page->requests) seen.push_back(r.record.request_id);
    if (!page->next_before) break;
    EXPECT_EQ(*page->next_before, page->requests.back().seq);
    s.before = page->next_before;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 4);
  EXPECT_EQ(seen, (Ids{"run", "a3", "b3", "b2", "b1", "a2", "a1"}));
  // A page that ends exactly at the last row says there is no next one.
  s = {};
  s.limit = 7;
  auto whole = reader.search(s);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->requests.size(), 7u);
  EXPECT_FALSE(whole->next_before);
}

inline void getsOneRequestWithItsAttempts(RequestLogReader& reader) {
  auto found = reader.get("a2");
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_TRUE(found->has_value());
  LoggedRequest const& r = **found;
  RequestRecord expected = failedOverRecord("a2");
  EXPECT_EQ(r.state, "done");
  EXPECT_EQ(r.record.gateway_key, "team-a");
  EXPECT_EQ(r.record.started_at, WallTime(std::chrono::milliseconds(kT + kHour)));
  EXPECT_EQ(r.record.usage, expected.usage);
  ASSERT_TRUE(r.record.cost_usd);
  EXPECT_DOUBLE_EQ(*r.record.cost_usd, 0.02);
  EXPECT_DOUBLE_EQ(r.record.first_byte_ms, expected.first_byte_ms);
  EXPECT_EQ(r.record.bytes_out, expected.bytes_out);
  ASSERT_EQ(r.record.attempts.size(), 2u);
  EXPECT_EQ(r.record.attempts[0].channel, "primary");
  EXPECT_EQ(r.record.attempts[0].outcome, AttemptOutcome::failover("status_429"));
  EXPECT_EQ(r.record.attempts[1].channel, "backup");
  EXPECT_EQ(r.record.attempts[1].outcome, AttemptOutcome::ok());
  EXPECT_TRUE(r.record.attempts[1].translated);
  EXPECT_DOUBLE_EQ(r.record.attempts[1].first_token_ms, 980.5);

  auto running = reader.get("run");
  ASSERT_TRUE(running.ok());
  ASSERT_TRUE(running->has_value());
  EXPECT_EQ((*running)->state, "in_progress");

  auto missing = reader.get("nope");
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_FALSE(missing->has_value());
}

inline std::vector<UsageRow> usageOf(RequestLogReader& reader, UsageGroup group, UsageBucket bucket) {
  UsageQuery q;
  q.from_ms = kT;
  q.to_ms = kT + 3 * kDay;
  q.group = group;
  q.bucket = bucket;
  auto report = reader.usage(q);
  EXPECT_TRUE(report.ok()) << report.error().message;
  if (!report.ok()) return {};
  EXPECT_FALSE(report->truncated);
  return report->rows;
}

inline void aggregatesUsage(RequestLogReader& reader) {
  // Finished requests only; outcomes as the SLOs count them.
  auto total = usageOf(reader, UsageGroup::None, UsageBucket::None);
  ASSERT_EQ(total.size(), 1u);
  UsageRow const& t = total[0];
  EXPECT_FALSE(t.group);
  EXPECT_FALSE(t.bucket_ms);
  EXPECT_EQ(t.requests, 6u);
  EXPECT_EQ(t.succeeded, 2u);
  EXPECT_EQ(t.failed, 1u);
  EXPECT_EQ(t.cancelled, 1u);
  EXPECT_EQ(t.rejected, 2u) << "the key's own limit and the client's own error";
  EXPECT_EQ(t.input_tokens, 1000);
  EXPECT_EQ(t.output_tokens, 130);
  EXPECT_EQ(t.cache_read_tokens, 600);
  EXPECT_EQ(t.cache_write_tokens, 50);
  EXPECT_EQ(t.reasoning_tokens, 40);
  EXPECT_NEAR(t.cost_usd, 0.03, 1e-12);
  // First bytes of the answered ones: a1 120 ms, a2 450.5 ms (bins 100-200 and 300-500).
  EXPECT_EQ(t.first_byte_samples, 2u);
  EXPECT_EQ(firstBytePercentile(t, 0.5), 200.0);
  EXPECT_NEAR(*firstBytePercentile(t, 0.95), 300 + 200 * 0.9, 1e-9);

  auto by_key = usageOf(reader, UsageGroup::GatewayKey, UsageBucket::None);
  ASSERT_EQ(by_key.size(), 2u);
  EXPECT_EQ(by_key[0].group, "team-a");
  EXPECT_EQ(by_key[0].requests, 3u);
  EXPECT_EQ(by_key[0].succeeded, 2u);
  EXPECT_EQ(by_key[0].rejected, 1u);
  EXPECT_EQ(by_key[1].group, "team-b");
  EXPECT_EQ(by_key[1].requests, 3u);
  EXPECT_EQ(by_key[1].failed, 1u);
  EXPECT_EQ(by_key[1].cancelled, 1u);
  EXPECT_EQ(by_key[1].rejected, 1u);
  EXPECT_EQ(by_key[1].input_tokens, 0);

  // By model and day: buckets start at UTC midnight (kT is 22:13, so b1 two hours later is on
  // the next day, with b2).
  std::int64_t const day0 = kT / kDay * kDay;
  auto by_model = usageOf(reader, UsageGroup::Model, UsageBucket::Day);
  ASSERT_EQ(by_model.size(), 4u);
  struct Expected {
    char const* model;
    std::int64_t bucket;
    std::uint64_t requests;
  };
  Expected const expected[] = {{"claude", day0 + kDay, 2},
                               {"gpt-4o", day0, 2},
                               {"gpt-4o", day0 + kDay, 1},
                               {"gpt-4o", day0 + 2 * kDay, 1}};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(by_model[i].group, expected[i].model) << i;
    EXPECT_EQ(by_model[i].bucket_ms, expected[i].bucket) << i;
    EXPECT_EQ(by_model[i].requests, expected[i].requests) << i;
  }
  EXPECT_EQ(by_model[0].failed, 1u);
  EXPECT_EQ(by_model[0].rejected, 1u);
  EXPECT_EQ(by_model[1].input_tokens, 1000);
  EXPECT_NEAR(by_model[1].cost_usd, 0.03, 1e-12);

  // By channel and hour: a1 (primary, 22:00) and a2 (backup, 23:00) on the first day.
  auto by_channel = usageOf(reader, UsageGroup::Channel, UsageBucket::Hour);
  std::int64_t const hour0 = kT / kHour * kHour;
  ASSERT_FALSE(by_channel.empty());
  EXPECT_EQ(by_channel[0].group, "");  // b1 never reached a channel
  bool backup = false;
  for (auto const& r : by_channel) {
    if (r.group == "backup") {
      backup = true;
      EXPECT_EQ(r.bucket_ms, hour0 + kHour);
      EXPECT_EQ(r.requests, 1u);
      EXPECT_EQ(r.succeeded, 1u);
    }
    if (r.group == "primary" && r.bucket_ms == hour0) {
      EXPECT_EQ(r.requests, 1u);
    }
  }
  EXPECT_TRUE(backup);
  EXPECT_EQ(by_channel.size(), 6u);  // "" 0:13, backup 23:13, primary 22:13, +1 d, +1 d 1 h, +2 d

  // By minute: a1 alone in its minute, without a first byte in b1's.
  UsageQuery minutes;
  minutes.from_ms = kT;
  minutes.to_ms = kT + kDay;
  minutes.bucket = UsageBucket::Minute;
  auto by_minute = reader.usage(minutes);
  ASSERT_TRUE(by_minute.ok()) << by_minute.error().message;
  ASSERT_EQ(by_minute->rows.size(), 3u);  // a1, a2, b1
  EXPECT_EQ(by_minute->rows[0].bucket_ms, kT / 60'000 * 60'000);
  EXPECT_EQ(by_minute->rows[0].first_byte_samples, 1u);
  EXPECT_EQ(by_minute->rows[2].first_byte_samples, 0u);
  EXPECT_FALSE(firstBytePercentile(by_minute->rows[2], 0.5));

  // A range with nothing in it has no rows.
  UsageQuery empty;
  empty.from_ms = kT - kDay;
  empty.to_ms = kT;
  auto none = reader.usage(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->rows.empty());
}

}  // namespace llmux::store::reader_cases
