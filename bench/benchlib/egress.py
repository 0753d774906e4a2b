"""11. Egress through a CONNECT tunnel (docs/egress.md): what llmux adds to a request whose
upstream connection goes through a CONNECT proxy, against what nginx adds as a plain reverse
proxy. The proxy is an `llmux node` (a CONNECT tunnel for plain-http upstreams too), the
upstream the mock provider. Targets, one at a time and interleaved:

- direct: client -> mock;
- nginx: client -> nginx -> mock;
- tunnel: client -> node (CONNECT, opened once per connection, untimed) -> mock;
- llmux: client -> llmux -> mock;
- llmux+node: client -> llmux -> node (a pooled tunnel) -> mock.

llmux's added latency on the tunnelled path is llmux+node - tunnel; the target is that it is at
most nginx - direct."""

import os

from . import procs, sections, stats, wire
from .stats import fmt, fmt_signed, table

NODE_TOKEN = "bench-node-token-0123456789"
PAIRS = {"llmux+node": "tunnel", "llmux": "direct", "nginx": "direct"}
# Each of these serves only its own target, so its CPU time divided by its requests is its cost.
CPU_MEASURED = ("nginx", "llmux", "llmux+node")


def start_node(llmux, workdir, threads):
    os.makedirs(workdir, exist_ok=True)
    os.environ["LLMUX_BENCH_NODE_TOKEN"] = NODE_TOKEN
    popen = procs._spawn([llmux, "node", "--listen", "127.0.0.1:0", "--token-env",
                          "LLMUX_BENCH_NODE_TOKEN", "--threads", str(threads)], workdir, "node")
    port = procs._wait_for_port(os.path.join(workdir, "stdout.txt"), popen, "node")
    return procs.Service("node", popen, port, workdir)


class Tunnel:
    """The node, asked by the bench client for a CONNECT tunnel to the mock on each connection."""

    def __init__(self, node, mock):
        self.address = f"{node.address}>{mock.address}"


def run(llmux, client, nginx, plan, tmp, log, services, threads, nofile):
    """Starts its mock, node, nginx and gateways into `services`; returns the figures."""
    base = os.path.join(tmp, "egress")
    mock = services["mock-egress"] = procs.start_mock(llmux, os.path.join(base, "mock"))
    node = services["node-egress"] = start_node(llmux, os.path.join(base, "node"), threads)
    services["nginx-egress"] = procs.start_nginx(nginx, os.path.join(base, "nginx"), mock.port,
                                                 threads, nofile)
    services["llmux-egress"] = procs.start_llmux(llmux, os.path.join(base, "llmux"), "llmux",
                                                 mock.port, threads, "off", request_log=False)
    via_node = (f"proxies: [{{name: node, mode: node, url: 'http://{node.address}', "
                "token_env: LLMUX_BENCH_NODE_TOKEN}]\n")
    channel = procs.chat_channel(mock.port) + "    proxy: node\n"
    services["llmux+node"] = procs.start_llmux(llmux, os.path.join(base, "llmux-node"),
                                               "llmux+node", None, threads, "off",
                                               request_log=False, channels=channel, extra=via_node)
    targets = {"direct": mock, "nginx": services["nginx-egress"], "tunnel": Tunnel(node, mock),
               "llmux": services["llmux-egress"], "llmux+node": services["llmux+node"]}
    ctx = sections.Context(client, None, targets, {"mock": mock}, tmp, plan, log)
    extra = ["--tunnel-authorization", f"Bearer {NODE_TOKEN}"]
    path = wire.write_request(os.path.join(tmp, "egress-small.http"), wire.small_body())
    blocks = []
    cpu = {name: 0.0 for name in CPU_MEASURED}
    served = {name: 0 for name in CPU_MEASURED}
    for i in range(plan.egress_blocks):
        before = {name: targets[name].cpu_seconds() for name in CPU_MEASURED}
        per_target = sections.rounds(ctx, path, plan.egress_rounds, 100, seed=i + 1,
                                     extra_args=extra)
        for name in CPU_MEASURED:
            cpu[name] += targets[name].cpu_seconds() - before[name]
            served[name] += len(per_target[name]["total_us"]) + per_target[name]["errors"] + 100
        block = {}
        for name, base_name in PAIRS.items():
            p50 = stats.percentile(per_target[name]["total_us"], 50)
            p99 = stats.percentile(per_target[name]["total_us"], 99)
            b50 = stats.percentile(per_target[base_name]["total_us"], 50)
            b99 = stats.percentile(per_target[base_name]["total_us"], 99)
            block[name] = {"p50_us": p50, "p99_us": p99, "added_p50_us": p50 - b50,
                           "added_p99_us": p99 - b99, "errors": per_target[name]["errors"]}
        for name in ("direct", "tunnel"):
            block[name] = {"p50_us": stats.percentile(per_target[name]["total_us"], 50),
                           "p99_us": stats.percentile(per_target[name]["total_us"], 99),
                           "errors": per_target[name]["errors"]}
        blocks.append(block)
        log(f"  block {i + 1}/{plan.egress_blocks}: added p50 llmux+node "
            f"{block['llmux+node']['added_p50_us']:+.1f} us, nginx {block['nginx']['added_p50_us']:+.1f} us")
    for name in list(services):
        if name.endswith("-egress") or name == "llmux+node":
            services.pop(name).stop()
    out = {"blocks": plan.egress_blocks, "rounds": plan.egress_rounds, "targets": {}}
    for name in ("direct", "nginx", "tunnel", "llmux", "llmux+node"):
        keys = blocks[0][name].keys()
        out["targets"][name] = {k: stats.median(b[name][k] for b in blocks) for k in keys
                                if k != "errors"}
        out["targets"][name]["errors"] = sum(b[name]["errors"] for b in blocks)
    for name in CPU_MEASURED:
        out["targets"][name]["cpu_us"] = cpu[name] / served[name] * 1e6 if served[name] else None
    for q in ("p50", "p99"):
        out[f"margin_{q}_per_block"] = [b["nginx"][f"added_{q}_us"] - b["llmux+node"][f"added_{q}_us"]
                                        for b in blocks]
        out[f"margin_{q}_us"] = stats.median(out[f"margin_{q}_per_block"])
    out["tunnel_cost_per_block"] = [b["llmux+node"]["added_p50_us"] - b["llmux"]["added_p50_us"]
                                    for b in blocks]
    out["tunnel_cost_us"] = stats.median(out["tunnel_cost_per_block"])
    return out


