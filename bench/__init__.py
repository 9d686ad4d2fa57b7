"""Rewind's benchmarks, as tools: `perf/` (speed and memory), `quality/` (search, answers,
the content check; the fitters that write shipped files are here too and run together
under `python3 build.py fit`), `labs/` (experiments that chose a design) and `common/`
(evaluation data, metrics, the report writer they share).

Run any of them from the checkout's root as a module (`python -m bench.perf.latency`) or
through `python3 build.py bench NAME`; `python3 build.py bench --list` lists them.
Nothing here edits `sys.path`: `rewind` is installed in the virtual environment and
`bench` is a package of the checkout.
"""
