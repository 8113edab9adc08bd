"""Check that a change leaves what users see unchanged: every ``--help`` text and the example build.

    python .ci/same_outputs.py BASE [NEW]

BASE and NEW are git revisions (NEW defaults to the working tree). Each is checked out into a
temporary git worktree and run with this checkout's interpreter (``PYTHONPATH`` set to the
worktree, so the installed dependencies are shared); the script then compares, byte for byte,

* ``qagen --help`` and the ``--help`` of every command and subcommand,
* every file ``qagen build examples/docs`` writes (artifacts, ``splits/``, the report),

after removing what differs between any two runs of the same build: wall and CPU times, the
finish time, and the widths of the report's timing bars. Exit status 0 when everything is the
same, 1 with a list of the differing files otherwise. Used for restructurings that must not
change behaviour (it takes about two example builds' time).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the build's per-run values: never the same twice, so left out of the comparison
VOLATILE_KEYS = {"seconds", "cpu_seconds", "finished_at", "fit_seconds"}
REPORT_VOLATILE = (
    re.compile(r"(?:\d+ h )?(?:\d+ min )?\d+(?:\.\d+)? (?:s|ms|min)(?=<)"),  # a duration: "38.3 s", "1 min 05 s"
    re.compile(r'style="width:\d+(?:\.\d+)?%"'),  # a bar's length (the timing table's among others)
    re.compile(r"finished \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"),
)


def _help_texts(python: str, env: dict[str, str]) -> dict[str, str]:
    """``--help`` of the CLI and of every command it lists, found by walking the help itself."""
    texts: dict[str, str] = {}
    todo: list[tuple[str, ...]] = [()]
    while todo:
        args = todo.pop()
        out = subprocess.run(
            [python, "-m", "qagen.cli", *args, "--help"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        texts[" ".join(("qagen", *args, "--help"))] = out.stdout + out.stderr
        commands = out.stdout.partition("\nCommands:\n")[2]
        todo += [(*args, line.split()[0]) for line in commands.splitlines() if line.startswith("  ")]
    return texts


def _normalise_manifest(value: object) -> object:
    if isinstance(value, dict):
        out = {k: _normalise_manifest(v) for k, v in value.items() if k not in VOLATILE_KEYS}
        if isinstance(out.get("outputs"), dict) and "report.html" in out["outputs"]:
            # the report shows the times, so its hash and size vary with them: compared as report.html
            out["outputs"] = {**out["outputs"], "report.html": "(compared as report.html)"}
            out["counts"] = {k: v for k, v in out.get("counts", {}).items() if k != "bytes"}
        return out
    if isinstance(value, list):
        return [_normalise_manifest(v) for v in value]
    return value


def _file_digest(path: Path, rel: str) -> str:
    data = path.read_bytes()
    if rel == "manifest.json":
        data = json.dumps(_normalise_manifest(json.loads(data)), sort_keys=True).encode()
    elif rel == "report.html":
        text = data.decode("utf-8")
        for pattern in REPORT_VOLATILE:
            text = pattern.sub("", text)
        data = text.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def capture(source: Path, work: Path) -> dict[str, str]:
    """Help texts and the example build's file digests of the code in ``source``."""
    env = {**os.environ, "PYTHONPATH": str(source), "NO_COLOR": "1", "COLUMNS": "100"}
    python = sys.executable
    seen = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in _help_texts(python, env).items()}
    out = work / "out"  # the same folder name for both builds: the report shows it
    subprocess.run(
        [python, "-m", "qagen.cli", "build", str(ROOT / "examples" / "docs"), "-o", str(out), "-q"],
        env=env,
        check=True,
    )
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if path.is_file() and not rel.startswith(".cache/") and rel != ".qagen.lock":
            seen[rel] = _file_digest(path, rel)
    return seen


def _checkout(rev: str | None, into: Path) -> Path:
    if rev is None:
        return ROOT
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(into), rev], check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="git revision to compare against")
    parser.add_argument("new", nargs="?", help="git revision (default: the working tree)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="qagen-same-") as tmp:
        tmp_path = Path(tmp)
        results = []
        worktrees = []
        try:
            for label, rev in (("base", args.base), ("new", args.new)):
                src = _checkout(rev, tmp_path / f"{label}-src")
                if rev is not None:
                    worktrees.append(src)
                (tmp_path / label).mkdir()
                results.append(capture(src, tmp_path / label))
        finally:
            for wt in worktrees:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)], check=False)
    base, new = results
    differ = sorted(k for k in set(base) | set(new) if base.get(k) != new.get(k))
    print(f"compared {len(set(base) | set(new))} outputs ({sum(k.endswith('--help') for k in base)} help texts)")
    for name in differ:
        state = "only in base" if name not in new else "only in new" if name not in base else "differs"
        print(f"  {state}: {name}")
    print("same" if not differ else f"{len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
