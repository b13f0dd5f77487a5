"""A real Ray cluster on this machine: a head node and worker nodes started with ``ray start``,
each its own raylet with its own CPU count, as on a cluster of machines (the nodes share this
machine's file system, as a cluster shares a network file system).

Used by tests/test_ray.py and bench/ray_bench.py. Each node runs ``ray start --block`` as a child
process of this one, so stopping the cluster is ending those processes by their ids (each takes
its node's processes with it), never ``ray stop``, which would end every Ray on the machine.
Everything listens on the loopback interface, and the head's cloud-metadata probes go to a
closed loopback port (see LOOPBACK_ONLY).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOOPBACK_ONLY = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # node addresses on loopback
    "RAY_USAGE_STATS_ENABLED": "0",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "no_proxy": "127.0.0.1,localhost,::1",
    "NO_PROXY": "127.0.0.1,localhost,::1",
    "PYTHONPATH": str(ROOT),  # every node's workers import chunker from this checkout
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """``Cluster(cpus=(1, 1))``: a head node of 1 CPU and a worker node of 1 CPU, started by
    `start` and ended by `stop`. `address` is the GCS (``ray.init(address=...)``),
    `dashboard` the job server's URL (``ray job submit --address ...``)."""

    def __init__(self, cpus: tuple[int, ...] = (1, 1), *, dashboard: bool = True, object_store_mb: int = 150) -> None:
        self.cpus = cpus
        self.with_dashboard = dashboard
        self.object_store = object_store_mb * 2**20
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.dashboard_port = free_port()
        self.dashboard = f"http://127.0.0.1:{self.dashboard_port}"
        # A short folder: Ray's socket paths must fit in 107 bytes.
        self.temp_dir = tempfile.mkdtemp(prefix="ray")
        # Ray 2.60 turns token authentication on at `ray start` when it finds a token (such as
        # the ~/.ray/auth_token a local `ray.init()` writes), and a driver or `ray job submit`
        # whose process read its mode before then fails. The mode is set outright, the same for
        # every node and client, so no file of the machine decides: off, on a cluster that
        # listens on the loopback interface only.
        self.auth = {"RAY_AUTH_MODE": "disabled"}
        # A cluster of several nodes needs Ray's cluster mode on (the variable's 0 is "one node
        # only"); every node is given 127.0.0.1 as its address instead.
        self.auth["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "1"
        self.env = {**os.environ, **LOOPBACK_ONLY, **self.auth}
        # A node told to stop (SIGTERM) first asks the head to drain it, for up to 30 s; the
        # nodes stop together, the head with them, so each waited the 30 s out for nothing
        # (34 s of every test module's teardown). A cluster thrown away has nothing to drain.
        self.env["RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S"] = "0"
        # A job's `python` is the nodes' Python, as on a cluster whose nodes run in one
        # environment (this one's, activated).
        self.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        self.nodes: list[subprocess.Popen[bytes]] = []
        self.logs: list[Path] = []

    def _ray(self, *args: str, log: str) -> subprocess.Popen[bytes]:
        path = Path(self.temp_dir) / log
        self.logs.append(path)
        with open(path, "wb") as out:
            ray = Path(sys.executable).with_name("ray")
            return subprocess.Popen([str(ray), *args], env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self, timeout: float = 240) -> Cluster:
        common = [
            "--block",
            "--node-ip-address",
            "127.0.0.1",
            "--object-store-memory",
            str(self.object_store),
            "--disable-usage-stats",
        ]
        head = ["start", "--head", "--port", str(self.port), "--num-cpus", str(self.cpus[0]), "--temp-dir", self.temp_dir]
        if self.with_dashboard:
            head += ["--include-dashboard", "true", "--dashboard-host", "127.0.0.1", "--dashboard-port", str(self.dashboard_port)]
        else:
            head += ["--include-dashboard", "false"]
        self.nodes.append(self._ray(*head, *common, log="head.log"))
        self._wait(1, timeout)
        for k, n in enumerate(self.cpus[1:], 1):
            # A folder of its own, as each machine of a cluster has: nodes sharing one would
            # share the folders a job's working directory is unpacked into, and one node's
            # unpacking or clean-up would pull files from under the other's tasks.
            own = Path(self.temp_dir) / f"n{k}"
            worker = ["start", "--address", self.address, "--num-cpus", str(n), "--temp-dir", str(own)]
            self.nodes.append(self._ray(*worker, *common, log=f"worker{k}.log"))
        self._wait(len(self.cpus), timeout)
        return self

    def _wait(self, nodes: int, timeout: float) -> None:
        """Until `nodes` nodes are alive, as a driver of another process sees them (this one
        connects only once the cluster is whole). The newest node's `ray start` says first when
        its node runs; only then is a driver started to count them (a driver costs seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_running()
            if _STARTED in self.logs[-1].read_bytes():
                break
            time.sleep(0.2)
        while time.monotonic() < deadline:
            self._check_running()
            done = subprocess.run(
                [sys.executable, "-c", _COUNT, self.address], env=self.env, capture_output=True, text=True, timeout=120
            )
            if done.returncode == 0 and done.stdout.strip() == str(nodes):
                return
            time.sleep(0.5)
        raise RuntimeError(f"the cluster did not have {nodes} nodes within {timeout:.0f} s: {self.tail()}")

    def _check_running(self) -> None:
        for p in self.nodes:
            if p.poll() is not None:
                raise RuntimeError(f"ray start ended ({p.returncode}): {self.tail()}")

    def tail(self) -> str:
        return " | ".join(p.read_text(errors="replace")[-600:] for p in self.logs if p.exists())

    def stop(self) -> None:
        """End every node (its ``ray start --block`` ends its processes), the workers first."""
        for p in reversed(self.nodes):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)  # the node's own session: its processes only
        for p in reversed(self.nodes):
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
        self.nodes.clear()
        shutil.rmtree(self.temp_dir, ignore_errors=True)  # the nodes' sessions, logs and spilled objects

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_STARTED = b"Ray runtime started."
"""What `ray start` prints once its node runs."""

# Asked in a subprocess, a driver of its own: how many nodes are alive.
_COUNT = """
import logging, sys, warnings
warnings.simplefilter("ignore")
import ray
ray.init(address=sys.argv[1], logging_level=logging.ERROR, log_to_driver=False)
print(sum(1 for n in ray.nodes() if n["Alive"]))
"""
