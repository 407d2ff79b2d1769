/* The edit-conflict panel (blog/authoring/conflicts.py, templates/admin/blog/conflict/panel.html):
   choosing theirs, yours or both for a place where two saves changed the same lines applies
   the choice to the text in the form at once, so the preview and the author see the result
   (and can switch their mind while the place is untouched). Without JavaScript the radio
   buttons are posted and the server applies them on save; with it, a choice already applied
   is not posted again. */
(function () {
  "use strict";

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  /* The marked place "number" of "token" in text: where it starts, how long it is, and its
     two sides as they stand now (the author may have edited them). */
  function findMarked(text, number, token) {
    var tag = " \\[#" + number + " " + escapeRegExp(token) + "\\]";
    var pattern = new RegExp(
      "^<{7}(?: [^\\n]*)?" + tag + "\\n([\\s\\S]*?)" +
      "^={7}(?: [^\\n]*)?" + tag + "\\n([\\s\\S]*?)" +
      "^>{7}(?: [^\\n]*)?" + tag + "(?:\\n|$)",
      "m"
    );
    var match = pattern.exec(text);
    if (!match) return null;
    return { start: match.index, length: match[0].length, theirs: match[1], mine: match[2] };
  }

  function chosenText(sides, choice) {
    if (choice === "theirs") return sides.theirs;
    if (choice === "mine") return sides.mine;
    return sides.theirs + sides.mine;
  }

  function changed(field) {
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function applyLines(fieldset, field, choice) {
    var text = field.value;
    var marked = findMarked(text, fieldset.dataset.number, fieldset.dataset.token);
    var state = fieldset.conflictState;
    var start, length, sides;
    if (marked) {
      start = marked.start;
      length = marked.length;
      sides = marked;
    } else if (state && text.substr(state.start, state.text.length) === state.text) {
      start = state.start;
      length = state.text.length;
      sides = state.sides;
    } else {
      return false; /* edited since the last choice: the author's text wins */
    }
    var replacement = chosenText(sides, choice);
    field.value = text.slice(0, start) + replacement + text.slice(start + length);
    fieldset.conflictState = { start: start, text: replacement, sides: sides };
    return true;
  }

  function apply(fieldset, choice) {
    var form = fieldset.closest("form");
    var field = form && form.querySelector('[name="' + fieldset.dataset.input + '"]');
    if (!field) return;
    var note = fieldset.querySelector(".conflict-note");
    var done;
    if (fieldset.dataset.multiline === "true") {
      done = applyLines(fieldset, field, choice);
    } else {
      field.value = choice === "theirs" ? fieldset.dataset.theirs : fieldset.dataset.mine;
      done = true;
    }
    if (note) {
      note.hidden = done;
      note.textContent = done ? "" : note.dataset.edited;
    }
    if (done) {
      fieldset.classList.add("conflict-applied");
      changed(field);
    }
  }

  function init() {
    var fieldsets = document.querySelectorAll(".conflict-choice");
    fieldsets.forEach(function (fieldset) {
      fieldset.addEventListener("change", function (event) {
        if (event.target.type === "radio") apply(fieldset, event.target.value);
      });
    });
    var form = fieldsets.length && fieldsets[0].closest("form");
    if (form) {
      form.addEventListener("submit", function () {
        /* Applied already: posting the choice again would apply it over later edits. */
        form.querySelectorAll(".conflict-applied input[type=radio]").forEach(function (radio) {
          radio.disabled = true;
        });
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
