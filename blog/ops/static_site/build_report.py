"""What a build tells whoever ran it: what it rendered, wrote, kept and deleted, and how long
each step took (:class:`Report`, which ``manage.py build_site`` prints), or why it stopped
(:class:`BuildError`, which the command turns into its error)."""

from dataclasses import dataclass, field


class BuildError(RuntimeError):
    pass


@dataclass
class Report:
    written: set = field(default_factory=set)  # files whose bytes changed or are new
    unchanged: set = field(default_factory=set)  # files left as they were
    deleted: set = field(default_factory=set)
    rendered: set = field(default_factory=set)  # URLs asked of the live site
    gone: set = field(default_factory=set)  # URLs built before that no longer answer
    full: bool = True
    why: str = ""
    seconds: float = 0.0
    moved_during_build: bool = False
    search: dict | None = None
    phases: dict = field(default_factory=dict)  # seconds each step took

    def summary(self):
        kind = f"full build ({self.why})" if self.full else "incremental build"
        return (
            f"{kind}: {len(self.rendered)} URLs rendered; {len(self.written)} files written, "
            f"{len(self.unchanged)} unchanged, {len(self.deleted)} deleted, "
            f"in {self.seconds:.2f} s ("
            + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in self.phases.items())
            + ")"
        )
