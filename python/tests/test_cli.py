"""The package's command line: `pip install ./python` gives an `eraflow` console script and `python -m eraflow`,
both the binary's own main (compiled into the native module), exit codes included."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("ERAFLOW_BIN") or str(REPO / "target" / "debug" / "eraflow")


@pytest.fixture(autouse=True)
def installed():
    try:
        import eraflow._native  # noqa: F401
    except ImportError:
        msg = "SKIPPED LOUDLY: the eraflow package is not installed (pip install ./python)"
        if os.environ.get("ERAFLOW_REQUIRE_RAY") == "1":
            pytest.fail("ERAFLOW_REQUIRE_RAY=1 but " + msg)
        pytest.skip(msg)


def module(*args):
    return subprocess.run([sys.executable, "-m", "eraflow", *map(str, args)], capture_output=True, text=True)


def script():
    """The console script pip installed beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / "eraflow"
    return str(beside) if beside.exists() else shutil.which("eraflow")


def test_python_m_eraflow_is_the_binary(tmp_path):
    r = module("synth", "--out", tmp_path / "a", "--blocks", 20)
    assert r.returncode == 0, r.stderr
    files = r.stdout.split()
    assert len(files) == 1 and files[0].endswith(".era1")
    if os.path.exists(BIN):
        b = subprocess.run([BIN, "synth", "--out", str(tmp_path / "b"), "--blocks", "20"],
                           capture_output=True, text=True, check=True)
        # The same generator: the same bytes under the same name.
        assert Path(files[0]).name == Path(b.stdout.split()[0]).name
        assert Path(files[0]).read_bytes() == Path(b.stdout.split()[0]).read_bytes()
    v = module("verify", files[0])
    assert v.returncode == 0 and "1 files, 1 verified, 0 failed" in v.stdout, v


def test_exit_codes_and_help(tmp_path):
    assert module("--help").returncode == 0
    bad = module("export", "--out", tmp_path / "o", "--compression", "bogus", tmp_path)
    assert bad.returncode == 2 and "bogus" in bad.stderr
    missing = module("verify", tmp_path / "nope.era1")
    assert missing.returncode == 2, missing
    damaged = tmp_path / "synthnet-00000-00000000.era1"
    damaged.write_bytes(b"\x00" * 64)
    assert module("verify", damaged).returncode == 1


def test_console_script():
    exe = script()
    assert exe, "pip install ./python installs an `eraflow` script"
    r = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("eraflow "), r


def test_ctrl_c_stops_the_command_as_it_stops_the_binary(tmp_path):
    """SIGINT ends `python -m eraflow synth` at once (the default action, as for the binary), not when the native
    call returns."""
    import signal
    import time

    out = tmp_path / "big"
    p = subprocess.Popen([sys.executable, "-m", "eraflow", "synth", "--out", str(out), "--files", "4",
                          "--blocks", "8192", "--txs-per-block", "8"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not out.exists() and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("SIGINT did not stop python -m eraflow within 10 s")
    assert p.returncode == -signal.SIGINT, p.returncode
