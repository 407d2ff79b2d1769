"""Whether a client takes gzip: ``Accept-Encoding`` read with its quality values.

Django's GZipMiddleware looks for the word ``gzip`` anywhere in the header, so it compresses
for ``gzip;q=0`` ("anything but gzip", RFC 9110 §12.5.3). The page cache keys its copies by this
answer and the public site compresses by it, so both agree.
"""

GZIP = {"gzip", "x-gzip"}  # x-gzip: the same coding under its old name (RFC 9110 §8.4.1.3)


def accepts_gzip(header: str) -> bool:
    """True when ``header`` (an ``Accept-Encoding`` value) names gzip with a quality above 0.

    ``*`` is not taken as gzip, as Django does not: a client that takes anything gets the
    identity coding, which it must accept too. An unreadable quality counts as 0.
    """
    for member in header.split(","):
        coding, *parameters = member.split(";")
        if coding.strip().lower() not in GZIP:
            continue
        return _quality(parameters) > 0
    return False


def _quality(parameters):
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 0.0
    return 1.0
