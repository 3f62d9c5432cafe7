"""`--ray-address auto` means a cluster the user started: RAY_ADDRESS (`ray job submit` sets it), else the cluster
`ray start` recorded on this machine (Ray's ray_current_cluster in its temp directory). Never a local Ray instance
another run started for itself (another peet-fast's --workers N), which Ray's own 'auto' joins when it finds one
running and no `ray start` cluster recorded (issue 27): then one line says there is no cluster, exit 1, nothing
written. (The joining of a real `ray start` head: tests/jobs/test_cluster.py.)"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main
from peet_fast.jobs.raystart import no_user_cluster, user_cluster

REPO = Path(__file__).resolve().parents[2]


def line(raytmp) -> str:
    """The refusal, where Ray's temp directory is raytmp (RAY_TMPDIR)."""
    return (f"peet-fast featurize: error: --ray-address auto: no Ray cluster is recorded in "
            f"{raytmp}/ray/ray_current_cluster (where `ray start` records the cluster it starts; one started with "
            f"`ray start --temp-dir DIR` is recorded in DIR instead: give its address, HOST:PORT) and RAY_ADDRESS is "
            f"not set (a local Ray instance another run started for itself is never joined); to run on this machine "
            f"instead, give --workers N without --ray-address")


def test_the_library_names_its_parameters_the_command_line_its_flags():
    """The refusal as the Python API words it (runner_for's ray_address and workers), and as the command line
    shows it (LINE: its flags)."""
    from peet_fast.cli._common import error_line
    from peet_fast.jobs import WorkerError

    library = str(WorkerError(no_user_cluster()))
    assert library.startswith("ray_address auto: no Ray cluster") and "give workers N without ray_address" in library
    assert "--ray" not in library and "--workers" not in library
    from peet_fast.cli import build_parser

    status, line = error_line(WorkerError(no_user_cluster()), build_parser().commands["featurize"].get_default("flags"))
    assert status == 1 and line.startswith("--ray-address auto: no Ray cluster")
    assert "give --workers N without --ray-address" in line


@pytest.fixture
def no_recorded_cluster(tmp_path, monkeypatch):
    """Neither RAY_ADDRESS nor a cluster `ray start` recorded: Ray's temp directory is a new empty one."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path / "raytmp"))
    return tmp_path / "raytmp"


def test_auto_is_ray_address_or_the_cluster_ray_start_recorded(no_recorded_cluster, monkeypatch):
    assert user_cluster() is None
    recorded = no_recorded_cluster / "ray" / "ray_current_cluster"
    recorded.parent.mkdir(parents=True)
    recorded.write_text("10.1.2.3:6379\n")          # as `ray start` writes it
    assert user_cluster() == ("10.1.2.3:6379", "the cluster `ray start` started here")
    monkeypatch.setenv("RAY_ADDRESS", "10.9.9.9:6380")
    assert user_cluster() == ("10.9.9.9:6380", "RAY_ADDRESS")
    monkeypatch.setenv("RAY_ADDRESS", "auto")        # Ray's own 'auto' in the environment: the recorded cluster
    assert user_cluster() == ("10.1.2.3:6379", "the cluster `ray start` started here")
    recorded.write_text("")
    monkeypatch.delenv("RAY_ADDRESS")
    assert user_cluster() is None


def test_auto_without_a_users_cluster_is_one_line_and_never_calls_ray_init(tmp_path, capsys, monkeypatch,
                                                                          no_recorded_cluster):
    import ray

    def never(*a, **k):
        pytest.fail("ray.init was called: 'auto' was left to Ray, which joins any instance it finds")

    monkeypatch.setattr(ray, "init", never)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    (tmp_path / "a.txt").write_text("He go home .\n")
    rc = main(["featurize", "--hyp", str(tmp_path / "a.txt"), "--ref", str(tmp_path / "a.txt"), "--out",
               str(tmp_path / "job"), "--ray-address", "auto", "--spacy-model", SPACY_MODEL])
    assert rc == 1
    assert capsys.readouterr().err.splitlines() == [line(no_recorded_cluster)]
    assert not (tmp_path / "job").exists()


# another run's private local instance: peet-fast's own start of a --workers N instance, held until stdin closes
HOLDER = "import sys\nfrom peet_fast.jobs.raystart import init_ray\ninit_ray(1, None)\nprint('up', flush=True)\n" \
         "sys.stdin.read()\n"


def test_auto_never_joins_the_private_instance_of_another_run(tmp_path):
    """The issue's case: another process's --workers instance is up, no cluster was started with `ray start`, no
    RAY_ADDRESS: `--ray-address auto` refuses in one line (it used to join that instance and run there, exit 0)."""
    pytest.importorskip("ray")
    env = dict(os.environ, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], cwd=tmp_path, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "up", holder.communicate(timeout=600)[1][-3000:]
        (tmp_path / "a.txt").write_text("He go home .\nShe have a cats .\n")
        # this run's Ray temp directory records no `ray start` cluster (nor may one of another test on this machine)
        run_env = dict(env, RAY_TMPDIR=str(tmp_path / "raytmp"))
        run = subprocess.run([sys.executable, "-m", "peet_fast.cli", "featurize", "--hyp", "a.txt", "--ref", "a.txt",
                              "--out", "job", "--ray-address", "auto", "--spacy-model", SPACY_MODEL],
                             cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 1, run.stderr[-3000:]
        assert [ln for ln in run.stderr.splitlines() if ln.strip()] == [line(tmp_path / "raytmp")]
        assert not (tmp_path / "job").exists()
    finally:
        holder.stdin.close()                      # the holder exits; its watchdog stops its instance
        try:
            holder.wait(timeout=600)
        except subprocess.TimeoutExpired:
            holder.send_signal(signal.SIGKILL)
            holder.wait()


def test_a_port_out_of_range_is_refused_up_front(tmp_path, capsys):
    """`--ray-address 127.0.0.1:99999` used to pass validation and end as 'Connection refused', exit 1: now one line
    naming the option, exit 2, nothing written (Ray is never started)."""
    (tmp_path / "a.txt").write_text("He go home .\n")
    for address, port in (("127.0.0.1:99999", "99999"), ("ray://head:0", "0")):
        rc = main(["featurize", "--hyp", str(tmp_path / "a.txt"), "--ref", str(tmp_path / "a.txt"), "--out",
                   str(tmp_path / "job"), "--ray-address", address, "--spacy-model", SPACY_MODEL])
        assert rc == 2
        assert capsys.readouterr().err.splitlines() == [
            f"peet-fast featurize: error: --ray-address: port {port} is out of range (1-65535) in {address!r}"]
        assert not (tmp_path / "job").exists()


def test_workers_on_a_cluster_default_to_one_per_cpu_and_cap_it():
    """Without workers, a cluster's runner sizes itself to the cluster's CPUs when it joins (per_cpu; the two-node
    case: tests/jobs/test_lost_node.py, the command line's: tests/jobs/test_lost_head.py); given, it is the number of
    actors; without a cluster, None is this process."""
    from peet_fast.jobs import LocalRunner, RayRunner, runner_for

    joined = runner_for(None, "127.0.0.1:6379")
    assert isinstance(joined, RayRunner) and joined.per_cpu
    capped = runner_for(3, "127.0.0.1:6379")
    assert not capped.per_cpu and capped.workers == 3
    assert isinstance(runner_for(None), LocalRunner) and isinstance(runner_for(1), LocalRunner)
