"""The five measurements. Each returns plain dicts that report.py turns into tables."""

import json
import os
import subprocess
import time

from . import stats, wire, wrk
from .procs import BenchError


class Context:
    """What every measurement needs: tools, targets, scratch dir and the run's sizes."""

    def __init__(self, client, wrk_path, targets, services, tmp, plan, log):
        self.client = client
        self.wrk = wrk_path
        self.targets = targets      # name -> Service, in report order (direct first)
        self.services = services    # role -> Service (mock, nginx, llmux, llmux+log)
        self.tmp = tmp
        self.plan = plan            # sizes of this run (full or quick), see bench/run
        self.log = log


# The first content of the mock's Chat stream for the small body: its first text delta is
# "You said: ..."; the role chunk before it has "content":"" (src/mock/chat_mock.cpp).
CONTENT_MARKER = "You said"


def rounds(ctx, request_file, count, warmup, rate=0.0, names=None, seed=1, content_marker=None,
           timeout_ms=None, extra_args=()):
    """Runs llmux-bench-client rounds; returns {name: report} with the raw samples (with
    `content_marker`, also first_content_us and content_missing). `timeout_ms` replaces the
    client's per-exchange timeout (10 s); `extra_args` go to the client as they are."""
    names = names or list(ctx.targets)
    args = [ctx.client, "rounds", "--request", request_file, "--rounds", str(count),
            "--warmup", str(warmup), "--seed", str(seed)]
    if timeout_ms:
        args += ["--timeout-ms", str(timeout_ms)]
    if rate:
        args += ["--rate", str(rate)]
    if content_marker:
        args += ["--content-marker", content_marker]
    for name in names:
        args += ["--target", f"{name}={ctx.targets[name].address}"]
    args += list(extra_args)
    proc = subprocess.run(args, capture_output=True, text=True)
    if not proc.stdout.strip():
        raise BenchError(f"llmux-bench-client rounds failed: {proc.stderr}")
    report = json.loads(proc.stdout)
    out = {}
    for t in report["targets"]:
        out[t["name"]] = t
        if t["errors"]:
            ctx.log(f"  warning: {t['name']}: {t['errors']} failed exchanges {t['error_kinds']}")
        if t.get("content_missing"):
            ctx.log(f"  warning: {t['name']}: {t['content_missing']} answers without "
                    f"{content_marker!r}")
    return out


def check_targets(ctx):
    """Every target answers the small and the streaming request with 200 before anything runs."""
    checks = (("chat", wire.small_body(), None, None),
              ("stream", wire.small_body(stream=True), {"x-mock-chunk-delay": "1"},
               CONTENT_MARKER))
    for label, body, extra, marker in checks:
        path = wire.write_request(os.path.join(ctx.tmp, f"check-{label}.http"), body, extra)
        result = rounds(ctx, path, 3, 0, content_marker=marker)
        for name, t in result.items():
            if t["ok"] != 3:
                raise BenchError(f"{name} does not answer the {label} request: {t['statuses']} "
                                 f"{t['error_kinds']}")
            if marker and t["content_missing"]:
                raise BenchError(f"{name}: the {label} answer does not contain {marker!r}, the "
                                 "first content the time to first content looks for")


# 1. Throughput ------------------------------------------------------------------------------

def wrk_with_cpu(ctx, script, name, conns):
    """One wrk run against target `name`; adds cpu_us and mock_cpu_us, the CPU time (user +
    system) the target and the mock spent per request served during the run."""
    service, mock = ctx.targets[name], ctx.services["mock"]
    cpu0 = (service.cpu_seconds(), mock.cpu_seconds())
    r = wrk.run(ctx.wrk, script, service.url, conns, ctx.plan.wrk_seconds)
    cpu1 = (service.cpu_seconds(), mock.cpu_seconds())
    if r["requests"]:
        r["cpu_us"] = (cpu1[0] - cpu0[0]) / r["requests"] * 1e6
        r["mock_cpu_us"] = (cpu1[1] - cpu0[1]) / r["requests"] * 1e6
    return r


# The Anthropic Messages workloads, at the highest connection count only: passthrough (nginx and
# both gateways) and translated to the OpenAI Chat channel (the gateways; nginx cannot translate,
# so its passthrough figure is the reference).
ANTHROPIC_WORKLOADS = (("anthropic", "Anthropic Messages, passthrough", wire.ANTHROPIC_MODEL,
                        ("nginx", "llmux", "llmux+log")),
                       ("translated", "Anthropic Messages -> OpenAI Chat upstream, translated",
                        wire.MODEL, ("llmux", "llmux+log")))


