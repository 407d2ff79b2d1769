"""Subscriber lists as CSV: biji's own, Ghost's, Substack's and Mailchimp's, told apart by the
header row. An address is confirmed only if the file says so; formula-like cells are escaped."""

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from blog.mail.addresses import InvalidAddress, normalise_address
from blog.models.subscribers import SubscriberState, Wants

# biji's own columns, in order (the export writes them, the import reads them back).
COLUMNS = [
    "email",
    "language",  # zh-hans, en or both
    "series",  # the slug of the one series the address follows, or empty
    "tag",  # the slug of the one tag the address follows, or empty
    "state",  # pending, confirmed, unsubscribed or bounced
    "interface_language",  # the language its emails' frame is written in
    "source",  # the site's form, an import (which file), the admin
    "created_at",  # ISO 8601 with the offset, UTC
    "confirmation_sent_at",
    "confirmed_at",
    "unsubscribed_at",
    "state_reason",  # why the state changed when the address did not ask
]

MAX_BYTES = 20 * 1024 * 1024
MAX_ROWS = 100_000
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TRUE = {"true", "1", "yes", "y", "t"}
FALSE = {"false", "0", "no", "n", "f"}


class UnreadableFile(ValueError):
    """The file as a whole cannot be read: its message is for the author."""


@dataclass
class Row:
    """One address as the file gives it."""

    line: int
    email: str
    state: str
    wants: str | None = None  # None: the file does not say
    series: str = ""  # biji's own files: a slug
    tag: str = ""
    interface_language: str = ""
    source: str | None = None  # None: the file does not say
    created_at: datetime | None = None
    confirmation_sent_at: datetime | None = None
    confirmed_at: datetime | None = None
    unsubscribed_at: datetime | None = None
    state_reason: str = ""


@dataclass
class Reading:
    """What a file holds: its format, the rows that can be imported, the lines that cannot."""

    format: str
    rows: list[Row] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, message)


class BadRow(ValueError):
    pass


# --- writing ---------------------------------------------------------------------------------


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def export_row(subscriber):
    """``subscriber`` as a row of :data:`COLUMNS` (its series and tag read: select them)."""
    return [
        _cell(value)
        for value in (
            subscriber.email,
            subscriber.wants,
            subscriber.series.slug if subscriber.series_id else "",
            subscriber.tag.slug if subscriber.tag_id else "",
            subscriber.state,
            subscriber.interface_language,
            subscriber.source,
            subscriber.created_at,
            subscriber.confirmation_sent_at,
            subscriber.confirmed_at,
            subscriber.unsubscribed_at,
            subscriber.state_reason,
        )
    ]


