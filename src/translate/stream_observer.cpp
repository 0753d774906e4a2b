#include "translate/stream_observer.h"

#include <boost/json/monotonic_resource.hpp>
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
  // Passthrough meters every answer: only the usage member is parsed. The answer goes to the
  // client as it came, so it is skimmed for its top-level usage member, not validated whole (a
  // DOM of the whole answer cost ~4 us per 700 bytes, a full scan ~3 us); the member itself is
  // parsed, hence checked.
  std::optional<protocol::JsonMember> found =
      protocol == Protocol::Gemini ? protocol::skimTopLevelMember(body, {"usageMetadata", "usage_metadata"})
                                   : protocol::skimTopLevelMember(body, {"usage"});
  if (!found || found->type != protocol::JsonType::Object) return std::nullopt;
  boost::system::error_code ec;
  unsigned char scratch[2048];  // a usage object's values fit: no allocation
  boost::json::monotonic_resource arena(scratch, sizeof scratch);
  boost::json::value value = boost::json::parse(
      body.substr(found->value_begin, found->value_end - found->value_begin), ec, &arena);
  if (ec || !value.is_object()) return std::nullopt;
  std::optional<Usage> usage = usageFromObject(protocol, value.as_object());
  if (usage && usage->output == 0) return decodedUsage(protocol, body);  // content may need counting
  return usage;
}

}  // namespace llmux::translate
