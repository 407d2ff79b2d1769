"""Whether a client takes gzip, ``Accept-Encoding`` read with its quality values: Django finds
``gzip`` anywhere, ``gzip;q=0`` included (RFC 9110 §12.5.3). The page cache's key and the public
site's compression both ask here, so they agree.
"""

GZIP = {"gzip", "x-gzip"}  # x-gzip: the same coding under its old name (RFC 9110 §8.4.1.3)


def accepts_gzip(header: str) -> bool:
    """True when ``header`` names gzip with a quality above 0 (``*`` does not, as in Django)."""
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
