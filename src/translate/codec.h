#pragma once

// Encoders and decoders between the four wire protocols and the neutral model (neutral.h).
// Each protocol implements them in translate/<protocol>/codec.h; this header dispatches.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/wire_protocol.h"
#include "translate/neutral.h"

namespace llmux::translate {

/// Turns upstream stream bytes into neutral events, incrementally: `feed` may be called with any
/// split of the bytes (a frame cut anywhere) and emits each event as soon as its frame is
/// complete; `finish` ends the stream (a stream that stops without its protocol's proper end
/// yields an Error event). Never throws; malformed frames yield an Error event.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual void feed(std::string_view bytes, std::vector<Event>& out) = 0;
  virtual void finish(std::vector<Event>& out) = 0;
};

/// What a stream or response encoder needs beyond the events.
struct EncodeOptions {
  std::string model;           ///< the model name the client asked for (echoed to it)
  std::string id;              ///< the response id to use when the upstream gave none
  bool include_usage = false;  ///< OpenAI Chat: the client asked for the final usage chunk
  std::int64_t created = 0;    ///< unix seconds for `created` / `created_at`
};

/// Turns neutral events into the bytes of a client's stream, frame by frame: each call appends
/// the complete frames for that event (possibly none) to `out`.
class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  virtual void encode(Event const& event, std::string& out) = 0;
};

/// A client request body (and, for Gemini, its route: model and streaming come from the URL)
/// in the neutral model. InvalidRequest errors carry a message for the client.
Result<Request> decodeRequest(Protocol protocol, std::string_view body, std::string_view model,
                              bool stream);

/// The request body to send to an upstream of `protocol` (for Gemini the model goes in the URL,
/// not the body). Fields the protocol lacks are left out (docs/translation.md lists them).
Result<std::string> encodeRequest(Protocol protocol, Request const& request,
                                  std::string_view upstream_model);

/// An encoded request body and what its encoder left out or changed for the target.
struct EncodedRequest {
  std::string body;
  /// Names of what the target could not take (docs/translation.md §9.2), for the logs; the
  /// decoder's own list stays in `Request::dropped`.
  std::vector<std::string> dropped;
};

/// encodeRequest, also reporting what was dropped on the way.
Result<EncodedRequest> encodeRequestReporting(Protocol protocol, Request const& request,
                                              std::string_view upstream_model);

/// An upstream's complete answer in the neutral model.
Result<Response> decodeResponse(Protocol protocol, std::string_view body);

/// A complete answer in the client's protocol.
std::string encodeResponse(Protocol protocol, Response const& response, EncodeOptions const& options);

std::unique_ptr<StreamDecoder> makeStreamDecoder(Protocol protocol);
std::unique_ptr<StreamEncoder> makeStreamEncoder(Protocol protocol, EncodeOptions const& options);

}  // namespace llmux::translate
