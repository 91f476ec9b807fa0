"""The bfcl-eval peer: setting up its venv and running ``_peer_bfcl.py`` in it."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

from _report import log

REPO = Path(__file__).resolve().parent.parent
PEER_SCRIPT = Path(__file__).resolve().parent / "_peer_bfcl.py"
DEFAULT_PEER_VENV = REPO / ".cache" / "bench-peer-venv"
BFCL_REQUIREMENT = "bfcl-eval==2026.3.23"
# bfcl-eval's own pin of the one dependency its backends need beyond the standard library
# (MathAPI imports mpmath; bench/fidelity_bfcl.py runs it)
PEER_EXTRAS = ("mpmath==1.3.0",)
SETUP_COMMAND = ".venv/bin/python bench/runtime.py --setup-peer"


def peer_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def setup_peer(venv: Path) -> int:
    """Create the peer venv: bfcl-eval without its (heavy) dependencies (but mpmath, which its
    MathAPI backend imports); then check its path."""
    python = peer_python(venv)
    if not python.exists():
        log(f"creating {venv}")
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    log(f"installing {BFCL_REQUIREMENT} {' '.join(PEER_EXTRAS)} --no-deps into {venv}")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--no-deps", BFCL_REQUIREMENT, *PEER_EXTRAS], check=True)
    done = subprocess.run([str(python), str(PEER_SCRIPT), "--check"], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        log(f"peer check failed:\n{done.stderr}")
        return 1
    log(f"peer ready: {done.stdout.strip()}")
    return 0


def run_peer(venv: Path, *, runs: int, min_time: float, samples: int, mem_n: int,
             tickets: int, scaled_tickets: int) -> dict[str, Any]:
    python = peer_python(venv)
    if not python.exists():
        return {"available": False, "reason": f"peer venv {venv} not found",
                "setup": SETUP_COMMAND}
    command = [str(python), str(PEER_SCRIPT), "--runs", str(runs), "--min-time", str(min_time),
               "--samples", str(samples), "--mem-n", str(mem_n), "--tickets", str(tickets),
               "--scaled-tickets", str(scaled_tickets)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    except subprocess.TimeoutExpired:
        return {"available": False, "reason": "peer timed out", "setup": SETUP_COMMAND}
    if done.returncode != 0:
        return {"available": False, "reason": f"peer failed: {done.stderr.strip()[-1500:]}",
                "setup": SETUP_COMMAND}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"available": True, **result}



class PeerServer:
    """``_peer_bfcl.py --serve`` kept running, for runs paired with CompoWorld's (see
    :func:`_measure.paired_throughput`): each :meth:`run` is one throughput run of the peer's
    read or write workload, done when asked, so both sides are measured under the same load."""

    def __init__(self, venv: Path, *, tickets: int) -> None:
        command = [str(peer_python(venv)), str(PEER_SCRIPT), "--serve", "--tickets", str(tickets)]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True)
        ready = self._answer()
        if not ready.get("ready"):
            raise RuntimeError(f"peer server did not start: {ready}")

    def _answer(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"peer server exited (code {self._process.wait()})")
        return typing.cast(dict[str, Any], json.loads(line))

    def run(self, kind: str, min_time: float) -> dict[str, Any]:
        """One run of ≥ ``min_time`` s: ``calls_per_s``, ``cpu_calls_per_s``, ``calls``, ``ok``."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"kind": kind, "min_time": min_time}) + "\n")
        self._process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
