"""Turns the measurements into the printed report: one table per figure, then the targets."""

from . import translate
from .stats import fmt, fmt_signed, ratio, table

PROXIES = ("nginx", "llmux", "llmux+log")
MARGIN_US = 25.0


def _ratio_cell(a, b):
    r = ratio(a, b)
    return "-" if r is None else f"{r:.2f}x"


def throughput_section(t):
    lines = [f"## 1. Throughput: non-stream chat completion POST ({t['body_bytes']} B body), wrk, "
             f"median of {t['repetitions']} x {t['seconds']} s",
             ""]
    rows = []
    for conns, by_name in t["by_connections"].items():
        direct = by_name["direct"]["rps"]
        nginx = by_name["nginx"]["rps"]
        for name, r in by_name.items():
            rows.append([f"{conns}", name, fmt(r["rps"]), fmt(r["p50_us"]), fmt(r["p99_us"]),
                         _ratio_cell(r["rps"], direct),
                         "-" if name == "direct" else _ratio_cell(r["rps"], nginx),
                         "-" if name == "direct" else fmt(r["cpu_us"], 1),
                         fmt(r["mock_cpu_us"], 1),
                         str(r["errors"]), " ".join(f"{x:,}" for x in r["runs"])])
    lines.append(table(["conns", "target", "req/s", "p50 us", "p99 us", "vs direct", "vs nginx",
                        "proxy CPU us/req", "mock CPU us/req", "errors", "runs (req/s)"], rows))
    lines += ["", "CPU us/req: user + system CPU time of the process during the wrk run divided by "
              "the requests served (clock-tick resolution, so rough at c=1); much less sensitive "
              "than req/s to the load the rest of the machine adds."]
    messages = t.get("messages", {})
    if messages:
        nginx = messages["anthropic"]["by_target"]["nginx"]
        rows = []
        for w in messages.values():
            for name, r in w["by_target"].items():
                rows.append([w["label"], name, fmt(r["rps"]), fmt(r["p50_us"]), fmt(r["p99_us"]),
                             _ratio_cell(r["rps"], nginx["rps"]), fmt(r["cpu_us"], 1),
                             _ratio_cell(r["cpu_us"], nginx["cpu_us"]), fmt(r["mock_cpu_us"], 1),
                             str(r["errors"]), " ".join(f"{x:,}" for x in r["runs"])])
        first = next(iter(messages.values()))
        lines += ["", f"Anthropic Messages POST ({first['body_bytes']} B body), "
                  f"c={first['connections']}, same runs; vs nginx = against nginx's passthrough "
                  "of the same request:", ""]
        lines.append(table(["workload", "target", "req/s", "p50 us", "p99 us", "vs nginx",
                            "proxy CPU us/req", "CPU vs nginx", "mock CPU us/req", "errors",
                            "runs (req/s)"], rows))
    return "\n".join(lines)


def _latency_table(per_target):
    rows = []
    nginx = per_target["nginx"]
    for name, r in per_target.items():
        vs50 = vs99 = None
        if name not in ("direct", "nginx"):
            vs50 = None if r["added_p50_us"] is None else r["added_p50_us"] - nginx["added_p50_us"]
            vs99 = None if r["added_p99_us"] is None else r["added_p99_us"] - nginx["added_p99_us"]
        rows.append([name, fmt(r["p50_us"], 1), fmt(r["p99_us"], 1),
                     "-" if name == "direct" else fmt_signed(r["added_p50_us"], 1),
                     "-" if name == "direct" else fmt_signed(r["added_p99_us"], 1),
                     fmt_signed(vs50, 1), fmt_signed(vs99, 1), str(r["n"]), str(r["errors"])])
    return table(["target", "p50 us", "p99 us", "added p50", "added p99", "minus nginx's p50",
                  "minus nginx's p99", "samples", "errors"], rows)


