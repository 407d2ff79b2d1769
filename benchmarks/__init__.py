"""Development tooling, outside the product app: page and search benchmarks and their data.

Run as ``python -m benchmarks NAME [options]`` (``benchmarks/__main__.py`` lists the names; each
has its ``make bench-…`` target: ``make bench-pages``, ``make bench-edge``…); each is a Django
management command class run with the project's settings. ``benchmarks.without:application``
serves the site with some caching mechanisms switched off (:mod:`benchmarks.switches`).
"""
