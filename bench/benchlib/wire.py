"""The requests the benchmark sends, as raw HTTP/1.1 bytes (for llmux-bench-client) and as
parts (for wrk's Lua script). The same request goes to every target: the mock accepts any key,
llmux wants the gateway key, nginx passes the header through."""

import json

PATH = "/v1/chat/completions"
MODEL = "gpt-4o-mini"
GATEWAY_KEY = "sk-bench"


def chat_body(text, stream=False):
    body = {"model": MODEL, "messages": [{"role": "user", "content": text}]}
    if stream:
        body["stream"] = True
    return json.dumps(body, separators=(",", ":")).encode()


def small_body(stream=False):
    return chat_body("Say hello in one short sentence.", stream)


def big_body(size=1 << 20):
    """A chat request whose user message makes the whole body `size` bytes."""
    words = "the quick brown fox jumps over the lazy dog "
    base = len(chat_body(""))
    text = (words * (size // len(words) + 1))[: size - base]
    body = chat_body(text)
    assert len(body) == size, len(body)
    return body


# The Anthropic Messages workloads of the throughput section: the same short prompt, to a model
# the mock serves on its Anthropic endpoint (llmux: a channel of that protocol, passthrough) or to
# MODEL (llmux: the OpenAI Chat channel, so the request and its answer are translated).
ANTHROPIC_PATH = "/v1/messages"
ANTHROPIC_MODEL = "claude-sonnet-4-5"


def anthropic_body(model=ANTHROPIC_MODEL):
    body = {"model": model, "max_tokens": 64,
            "messages": [{"role": "user", "content": "Say hello in one short sentence."}]}
    return json.dumps(body, separators=(",", ":")).encode()


def anthropic_headers():
    """What an Anthropic SDK sends: the key in x-api-key, a version."""
    return {"Content-Type": "application/json", "x-api-key": GATEWAY_KEY,
            "anthropic-version": "2023-06-01"}


def headers(extra=None):
    h = {"Content-Type": "application/json", "Authorization": f"Bearer {GATEWAY_KEY}"}
    h.update(extra or {})
    return h


def raw_request(body, extra_headers=None):
    lines = [f"POST {PATH} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers(extra_headers).items()]
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def write_request(path, body, extra_headers=None):
    with open(path, "wb") as f:
        f.write(raw_request(body, extra_headers))
    return path
