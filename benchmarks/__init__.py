"""Development tooling, outside the product app: page and search benchmarks and their data.

Run as ``python -m benchmarks pages|search [options]`` (``make bench-pages``, ``make bench``);
each is a Django management command class run with the project's settings.
"""
