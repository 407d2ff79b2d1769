"""Accessibility touches on the Markdown tree, before sanitising: a task list's checkbox is wrapped
in a ``<label>`` with the item's text, as pymdownx.tasklist leaves it unlabelled."""

import xml.etree.ElementTree as etree

from markdown import util
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

# Block children stay outside the label (a nested list belongs to the item, not its name).
_BLOCKS = {"ul", "ol", "p", "div", "pre", "table", "blockquote", "details"}


class TaskLabelTreeprocessor(Treeprocessor):
    def run(self, root):
        for item in root.iter("li"):
            if "task-list-item" not in (item.get("class") or "").split():
                continue
            # pymdownx.tasklist leaves the checkbox as a stashed-HTML placeholder at the start
            # of the item's (or its first paragraph's) text.
            holder = (
                item[0]
                if len(item) and item[0].tag == "p" and not (item.text or "").strip()
                else item
            )
            if not (holder.text or "").startswith(util.STX):
                continue
            label = etree.Element("label")
            label.text, holder.text = holder.text, None
            for child in list(holder):
                if child.tag in _BLOCKS:
                    break
                holder.remove(child)
                label.append(child)
            holder.insert(0, label)


class AccessibilityExtension(Extension):
    def extendMarkdown(self, md):
        # After pymdownx.tasklist (priority 25) has turned "[x]" into checkboxes.
        md.treeprocessors.register(TaskLabelTreeprocessor(md), "task-labels", 5)
