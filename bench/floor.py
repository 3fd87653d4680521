#!/usr/bin/env python3
"""The floor of the omerender benchmark: the least work any Python `omerender build` must do.

    python bench/floor.py TREE EXPECTED_OUTPUT [--json] > OUT

It parses every document of every ``*.yaml``/``*.yml`` file under TREE, in sorted path order,
with libyaml (``yaml.CSafeLoader``), keeps them all, and writes EXPECTED_OUTPUT's documents
to stdout with ``yaml.CSafeDumper``: the same input read and the same objects written as
omerender, by the fastest means PyYAML has, with no resolving, merging or rendering between.

With ``--json`` it is the C floor: the same parse, then each output document written with
``json.dumps`` (JSON is YAML, and ``json`` is written in C), the least any tool can do without
PyYAML's Python representer.

To have those output objects, it first loads EXPECTED_OUTPUT (omerender's own output). That
preload is not part of the floor: it is timed here and printed on stderr as
``preload_seconds=…`` for run.py to subtract from this process's wall time, and its CPU time
(user + system, ``time.process_time``) as ``preload_cpu_seconds=…`` to subtract from its CPU time.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

import yaml


def main(argv: list[str]) -> int:
    as_json = "--json" in argv[3:]
    if len(argv) != 3 + as_json:
        print(__doc__, file=sys.stderr)
        return 2
    tree, expected = Path(argv[1]), Path(argv[2])

    start, start_cpu = perf_counter(), process_time()
    with expected.open("rb") as stream:
        output_docs = [d for d in yaml.load_all(stream, Loader=yaml.CSafeLoader) if d is not None]
    gc.freeze()  # keep the preloaded objects out of later collections
    preload, preload_cpu = perf_counter() - start, process_time() - start_cpu

    files = sorted(p for p in tree.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    input_docs: list[Any] = []
    for path in files:
        with path.open("rb") as stream:
            input_docs.extend(d for d in yaml.load_all(stream, Loader=yaml.CSafeLoader) if d is not None)

    if as_json:
        for doc in output_docs:
            sys.stdout.write(json.dumps(doc))
            sys.stdout.write("\n")
    else:
        yaml.dump_all(output_docs, sys.stdout, Dumper=yaml.CSafeDumper, sort_keys=False)
    sys.stdout.flush()

    print(
        f"preload_seconds={preload:.6f} preload_cpu_seconds={preload_cpu:.6f} files={len(files)} "
        f"input_documents={len(input_docs)} "
        f"output_documents={len(output_docs)}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
