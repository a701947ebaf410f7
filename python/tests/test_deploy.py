"""deploy/: the Kubernetes manifests parse (PyYAML) and hold what eraflow needs, their eraflow arguments are
accepted by the binary, and the Dockerfile keeps its shape (it is not built here: no registry for base images).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
BIN = os.environ.get("ERAFLOW_BIN") or str(REPO / "target" / "debug" / "eraflow")


def load(name):
    try:
        import yaml
    except ImportError:
        msg = "SKIPPED LOUDLY: PyYAML is not installed (pip install pyyaml); deploy manifests unchecked"
        if os.environ.get("ERAFLOW_REQUIRE_RAY") == "1":
            pytest.fail("ERAFLOW_REQUIRE_RAY=1 but " + msg)
        print(msg, file=sys.stderr)
        pytest.skip(msg)
    docs = list(yaml.safe_load_all((DEPLOY / "kubernetes" / name).read_text()))
    assert len(docs) == 1
    return docs[0]


def pod_spec_checks(pod):
    assert pod["restartPolicy"] == "Never"
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    (c,) = pod["containers"]
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"] for v in pod["volumes"]}
    assert "/tmp" in mounts and set(mounts.values()) <= volumes
    assert pod["terminationGracePeriodSeconds"] >= 60
    return c


def check_args(args, tmp_path, shard_index="0"):
    """The container's eraflow arguments, with /etc/eraflow/pipelines -> pipelines/ and /data -> a temporary
    folder of synthetic files, are accepted by the binary (as `plan`, which runs nothing)."""
    assert args[0] == "run"
    pipeline = args[1]
    assert pipeline.startswith("/etc/eraflow/pipelines/")
    local = REPO / "pipelines" / Path(pipeline).name
    assert local.exists(), local
    data = tmp_path / "data"
    (data / "era1").mkdir(parents=True)
    subprocess.run(
        [BIN, "synth", "--out", str(data / "era1" / "mainnet"), "--network", "mainnet", "--files", "2",
         "--blocks", "8"],
        check=True, capture_output=True,
    )
    rest = [a.replace("$(SHARD_INDEX)", shard_index).replace("/data", str(data)) for a in args[2:]]
    p = subprocess.run([BIN, "plan", str(local), "--json", *rest], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_indexed_job(tmp_path):
    job = load("indexed-job.yaml")
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    c = pod_spec_checks(spec["template"]["spec"])
    args = c["args"]
    shard = args[args.index("--shard") + 1]
    m = re.fullmatch(r"\$\((\w+)\)/(\d+)", shard)
    assert m, shard
    assert int(m.group(2)) == spec["completions"] == spec["parallelism"]
    env = {e["name"]: e for e in c["env"]}
    assert "job-completion-index" in env[m.group(1)]["valueFrom"]["fieldRef"]["fieldPath"]
    check_args(args, tmp_path)


def test_cronjob(tmp_path):
    cj = load("cronjob.yaml")
    assert (cj["apiVersion"], cj["kind"]) == ("batch/v1", "CronJob")
    spec = cj["spec"]
    assert len(spec["schedule"].split()) == 5
    assert spec["concurrencyPolicy"] == "Forbid"
    c = pod_spec_checks(spec["jobTemplate"]["spec"]["template"]["spec"])
    assert "--shard" not in c["args"]
    check_args(c["args"], tmp_path)


def test_dockerfile_shape():
    text = (DEPLOY / "Dockerfile").read_text()
    froms = re.findall(r"^FROM\s+(\S+)(?:\s+AS\s+(\w+))?", text, re.M)
    assert len(froms) == 2 and froms[0][1] == "build", froms
    assert "cargo build --release --locked" in text
    assert re.search(r"^COPY --from=build .*/eraflow /usr/local/bin/eraflow$", text, re.M)
    assert re.search(r"^COPY pipelines /etc/eraflow/pipelines$", text, re.M)
    user = re.findall(r"^USER\s+(\S+)", text, re.M)
    assert user and not user[-1].startswith("0") and user[-1].split(":")[0] != "root"
    assert re.search(r'^ENTRYPOINT \["/usr/local/bin/eraflow"\]', text, re.M)
    # The base image's Rust is at least the crate's rust-version.
    msrv = re.search(r'rust-version = "(\d+)\.(\d+)"', (REPO / "Cargo.toml").read_text())
    image = re.search(r"FROM rust:(\d+)\.(\d+)", text)
    assert (int(image.group(1)), int(image.group(2))) >= (int(msrv.group(1)), int(msrv.group(2)))
