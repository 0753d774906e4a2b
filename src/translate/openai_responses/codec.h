#pragma once

// The openai_responses protocol's side of translation (see translate/codec.h for the contracts).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::openai_responses {

Result<Request> decodeRequest(std::string_view body);
Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model);
/// encodeRequest, also naming in `dropped` what the body leaves out or changes because the
/// target would refuse it (docs/translation.md §9.2).
Result<std::string> encodeRequestReporting(Request const& request, std::string_view upstream_model,
                                           std::vector<std::string>& dropped);
Result<Response> decodeResponse(std::string_view body);
std::string encodeResponse(Response const& response, EncodeOptions const& options);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options);

}  // namespace llmux::translate::openai_responses