def _median_runs(by_name):
    out = {}
    for name, rs in by_name.items():
        out[name] = {
            "rps": stats.median(r["rps"] for r in rs),
            "p50_us": stats.median(r["p50_us"] for r in rs),
            "p99_us": stats.median(r["p99_us"] for r in rs),
            "cpu_us": stats.median(r.get("cpu_us") for r in rs),
            "mock_cpu_us": stats.median(r.get("mock_cpu_us") for r in rs),
            "errors": sum(r["errors"] + r["non2xx"] for r in rs),
            "runs": [round(r["rps"]) for r in rs],
        }
    return out


def throughput(ctx):
    script = wrk.write_script(os.path.join(ctx.tmp, "post.lua"), wire.small_body())
    names = list(ctx.targets)
    for name in names:  # warm up connection pools and allocators
        wrk.run(ctx.wrk, script, ctx.targets[name].url, 64, 1)
    top = max(ctx.plan.connections)
    messages = {}
    for key, _, model, targets in ANTHROPIC_WORKLOADS:
        path = wrk.write_script(os.path.join(ctx.tmp, f"{key}.lua"), wire.anthropic_body(model),
                                url_path=wire.ANTHROPIC_PATH, all_headers=wire.anthropic_headers())
        messages[key] = (path, targets, {n: [] for n in targets})
        for name in targets:
            wrk.run(ctx.wrk, path, ctx.targets[name].url, top, 1)
    runs = {c: {n: [] for n in names} for c in ctx.plan.connections}
    for rep in range(ctx.plan.repetitions):
        for conns in ctx.plan.connections:
            order = names[rep % len(names):] + names[:rep % len(names)]  # rotate the order
            for name in order:
                runs[conns][name].append(wrk_with_cpu(ctx, script, name, conns))
            ctx.log(f"  rep {rep + 1}/{ctx.plan.repetitions} c={conns}: " + ", ".join(
                f"{n} {runs[conns][n][-1]['rps']:,.0f}/s" for n in names))
        for key, (path, targets, by_name) in messages.items():
            order = targets[rep % len(targets):] + targets[:rep % len(targets)]
            for name in order:
                by_name[name].append(wrk_with_cpu(ctx, path, name, top))
            ctx.log(f"  rep {rep + 1}/{ctx.plan.repetitions} {key} c={top}: " + ", ".join(
                f"{n} {by_name[n][-1]['rps']:,.0f}/s" for n in targets))
    result = {conns: _median_runs(by_name) for conns, by_name in runs.items()}
    workloads = {key: {"label": label, "connections": top,
                       "body_bytes": len(wire.anthropic_body(model)),
                       "by_target": _median_runs(messages[key][2])}
                 for key, label, model, _ in ANTHROPIC_WORKLOADS}
    return {"body_bytes": len(wire.small_body()), "seconds": ctx.plan.wrk_seconds,
            "repetitions": ctx.plan.repetitions, "by_connections": result,
            "messages": workloads}


# 2. Added latency at low load ----------------------------------------------------------------

def added(per_target, field, base="direct"):
    """p50/p99 per target and their difference to the base target's."""
    base_samples = per_target[base][field]
    b50, b99 = stats.percentile(base_samples, 50), stats.percentile(base_samples, 99)
    out = {}
    for name, t in per_target.items():
        s = t[field]
        p50, p99 = stats.percentile(s, 50), stats.percentile(s, 99)
        out[name] = {"n": len(s), "p50_us": p50, "p99_us": p99, "errors": t["errors"],
                     "added_p50_us": stats.diff(p50, b50), "added_p99_us": stats.diff(p99, b99)}
    return out


def median_of_blocks(blocks):
    names = blocks[0].keys()
    out = {}
    for name in names:
        out[name] = {k: stats.median(b[name][k] for b in blocks)
                     for k in ("p50_us", "p99_us", "added_p50_us", "added_p99_us")}
        out[name]["n"] = sum(b[name]["n"] for b in blocks)
        out[name]["errors"] = sum(b[name]["errors"] for b in blocks)
    return out


def low_load(ctx):
    path = wire.write_request(os.path.join(ctx.tmp, "small.http"), wire.small_body())
    blocks = []
    for i in range(ctx.plan.latency_blocks):
        per_target = rounds(ctx, path, ctx.plan.latency_rounds, 100, seed=i + 1)
        blocks.append(added(per_target, "total_us"))
    ctx.log(f"  one at a time: {ctx.plan.latency_blocks} blocks of {ctx.plan.latency_rounds} "
            "rounds")
    paced = added(rounds(ctx, path, ctx.plan.paced_rounds, 20, rate=50.0, seed=99), "total_us")
    ctx.log(f"  50 req/s per target: {ctx.plan.paced_rounds} rounds")
    return {"sequential": median_of_blocks(blocks), "paced": paced,
            "blocks": ctx.plan.latency_blocks, "rounds": ctx.plan.latency_rounds,
            "paced_rounds": ctx.plan.paced_rounds}


