"""What biji accepts as a subscriber's address: one it can deliver to, stored in one spelling; the
rule is in docs/email.md ("Which addresses are accepted").

May import: nothing of biji's.
"""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.utils.translation import gettext_lazy as _

LONGEST_ADDRESS = 254  # RFC 5321's limit on a path, and the column's
LONGEST_LOCAL_PART = 64  # RFC 5321, 4.5.3.1.1
# C0 and C1 controls, DEL and Unicode's line and paragraph separators: none belongs in an
# address, and CR/LF would end the header it is written into.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Format characters (zero-width spaces and joiners, bidi controls), spaces, private-use,
# surrogate and unassigned code points: invisible in an address, or a look-alike of another.
INVISIBLE_CATEGORIES = {"Cf", "Co", "Cs", "Cn", "Zs", "Zl", "Zp"}
ENCODED_WORD_START = "=?"
# No exception for "localhost": an address must have a real domain.
_validate = EmailValidator(allowlist=[])

GENERIC = _("Enter an email address such as name@example.com.")
INVISIBLE = _(
    "The address holds a line break, a space, a control character or an invisible "
    "character: type it again."
)
TOO_LONG = _("The address is too long: at most 64 characters before the @ and 254 in all.")
QUOTED = _("Addresses in quotation marks are not accepted.")
IP_LITERAL = _("Addresses at an IP address ([…]) are not accepted: use one at a domain name.")
ENCODED_WORD = _(
    "“=?…?=” is how a mail program encodes a name, not an address, and no mail server "
    "delivers to it: enter the address itself, such as name@example.com."
)
NON_ASCII_LOCAL = _(
    "Before the @, only Latin letters, digits and . ! # $ % & ' * + - / = ? ^ _ ` { | } ~ "
    "are accepted: mail to other characters cannot be delivered from this site. After the @, "
    "a domain in any script is fine."
)


class InvalidAddress(ValueError):
    """What a form gave is not an address biji will write to; ``message`` says why, for the
    reader (``specific`` is False when it says no more than "not an address")."""

    def __init__(self, raw, message=None):
        super().__init__(raw)
        self.specific = message is not None
        self.message = message if message is not None else GENERIC


def normalise_address(raw) -> str:
    """The address to store for ``raw``. Raises :class:`InvalidAddress`."""
    if not isinstance(raw, str):
        raise InvalidAddress(raw)
    if CONTROL.search(raw):
        raise InvalidAddress(raw, INVISIBLE)
    address = raw.strip()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise InvalidAddress(raw)
    if len(address) > LONGEST_ADDRESS or len(local) > LONGEST_LOCAL_PART:
        raise InvalidAddress(raw, TOO_LONG)
    # Quoted local parts and [IP] literals are valid but hold commas, brackets and spaces that
    # mail software reads in different ways; nobody subscribes with one.
    if '"' in local:
        raise InvalidAddress(raw, QUOTED)
    if domain.startswith("["):
        raise InvalidAddress(raw, IP_LITERAL)
    if any(unicodedata.category(char) in INVISIBLE_CATEGORIES for char in address):
        raise InvalidAddress(raw, INVISIBLE)
    if ENCODED_WORD_START in local:
        raise InvalidAddress(raw, ENCODED_WORD)
    if not local.isascii():
        raise InvalidAddress(raw, NON_ASCII_LOCAL)
    address = f"{local}@{unicodedata.normalize('NFC', domain.lower())}"
    try:
        _validate(address)
    except ValidationError as error:
        raise InvalidAddress(raw) from error
    return address
