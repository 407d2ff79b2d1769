"""Lighthouse on the home page and a note, in both interface languages: performance,
accessibility, best practices and SEO must each score 100.

Lighthouse is the npm package pinned in package.json (12.2.3; ``npm ci`` installs it into
node_modules/). It drives Debian's chromium (``CHROME_PATH``), headless, against the package's
live server, which answers like production (DEBUG off, WhiteNoise serving the collected,
fingerprinted and compressed static files) and whose ``SITE_URL`` is its own address
(conftest.py), so canonical links and hreflang alternates point at the origin under test.

What runs, and why: each page kind once (:data:`RUNS`), in Lighthouse's two form factors
taken in turn: **mobile** (the default: a 412 px phone on a simulated slow 4G network, with the
mobile-only audits such as legible font sizes) and **desktop** (``--preset=desktop``), each
in a fresh chromium (headless, as the CLI launches it): home, a note, the parallel view of
the demo's pair (its SEO scored without the one audit its ``noindex`` fails by design), the
glossary, and a note with five 4000 × 3000 photos and their variants
(tests/browser/photos.py), on mobile, whose layout must not shift at all (Cumulative Layout
Shift 0, not merely a full score).

Mobile runs keep Lighthouse's network simulation but not its 4x CPU slowdown
(``cpuSlowdownMultiplier: 1``, as the desktop preset has): the simulation multiplies the
main-thread work it observed here by 4, and on this shared 2-core machine that work varies
with whatever else runs: the unchanged note scored anywhere from 96 to 100 over repeated
standard mobile runs (Total Blocking Time up to 230 ms). ``throttlingMethod: provided`` (no
simulation at all) is steady too, but it measures no network (the server is local, so page
weight would never cost a point) and takes 17 s a run instead of 8: without simulation
Lighthouse waits 5.25 s for the network and again for the CPU to go quiet.

The runs share one Node process, through Lighthouse's Node API (the code behind
node_modules/.bin/lighthouse, whose CLI costs ~6 s more a run to start Node and Lighthouse).

A failure lists, for each run and category under 100, every audit that lost points (id,
title, score, displayed value, weight) with the first items of its details.
"""

import json
import os
import shutil
import subprocess
import time

import pytest

from benchmarks.photos import SLUG as PHOTOS_SLUG
from tests.browser.conftest import CHROMIUM, ROOT
from tests.browser.site import FLASH, in_language

pytest_plugins = ["tests.browser.photos"]  # photo_note: the five photos, variants made
pytestmark = pytest.mark.browser

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse"
LIGHTHOUSE_VERSION = "12.2.3"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"
PAGES = {
    "home": "/",
    "note": FLASH,
    "parallel": "/notes/cuda-warp-scheduling/parallel/",
    "glossary": "/glossary/",
    "photos": f"/notes/{PHOTOS_SLUG}/",
}
# (form factor, interface language, page): each page once, the form factors and languages
# taken in turn, so each form factor meets both languages and each language both form factors.
# A score falls for a form factor's throttling, a language's text or a page's content; the
# pages share their parts (the chrome, the note column), so one run of each page kind covers
# what a second form factor or language on the same page would (nine runs until 2026-12-06,
# ~40 s more of the gate; none of the extra five ever failed alone).
RUNS = [
    ("mobile", "zh-hans", "home"),
    ("desktop", "en", "note"),
    ("desktop", "zh-hans", "parallel"),
    ("mobile", "en", "glossary"),
    ("mobile", "zh-hans", "photos"),
]
# Audits a page fails by design: the parallel view is noindex (a reading aid beside the two
# notes, which are indexed), which is what "is-crawlable" checks for. Every other SEO audit
# must pass on it.
BY_DESIGN = {"parallel": {"seo": {"is-crawlable"}}}
# Changes to each form factor's throttling profile (Lighthouse's mobileSlow4G, desktopDense4G).
THROTTLING = {"mobile": {"cpuSlowdownMultiplier": 1}, "desktop": {}}
# Lighthouse 12.2.3 with Debian's chromium 156 now and then loses the navigation in its trace
# ("NO_NAVSTART: Something went wrong with recording the trace over your page load. Please run
# Lighthouse again."): 4 runs in 27 when runs shared one chromium, none in 28 with a fresh
# chromium each, as here. Such a run is run again all the same; a page's own failures (no
# contentful paint, an error status…) are not.
RETRY_ON = ["NO_NAVSTART"]
ATTEMPTS = 3
TIMEOUT_S = 45 * ATTEMPTS * len(RUNS)

