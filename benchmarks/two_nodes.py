"""A sharded job on a two-node Ray cluster against the same job on one node with the same CPUs (issue 33's "the
two-node run's throughput against one node").

    python benchmarks/two_nodes.py [--pairs N] [--shard-rows R] [--json OUT]

Both clusters are `ray.cluster_utils.Cluster`s on this machine, started in a subprocess of their own (as
tests/jobs/test_lost_node.py does): two nodes of one CPU each, then one node of two CPUs. On each, a featurize job of
the same N synthetic pairs (peet-fast's synth over the shared PEET corrections, else the test fixture's sample; the
parse cache off) runs through `RayRunner(2)` connected to that cluster: two actors, one per CPU (on two nodes, one
per node). Reported: the job's wall time and rows per second on each, their ratio, where the actors ran, and
whether the two outputs are identical (every column of every part file, in order). The command's own process only
hands out shards in both runs (a cluster job), so the ratio is the cost of a second node: its raylet and object
store, the actors' placement. On one machine both nodes share its cores: what is measured is Ray's overhead, not
a second machine's CPUs. A measurement, not a test."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SCRIPT = r'''
import json, sys, time
import ray
from ray.cluster_utils import Cluster

from peet_fast.jobs import JobSpec, RayRunner, run_job, text_source
from peet_fast.jobs.ray import _ShardActor

model, work, layout, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


class Where(_ShardActor):
    def node(self):
        return ray.get_runtime_context().get_node_id()


class Placed(RayRunner):
    """Notes the nodes its actors run on once the first shard is done and every actor is up."""
    actor_class = Where
    nodes = None

    def run(self, spec, shards, out_dir, on_done):
        def done(entry):
            on_done(entry)
            if self.nodes is None and len(self._actors) == 2:
                ray.get([a.ready.remote() for a in self._actors], timeout=600)
                self.nodes = sorted(set(ray.get([a.node.remote() for a in self._actors], timeout=600)))

        done.rows = getattr(on_done, "rows", None)
        super().run(spec, shards, out_dir, done)


cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1 if layout == "two" else 2})
if layout == "two":
    cluster.add_node(num_cpus=1)
cluster.wait_for_nodes()
ray.init(address=cluster.address, log_to_driver=False)
spec = JobSpec("featurize", text_source([f"{work}/mo.txt", f"{work}/trg.txt"]), spacy_model=model,
               shard_rows=rows, cache={"cache": False})
runner = Placed(2)
start = time.monotonic()
run_job(spec, f"{work}/{layout}", runner)
wall = time.monotonic() - start
print(json.dumps({"wall_s": wall, "actor_nodes": len(runner.nodes or []), "cluster_nodes": len(ray.nodes())}))
ray.shutdown()
cluster.shutdown()
'''


def make_pairs(n: int, work: Path) -> None:
    from peet_fast.en.synth import synthesize

    shared = REPO.parent / "shared" / "corpora" / "peet"
    files = sorted(shared.glob("*/*_EC.txt")) or [REPO / "tests" / "fixtures" / "sample" / "reference.txt"]
    bases = list(dict.fromkeys(s.strip() for f in files for s in f.read_text(encoding="utf-8").splitlines()
                               if 4 <= len(s.split()) <= 60))
    pairs = list(synthesize(bases, n, 7))
    (work / "mo.txt").write_text("".join(mo + "\n" for mo, _ in pairs), encoding="utf-8")
    (work / "trg.txt").write_text("".join(trg + "\n" for _, trg in pairs), encoding="utf-8")


def table(path: Path):
    import pyarrow.parquet as pq

    parts = sorted(path.glob("part-*.parquet"))
    return [pq.read_table(p).to_pydict() for p in parts]


def same_rows(a: Path, b: Path) -> bool:
    """The two jobs' rows, concatenated in shard order, are equal column by column (shard cuts may differ)."""
    def rows(path):
        out: dict[str, list] = {}
        for t in table(path):
            for k, v in t.items():
                out.setdefault(k, []).extend(v)
        return out

    return rows(a) == rows(b)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=4000)
    ap.add_argument("--shard-rows", type=int, default=250)
    ap.add_argument("--spacy-model", default=None)
    ap.add_argument("--json", help="write the figures as JSON here")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from peet_fast.en.parse import default_model_name

    model = args.spacy_model or default_model_name()
    env = dict(os.environ, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    out = {"pairs": args.pairs, "shard_rows": args.shard_rows, "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="peet-two-nodes-") as tmp:
        work = Path(tmp)
        make_pairs(args.pairs, work)
        (work / "run.py").write_text(SCRIPT)
        for layout in ("two", "one"):
            run = subprocess.run([sys.executable, str(work / "run.py"), model, str(work), layout,
                                  str(args.shard_rows)], env=env, capture_output=True, text=True, timeout=3600)
            if run.returncode != 0:
                print(f"{layout}-node run failed:\n{run.stderr[-3000:]}", file=sys.stderr)
                return 1
            got = json.loads(run.stdout.strip().splitlines()[-1])
            got["rows_per_s"] = args.pairs / got["wall_s"]
            out[layout] = got
        out["identical"] = same_rows(work / "two", work / "one")
    out["load_after"] = os.getloadavg()[0]
    out["ratio_two_over_one"] = out["two"]["rows_per_s"] / out["one"]["rows_per_s"]
    for layout, label in (("two", "two nodes, 1 CPU each"), ("one", "one node, 2 CPUs")):
        r = out[layout]
        print(f"{label:24s} {r['wall_s']:7.1f} s  {r['rows_per_s']:6.1f} rows/s  actors on {r['actor_nodes']} "
              f"node(s) of {r['cluster_nodes']}")
    print(f"two nodes / one node: {out['ratio_two_over_one']:.2f}x  identical outputs: {out['identical']}  "
          f"(load {out['load_before']:.1f} -> {out['load_after']:.1f})")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0 if out["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
