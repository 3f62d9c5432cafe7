"""What a Ray cluster launched with `ray up` runs (docs/jobs.md, "Cluster jobs"): the example cluster YAML
(example-cluster.yaml), the script `ray submit` ships to the head (submit: a peet-fast `score` or `featurize` that joins
the cluster it runs on), and the stop of one cluster's own Ray processes (stop: never `ray stop`, which stops every Ray
on the machine). The top floor: it runs the command line (peet_fast.cli); nothing imports it."""
