"""`fito check --format html`, rendered by a real browser (headless Chromium, Debian's
package): the page shows one message-sequence chart per counterexample or witness, with a
lifeline per process and per persistence domain, every label visible and none overlapping.
Skipped where no Chromium is installed (.ci/run installs it)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fito.check.options import CheckOptions
from fito.pipeline import check_file
from fito.render.report import render_report

ROOT = Path(__file__).resolve().parents[2]

BROWSER = next(
    (shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
    None,
)

# Measures what the browser laid out and writes it into the page, for --dump-dom to show.
PROBE = """<script>
const charts = [...document.querySelectorAll('svg.msc')].map(svg => {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, cls: t.getAttribute('class'), x: r.left, y: r.top,
            w: r.width, h: r.height};
  });
  return {w: box.width, h: box.height, left: box.left, top: box.top, texts};
});
const verdicts = [...document.querySelectorAll('table.verdicts td.fails, table.verdicts td.holds')]
  .map(td => td.textContent);
const pre = document.createElement('pre');
pre.id = 'probe';
pre.textContent = JSON.stringify({charts, verdicts});
document.body.appendChild(pre);
</script>"""


def rendered(page: str, tmp_path: Path) -> dict:
    html = tmp_path / "report.html"
    html.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    proc = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1400,1000",
            "--virtual-time-budget=5000",
            "--dump-dom",
            html.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m is not None, proc.stderr[-2000:]
    return json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


@pytest.mark.skipif(BROWSER is None, reason="needs Chromium (apt-get install chromium)")
def test_the_page_shows_a_message_sequence_chart_per_run(tmp_path: Path) -> None:
    report = check_file(str(ROOT / "specs" / "checkpoint_naive.fito"), CheckOptions())
    probe = rendered(render_report([report], "html"), tmp_path)
    assert probe["verdicts"] == ["fails in 2", "holds", "holds"]
    runs = [v for v in report.verdicts if v.run is not None]
    assert len(probe["charts"]) == len(runs) == 2
    for chart, v in zip(probe["charts"], runs):
        assert chart["w"] > 100 and chart["h"] > 100
        texts = chart["texts"]
        heads = [t["text"] for t in texts if t["cls"] == "head"]
        movers = list(dict.fromkeys(m for s in v.run.steps for m in s.movers))
        assert heads[: len(movers)] == movers and heads[-1] == "other"
        events = [t["text"] for t in texts if t["cls"].startswith("event")]
        assert events == list(v.run.labels)
        changes = [t["text"] for t in texts if t["cls"] == "change"]
        assert "live = 1" in changes and any(c.startswith("saved = ") for c in changes)
        for t in texts:  # every label laid out, inside its chart
            assert t["w"] > 0 and t["h"] > 0, t
            assert chart["left"] - 1 <= t["x"] and t["x"] + t["w"] <= chart["left"] + chart["w"] + 1
        for i, a in enumerate(texts):
            for b in texts[i + 1 :]:
                assert not overlaps(a, b), (a, b)