# Reads the runs from stdin, writes each result (the LHR, or {"error": …}) to <outdir>/<i>.json.
RUNNER = """
import fs from "node:fs";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import {throttling as profiles} from "lighthouse/core/config/constants.js";
import * as chromeLauncher from "chrome-launcher";

const {runs, chromePath, chromeFlags, categories, outdir, retryOn, attempts} =
  JSON.parse(fs.readFileSync(0, "utf8"));
const flags = {output: "json", logLevel: "error", onlyCategories: categories,
               disableFullPageScreenshot: true};

async function measure(url, config) {
  const chrome = await chromeLauncher.launch({chromePath, chromeFlags: chromeFlags.split(" ")});
  try {
    return (await lighthouse(url, {...flags, port: chrome.port}, config)).lhr;
  } catch (error) {
    return {error: String((error && error.stack) || error)};
  } finally {
    await chrome.kill();
  }
}

for (const [index, run] of runs.entries()) {
  const base = run.formFactor === "desktop" ? desktopConfig : {extends: "lighthouse:default"};
  const profile = run.formFactor === "desktop" ? profiles.desktopDense4G : profiles.mobileSlow4G;
  const throttling = {...profile, ...run.throttling};
  const config = {...base, settings: {...(base.settings || {}), throttling}};
  const started = Date.now();
  const failed = [];
  let result;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    result = await measure(run.url, config);
    const code = result.runtimeError && result.runtimeError.code;
    if (!retryOn.includes(code)) break;
    failed.push(code);
  }
  result.retriedAfter = failed;
  result.elapsedMs = Date.now() - started;
  fs.writeFileSync(`${outdir}/${index}.json`, JSON.stringify(result));
}
"""


def _require_tools():
    """Fails (never skips) when Node, Lighthouse or chromium is missing: ``make test``
    installs them."""
    package = LIGHTHOUSE / "package.json"
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: Lighthouse runs on Node (Debian's `nodejs`).", pytrace=False)
    if not package.is_file():
        pytest.fail(
            f"{LIGHTHOUSE} is missing: run `npm ci` (or `make browser-deps`) to install "
            f"Lighthouse {LIGHTHOUSE_VERSION} from package-lock.json.",
            pytrace=False,
        )
    installed = json.loads(package.read_text("utf-8"))["version"]
    if installed != LIGHTHOUSE_VERSION:
        pytest.fail(
            f"Lighthouse {installed} is installed, package.json pins {LIGHTHOUSE_VERSION}: "
            "run `npm ci`.",
            pytrace=False,
        )
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"{CHROMIUM} is missing: Lighthouse drives Debian's chromium. Install it with "
            "`make browser-deps`.",
            pytrace=False,
        )
    return node


@pytest.fixture(scope="module")
def reports(demo, photo_note, tmp_path_factory):
    """Every run of :data:`RUNS`, in one Node process: {run: LHR}."""
    node = _require_tools()
    outdir = tmp_path_factory.mktemp("lighthouse")
    runs = [
        {
            "url": demo.url + in_language(PAGES[page], language),
            "formFactor": form_factor,
            "throttling": THROTTLING[form_factor],
        }
        for form_factor, language, page in RUNS
    ]
    job = {
        "runs": runs,
        "chromePath": str(CHROMIUM),
        "chromeFlags": CHROME_FLAGS,
        "categories": CATEGORIES,
        "outdir": str(outdir),
        "retryOn": RETRY_ON,
        "attempts": ATTEMPTS,
    }
    started = time.monotonic()
    try:
        done = subprocess.run(
            [node, "--input-type=module", "-e", RUNNER],
            input=json.dumps(job),
            cwd=ROOT,  # where node_modules/ is
            env={**os.environ, "CHROME_PATH": str(CHROMIUM)},
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"Lighthouse took more than {TIMEOUT_S} s for {len(RUNS)} runs", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"Lighthouse's runner failed (exit {done.returncode}):\n{done.stderr[-4000:]}",
            pytrace=False,
        )
    results = {}
    for index, run in enumerate(RUNS):
        path = outdir / f"{index}.json"
        results[run] = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    print(f"\nLighthouse: {len(RUNS)} runs in {time.monotonic() - started:.1f} s")
    for run, lhr in results.items():
        scores = {c: lhr.get("categories", {}).get(c, {}).get("score") for c in CATEGORIES}
        retried = lhr.get("retriedAfter")
        again = f", run again after {', '.join(retried)}" if retried else ""
        print(f"  {' '.join(run)}: {scores} ({lhr.get('elapsedMs', 0) / 1000:.1f} s{again})")
    return results


