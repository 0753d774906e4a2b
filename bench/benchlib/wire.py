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
