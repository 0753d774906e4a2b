#include "translate/codec.h"

#include "translate/anthropic/codec.h"
#include "translate/anthropic/request_encoder.h"
#include "translate/gemini/codec.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_responses/codec.h"

namespace llmux::translate {

Result<Request> decodeRequest(Protocol protocol, std::string_view body, std::string_view model,
                              bool stream) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::decodeRequest(body);
    case Protocol::OpenAiResponses: return openai_responses::decodeRequest(body);
    case Protocol::Anthropic: return anthropic::decodeRequest(body);
    case Protocol::Gemini: return gemini::decodeRequest(body, model, stream);
  }
  return makeError(ErrorKind::Internal, "unknown protocol");
}

Result<std::string> encodeRequest(Protocol protocol, Request const& request,
                                  std::string_view upstream_model) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::encodeRequest(request, upstream_model);
    case Protocol::OpenAiResponses: return openai_responses::encodeRequest(request, upstream_model);
    case Protocol::Anthropic: return anthropic::encodeRequest(request, upstream_model);
    case Protocol::Gemini: return gemini::encodeRequest(request, upstream_model);
  }
  return makeError(ErrorKind::Internal, "unknown protocol");
}

Result<EncodedRequest> encodeRequestReporting(Protocol protocol, Request const& request,
                                              std::string_view upstream_model) {
  EncodedRequest encoded;
  Result<std::string> body = makeError(ErrorKind::Internal, "unknown protocol");
  switch (protocol) {
    case Protocol::OpenAiChat:
      body = openai_chat::encodeRequestReporting(request, upstream_model, encoded.dropped);
      break;
    case Protocol::OpenAiResponses:
      body = openai_responses::encodeRequestReporting(request, upstream_model, encoded.dropped);
      break;
    case Protocol::Anthropic:
      body = anthropic::encodeRequestReporting(request, upstream_model, encoded.dropped);
      break;
    case Protocol::Gemini:
      body = gemini::encodeRequestReporting(request, upstream_model, encoded.dropped);
      break;
  }
  if (!body) return body.error();
  encoded.body = std::move(*body);
  return encoded;
}

Result<Response> decodeResponse(Protocol protocol, std::string_view body) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::decodeResponse(body);
    case Protocol::OpenAiResponses: return openai_responses::decodeResponse(body);
    case Protocol::Anthropic: return anthropic::decodeResponse(body);
    case Protocol::Gemini: return gemini::decodeResponse(body);
  }
  return makeError(ErrorKind::Internal, "unknown protocol");
}

std::string encodeResponse(Protocol protocol, Response const& response, EncodeOptions const& options) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::encodeResponse(response, options);
    case Protocol::OpenAiResponses: return openai_responses::encodeResponse(response, options);
    case Protocol::Anthropic: return anthropic::encodeResponse(response, options);
    case Protocol::Gemini: return gemini::encodeResponse(response, options);
  }
  return {};
}

std::unique_ptr<StreamDecoder> makeStreamDecoder(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::makeStreamDecoder();
    case Protocol::OpenAiResponses: return openai_responses::makeStreamDecoder();
    case Protocol::Anthropic: return anthropic::makeStreamDecoder();
    case Protocol::Gemini: return gemini::makeStreamDecoder();
  }
  return nullptr;
}

std::unique_ptr<StreamEncoder> makeStreamEncoder(Protocol protocol, EncodeOptions const& options) {
  switch (protocol) {
    case Protocol::OpenAiChat: return openai_chat::makeStreamEncoder(options);
    case Protocol::OpenAiResponses: return openai_responses::makeStreamEncoder(options);
    case Protocol::Anthropic: return anthropic::makeStreamEncoder(options);
    case Protocol::Gemini: return gemini::makeStreamEncoder(options);
  }
  return nullptr;
}

}  // namespace llmux::translate