def describe_item(item):
    """One item of an audit's details: an element (selector, HTML, why), or the item."""
    node = item.get("node")
    if isinstance(node, dict) and node.get("type") == "node":
        why = " ".join((node.get("explanation") or "").split())
        return f"{node.get('selector')}: {node.get('snippet', '')[:160]} {why[:240]}".strip()
    return json.dumps(item, ensure_ascii=False)[:400]


def lost_points(lhr, category):
    """Report lines for the audits of ``category`` that scored under 1."""
    lines = []
    refs = sorted(lhr["categories"][category]["auditRefs"], key=lambda ref: -ref["weight"])
    for ref in refs:
        audit = lhr["audits"][ref["id"]]
        if audit["scoreDisplayMode"] in ("notApplicable", "manual", "informative"):
            continue
        if audit["score"] is None or audit["score"] >= 1:
            continue
        value = f": {audit['displayValue']}" if audit.get("displayValue") else ""
        lines.append(
            f"    - {audit['id']}: {audit['title']} (score {audit['score']}, "
            f"weight {ref['weight']}){value}"
        )
        if audit.get("errorMessage"):
            lines.append(f"        error: {audit['errorMessage']}")
        for item in (audit.get("details") or {}).get("items", [])[:3]:
            lines.append(f"        {describe_item(item)}")
    return lines or ["    (no audit scored under 1: rounding of the weighted mean)"]


def score_without(lhr, category, excused):
    """``category``'s score as Lighthouse weighs it, without the ``excused`` audits (each of
    which must still have run and failed as designed, or the excuse is stale)."""
    refs = lhr["categories"][category]["auditRefs"]
    for audit_id in excused:
        assert lhr["audits"][audit_id]["score"] == 0, f"{audit_id} passes now: remove its excuse"
    weighed = [
        (ref["weight"], lhr["audits"][ref["id"]]["score"])
        for ref in refs
        if ref["weight"] and ref["id"] not in excused
    ]
    total = sum(weight for weight, _ in weighed)
    return sum(weight * (score or 0) for weight, score in weighed) / total if total else None


@pytest.mark.parametrize(
    ("form_factor", "language", "page"), RUNS, ids=["-".join(run) for run in RUNS]
)
def test_lighthouse_scores_100(reports, demo, form_factor, language, page):
    lhr = reports[(form_factor, language, page)]
    url = demo.url + in_language(PAGES[page], language)
    if not lhr:
        pytest.fail(f"Lighthouse wrote no result for {url}", pytrace=False)
    if lhr.get("error") or lhr.get("runtimeError"):
        pytest.fail(
            f"Lighthouse failed on {url}: {lhr.get('error') or lhr['runtimeError']}",
            pytrace=False,
        )
    assert lhr["lighthouseVersion"] == LIGHTHOUSE_VERSION
    settings = lhr["configSettings"]
    assert settings["formFactor"] == form_factor
    assert settings["throttlingMethod"] == "simulate"
    assert THROTTLING[form_factor].items() <= settings["throttling"].items()
    assert lhr["finalDisplayedUrl"] == url, f"{url} ended on {lhr['finalDisplayedUrl']}"
    problems = []
    if page == "photos":  # images keep their room while they load: nothing moves
        shift = lhr["audits"]["cumulative-layout-shift"]["numericValue"]
        if shift != 0:
            problems.append(f"  cumulative layout shift {shift:.4f}, not 0")
    for category in CATEGORIES:
        score = lhr["categories"][category]["score"]
        excused = BY_DESIGN.get(page, {}).get(category)
        if excused:
            score = score_without(lhr, category, excused)
        if score is None or round(score * 100) < 100:
            shown = "no score" if score is None else round(score * 100)
            problems.append(f"  {category}: {shown}")
            problems.extend(lost_points(lhr, category))
    if problems:
        warnings = "".join(f"\n  run warning: {w}" for w in lhr.get("runWarnings", []))
        pytest.fail(
            f"Lighthouse under 100 ({form_factor}, {url}):\n" + "\n".join(problems) + warnings,
            pytrace=False,
        )