# 3. Time to first byte on a stream -----------------------------------------------------------

def ttfb(ctx):
    delay = ctx.plan.chunk_delay_ms
    path = wire.write_request(os.path.join(ctx.tmp, "stream.http"), wire.small_body(stream=True),
                              {"x-mock-chunk-delay": str(delay)})
    per_target = rounds(ctx, path, ctx.plan.ttfb_rounds, 10, seed=7,
                        content_marker=CONTENT_MARKER)
    return {"chunk_delay_ms": delay, "rounds": ctx.plan.ttfb_rounds,
            "content_marker": CONTENT_MARKER,
            "content_missing": {n: t["content_missing"] for n, t in per_target.items()},
            "first_content": added(per_target, "first_content_us"),
            "first_body": added(per_target, "first_body_us"),
            "head": added(per_target, "head_us"),
            "complete": added(per_target, "total_us")}


# 4. Memory per open stream -------------------------------------------------------------------

def _hold(ctx, service, request_file, connections, idle=False):
    """Opens `connections` streams through `service` (with `idle`: connections that got their
    whole answer and stay open, keep-alive); returns before/during/after RSS."""
    time.sleep(1.0)
    before = service.rss_kib()
    proc = subprocess.Popen([ctx.client, "hold", "--target", service.address, "--request",
                             request_file, "--connections", str(connections)] +
                            (["--idle"] if idle else []),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline().split()
        if len(line) != 4 or line[0] != "ready":
            raise BenchError(f"hold helper failed: {line} {proc.stderr.read()}")
        opened, failed, ms = int(line[1]), int(line[2]), float(line[3])
        time.sleep(1.5)  # let late allocations settle
        during = []
        for _ in range(3):
            during.append(service.rss_kib())
            time.sleep(0.3)
        proc.stdin.write("close\n")
        proc.stdin.flush()
        closed = proc.stdout.readline().split()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    errors = proc.stderr.read().strip()
    time.sleep(2.0)
    after = service.rss_kib()
    peak = max(during)
    per = (peak - before) / opened if opened else None
    return {"connections": connections, "open": opened, "failed": failed, "open_ms": ms,
            "before_kib": before, "during_kib": peak, "after_kib": after,
            "kib_per_stream": per, "errors": errors, "still_open_at_close": closed[1:]}


def memory(ctx):
    # The mock sends the head, the role chunk and one content event, then nothing for hold_ms:
    # every proxy has passed its commit point and holds a stream in the middle of its content.
    path = wire.write_request(os.path.join(ctx.tmp, "hold.http"), wire.small_body(stream=True),
                              {"x-mock-fault": f"stall={ctx.plan.hold_ms}"})
    out = {}
    for name in ("llmux", "nginx"):
        out[name] = _hold(ctx, ctx.targets[name], path, ctx.plan.streams)
        r = out[name]
        ctx.log(f"  {name}: {r['open']} open streams, "
                f"RSS {r['before_kib']} -> {r['during_kib']} KiB")
        if r["errors"]:
            ctx.log("  " + r["errors"].replace("\n", "\n  "))
    # Idle keep-alive clients: each got one answer and keeps its connection open. Through the
    # gateway with both logs (the default set-up).
    idle_path = wire.write_request(os.path.join(ctx.tmp, "idle.http"), wire.small_body())
    for name in ("llmux+log", "nginx"):
        r = _hold(ctx, ctx.targets[name], idle_path, ctx.plan.idle_connections, idle=True)
        out[f"{name} idle"] = r
        ctx.log(f"  {name}: {r['open']} idle keep-alive connections, "
                f"RSS {r['before_kib']} -> {r['during_kib']} KiB")
        if r["errors"]:
            ctx.log("  " + r["errors"].replace("\n", "\n  "))
    return out


# 5. A 1 MiB request body ---------------------------------------------------------------------

def big_body(ctx):
    body = wire.big_body()
    path = wire.write_request(os.path.join(ctx.tmp, "big.http"), body)
    per_target = rounds(ctx, path, ctx.plan.big_rounds, 5, seed=5)
    return {"body_bytes": len(body), "rounds": ctx.plan.big_rounds,
            "total": added(per_target, "total_us")}