def low_load_section(l):
    return "\n".join([
        "## 2. Added latency at low load (small non-stream POST, complete response)",
        "",
        f"One request at a time, targets interleaved; median over {l['blocks']} blocks of "
        f"{l['rounds']} rounds of each block's percentiles. added = percentile via the proxy - "
        "the same percentile direct.",
        "",
        _latency_table(l["sequential"]),
        "",
        f"Fixed rate: 50 req/s to each target, interleaved, {l['paced_rounds']} rounds.",
        "",
        _latency_table(l["paced"]),
    ])


def ttfb_section(t):
    delay = t["chunk_delay_ms"]
    rows = []
    for name in t["first_content"]:
        row = [name]
        for key in ("first_content", "first_body", "head"):
            r = t[key][name]
            row += [fmt(r["p50_us"], 1), fmt(r["p99_us"], 1)]
        rows.append(row)
    side_by_side = table(["target", "first content p50", "first content p99",
                          "first body byte p50", "first body byte p99", "head p50", "head p99"],
                         rows)
    return "\n".join([
        f"## 3. Time to first content on a stream (stream: true, x-mock-chunk-delay: {delay} ms, "
        f"{t['rounds']} rounds interleaved)",
        "",
        f"The mock sends the head at once and every event {delay} ms after the previous one: "
        f"first the role chunk (no content), then the first text delta. First content = request "
        f"sent -> the read whose body first contains `{t['content_marker']}` (the first text "
        "delta: the first token a user sees); first body byte = request sent -> any body byte; "
        "head = request sent -> the response head. llmux writes nothing, not even the head, "
        "before the upstream's first content event (its commit point: until then it can still "
        "fail over), so its head, first body byte and first content arrive together; nginx "
        "relays the head and the role chunk as they come. The first content is therefore the "
        "figure that compares like with like (and the target's); the other two show the "
        "difference.",
        "",
        side_by_side,
        "",
        "First content (the target's figure):",
        "",
        _latency_table(t["first_content"]),
        "",
        "First body byte (nginx's is the role chunk, llmux's the first content one event later):",
        "",
        _latency_table(t["first_body"]),
        "",
        "Response head:",
        "",
        _latency_table(t["head"]),
    ])


def memory_section(m):
    rows = []
    for name, r in m.items():
        rows.append([name, f"{r['open']}/{r['connections']}", fmt(r["open_ms"]),
                     fmt(r["before_kib"]), fmt(r["during_kib"]), fmt(r["after_kib"]),
                     fmt(r["kib_per_stream"], 1),
                     fmt((r["during_kib"] - r["before_kib"]) / 1024, 1)])
    return "\n".join([
        "## 4. Memory with many open streams and idle connections (VmRSS; nginx = master + "
        "workers)",
        "",
        "Streams: held mid-answer (the mock stalls after the first content). Idle: keep-alive "
        "client connections that each got one whole (non-stream) answer and stay open.",
        "",
        table(["proxy", "open", "open in ms", "RSS before KiB", "RSS during KiB",
               "RSS 2 s after close KiB", "KiB per connection", "growth MiB"], rows),
    ])


def big_body_section(b):
    per = b["total"]
    rows = []
    for name, r in per.items():
        rows.append([name, fmt(r["p50_us"]), fmt(r["p99_us"]),
                     "-" if name == "direct" else fmt_signed(r["added_p50_us"]),
                     "-" if name == "direct" else fmt_signed(r["added_p99_us"]),
                     str(r["n"]), str(r["errors"])])
    return "\n".join([
        f"## 5. A {b['body_bytes']:,} B request body (non-stream), {b['rounds']} rounds "
        "interleaved",
        "",
        table(["target", "p50 us", "p99 us", "added p50", "added p99", "samples", "errors"], rows),
    ])


def _verdict(ok):
    return "PASS" if ok else "MISS"


def _cpu_rows(label, by_name):
    """CPU per request of the gateways against nginx's: <= 1.15 x."""
    rows = []
    for name in ("llmux", "llmux+log"):
        r = ratio(by_name[name]["cpu_us"], by_name["nginx"]["cpu_us"])
        if r is None:
            continue
        rows.append([f"{name} {label} CPU per request", f"{r:.2f} x nginx", "<= 1.15 x nginx",
                     _verdict(r <= 1.15), f"{1.15 - r:+.2f}"])
    return rows


