"""12. The request log's store (docs/operations.md): throughput and CPU per request of the same
gateway with no request log, with the SQLite request log (the default) and with the request log in
PostgreSQL (`database:`), at 64 connections, interleaved. The access log is off in all three: the
figure is the store's. PostgreSQL is a private cluster started for the run (initdb + pg_ctl, as the
`postgres` user when run as root: PostgreSQL refuses root), with its default durability."""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import urllib.request

from . import procs, sections, stats, wire, wrk
from .stats import fmt, table

TARGETS = ("off", "sqlite", "postgres")


class Postgres:
    """A private PostgreSQL cluster in a directory of its own (the `postgres` user cannot enter
    the run's scratch directory) on a free loopback port; stop() removes it."""

    def __init__(self):
        self.bin = self._bin_dir()
        workdir = tempfile.mkdtemp(prefix="llmux-bench-pg-")
        self.dir = workdir
        self.port = procs.free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            user = pwd.getpwnam("postgres")
            os.chown(workdir, user.pw_uid, user.pw_gid)
        data = os.path.join(workdir, "data")
        self._run(["initdb", "-D", data, "-U", "llmux", "--auth=trust", "-E", "UTF8", "--no-sync",
                   "--no-instructions"])
        options = f"-p {self.port} -k {workdir} -c listen_addresses=127.0.0.1"
        self._run(["pg_ctl", "-D", data, "-o", options, "-l", os.path.join(workdir, "log"), "-w",
                   "start"])
        self.url = f"postgres://llmux@127.0.0.1:{self.port}/postgres"

    @staticmethod
    def _bin_dir():
        versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        for directory in reversed(versions):
            if os.access(os.path.join(directory, "pg_ctl"), os.X_OK):
                return directory
        pg_ctl = shutil.which("pg_ctl")
        if pg_ctl:
            return os.path.dirname(pg_ctl)
        raise procs.BenchError("initdb and pg_ctl not found: apt-get install postgresql")

    def _run(self, argv):
        argv = [os.path.join(self.bin, argv[0])] + argv[1:]
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        proc = subprocess.run(argv, cwd=self.dir, capture_output=True, text=True)
        if proc.returncode != 0:
            raise procs.BenchError(f"{' '.join(argv)} failed: {proc.stdout}{proc.stderr}")

    def stop(self):
        try:
            self._run(["pg_ctl", "-D", os.path.join(self.dir, "data"), "-m", "fast", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def metric(service, name):
    """A metric's value (no labels, or the request_log one) from the gateway's /metrics."""
    with urllib.request.urlopen(f"{service.url}/metrics", timeout=5) as response:
        text = response.read().decode()
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + '{sink="request_log"} ') or \
                line.startswith(name + '{store="request_log"} '):
            return float(line.split()[-1])
    return None


def run(llmux, wrk_path, plan, tmp, log, services, threads):
    """Starts its mock, PostgreSQL and gateways into `services`; returns the figures."""
    base = os.path.join(tmp, "store")
    mock = services["mock-store"] = procs.start_mock(llmux, os.path.join(base, "mock"))
    postgres = Postgres()
    try:
        gateways = {
            "off": procs.start_llmux(llmux, os.path.join(base, "off"), "off", mock.port, threads,
                                     "off", request_log=False),
            "sqlite": procs.start_llmux(llmux, os.path.join(base, "sqlite"), "sqlite", mock.port,
                                        threads, "off"),
            "postgres": procs.start_llmux(llmux, os.path.join(base, "postgres-gw"), "postgres",
                                          mock.port, threads, "off",
                                          extra=f"database: {{url: '{postgres.url}'}}\n"),
        }
        services.update({f"store-{name}": service for name, service in gateways.items()})
        ctx = sections.Context(None, wrk_path, gateways, {"mock": mock}, tmp, plan, log)
        script = wrk.write_script(os.path.join(tmp, "store-post.lua"), wire.small_body())
        for name in TARGETS:  # warm-up: pools, allocators, the stores' first batches
            wrk.run(wrk_path, script, gateways[name].url, 64, 1)
        runs = {name: [] for name in TARGETS}
        for rep in range(plan.store_repetitions):
            order = TARGETS[rep % 3:] + TARGETS[:rep % 3]
            for name in order:
                runs[name].append(sections.wrk_with_cpu(ctx, script, name, 64))
            log(f"  rep {rep + 1}/{plan.store_repetitions}: " +
                ", ".join(f"{n} {runs[n][-1]['rps']:,.0f}/s" for n in TARGETS))
        out = {"repetitions": plan.store_repetitions, "seconds": plan.wrk_seconds, "targets": {}}
        for name in TARGETS:
            rs = runs[name]
            out["targets"][name] = {
                "rps": stats.median(r["rps"] for r in rs),
                "p99_us": stats.median(r["p99_us"] for r in rs),
                "cpu_us": stats.median(r.get("cpu_us") for r in rs),
                "errors": sum(r["errors"] + r["non2xx"] for r in rs),
                "runs": [round(r["rps"]) for r in rs],
            }
        for name in ("sqlite", "postgres"):
            service = gateways[name]
            out["targets"][name]["written"] = metric(service, "llmux_request_log_records_written_total")
            out["targets"][name]["dropped"] = metric(service, "llmux_log_records_dropped_total")
        for name in TARGETS:
            services.pop(f"store-{name}").stop()
        services.pop("mock-store").stop()
    finally:
        postgres.stop()
    return out


def section(r):
    off = r["targets"]["off"]
    rows = []
    for name in TARGETS:
        t = r["targets"][name]
        ratio = t["rps"] / off["rps"] if off["rps"] else None
        rows.append([name, f"{t['rps']:,.0f}", f"{ratio:.2f}x" if ratio else "-",
                     fmt(t["cpu_us"], 1), fmt(t["p99_us"], 0),
                     "-" if name == "off" else f"{t['written']:,.0f}" if t["written"] is not None else "?",
                     "-" if name == "off" else f"{t['dropped']:,.0f}" if t["dropped"] is not None else "?",
                     str(t["errors"]), " ".join(f"{x:,}" for x in t["runs"])])
    return "\n".join([
        "## 12. The request log's store: none, SQLite, PostgreSQL",
        "",
        f"wrk at 64 connections, the small non-stream POST, {r['repetitions']} x {r['seconds']} s "
        "per target, the order rotating; the median run. The access log is off in all three. "
        "written / dropped: the gateway's request-log counters at the end (warm-up included).",
        "",
        table(["request log", "req/s", "vs off", "CPU us/req", "p99 us", "written", "dropped",
               "errors", "runs (req/s)"], rows),
    ])

