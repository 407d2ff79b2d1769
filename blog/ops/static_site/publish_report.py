"""What a publish tells whoever ran it: what it sent, left alone and deleted (:class:`Report`,
which ``manage.py publish_site`` prints), or why it could not publish (:class:`PublishError`,
which the command turns into its error)."""

from dataclasses import dataclass, field


class PublishError(Exception):
    """The site could not be published; the message says why and what to do."""


@dataclass
class Report:
    uploaded: list = field(default_factory=list)  # names written, in order
    unchanged: int = 0
    deleted: list = field(default_factory=list)  # names removed from the target
    bytes: int = 0  # bytes written
    verb: str = "uploaded"

    def summary(self):
        return (
            f"{len(self.uploaded)} {self.verb} ({self.bytes} bytes), {self.unchanged} unchanged, "
            f"{len(self.deleted)} deleted"
        )
