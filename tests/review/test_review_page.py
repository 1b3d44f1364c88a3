"""The HTML review page: the sampled cases' texts escaped, the questions as form controls, self-contained;
in headless Chromium, answering writes the labels file's rows, which ``--labels`` records."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.review.review_fixtures import HOSTILE, s2lct_cases, text_cases, write

from lingtest.review.labels import read_judgements
from lingtest.review.page import review_page
from lingtest.review.session import open_review

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def page_of(review, cases, spec=None):
    spec = spec or {"seed": 0, "size": len(cases), "by_group": False}
    return review_page(review.items(cases), key=review.key, sample=spec, command="lingtest review X --labels F",
                       reviewer="ann")


@pytest.fixture
def review(tmp_path):
    return open_review(write(tmp_path / "demo.jsonl", text_cases(), technique="demo"), root=tmp_path)


def test_the_page_lists_the_sampled_cases_with_their_texts_escaped(review):
    cases = [review.suite.cases[7], review.suite.cases[3]]
    page = page_of(review, cases)
    assert "<script>alert(1)" not in page
    marked = HOSTILE.replace(" film", "")  # the follow-up's words the source lacks
    assert f"<ins>{html.escape(marked)}</ins> film" in page  # the markup is text
    assert "the movie number 3 was good".replace("movie", "<ins>movie</ins>") in page
    sections = re.findall(r'<section class="case" data-id="([0-9a-f]+)"', page)
    assert sections == [cases[0].id, cases[1].id]
    assert review.suite.cases[5].id not in page  # not sampled
    assert "case 1 of 2" in page and "case 2 of 2" in page


def test_the_page_asks_the_questions_as_form_controls(review, tmp_path):
    case = review.suite.cases[3]
    page = page_of(review, [case])
    for field, value in (("well_formed", "y"), ("well_formed", "n"), ("label_correct", "y"), ("label_correct", "n")):
        assert f'name="{field}-{case.id}" data-field="{field}" value="{value}"' in page
    assert 'data-field="relevance"' not in page  # no capabilities
    assert f'name="note-{case.id}"' in page and 'id="download"' in page and 'id="reviewer"' in page
    assert "Is the expected label right for this text?" in page
    data = json.loads(re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page).group(1))
    assert data["sha256"] == review.key.sha256 and data["relevance"] is False and data["kind"] == "review-judgements"
    assert data["filename"] == f"demo@{review.key.sha256[:16]}-labels.jsonl"
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched
    caps = open_review(write(tmp_path / "s2.jsonl", s2lct_cases(), technique="s2lct"), root=tmp_path)
    page = page_of(caps, caps.suite.cases[:1])
    assert all(f'data-field="relevance" value="{k}"' in page for k in "12345")
    assert "capability" in page and "How relevant is the case to its capability (LC1)" in page


def test_json_in_the_page_cannot_close_its_script(review):
    key = review.key.__class__(name="</script><b>x", version="1.0.0", sha256=review.key.sha256)
    page = review_page(review.items(review.suite.cases[:1]), key=key, sample={"seed": 0}, command="c")
    data_script = re.search(r'id="review-data">(.*?)</script>', page, re.S).group(1)
    assert "</" not in data_script and json.loads(data_script)["suite"] == "</script><b>x"


#: appended to a copy of the page: answer two cases as a reviewer would, then copy the labels out
ANSWER = """<script>
(function () {
  var secs = document.querySelectorAll('section.case');
  function pick(sec, f, v) {
    var el = sec.querySelector('input[data-field="' + f + '"][value="' + v + '"]');
    el.checked = true; el.dispatchEvent(new Event('change', {bubbles: true}));
  }
  pick(secs[0], 'well_formed', 'y'); secs[0].querySelector('input.note').value = 'odd <b>';
  pick(secs[0], 'label_correct', 'n');
  pick(secs[1], 'label_correct', 'y');
  var who = document.getElementById('reviewer'); who.value = 'Bea'; who.dispatchEvent(new Event('input'));
  var pre = document.createElement('pre'); pre.id = 'copied';
  pre.textContent = document.getElementById('labels-jsonl').value; document.body.appendChild(pre);
}());
</script></body>"""


@pytest.mark.e2e
def test_answers_in_a_browser_become_a_labels_file_that_is_recorded(review, tmp_path):
    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install chromium)")
    cases = review.sample(3, 5)
    page = tmp_path / "page.html"
    page.write_text(page_of(review, cases, {"seed": 5, "size": 3, "by_group": False}).replace("</body>", ANSWER),
                    encoding="utf-8")
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
                           "--v=0", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not [ln for ln in done.stderr.splitlines() if "Uncaught" in ln]
    dom = done.stdout
    assert re.search(r'id="counter">2 of 3 cases answered<', dom)
    copied = html.unescape(re.search(r'<pre id="copied">(.*?)</pre>', dom, re.S).group(1))
    lines = [json.loads(x) for x in copied.splitlines()]
    assert lines[0] == {"__schema__": 1, "kind": "review-judgements", "suite": "demo", "version": None,
                        "sha256": review.key.sha256, "sample": {"by_group": False, "seed": 5, "size": 3}}
    assert [{k: v for k, v in r.items() if k != "time"} for r in lines[1:]] == [
        {"id": cases[0].id, "well_formed": True, "label_correct": False, "note": "odd <b>", "reviewer": "Bea"},
        {"id": cases[1].id, "well_formed": None, "label_correct": True, "note": "", "reviewer": "Bea"}]
    labels = tmp_path / "downloaded.jsonl"
    labels.write_text(copied, encoding="utf-8")
    header, judgements = read_judgements(Path(labels), key=review.key, groups=review.groups, reviewer="x")
    assert review.record(judgements, header["sample"]) == 2
    assert [(j.id, j.reviewer, j.label_correct) for j in review.judgements()] == [
        (cases[0].id, "Bea", False), (cases[1].id, "Bea", True)]
