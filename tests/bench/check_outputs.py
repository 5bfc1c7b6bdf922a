#!/usr/bin/env python3
"""check_outputs.py - reads gemmladder-bench's CSV, JSON and SVG with real
parsers (csv, json, xml.etree), so "well-formed" means what scripts and
browsers will find, not what our own C checkers think.

  check_outputs.py samples TEST_BENCH_REPORT
      has test_bench_report write its fixed report (--write-samples) and
      checks it: columns, row count, bar and line counts given in expect.txt.
  check_outputs.py files CSV JSON SVG
      checks a real run's files (tests/bench/bench_quick.sh): they parse,
      agree with each other, and every rung ran correctly.
"""
import csv
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

COLUMNS = ["provider", "variant_id", "variant", "m", "n", "k", "runtime_ms", "gflops",
           "gbps", "pct_of_reference", "rel_error", "status", "form"]
STATUSES = {"ok", "wrong", "failed", "unavailable", "skipped"}
FORMS = {f"{layout} {a}{b}" for layout in ("row", "col") for a in "NT" for b in "NT"}
SVG = "{http://www.w3.org/2000/svg}"

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
        for key in ("variant_id", "m", "n", "k"):
            check(row[key].isdigit(), f"{path}: row {i} {key} {row[key]!r}")
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
    return doc


def strict_json(path):
    # json.load accepts NaN and Infinity, which are not JSON: refuse them.
    def refuse(name):
        raise ValueError(f"{path}: {name} is not JSON")
    with open(path) as f:
        json.load(f, parse_constant=refuse)


def read_svg(path):
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", f"{path}: root is {root.tag}")
    bars = [e for e in root.iter(SVG + "rect") if e.get("class") == "bar"]
    lines = [e for e in root.iter(SVG + "polyline") if e.get("class") == "series"]
    title = root.find(SVG + "title")
    check(title is not None and title.text and "GEMM ladder" in title.text, f"{path}: title")
    for bar in bars:
        check(float(bar.get("height")) >= 0, f"{path}: negative bar")
    return bars, lines


def samples(test_exe):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([test_exe, "--write-samples", d], check=True)
        expect = dict(line.split() for line in open(f"{d}/expect.txt"))
        rows = read_csv(f"{d}/sample.csv")
        doc = read_json(f"{d}/sample.json")
        strict_json(f"{d}/sample.json")
        bars, lines = read_svg(f"{d}/sample.svg")
        check(len(rows) == int(expect["rows"]), f"CSV rows {len(rows)}, expected {expect['rows']}")
        check(len(doc["results"]) == int(expect["rows"]), "JSON results")
        check(len(bars) == int(expect["bars"]), f"SVG bars {len(bars)}, expected {expect['bars']}")
        check(len(lines) == int(expect["lines"]),
              f"SVG lines {len(lines)}, expected {expect['lines']}")
        check(doc["device"].startswith('NVIDIA "Test" <GPU> & co'), "JSON device string")
        wrong = [r for r in doc["results"] if r["status"] == "wrong"]
        check(wrong and all(r["runtime_ms"] is None for r in wrong), "wrong rungs are not timed")
        check([r["variant"] for r in rows] == [r["variant"] for r in doc["results"]],
              "CSV and JSON rows agree")
        check(len(read_csv(f"{d}/empty.csv")) == 0, "empty CSV")
        check(read_json(f"{d}/empty.json")["results"] == [], "empty JSON")
        strict_json(f"{d}/empty.json")
        check(read_svg(f"{d}/empty.svg") == ([], []), "empty SVG")


def files(csv_path, json_path, svg_path):
    rows = read_csv(csv_path)
    doc = read_json(json_path)
    strict_json(json_path)
    bars, lines = read_svg(svg_path)
    check(len(rows) > 0 and len(rows) == len(doc["results"]), "CSV and JSON row counts")
    check(all(r["status"] in ("ok", "unavailable", "skipped") for r in rows),
          "a rung was wrong or failed")
    check(any(r["variant"] == "cublas" and r["status"] == "ok" for r in rows), "cuBLAS ran")
    check(len(bars) >= 1 and len(lines) >= 1, f"SVG has {len(bars)} bars, {len(lines)} lines")
    check(doc["device_name"] != "" and doc["date"] != "", "device and date in JSON")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "samples":
        samples(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "files":
        files(*sys.argv[2:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("check_outputs:", "FAILED" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
