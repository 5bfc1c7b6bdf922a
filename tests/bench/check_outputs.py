#!/usr/bin/env python3
"""check_outputs.py - reads gemmladder-bench's CSV and JSON with real
parsers (csv, json), so "well-formed" means what scripts will find, not
what our own C checkers think. (The picture is gemmladder.plot's, tested by
python/tests/test_plot.py.)

  check_outputs.py samples TEST_BENCH_REPORT
      has test_bench_report write its fixed report (--write-samples) and
      checks it: columns and the row count given in expect.txt.
  check_outputs.py files CSV JSON
      checks a real run's files (tests/bench/bench_quick.sh): they parse,
      agree with each other, and every rung ran correctly.
"""
import csv
import json
import subprocess
import sys
import tempfile

COLUMNS = ["provider", "variant_id", "variant", "m", "n", "k", "runtime_ms", "gflops",
           "gbps", "pct_of_reference", "rel_error", "status", "form", "batch", "broadcast_a",
           "pointers"]
STATUSES = {"ok", "wrong", "failed", "unavailable", "skipped"}
FORMS = {f"{layout} {a}{b}" for layout in ("row", "col") for a in "NT" for b in "NT"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        check(reader.fieldnames == COLUMNS, f"{path}: header {reader.fieldnames}")
        rows = list(reader)
    for i, row in enumerate(rows):
        check(None not in row and all(v is not None for v in row.values()),
              f"{path}: row {i} has {len(row)} fields")
        check(row["status"] in STATUSES, f"{path}: row {i} status {row['status']!r}")
        check(row["form"] in FORMS, f"{path}: row {i} form {row['form']!r}")
        for key in ("variant_id", "m", "n", "k", "batch"):
            check(row[key].isdigit(), f"{path}: row {i} {key} {row[key]!r}")
        check(row["broadcast_a"] in ("0", "1"), f"{path}: row {i} broadcast_a {row['broadcast_a']!r}")
        check(row["broadcast_a"] == "0" or row["batch"] not in ("", "0"),
              f"{path}: row {i}: a broadcast A without a batch")
        check(row["pointers"] in ("0", "1"), f"{path}: row {i} pointers {row['pointers']!r}")
        check(row["pointers"] == "0" or row["batch"] not in ("", "0"),
              f"{path}: row {i}: pointer arrays without a batch")
        if row["status"] == "ok":
            for key in ("runtime_ms", "gflops", "gbps", "rel_error"):
                check(float(row[key]) >= 0, f"{path}: row {i} {key} {row[key]!r}")
    return rows


def read_json(path):
    with open(path) as f:
        doc = json.load(f)  # accepts NaN and Infinity: strict_json refuses them
    for key in ("device", "device_name", "date", "gemmladder_version", "repeats", "warmup",
                "seed", "tolerance", "results"):
        check(key in doc, f"{path}: no {key!r}")
    for i, r in enumerate(doc.get("results", [])):
        check(list(r.keys()) == COLUMNS, f"{path}: result {i} keys {list(r.keys())}")
        check(r.get("status") in STATUSES, f"{path}: result {i} status")
        check(r.get("form") in FORMS, f"{path}: result {i} form")
        batch = r.get("batch")
        check(isinstance(batch, int) and not isinstance(batch, bool) and 0 <= batch < 2**31,
              f"{path}: result {i} batch {batch!r}")
        check(isinstance(r.get("broadcast_a"), bool), f"{path}: result {i} broadcast_a")
        check(isinstance(r.get("pointers"), bool), f"{path}: result {i} pointers")
    return doc


def strict_json(path):
    # json.load accepts NaN and Infinity, which are not JSON: refuse them.
    def refuse(name):
        raise ValueError(f"{path}: {name} is not JSON")
    with open(path) as f:
        json.load(f, parse_constant=refuse)


def samples(test_exe):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([test_exe, "--write-samples", d], check=True)
        expect = dict(line.split() for line in open(f"{d}/expect.txt"))
        rows = read_csv(f"{d}/sample.csv")
        doc = read_json(f"{d}/sample.json")
        strict_json(f"{d}/sample.json")
        check(len(rows) == int(expect["rows"]), f"CSV rows {len(rows)}, expected {expect['rows']}")
        check(len(doc["results"]) == int(expect["rows"]), "JSON results")
        check(doc["device"].startswith('NVIDIA "Test" <GPU> & co'), "JSON device string")
        wrong = [r for r in doc["results"] if r["status"] == "wrong"]
        check(wrong and all(r["runtime_ms"] is None for r in wrong), "wrong rungs are not timed")
        check([r["variant"] for r in rows] == [r["variant"] for r in doc["results"]],
              "CSV and JSON rows agree")
        check([int(r["batch"]) for r in rows] == [r["batch"] for r in doc["results"]] and
              [r["broadcast_a"] == "1" for r in rows] == [r["broadcast_a"] for r in doc["results"]] and
              [r["pointers"] == "1" for r in rows] == [r["pointers"] for r in doc["results"]],
              "CSV and JSON batches agree")
        batched = [r for r in doc["results"] if r["batch"] > 0]
        check(len(batched) == int(expect["batched"]) and any(r["broadcast_a"] for r in batched) and
              any(r["pointers"] for r in batched),
              f"batched results {len(batched)}, expected {expect['batched']}, one broadcast, "
              "one through pointer arrays")
        check(len(read_csv(f"{d}/empty.csv")) == 0, "empty CSV")
        check(read_json(f"{d}/empty.json")["results"] == [], "empty JSON")
        strict_json(f"{d}/empty.json")


def files(csv_path, json_path):
    rows = read_csv(csv_path)
    doc = read_json(json_path)
    strict_json(json_path)
    check(len(rows) > 0 and len(rows) == len(doc["results"]), "CSV and JSON row counts")
    check(all(r["status"] in ("ok", "unavailable", "skipped") for r in rows),
          "a rung was wrong or failed")
    check(any(r["variant"] == "cublas" and r["status"] == "ok" for r in rows), "cuBLAS ran")
    check(doc["device_name"] != "" and doc["date"] != "", "device and date in JSON")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "samples":
        samples(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "files":
        files(*sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("check_outputs:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
