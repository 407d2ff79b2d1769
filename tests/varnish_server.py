"""A real Varnish (Debian's varnishd with varnish-modules' xkey) in front of a server the test
started, with the VCL biji ships (config/varnish/biji.vcl): ``scripts/install-edge.sh`` installs
it (``make test`` does, through ``make system-deps``)."""

import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.processes import ROOT
from tests.redis_server import free_port

VCL = ROOT / "config" / "varnish" / "biji.vcl"


def available():
    return shutil.which("varnishd") is not None


class Varnish:
    """``varnishd -F`` on a free port, caching ``backend_port``; stopped by :meth:`stop`."""

    def __init__(self, backend_port):
        self.folder = Path(tempfile.mkdtemp(prefix="biji-varnish-"))
        self.port = free_port()
        vcl = VCL.read_text().replace("BACKEND_HOST", "127.0.0.1")
        (self.folder / "biji.vcl").write_text(vcl.replace("BACKEND_PORT", str(backend_port)))
        self.process = subprocess.Popen(
            ["varnishd", "-F", "-n", str(self.folder / "work"), "-f", str(self.folder / "biji.vcl")]
            + ["-a", f"127.0.0.1:{self.port}", "-s", "malloc,64m", "-j", "none"]
            + ["-p", "default_grace=0", "-p", "default_keep=0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self._wait_until_listening()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/"

    def _wait_until_listening(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"varnishd stopped: {self.process.stderr.read().decode()}")
            request = urllib.request.Request(self.url, method="PURGE")  # noqa: S310 (local)
            try:
                urllib.request.urlopen(request, timeout=2)  # noqa: S310 (a local URL)
            except urllib.error.HTTPError:
                return  # 400: no keys named, but Varnish answered
            except OSError:
                time.sleep(0.1)
                continue
            return
        self.stop()
        raise RuntimeError("varnishd did not start listening")

    def get(self, path, headers=None):
        """(status, headers, body) of a GET through Varnish."""
        url = self.url.rstrip("/") + path
        request = urllib.request.Request(url, headers=headers or {})  # noqa: S310 (local)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (local)
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)
