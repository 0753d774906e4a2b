#include "translate/stream_observer.h"

#include <boost/json/parse.hpp>

#include "protocol/json_scan.h"
#include "translate/anthropic/wire.h"
#include "translate/gemini/common.h"
#include "translate/openai_chat/wire.h"
#include "translate/openai_responses/wire.h"

namespace llmux::translate {

StreamObserver::StreamObserver(Protocol protocol) : decoder_(makeStreamDecoder(protocol)) {}

void StreamObserver::feed(std::string_view bytes) {
  events_.clear();
  decoder_->feed(bytes, events_);
  take(events_);
}

void StreamObserver::finish() {
  events_.clear();
  decoder_->finish(events_);
  take(events_);
}

void StreamObserver::take(std::vector<Event> const& events) {
  for (Event const& event : events) {
    if (event.type == EventType::Error && !tally_.contentStarted() && !failure_) {
      failure_ = StreamFailure{event.error_status > 0 ? event.error_status : 502, event.text};
    }
    tally_.observe(event);
  }
}

namespace {

/// A protocol's usage object in the canonical record.
std::optional<Usage> usageFromObject(Protocol protocol, boost::json::object const& usage) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::readUsage(usage);
    case Protocol::OpenAiResponses: return openai_responses::usageFrom(usage);
    case Protocol::Anthropic: {
      anthropic::WireUsage wire;
      wire.merge(usage);
      return wire.toNeutral();
    }
    case Protocol::Gemini: return gemini::detail::usageFromMetadata(usage);
  }
  return std::nullopt;
}

/// The whole answer decoded: for the zero-completion fallback, which needs the content.
std::optional<Usage> decodedUsage(Protocol protocol, std::string_view body) {
  auto response = decodeResponse(protocol, body);
  if (!response) return std::nullopt;
  return response->usage;
}

}  // namespace

std::optional<Usage> answerUsage(Protocol protocol, std::string_view body) {
  // Passthrough meters every answer: only the usage member is parsed (the scan validates and
  // locates members without building a tree; a DOM of the whole answer cost ~4 us per 700 bytes).
  protocol::JsonScan scan = protocol::scanJson(body);
  if (!scan.ok() || scan.root != protocol::JsonType::Object) return std::nullopt;
  std::string_view key = protocol == Protocol::Gemini ? "usageMetadata" : "usage";
  protocol::JsonMember const* found = nullptr;
  for (auto const& member : scan.members) {
    if (member.keyIs(key) || (protocol == Protocol::Gemini && member.keyIs("usage_metadata"))) {
      found = &member;  // the last one wins, as in a DOM
    }
  }
  if (found == nullptr || found->type != protocol::JsonType::Object) return std::nullopt;
  boost::system::error_code ec;
  boost::json::value value =
      boost::json::parse(body.substr(found->value_begin, found->value_end - found->value_begin), ec);
  if (ec || !value.is_object()) return std::nullopt;
  std::optional<Usage> usage = usageFromObject(protocol, value.as_object());
  if (usage && usage->output == 0) return decodedUsage(protocol, body);  // content may need counting
  return usage;
}

}  // namespace llmux::translate
