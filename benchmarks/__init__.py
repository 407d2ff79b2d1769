"""Development tooling, outside the product app: page and search benchmarks and their data.

Run as ``python -m benchmarks pages|mechanisms|search [options]`` (``make bench-pages``,
``make bench-mechanisms``, ``make bench``); each is a Django management command class run with
the project's settings. ``benchmarks.without:application`` serves the site with some caching
mechanisms switched off (:mod:`benchmarks.switches`).
"""
