"""The offline HTML review form: one self-contained file per reviewer.

The page embeds its items as JSON and an inline script (allowed by hash in its
Content-Security-Policy; nothing else may load, so it works offline and cannot leak a
document's text). Reviewers pick one label per item with radio buttons, may answer the
yes/no checks (natural, answerable) and may comment; choices are kept in the browser's
localStorage as they go, and *Save CSV* downloads a file in exactly the review CSV format,
so ``qagen review import`` reads both alike.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from string import Template

from qagen.io import stable_hash
from qagen.review.export import COLUMNS, ESCAPED_COLUMNS, ID_COLUMNS
from qagen.review.labels import CHECK_HELP, CHECK_NAMES, CHECKS, LABEL_HELP, LABEL_NAMES, LABELS


def _asset(name: str) -> str:
    return resources.files("qagen.review").joinpath("assets", name).read_text(encoding="utf-8")


def _script_json(data: object) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' can end it early."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_form(rows: Sequence[Mapping[str, str]], reviewer: str, filename: str, title: str = "qagen") -> str:
    """The review form for one reviewer's rows (as :func:`~qagen.review.export.review_row` makes them).

    Args:
        rows: The reviewer's rows, in the order to show them.
        reviewer: Pre-filled reviewer name (editable in the form).
        filename: Name of the CSV the *Save CSV* button downloads.
        title: Shown in the page title (e.g. the build folder's name).

    Returns:
        The HTML text (UTF-8), which loads nothing from anywhere.
    """
    data = {
        "reviewer": reviewer,
        "filename": filename,
        "key": stable_hash([filename, reviewer, [r["item_id"] for r in rows]])[:16],
        "columns": list(COLUMNS),
        "escaped": list(ESCAPED_COLUMNS),
        "ids": list(ID_COLUMNS),
        "labels": [{"code": c, "name": LABEL_NAMES[c], "help": LABEL_HELP[c]} for c in LABELS],
        "checks": [{"code": c, "name": CHECK_NAMES[c], "help": CHECK_HELP[c]} for c in CHECKS],
        "rows": [{c: str(r.get(c, "")) for c in COLUMNS} for r in rows],
    }
    script = _asset("form.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return Template(_asset("form.html")).substitute(
        title=html.escape(title),
        script_hash=f"sha256-{digest}",
        style=_asset("form.css"),
        script=script,
        data=_script_json(data),
    )