def export_lines(subscribers):
    """The CSV file of ``subscribers``, a line at a time (a streaming response's content)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")

    def line(row):
        writer.writerow(row)
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    yield "\ufeff" + line(COLUMNS)  # the BOM: spreadsheets then read the file as UTF-8
    for subscriber in subscribers:
        yield line(export_row(subscriber))


# --- reading ---------------------------------------------------------------------------------


def detect(header):
    """The format whose header row this is, or None."""
    names = {name.strip().lower() for name in header}
    if "email address" in names:
        return "mailchimp"
    if "email" not in names:
        return None
    if {"state", "language", "confirmed_at"} <= names:
        return "biji"
    if "subscribed_to_emails" in names:
        return "ghost"
    if {"active_subscription", "email_disabled"} & names:
        return "substack"
    return "list"


def read(data: bytes) -> Reading:
    """The rows of a subscriber CSV file (its bytes), or :class:`UnreadableFile`."""
    if len(data) > MAX_BYTES:
        raise UnreadableFile(
            _("The file is larger than %(megabytes)d MB.") % {"megabytes": MAX_BYTES >> 20}
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableFile(_("The file is not UTF-8 text: export it again as CSV.")) from None
    if "\x00" in text:
        raise UnreadableFile(_("The file is not a CSV file (it holds binary data)."))
    reader = csv.reader(io.StringIO(text, newline=""), dialect=_dialect(text))
    try:
        header = next(reader, None)
        if not header or not any(cell.strip() for cell in header):
            raise UnreadableFile(_("The file is empty: a header row is expected first."))
        fmt = detect(header)
        if fmt is None:
            raise UnreadableFile(
                _(
                    "The columns are not those of an export of biji, Ghost, Substack or "
                    "Mailchimp: a column named “email” (or “Email Address”) is needed."
                )
            )
        keys = [name.strip().lower() for name in header]
        kind = _mailchimp_list(keys) if fmt == "mailchimp" else fmt
        reading = Reading(format=fmt)
        seen = set()
        line = reader.line_num + 1
        for cells in reader:
            if len(reading.rows) + len(reading.problems) >= MAX_ROWS:
                raise UnreadableFile(
                    _("The file has more than %(rows)d rows: split it.") % {"rows": MAX_ROWS}
                )
            if any(cell.strip() for cell in cells):
                values = dict(zip(keys, (_uncell(cell) for cell in cells), strict=False))
                _read_row(reading, seen, kind, line, values)
            line = reader.line_num + 1
    except csv.Error as error:
        raise UnreadableFile(
            _("The file is not valid CSV near line %(line)d (%(error)s).")
            % {"line": reader.line_num, "error": error}
        ) from None
    return reading


def _dialect(text):
    first = text.split("\n", 1)[0]
    for delimiter in (",", ";", "\t"):
        if delimiter in first:
            break
    else:
        delimiter = ","

    class Dialect(csv.excel):
        pass

    Dialect.delimiter = delimiter
    return Dialect


def _uncell(cell):
    text = cell.strip()
    if text.startswith("'") and text[1:].startswith(FORMULA_STARTS):
        return text[1:]
    return text


def _read_row(reading, seen, kind, line, values):
    try:
        row = READERS[kind](values)
        row.email = normalized_email(row.email)
    except BadRow as problem:
        reading.problems.append((line, str(problem)))
        return
    row.line = line
    key = row.email.lower()
    if key in seen:
        reading.problems.append(
            (line, _("%(email)s is in the file more than once: the first is kept.") % _at(row))
        )
        return
    seen.add(key)
    reading.rows.append(row)


def normalized_email(value):
    """The address as biji stores it (:func:`blog.mail.addresses.normalise_address`: one it
    can deliver to, its domain lower-cased), or :class:`BadRow` saying why not."""
    value = (value or "").strip()
    if not value:
        raise BadRow(_("No email address."))
    try:
        return normalise_address(value)
    except InvalidAddress as error:
        shown = {"value": value[:100], "reason": error.message}
        if error.specific:
            raise BadRow(_("“%(value)s” is not accepted. %(reason)s") % shown) from None
        raise BadRow(_("“%(value)s” is not an email address.") % shown) from None


def _at(row):
    return {"email": row.email}


def _when(values, name):
    """A date or time of the file as an aware datetime (UTC when it gives no offset)."""
    text = values.get(name, "")
    if not text:
        return None
    try:
        moment = parse_datetime(text.replace("/", "-"))
        if moment is None:
            day = parse_date(text)
            moment = datetime(day.year, day.month, day.day) if day else None
    except ValueError:
        moment = None
    if moment is None:
        raise BadRow(
            _("%(column)s “%(value)s” is not a date and time.")
            % {"column": name, "value": text[:40]}
        )
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _flag(values, name):
    """True, False or None (empty) from a true/false column."""
    text = values.get(name, "").lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    if not text:
        return None
    raise BadRow(
        _("%(column)s “%(value)s” is neither true nor false.")
        % {"column": name, "value": text[:40]}
    )


def _biji(values):
    state = values.get("state", "")
    if state not in SubscriberState.values:
        raise BadRow(_("Unknown state “%(value)s”.") % {"value": state[:40]})
    wants = values.get("language", "")
    if wants not in Wants.values:
        raise BadRow(_("Unknown language “%(value)s”.") % {"value": wants[:40]})
    return Row(
        line=0,
        email=values.get("email", ""),
        state=state,
        wants=wants,
        series=values.get("series", ""),
        tag=values.get("tag", ""),
        interface_language=values.get("interface_language", ""),
        source=values.get("source", ""),
        created_at=_when(values, "created_at"),
        confirmation_sent_at=_when(values, "confirmation_sent_at"),
        confirmed_at=_when(values, "confirmed_at"),
        unsubscribed_at=_when(values, "unsubscribed_at"),
        state_reason=values.get("state_reason", ""),
    )


def _ghost(values):
    if values.get("deleted_at"):
        raise BadRow(_("Deleted in Ghost: not imported."))
    subscribed = _flag(values, "subscribed_to_emails")
    created = _when(values, "created_at")
    row = Row(line=0, email=values.get("email", ""), state=SubscriberState.PENDING)
    row.created_at = created
    if subscribed:
        row.state = SubscriberState.CONFIRMED
        row.confirmed_at = created
    elif subscribed is False:
        row.state = SubscriberState.UNSUBSCRIBED
        row.state_reason = "Ghost: subscribed_to_emails false"
    return row


def _substack(values):
    row = Row(line=0, email=values.get("email", ""), state=SubscriberState.PENDING)
    row.created_at = _when(values, "created_at")
    if _flag(values, "email_disabled"):
        row.state = SubscriberState.UNSUBSCRIBED
        row.state_reason = "Substack: email_disabled"
    elif _flag(values, "active_subscription"):
        row.state = SubscriberState.CONFIRMED
        row.confirmed_at = row.created_at
    return row


def _mailchimp_list(keys):
    if "clean_time" in keys:
        return "mailchimp-cleaned"
    if "unsub_time" in keys:
        return "mailchimp-unsubscribed"
    return "mailchimp-subscribed"


def _mailchimp(values, state):
    row = Row(line=0, email=values.get("email address", ""), state=state)
    confirmed = _when(values, "confirm_time")
    row.created_at = _when(values, "optin_time") or confirmed
    if state == SubscriberState.CONFIRMED:
        if confirmed is None:
            row.state = SubscriberState.PENDING  # subscribed without a confirmation on file
        row.confirmed_at = confirmed
    elif state == SubscriberState.UNSUBSCRIBED:
        row.unsubscribed_at = _when(values, "unsub_time")
        reason = values.get("unsub_reason_other") or values.get("unsub_reason") or ""
        row.state_reason = f"Mailchimp: unsubscribed {reason}".strip()[:200]
    else:
        row.unsubscribed_at = _when(values, "clean_time")
        row.state_reason = "Mailchimp: cleaned (bounced)"
    return row


def _plain_list(values):
    return Row(line=0, email=values.get("email", ""), state=SubscriberState.PENDING)


READERS = {
    "biji": _biji,
    "ghost": _ghost,
    "substack": _substack,
    "mailchimp-subscribed": lambda values: _mailchimp(values, SubscriberState.CONFIRMED),
    "mailchimp-unsubscribed": lambda values: _mailchimp(values, SubscriberState.UNSUBSCRIBED),
    "mailchimp-cleaned": lambda values: _mailchimp(values, SubscriberState.BOUNCED),
    "list": _plain_list,
}