def section(r):
    rows = []
    for name in ("direct", "nginx", "tunnel", "llmux", "llmux+node"):
        t = r["targets"][name]
        base = PAIRS.get(name)
        rows.append([name, base or "-", fmt(t["p50_us"], 1), fmt(t["p99_us"], 1),
                     fmt_signed(t.get("added_p50_us"), 1) if base else "-",
                     fmt_signed(t.get("added_p99_us"), 1) if base else "-",
                     fmt(t["cpu_us"], 1) if t.get("cpu_us") is not None else "-", str(t["errors"])])
    m50 = r["margin_p50_us"]
    verdict = "PASS" if m50 is not None and m50 >= 0 else "MISS"
    return "\n".join([
        "## 11. Egress: a request through a CONNECT tunnel",
        "",
        "One at a time, every target interleaved, "
        f"{r['blocks']} blocks of {r['rounds']} rounds (the small chat request, non-stream; time "
        "to the complete answer). tunnel = the client itself through an `llmux node` CONNECT "
        "tunnel (opened once per connection, not timed); llmux+node = llmux with its channel "
        "bound to that node (a pooled tunnel). Added = the target - its base in the same block, "
        "the median over blocks.",
        "",
        table(["target", "base", "p50 us", "p99 us", "added p50", "added p99", "proxy CPU us/req",
               "errors"], rows),
        "",
        "proxy CPU us/req: user + system CPU time of that proxy process over all blocks divided by "
        "the requests it served (warm-up included): what the tunnel costs llmux itself, apart "
        "from the extra process hop that a 2-core machine schedules.",
        "",
        f"Judged: llmux's added p50 on the tunnelled path (llmux+node - tunnel) against nginx's "
        f"(nginx - direct), per block: margins "
        + " ".join(fmt_signed(x, 1) for x in r["margin_p50_per_block"])
        + f" us; the median margin {fmt_signed(m50, 1)} us: **{verdict}** (p99 margin "
        f"{fmt_signed(r['margin_p99_us'], 1)} us, printed, not judged).",
        "",
        "The tunnel's own cost inside llmux, (llmux+node - tunnel) - (llmux - direct), per block: "
        + " ".join(fmt_signed(x, 1) for x in r["tunnel_cost_per_block"])
        + f" us; median {fmt_signed(r['tunnel_cost_us'], 1)} us. A miss above with a cost here "
        "near zero is llmux's gap to nginx on every request (section 2), not the tunnel's.",
    ])
