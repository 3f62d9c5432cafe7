"""jobs.rayhead's watch on a cluster's head, without Ray: a listening socket stands for the head's GCS. While it
listens the head answers; once it is closed the watch calls on_silent once and records the head lost (every wait is
on that event, under a ceiling against a hang). The real head, killed under a job: tests/jobs/test_lost_head.py."""
from __future__ import annotations

import socket
import time

from peet_fast.jobs.rayhead import HeadWatch, _head_lost_s, host_port, probe

CEILING = 120.0


def test_host_port_reads_a_gcs_address():
    assert host_port("10.0.0.1:6379") == ("10.0.0.1", 6379)
    assert host_port("ray://head.example:10001") == ("head.example", 10001)
    assert host_port("[::1]:6379") == ("::1", 6379)
    assert host_port("auto") is None and host_port("head:") is None


def test_a_head_that_stops_answering_is_lost_and_silent_once():
    head = socket.socket()
    head.bind(("127.0.0.1", 0))
    head.listen(64)
    port = head.getsockname()[1]
    silent = []
    watch = HeadWatch(f"127.0.0.1:{port}", lost_after=0.3, every=0.05, on_silent=lambda: silent.append(1))
    try:
        assert probe("127.0.0.1", port, 2.0) is None
        assert watch.answers() and watch.lost is None and silent == []
        head.close()                        # the GCS is gone: connections are refused
        end = time.monotonic() + CEILING
        while watch.lost is None and time.monotonic() < end:
            time.sleep(0.05)
        assert watch.lost == "Connection refused"
        assert silent == [1]                # once, however many probes failed
        assert not watch.answers()          # lost for good
    finally:
        watch.stop()
        head.close()


def test_answers_waits_for_a_head_that_comes_back():
    """An actor lost while the head merely hiccups: answers() probes until it connects again (here: at once)."""
    head = socket.socket()
    head.bind(("127.0.0.1", 0))
    head.listen(64)
    watch = HeadWatch(f"127.0.0.1:{head.getsockname()[1]}", lost_after=CEILING, every=CEILING)
    try:
        assert watch.answers() and watch.lost is None
    finally:
        watch.stop()
        head.close()


def test_the_wait_is_an_environment_setting_with_a_safe_default(monkeypatch):
    for value, seconds in (("3", 3.0), ("0.5", 0.5), ("abc", 10.0), ("-1", 10.0), ("0", 10.0), ("inf", 10.0)):
        monkeypatch.setenv("PEET_FAST_RAY_HEAD_LOST_S", value)
        assert _head_lost_s() == seconds
    monkeypatch.delenv("PEET_FAST_RAY_HEAD_LOST_S")
    assert _head_lost_s() == 10.0