def targets(results):
    """[(what, measured, limit, PASS/MISS, margin)] for llmux and llmux+log, then translation."""
    rows = []
    t = results.get("throughput")
    if t:
        for conns, by_name in t["by_connections"].items():
            for name in ("llmux", "llmux+log"):
                r = ratio(by_name[name]["rps"], by_name["nginx"]["rps"])
                if r is None:
                    continue
                rows.append([f"{name} throughput c={conns}", f"{r:.2f} x nginx", ">= 0.90 x nginx",
                             _verdict(r >= 0.9), f"{r - 0.9:+.2f}"])
            if conns == max(t["by_connections"]):
                rows += _cpu_rows("chat", by_name)
        for key, w in t.get("messages", {}).items():
            nginx = w["by_target"]["nginx"] if "nginx" in w["by_target"] else \
                t["messages"]["anthropic"]["by_target"]["nginx"]
            floor = 0.75 if key == "translated" else 0.9
            for name in ("llmux", "llmux+log"):
                r = ratio(w["by_target"][name]["rps"], nginx["rps"])
                if r is None:
                    continue
                rows.append([f"{name} {key} throughput c={w['connections']}", f"{r:.2f} x nginx",
                             f">= {floor:.2f} x nginx", _verdict(r >= floor), f"{r - floor:+.2f}"])
            if key != "translated":
                rows += _cpu_rows(key, dict(w["by_target"]))

    def latency_rows(label, per_target):
        nginx = per_target["nginx"]
        for name in ("llmux", "llmux+log"):
            if name not in per_target:
                continue
            for p in ("p50", "p99"):
                mine = per_target[name][f"added_{p}_us"]
                limit = nginx[f"added_{p}_us"] + MARGIN_US
                rows.append([f"{name} {label} {p}", f"{mine:+.1f} us", f"<= {limit:+.1f} us",
                             _verdict(mine <= limit), f"{limit - mine:+.1f} us"])

    if "low_load" in results:
        latency_rows("added latency, one at a time", results["low_load"]["sequential"])
        latency_rows("added latency, 50 req/s", results["low_load"]["paced"])
    if "ttfb" in results:
        latency_rows("added time to first content (stream)", results["ttfb"]["first_content"])
    m = results.get("memory", {}).get("llmux")
    if m and m["kib_per_stream"] is not None:
        rows.append([f"llmux RSS per open stream ({m['open']} streams)",
                     f"{m['kib_per_stream']:.1f} KiB", "<= 30 KiB",
                     _verdict(m["kib_per_stream"] <= 30), f"{30 - m['kib_per_stream']:+.1f} KiB"])
    idle = results.get("memory", {}).get("llmux+log idle")
    if idle and idle["open"]:
        grown = (idle["during_kib"] - idle["before_kib"]) / 1024
        rows.append([f"llmux+log RSS growth, {idle['open']:,} idle keep-alive connections",
                     f"{grown:.1f} MiB", "<= 64 MiB", _verdict(grown <= 64 and
                                                          idle["open"] >= 10000),
                     f"{64 - grown:+.1f} MiB"])
    b = results.get("big_body")
    if b:
        for name in ("llmux", "llmux+log"):
            added = b["total"][name]["added_p50_us"]
            rows.append([f"{name} 1 MiB body added (p50)", f"{added:+.0f} us", "<= 1000 us",
                         _verdict(added <= 1000), f"{1000 - added:+.0f} us"])
    if "translate" in results:
        rows += translate.target_rows(results["translate"], _verdict)
    return rows


def targets_section(results):
    rows = targets(results)
    return "\n".join([
        "## Targets (margin > 0: room left; < 0: missed by that much)",
        "",
        table(["target", "measured", "limit", "result", "margin"], rows),
    ])


def render(results):
    parts = []
    for key, fn in (("throughput", throughput_section), ("low_load", low_load_section),
                    ("ttfb", ttfb_section), ("memory", memory_section),
                    ("big_body", big_body_section), ("translate", translate.section)):
        if key in results:
            parts.append(fn(results[key]))
    parts.append(targets_section(results))
    return "\n\n".join(parts)
