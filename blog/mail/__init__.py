"""Email to subscribers: subscribing with double opt-in, announcing a note once to those who
want it, in their language, sending on the background runner with a record per recipient, and
WebSub pings so feed readers hear of a note at once."""
