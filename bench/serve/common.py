"""Shared by the bench/serve scripts: start `tritonrl serve` on a free port and talk to it with the
standard library only."""
import json
import os
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def bench_dirs():
    """(folder of the tritonrl binary: $BIN or build/, output folder: $OUT or a new one, created,
    a new scratch folder) of one benchmark run."""
    bin_dir = os.environ.get("BIN", os.path.join(ROOT, "build"))
    out = os.environ.get("OUT") or tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    return bin_dir, out, tempfile.mkdtemp()


class Server:
    def __init__(self, bin_dir, state, args, log_path):
        os.makedirs(state, exist_ok=True)
        self.port_file = os.path.join(state, "port")
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.log = open(log_path, "ab")
        cmd = [os.path.join(bin_dir, "tritonrl"), "serve", "--port", "0", "--port-file", self.port_file,
               "--state-dir", state, *args]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        deadline = time.time() + 600
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("tritonrl serve did not start; see " + log_path)
            time.sleep(0.2)
        with open(self.port_file) as f:
            self.url = "http://127.0.0.1:%d" % int(f.read())

    def post(self, path, body, timeout=3600):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.load(resp)

    def get(self, path, timeout=3600):
        with urllib.request.urlopen(self.url + path, timeout=timeout) as resp:
            body = resp.read().decode()
            return json.loads(body) if resp.headers.get_content_type() == "application/json" else body

    def stop(self):
        self.proc.terminate()
        rc = self.proc.wait(timeout=600)
        self.log.close()
        return rc
