#include "e2e/scenarios/mock_journal.h"

#include <algorithm>
#include <boost/json.hpp>
#include <thread>

#include "core/strings.h"
#include "e2e/support/http_client.h"
#include "support/base64_decode.h"

namespace llmux::e2e {
namespace json = boost::json;

namespace {

// Journal bodies hold whole request and response bodies (some of several MiB).
constexpr Millis kJournalIoTimeout(20'000);

Error journalError(std::string what) {
  return makeError(ErrorKind::Internal, "mock journal: " + std::move(what));
}

/// Sends `method` to /_mock/journal; the body of a 200 answer.
Result<std::string> journalRequest(std::uint16_t mock_port, std::string_view method) {
  auto client = HttpClient::connect(mock_port);
  if (!client) return client.takeError();
  auto response = client->request(method, "/_mock/journal", {}, {}, kJournalIoTimeout);
  if (!response) return response.takeError();
  if (response->status() != 200) {
    return journalError(std::string(method) + " answered " + std::to_string(response->status()));
  }
  return std::move(response->body);
}

std::string stringAt(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

/// A body the mock wrote as text at `key`, or as `<key>_base64` when it is not UTF-8.
std::string bytesAt(json::object const& o, std::string_view key) {
  auto const* encoded = o.if_contains(std::string(key) + "_base64");
  if (encoded != nullptr && encoded->is_string()) {
    return test_support::decodeBase64(encoded->as_string()).value_or("(invalid base64)");
  }
  return stringAt(o, key);
}

/// The number at `key`; nullopt when absent, null or not a number.
std::optional<double> numberAt(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_double()) return v->as_double();
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  return std::nullopt;
}

Result<JournalEntry> parseEntry(json::value const& value) {
  auto const* o = value.if_object();
  if (o == nullptr) return journalError("an entry is not an object");
  JournalEntry e;
  auto seq = numberAt(*o, "seq");
  auto status = numberAt(*o, "status");
  auto started = numberAt(*o, "started_at_ms");
  auto finished = numberAt(*o, "finished_at_ms");
  auto const* headers = o->if_contains("headers");
  if (!seq || !status || !started || !finished || headers == nullptr || !headers->is_array()) {
    return journalError("an entry lacks seq, status, times or headers: " + json::serialize(*o));
  }
  e.seq = static_cast<std::uint64_t>(*seq);
  e.status = static_cast<int>(*status);
  e.started_at_ms = *started;
  e.finished_at_ms = *finished;
  e.client_gone_at_ms = numberAt(*o, "client_gone_at_ms");
  e.method = stringAt(*o, "method");
  e.path = stringAt(*o, "path");
  e.query = stringAt(*o, "query");
  e.body = bytesAt(*o, "body");
  e.response_body = bytesAt(*o, "response_body");
  e.outcome = stringAt(*o, "outcome");
  for (auto const& field : headers->as_array()) {
    auto const* pair = field.if_array();
    if (pair == nullptr || pair->size() != 2 || !(*pair)[0].is_string() ||
        !(*pair)[1].is_string()) {
      return journalError("a header is not [name, value]: " + json::serialize(field));
    }
    e.headers.add((*pair)[0].as_string(), (*pair)[1].as_string());
  }
  return e;
}

/// The value of the query parameter `name` ("" when absent).
std::string_view queryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    auto kv = splitOnce(item, '=');
    if (kv && kv->first == name) return kv->second;
  }
  return {};
}

}  // namespace

std::string_view JournalEntry::header(std::string_view name) const {
  return headers.get(name);
}

std::string JournalEntry::upstreamKey() const {
  constexpr std::string_view kBearer = "Bearer ";
  if (auto auth = header("authorization"); auth.starts_with(kBearer)) {
    return std::string(auth.substr(kBearer.size()));
  }
  for (std::string_view name : {"x-api-key", "x-goog-api-key"}) {
    if (auto key = header(name); !key.empty()) return std::string(key);
  }
  return std::string(queryParam(query, "key"));
}

Result<std::vector<JournalEntry>> fetchJournal(std::uint16_t mock_port) {
  auto body = journalRequest(mock_port, "GET");
  if (!body) return body.takeError();
  boost::system::error_code ec;
  json::value doc = json::parse(*body, ec);
  auto const* root = ec ? nullptr : doc.if_object();
  auto const* entries = root != nullptr ? root->if_contains("entries") : nullptr;
  if (entries == nullptr || !entries->is_array()) {
    return journalError("not {\"entries\":[...]}: " + body->substr(0, 200));
  }
  std::vector<JournalEntry> out;
  out.reserve(entries->as_array().size());
  for (auto const& value : entries->as_array()) {
    auto entry = parseEntry(value);
    if (!entry) return entry.takeError();
    out.push_back(std::move(*entry));
  }
  std::sort(out.begin(), out.end(), [](JournalEntry const& a, JournalEntry const& b) {
    if (a.started_at_ms != b.started_at_ms) return a.started_at_ms < b.started_at_ms;
    return a.seq < b.seq;
  });
  return out;
}

Result<void> clearJournal(std::uint16_t mock_port) {
  auto body = journalRequest(mock_port, "DELETE");
  if (!body) return body.takeError();
  return {};
}

Result<std::vector<JournalEntry>> waitForJournal(std::uint16_t mock_port, std::size_t count,
                                                 Millis timeout) {
  MonoTime deadline = MonoClock::now() + timeout;
  for (;;) {
    auto entries = fetchJournal(mock_port);
    if (!entries || entries->size() >= count) return entries;
    if (MonoClock::now() >= deadline) {
      std::string keys;
      for (auto const& key : keysOf(*entries)) keys += (keys.empty() ? "" : ", ") + key;
      return makeError(ErrorKind::Timeout, "the mock journal holds " +
                                               std::to_string(entries->size()) + " entries, not " +
                                               std::to_string(count) + " (keys: " + keys + ")");
    }
    std::this_thread::sleep_for(Millis(10));
  }
}

std::vector<std::string> keysOf(std::vector<JournalEntry> const& entries) {
  std::vector<std::string> keys;
  keys.reserve(entries.size());
  for (auto const& e : entries) keys.push_back(e.upstreamKey());
  return keys;
}

std::size_t headerCount(HeaderList const& headers, std::string_view name) {
  return static_cast<std::size_t>(std::count_if(headers.begin(), headers.end(), [&](HeaderField f) {
    return equalsIgnoreCase(f.name, name);
  }));
}

}  // namespace llmux::e2e
