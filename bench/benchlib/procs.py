"""Starting and stopping the processes under test: the mock provider, llmux and nginx."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
LISTENING = re.compile(r"listening on \S*?:(\d+)")


class BenchError(RuntimeError):
    """The benchmark cannot go on (a process did not start, a tool is missing...)."""


class Service:
    """One started process (plus, for nginx, the worker processes it forks)."""

    def __init__(self, name, popen, port, workdir):
        self.name = name
        self.popen = popen
        self.port = port
        self.workdir = workdir

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def pids(self):
        """The main process and its children (nginx workers)."""
        pids = [self.popen.pid]
        try:
            with open(f"/proc/{self.popen.pid}/task/{self.popen.pid}/children") as f:
                pids.extend(int(p) for p in f.read().split())
        except OSError:
            pass
        return pids

    def rss_kib(self):
        """VmRSS of the process and its children, in KiB."""
        total = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                pass
        return total

    def cpu_seconds(self):
        """User + system CPU time of the process (all threads) and its children so far."""
        ticks = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                ticks += int(fields[11]) + int(fields[12])  # utime, stime
            except (OSError, IndexError, ValueError):
                pass
        return ticks / CLOCK_TICKS

    def alive(self):
        return self.popen.poll() is None

    def stop(self):
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def _wait_for_port(path, popen, name, timeout=15.0):
    """Waits for "listening on host:port" in a process's stdout file."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise BenchError(f"{name} exited with status {popen.returncode}; see {path} and stderr")
        try:
            with open(path) as f:
                match = LISTENING.search(f.read())
            if match:
                return int(match.group(1))
        except OSError:
            pass
        time.sleep(0.05)
    raise BenchError(f"{name} did not print its address within {timeout:.0f} s")


def _wait_for_connect(port, popen, name, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if popen.poll() is not None:
            raise BenchError(f"{name} exited with status {popen.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"{name} does not accept connections on port {port}")


def _spawn(args, workdir, name):
    os.makedirs(workdir, exist_ok=True)
    out = open(os.path.join(workdir, "stdout.txt"), "w")
    err = open(os.path.join(workdir, "stderr.txt"), "w")
    popen = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             cwd=workdir, start_new_session=True)
    out.close()
    err.close()
    return popen


def start_mock(llmux, workdir):
    popen = _spawn([llmux, "mock-provider", "--listen", "127.0.0.1:0", "--no-journal"],
                   workdir, "mock")
    port = _wait_for_port(os.path.join(workdir, "stdout.txt"), popen, "mock provider")
    return Service("mock", popen, port, workdir)


def chat_channel(mock_port):
    """An openai-chat channel on the mock serving gpt-4o-mini (YAML list item)."""
    return f"""  - name: mock
    protocol: openai-chat
    base_url: "http://127.0.0.1:{mock_port}"
    keys: [mock-key]
    models: [gpt-4o-mini]
"""


def mock_channel(mock_port):
    """The channels YAML of the gateway sections: the chat channel (gpt-4o-mini, which Anthropic
    clients reach translated) and an anthropic one (claude-sonnet-4-5, passthrough)."""
    return chat_channel(mock_port) + f"""  - name: mock-anthropic
    protocol: anthropic
    base_url: "http://127.0.0.1:{mock_port}"
    keys: [mock-key]
    models: [claude-sonnet-4-5]
"""


def start_llmux(llmux, workdir, name, mock_port, threads, access_log, request_log=True,
                channels=None, key_options="", extra=""):
    """llmux serve with one openai-chat channel on the mock; access_log: "off" or a file path.
    `channels` (YAML list items) replaces the mock channel; `key_options` is added to the gateway
    key's mapping (e.g. "strategy: sequential"); `extra` is top-level YAML, whole lines (e.g. "racing: {enabled: true}\n")."""
    os.makedirs(workdir, exist_ok=True)
    config = os.path.join(workdir, "llmux.yaml")
    key_extra = f", {key_options}" if key_options else ""
    with open(config, "w") as f:
        f.write(f"""listen: 127.0.0.1:0
gateway_keys: [{{name: bench, key: sk-bench{key_extra}}}]
log: {{access_log: "{access_log}", level: warn{"" if request_log else ", request_log: false"}}}
state_dir: "{os.path.join(workdir, 'state')}"
server: {{threads: {threads}}}
{extra}channels:
{channels if channels is not None else mock_channel(mock_port)}""")
    popen = _spawn([llmux, "serve", "--config", config], workdir, name)
    port = _wait_for_port(os.path.join(workdir, "stdout.txt"), popen, name)
    return Service(name, popen, port, workdir)


def run_json_tool(args, out, gateway, what):
    """Runs one of bench/tools against `gateway` (a Service) with `--json out` among `args`;
    returns (its JSON report, the finished process). The gateway must have survived it."""
    name = os.path.basename(args[0])
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(out):
        raise BenchError(f"{name} failed ({proc.returncode}): "
                         f"{proc.stdout[-1000:]}{proc.stderr[-2000:]}")
    with open(out) as f:
        result = json.load(f)
    if not gateway.alive():
        raise BenchError(f"llmux exited during {what}; see {gateway.workdir}")
    return result, proc


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NGINX_CONF = """# Plain reverse proxy to the mock provider: the fast baseline of bench/run.
{user}
worker_processes {workers};
worker_rlimit_nofile {nofile};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;

events {{
    worker_connections {connections};
}}

http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    keepalive_requests 1000000;
    keepalive_timeout 75s;

    upstream mock {{
        server 127.0.0.1:{mock_port};
        keepalive 128;
        keepalive_requests 1000000;
    }}

    server {{
        listen 127.0.0.1:{port} backlog=4096;
        client_max_body_size 64m;
        location / {{
            proxy_pass http://mock;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
        }}
    }}
}}
"""


def start_nginx(nginx, workdir, mock_port, workers, nofile):
    os.makedirs(workdir, exist_ok=True)
    port = free_port()
    user = ""
    if os.geteuid() == 0:
        # As root nginx would switch its workers to "nobody", who cannot use the temp dir.
        import pwd
        user = f"user {pwd.getpwuid(0).pw_name};"
    conf = os.path.join(workdir, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(user=user, workers=workers, nofile=nofile, dir=workdir,
                                  connections=min(nofile, 16384), mock_port=mock_port, port=port))
    popen = _spawn([nginx, "-p", workdir, "-c", conf, "-e", os.path.join(workdir, "error.log")],
                   workdir, "nginx")
    _wait_for_connect(port, popen, "nginx")
    return Service("nginx", popen, port, workdir)


def find_tool(name, candidates=()):
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    path = shutil.which(name)
    if path:
        return path
    for d in ("/usr/sbin", "/sbin", "/usr/local/sbin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    raise BenchError(f"{name} not found (Debian: apt-get install {name})")
