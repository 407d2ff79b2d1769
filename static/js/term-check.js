/* The note form's "Term check" panel (templates/admin/blog/note/change_form.html): a
   translation's glossary terms checked against the other note of its pair, as the author
   types. The panel moves under the body's editor (beside the preview's foot) and shows the
   server's answer (blog/authoring/term_check_view.py) as it comes: the list as HTML in the
   admin's language, the count in a status line that screen readers read when it changes.
   Warnings only: nothing here touches the form or its saving. Without JavaScript the panel
   stays hidden. */
(function () {
  "use strict";

  var DELAY = 600; /* ms after the last keystroke: the preview's 350 ms comes first */

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function TermCheck(panel) {
    var form = panel.closest("form");
    this.panel = panel;
    this.body = form ? form.elements.body : null;
    this.language = form ? form.elements.language : null;
    this.status = panel.querySelector(".term-check-status");
    this.results = panel.querySelector(".term-check-results");
    this.url = panel.getAttribute("data-url");
    this.number = 0;
    this.timer = null;
    if (this.body && this.url) this.init();
  }

  TermCheck.prototype.init = function () {
    var self = this;
    var editor = this.body.closest(".biji-editor");
    (editor || this.body).insertAdjacentElement("afterend", this.panel);
    this.panel.hidden = false;
    this.body.addEventListener("input", function () {
      clearTimeout(self.timer);
      self.timer = setTimeout(function () { self.check(); }, DELAY);
    });
    if (this.language) {
      this.language.addEventListener("change", function () { self.check(); });
    }
    this.check();
  };

  TermCheck.prototype.check = function () {
    var self = this;
    var number = ++this.number;
    var data = new FormData();
    data.append("body", this.body.value);
    if (this.language) data.append("language", this.language.value);
    this.panel.setAttribute("aria-busy", "true");
    fetch(this.url, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "Accept": "application/json" }
    }).then(function (response) {
      var json = (response.headers.get("Content-Type") || "").indexOf("application/json") === 0;
      return response.ok && json ? response.json() : null;
    }).then(function (answer) {
      if (answer && number === self.number) self.show(answer);
    }).catch(function () {
      /* offline, or the session ended: the next keystroke tries again */
    }).then(function () {
      if (number === self.number) self.panel.removeAttribute("aria-busy");
    });
  };

  TermCheck.prototype.show = function (answer) {
    this.results.innerHTML = answer.html; /* the admin's own template, escaped */
    if (this.status.textContent !== answer.summary) this.status.textContent = answer.summary;
    this.panel.classList.toggle("has-warnings", answer.count > 0);
    this.panel.setAttribute("data-count", String(answer.count));
  };

  function start() {
    var panel = document.getElementById("term-check");
    if (panel && !panel.bijiTermCheck) panel.bijiTermCheck = new TermCheck(panel);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
