"""The editor's server side: image uploads from the Markdown editor, for staff only."""
