"""Print one Lighthouse report's four scores (scripts/lighthouse_static.sh). A search page is
``noindex`` by design, as the live one is (result pages are endless and thin), which is all
"is-crawlable" checks: its SEO is also printed without that audit, weighed as Lighthouse weighs
the rest, as tests/browser/test_lighthouse.py scores the parallel view."""

import json
import sys

BY_DESIGN = {"seo": {"is-crawlable"}}


def score_without(report, category, excused):
    weighed = [
        (ref["weight"], report["audits"][ref["id"]]["score"] or 0)
        for ref in report["categories"][category]["auditRefs"]
        if ref["weight"] and ref["id"] not in excused
    ]
    total = sum(weight for weight, _ in weighed)
    return round(sum(weight * score for weight, score in weighed) / total, 2)


def main(path, preset, page):
    report = json.load(open(path))
    scores = {name: category["score"] for name, category in report["categories"].items()}
    line = f"{preset} {page} {scores}"
    if page.startswith("/search/"):
        seo = score_without(report, "seo", BY_DESIGN["seo"])
        line += f" (seo without is-crawlable, noindex by design: {seo})"
    print(line)


if __name__ == "__main__":
    main(*sys.argv[1:4])
