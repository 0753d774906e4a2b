#pragma once

// Shared helpers of the passthrough scenarios: one channel per protocol pointed at the mock
// provider, client requests in each protocol, error-shape checks (the mock's journal is in
// mock_journal.h).

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http_headers.h"
#include "core/result.h"
#include "core/wire_protocol.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/config_writer.h"
#include "e2e/support/http_client.h"
#include "protocol/sse_parser.h"

namespace llmux::e2e::passthrough {

namespace json = boost::json;

/// The one gateway key of the scenarios, and the upstream keys of the channels.
inline constexpr std::string_view kGatewayKey = "sk-gw-passthrough-5d1c9e";
inline constexpr std::string_view kGatewayKeyName = "clients";

/// One channel per protocol. `model` is sent upstream as the client names it; `alias` is a
/// model_map key the channel renames to `alias_target`.
struct Lane {
  Protocol protocol;
  std::string channel;
  std::string channel_key;
  std::string model;
  std::string alias;
  std::string alias_target;
};

Lane const& lane(Protocol protocol);
/// Every secret of the standard configuration (gateway key and channel keys).
std::vector<std::string> allSecrets();

/// One channel per protocol (see `lane`), all pointed at the mock on `mock_port`.
GatewayConfig laneConfig(std::uint16_t mock_port);
/// The channel of `lane` as a ChannelSpec.
ChannelSpec laneChannel(Lane const& lane, std::uint16_t mock_port);

/// What a client of `protocol` sends to authenticate with `key`, plus the usual headers
/// (content-type; anthropic-version for Anthropic).
HeaderList clientHeaders(Protocol protocol, std::string_view key = kGatewayKey);
/// The request target of a generation request: the protocol's path; for Gemini the model in the
/// path and `:streamGenerateContent?alt=sse` when streaming.
std::string generationTarget(Protocol protocol, std::string_view model, bool stream);
/// The path the upstream receives for a generation request on `upstream_model`.
std::string upstreamPath(Protocol protocol, std::string_view upstream_model, bool stream);
/// A small valid request body (Gemini: without a model, it is in the URL).
std::string minimalBody(Protocol protocol, std::string_view model, bool stream,
                        std::string_view text = "Hello");

/// One request on a fresh connection.
Result<Response> call(std::uint16_t port, std::string_view method, std::string_view target,
                      HeaderList const& headers = {}, std::string_view body = {},
                      Millis timeout = kDefaultIoTimeout);

/// The JSON document in `text`, or nullopt when it is not JSON.
std::optional<json::value> parseJson(std::string_view text);
/// The SSE events of a complete stream body.
std::vector<protocol::SseEvent> sseEvents(std::string_view body);

/// What an error body says: OpenAI `error.type` and `error.code`, Anthropic `error.type`, Gemini
/// `error.status`; and the message.
struct ErrorBody {
  std::string type;
  std::string code;  ///< OpenAI only ("" when null)
  std::string message;
};

/// Whether `response` has `status` and a JSON body in `protocol`'s error shape, exactly:
/// OpenAI {"error":{"message","type","param","code"}}, Anthropic {"type":"error","error":{"type",
/// "message"}} (plus an optional "request_id"), Gemini {"error":{"code":<status>,"message",
/// "status"}}. Fills `out` when given.
::testing::AssertionResult isProtocolError(Protocol protocol, int status, Response const& response,
                                           ErrorBody* out = nullptr);

/// Fails when any of `secrets` occurs in `text`.
::testing::AssertionResult holdsNoSecret(std::string_view what, std::string_view text,
                                         std::vector<std::string> const& secrets);

/// The whole content of a file ("" when it cannot be read).
std::string readFileBytes(std::string const& path);

/// 64-bit FNV-1a of `bytes`, to print compact evidence about large bodies.
std::uint64_t fnv1a(std::string_view bytes);

}  // namespace llmux::e2e::passthrough
