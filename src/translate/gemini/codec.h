#pragma once

// The gemini protocol's side of translation (see translate/codec.h for the contracts).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::gemini {

Result<Request> decodeRequest(std::string_view body, std::string_view model, bool stream);
Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model);
/// encodeRequest, also naming in `dropped` what the body leaves out or changes because the
/// target would refuse it (docs/translation.md §9.2).
Result<std::string> encodeRequestReporting(Request const& request, std::string_view upstream_model,
                                           std::vector<std::string>& dropped);
Result<Response> decodeResponse(std::string_view body);
std::string encodeResponse(Response const& response, EncodeOptions const& options);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options);

/// How a streamed answer is framed for the client (REFERENCE §4.1): `?alt=sse` asks for SSE
/// (`data: {…}\r\n\r\n`, what the official SDKs use); without it the body is one JSON array whose
/// elements arrive one by one. makeStreamEncoder(options) is the SSE form.
enum class StreamFraming { Sse, JsonArray };

std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options,
                                                 StreamFraming framing);

}  // namespace llmux::translate::gemini
