"""Split ``shared/corpora/helpdesk`` into two seeded halves, translations kept together.

Pages with the same name after the language prefix (``de__x.html``, ``fr__x.html``) are one group,
so a page and its translations land in the same half. Half A is read first (before any rule is
written from it); half B stays unread until the after-reading.

    python benchmarks/helpdesk_split.py DEST [--seed 41] [--languages en,de,fr] [--max-per-language N]

writes DEST/A and DEST/B as folders of symbolic links to the pages.
"""

from __future__ import annotations

import argparse
import random
import shutil
from collections import defaultdict
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "helpdesk"


def halves(pages: list[Path], seed: int) -> tuple[list[Path], list[Path]]:
    groups: dict[str, list[Path]] = defaultdict(list)
    for page in pages:
        groups[page.name.split("__", 1)[-1]].append(page)
    names = sorted(groups)
    random.Random(seed).shuffle(names)
    a: list[Path] = []
    b: list[Path] = []
    count_a: dict[str, int] = defaultdict(int)
    count_b: dict[str, int] = defaultdict(int)
    for name in names:  # greedy: each group to the half with fewer pages of its languages
        langs = [p.name.split("__", 1)[0] for p in groups[name]]
        if sum(count_a[x] for x in langs) <= sum(count_b[x] for x in langs):
            a += groups[name]
            for x in langs:
                count_a[x] += 1
        else:
            b += groups[name]
            for x in langs:
                count_b[x] += 1
    return sorted(a), sorted(b)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", type=Path)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--languages", default="", help="comma-separated language prefixes to keep (default: all)")
    ap.add_argument("--max-per-language", type=int, default=0, help="keep at most N pages per language and half")
    args = ap.parse_args()
    pages = sorted(SHARED.glob("*.html"))
    if args.languages:
        keep = set(args.languages.split(","))
        pages = [p for p in pages if p.name.split("__", 1)[0] in keep]
    for label, half in zip("AB", halves(pages, args.seed), strict=True):
        folder = args.dest / label
        folder.mkdir(parents=True, exist_ok=True)
        per: dict[str, int] = defaultdict(int)
        for page in half:
            lang = page.name.split("__", 1)[0]
            if args.max_per_language and per[lang] >= args.max_per_language:
                continue
            per[lang] += 1
            link = folder / page.name
            if not link.exists():
                shutil.copyfile(page, link)
        print(label, dict(sorted(per.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
