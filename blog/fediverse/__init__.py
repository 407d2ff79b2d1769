"""The site on the fediverse (issue 39, docs/fediverse.md): ActivityPub actors for the whole site
and for each language, found by WebFinger and NodeInfo, followed from Mastodon and the like, their
requests signed and verified (draft-cavage HTTP signatures), remote actors fetched behind an SSRF
guard, and what followers send to the inbox recorded for the author.

May import: :mod:`blog.background`, :mod:`blog.models`, :mod:`blog.rendering`, :mod:`blog.text`.
"""
