/* The admin's Markdown editor (blog/authoring/forms.py MarkdownEditorWidget): live preview in
   a frame that is the public page, a toolbar with keyboard shortcuts, image drop/paste,
   autosave in this browser, the slug proposed from a new note's title and the series
   position proposed when a series is chosen. On a page with the editor, the admin's
   navigation sidebar starts collapsed, leaving its width to the editor and the preview.
   Without JavaScript the textarea works alone (and the server fills an empty position). The
   strings come translated from the server (data-texts). */
(function () {
  "use strict";

  var AUTOSAVE_PREFIX = "biji-autosave:";
  var PENDING_KEY = "biji-autosave-pending";

  function storage(kind) {
    try {
      var store = window[kind];
      store.getItem("x");
      return store;
    } catch (e) {
      return null; /* storage refused (private mode, policy): no autosave */
    }
  }
  var local = storage("localStorage");
  var session = storage("sessionStorage");

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function debounce(fn, ms) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(fn, ms);
    };
  }

  function htmlLang(code) {
    if (!code) return "zh-Hans";
    return code.toLowerCase() === "zh-hans" ? "zh-Hans" : code;
  }

  /* --- autosave bookkeeping: cleared once the page after a save says it succeeded ------- */

  function clearSavedDrafts() {
    if (!session || !local) return;
    var pending = session.getItem(PENDING_KEY);
    if (!pending) return;
    session.removeItem(PENDING_KEY);
    var succeeded = document.querySelector(".messagelist .success") &&
      !document.querySelector(".errornote, .errorlist");
    if (!succeeded) return; /* the form came back with errors, or the session had expired */
    try {
      JSON.parse(pending).forEach(function (key) { local.removeItem(key); });
    } catch (e) { /* nothing to clear */ }
  }

  /* --- text editing helpers: keep the browser's undo history where it can ------------- */

  function replaceRange(textarea, start, end, text, selectFrom, selectTo) {
    textarea.focus();
    textarea.setSelectionRange(start, end);
    var inserted = false;
    try {
      inserted = document.execCommand("insertText", false, text);
    } catch (e) {
      inserted = false;
    }
    if (!inserted || textarea.value.substr(start, text.length) !== text) {
      textarea.setRangeText(text, start, end, "end");
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
    }
    textarea.setSelectionRange(start + selectFrom, start + selectTo);
  }

  /* Blank lines needed before and after position start..end for a block of its own. */
  function blockSeparators(value, start, end) {
    var before = value.slice(0, start);
    var after = value.slice(end);
    var pre = before === "" || /\n\n$/.test(before) ? "" : /\n$/.test(before) ? "\n" : "\n\n";
    var post = after === "" ? "\n" : /^\n\n/.test(after) ? "" : /^\n/.test(after) ? "\n" : "\n\n";
    return [pre, post];
  }

  function insertBlock(textarea, block, selectFrom, selectTo) {
    var start = textarea.selectionStart;
    var end = textarea.selectionEnd;
    var sep = blockSeparators(textarea.value, start, end);
    replaceRange(textarea, start, end, sep[0] + block + sep[1],
      sep[0].length + selectFrom, sep[0].length + selectTo);
  }

  function wrapSelection(textarea, before, after, placeholder) {
    var start = textarea.selectionStart;
    var end = textarea.selectionEnd;
    var selected = textarea.value.slice(start, end) || placeholder;
    replaceRange(textarea, start, end, before + selected + after,
      before.length, before.length + selected.length);
  }

  /* --- one editor ----------------------------------------------------------------------- */

  function Editor(root) {
    this.root = root;
    this.textarea = root.querySelector("textarea");
    this.frame = root.querySelector("iframe.editor-preview");
    this.message = root.querySelector(".editor-message");
    this.autosaveBox = root.querySelector(".editor-autosave");
    this.fileInput = root.querySelector(".editor-file");
    this.texts = JSON.parse(root.getAttribute("data-texts") || "{}");
    this.previewUrl = root.getAttribute("data-preview-url");
    this.uploadUrl = this.textarea.getAttribute("data-markdownx-upload-urls-path");
    var form = this.textarea.form;
    this.languageField = form ? form.elements[root.getAttribute("data-language-field")] : null;
    this.titleField = form ? form.elements.title : null;
    this.initialText = this.textarea.value;
    this.key = AUTOSAVE_PREFIX + window.location.pathname + ":" + this.textarea.name;
    this.frameReady = false;
    this.pendingHtml = null;
    this.requestNumber = 0;
    this.init();
  }

  Editor.prototype.t = function (name) {
    return this.texts[name] || name;
  };

  Editor.prototype.init = function () {
    var self = this;
    var refresh = debounce(function () { self.refreshPreview(); }, 350);
    var autosave = debounce(function () { self.autosave(); }, 400);
    this.textarea.addEventListener("input", function () { refresh(); autosave(); });
    if (this.titleField) this.titleField.addEventListener("input", autosave);
    if (this.languageField) {
      this.languageField.addEventListener("change", function () { self.refreshPreview(); });
    }
    if (this.termsBox()) {
      this.termsBox().addEventListener("change", function () { self.refreshPreview(); });
    }
    this.textarea.addEventListener("scroll", function () { self.syncScroll(); });
    this.textarea.addEventListener("keydown", function (event) { self.onKey(event); });
    /* Capture: files dropped or pasted never reach the textarea as text. */
    this.root.addEventListener("drop", function (event) { self.onFiles(event, event.dataTransfer); }, true);
    this.root.addEventListener("paste", function (event) { self.onFiles(event, event.clipboardData); }, true);
    this.root.addEventListener("dragover", function (event) {
      if (event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, "Files") >= 0) {
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
      }
    });
    Array.prototype.forEach.call(this.root.querySelectorAll(".editor-button"), function (button) {
      button.addEventListener("click", function () { self.run(button.getAttribute("data-action")); });
    });
    if (this.fileInput) {
      this.fileInput.addEventListener("change", function () {
        Array.prototype.forEach.call(self.fileInput.files, function (file) { self.upload(file); });
        self.fileInput.value = "";
      });
    }
    if (this.frame) {
      this.frame.addEventListener("load", function () {
        self.frameReady = true;
        if (self.pendingHtml !== null) self.show(self.pendingHtml);
      });
      if (this.frame.contentWindow && this.frame.contentWindow.bijiShowPreview &&
          this.frame.contentDocument.readyState === "complete") {
        this.frameReady = true;
      }
    }
    if (this.textarea.form) {
      this.textarea.form.addEventListener("submit", function () { self.markPending(); });
    }
    this.offerAutosave();
    this.refreshPreview();
  };

  /* Preview: the body rendered by the server as it stores notes. */
  Editor.prototype.language = function () {
    return this.languageField ? this.languageField.value : "";
  };

  /* A note's "mark glossary terms" box: the preview marks them as the page will. */
  Editor.prototype.termsBox = function () {
    var form = this.textarea.form;
    var box = form && form.elements.namedItem("marks_terms");
    return box && box.type === "checkbox" ? box : null;
  };

  Editor.prototype.refreshPreview = function () {
    if (!this.previewUrl || !this.frame) return;
    var self = this;
    var number = ++this.requestNumber;
    var data = new FormData();
    data.append("content", this.textarea.value);
    data.append("language", this.language());
    if (this.termsBox() && this.termsBox().checked) data.append("marks_terms", "1");
    fetch(this.previewUrl, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() }
    }).then(function (response) {
      if (response.status === 422) {
        /* A text the renderer refuses (too large, too slow): why, and the last preview stays. */
        return response.json().then(function (body) {
          if (number === self.requestNumber) {
            self.refused = true;
            self.say(body.error, true);
          }
          return null;
        });
      }
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (html === null || number !== self.requestNumber) return;
      if (self.refused) self.say("", false);
      self.refused = false;
      self.show(html);
    }).catch(function () { /* the next keystroke tries again */ });
  };

  Editor.prototype.show = function (html) {
    var win = this.frame.contentWindow;
    if (!this.frameReady || !win || !win.bijiShowPreview) {
      this.pendingHtml = html;
      return;
    }
    this.pendingHtml = null;
    win.bijiShowPreview(html, htmlLang(this.language()));
    this.syncScroll();
  };

  Editor.prototype.syncScroll = function () {
    var win = this.frame && this.frame.contentWindow;
    if (!win || !win.bijiScrollTo) return;
    var area = this.textarea;
    var max = area.scrollHeight - area.clientHeight;
    win.bijiScrollTo(max > 0 ? area.scrollTop / max : 0);
  };

  /* Toolbar and shortcuts */
  var SHORTCUTS = { KeyC: "code", KeyM: "math", KeyI: "image", KeyT: "table", KeyF: "footnote", KeyO: "toc" };

  Editor.prototype.onKey = function (event) {
    if (!(event.ctrlKey || event.metaKey) || event.shiftKey) return;
    var action = null;
    if (event.altKey) {
      action = SHORTCUTS[event.code] || null;
    } else if (event.key === "b" || event.key === "B") {
      action = "bold";
    } else if (event.key === "k" || event.key === "K") {
      action = "link";
    }
    if (action) {
      event.preventDefault();
      this.run(action);
    }
  };

  Editor.prototype.run = function (action) {
    var area = this.textarea;
    var selected = area.value.slice(area.selectionStart, area.selectionEnd);
    var text;
    switch (action) {
      case "bold":
        wrapSelection(area, "**", "**", this.t("bold"));
        break;
      case "link":
        text = "[" + (selected || this.t("link")) + "](https://)";
        replaceRange(area, area.selectionStart, area.selectionEnd, text,
          text.length - 9, text.length - 1);
        break;
      case "code":
        text = "```" + this.t("language") + "\n" + (selected || this.t("code")) + "\n```";
        insertBlock(area, text, 3, 3 + this.t("language").length);
        break;
      case "math":
        if (selected.indexOf("\n") >= 0) {
          insertBlock(area, "$$\n" + selected + "\n$$", 3, 3 + selected.length);
        } else {
          wrapSelection(area, "$", "$", "x");
        }
        break;
      case "image":
        if (this.fileInput) this.fileInput.click();
        break;
      case "table":
        var column = this.t("column");
        var cell = this.t("cell");
        text = "| " + column + " | " + column + " |\n| --- | --- |\n| " + cell + " | " + cell + " |";
        insertBlock(area, text, 2, 2 + column.length);
        break;
      case "footnote":
        this.footnote();
        break;
      case "toc":
        insertBlock(area, "[TOC]", 0, 5);
        break;
    }
  };

  Editor.prototype.footnote = function () {
    var area = this.textarea;
    var used = area.value.match(/\[\^(\d+)\]/g) || [];
    var next = 1;
    used.forEach(function (ref) { next = Math.max(next, parseInt(ref.slice(2), 10) + 1); });
    var ref = "[^" + next + "]";
    var at = area.selectionEnd;
    replaceRange(area, at, at, ref, ref.length, ref.length);
    var value = area.value;
    var end = value.length;
    var tail = /\n\n$/.test(value) ? "" : /\n$/.test(value) ? "\n" : "\n\n";
    var definition = tail + ref + ": " + this.t("footnote");
    replaceRange(area, end, end, definition, definition.length - this.t("footnote").length,
      definition.length);
  };

  /* Images: uploaded to the staff-only endpoint; inserted as a paragraph of their own with the
     alt text selected for the author to type. A refused file inserts nothing and shows why. */
  Editor.prototype.onFiles = function (event, transfer) {
    if (!transfer || !transfer.files || !transfer.files.length) return;
    event.preventDefault();
    event.stopPropagation();
    var self = this;
    Array.prototype.forEach.call(transfer.files, function (file) { self.upload(file); });
  };

  Editor.prototype.say = function (text, isError) {
    if (!this.message) return;
    this.message.textContent = text;
    this.message.hidden = !text;
    this.message.classList.toggle("is-info", !isError);
    this.message.setAttribute("role", isError ? "alert" : "status");
  };

  Editor.prototype.upload = function (file) {
    var self = this;
    if (!this.uploadUrl) return;
    this.say(this.t("uploading"), false);
    var data = new FormData();
    data.append("image", file);
    fetch(this.uploadUrl, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() }
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        return { ok: response.ok, body: body };
      });
    }).then(function (result) {
      if (result.ok && result.body.url) {
        self.say("", false);
        self.insertImage(result.body.url);
      } else {
        var reason = (result.body.image && result.body.image[0]) || result.body.error;
        self.say(reason || self.t("uploadFailed"), true);
      }
    }).catch(function () {
      self.say(self.t("uploadFailed"), true);
    });
  };

  Editor.prototype.insertImage = function (url) {
    var alt = this.t("alt");
    insertBlock(this.textarea, "![" + alt + "](" + url + ")", 2, 2 + alt.length);
  };

  /* Autosave: the text is kept in this browser while it differs from what was loaded. */
  Editor.prototype.autosave = function () {
    if (!local) return;
    try {
      if (this.textarea.value === this.initialText) {
        local.removeItem(this.key);
      } else {
        local.setItem(this.key, JSON.stringify({
          text: this.textarea.value,
          title: this.titleField ? this.titleField.value : null,
          time: Date.now()
        }));
      }
    } catch (e) { /* storage full: nothing kept */ }
  };

  Editor.prototype.markPending = function () {
    if (!session) return;
    var keys = [];
    try { keys = JSON.parse(session.getItem(PENDING_KEY) || "[]"); } catch (e) { keys = []; }
    if (keys.indexOf(this.key) < 0) keys.push(this.key);
    session.setItem(PENDING_KEY, JSON.stringify(keys));
    this.autosave();
  };

  Editor.prototype.offerAutosave = function () {
    if (!local || !this.autosaveBox) return;
    // On a refused save the form already holds the author's text merged with the other
    // save's (blog/authoring/conflicts.py): restoring the unmerged copy would drop theirs.
    if (document.querySelector(".edit-conflict")) return;
    var stored = null;
    try { stored = JSON.parse(local.getItem(this.key) || "null"); } catch (e) { stored = null; }
    if (!stored || typeof stored.text !== "string" || stored.text === this.textarea.value) return;
    var self = this;
    var box = this.autosaveBox;
    var when = new Date(stored.time || Date.now()).toLocaleString(document.documentElement.lang || undefined);
    box.textContent = "";
    var text = document.createElement("span");
    text.textContent = this.t("restorePrompt").replace("%(time)s", when);
    var restore = document.createElement("button");
    restore.type = "button";
    restore.className = "button editor-restore";
    restore.textContent = this.t("restore");
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "button editor-discard";
    discard.textContent = this.t("discard");
    box.appendChild(text);
    box.appendChild(restore);
    box.appendChild(discard);
    box.hidden = false;
    restore.addEventListener("click", function () {
      if (self.titleField && stored.title) self.titleField.value = stored.title;
      replaceRange(self.textarea, 0, self.textarea.value.length, stored.text, 0, 0);
      box.textContent = self.t("restored");
      setTimeout(function () { box.hidden = true; }, 3000);
    });
    discard.addEventListener("click", function () {
      local.removeItem(self.key);
      box.hidden = true;
    });
  };

  /* --- the slug proposed from a new note's title ------------------------------------- */

  function proposeSlugs() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-slug-from]"), function (slug) {
      var form = slug.form;
      var title = form && form.elements[slug.getAttribute("data-slug-from")];
      var url = slug.getAttribute("data-slug-url");
      if (!title || !url) return;
      var edited = slug.value !== "";
      slug.addEventListener("input", function () { edited = slug.value !== ""; });
      var number = 0;
      var propose = debounce(function () {
        if (edited) return;
        var mine = ++number;
        fetch(url + "?title=" + encodeURIComponent(title.value), { credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.json() : null; })
          .then(function (data) {
            if (data && mine === number && !edited) slug.value = data.slug || "";
          })
          .catch(function () { /* the server derives it on save */ });
      }, 250);
      title.addEventListener("input", propose);
      if (title.value && !edited) propose();
    });
  }

  /* --- the series position proposed when a series is chosen --------------------------- */

  /* The series and translation fields are select2 widgets, which announce a choice with a
     jQuery event only: listen through the admin's jQuery when the page has it (it also hears
     the browser's own change events). */
  function onChange(element, handler) {
    var jq = window.django && window.django.jQuery;
    if (jq) {
      jq(element).on("change", handler);
    } else {
      element.addEventListener("change", handler);
    }
  }

  function proposePositions() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-position-url]"), function (input) {
      var form = input.form;
      var url = input.getAttribute("data-position-url");
      var series = form && form.elements.series;
      if (!series || !url) return;
      var language = form.elements.language;
      var translation = form.elements.translation;
      /* A number the author typed is theirs: never replaced (emptied, proposals resume). */
      var typed = false;
      input.addEventListener("input", function () { typed = input.value !== ""; });
      var number = 0;
      var propose = function () {
        if (typed) return;
        var mine = ++number;
        if (!series.value) {
          input.value = "";
          return;
        }
        var query = "?series=" + encodeURIComponent(series.value) +
          "&language=" + encodeURIComponent(language ? language.value : "") +
          "&note=" + encodeURIComponent(input.getAttribute("data-note") || "") +
          "&translation=" + encodeURIComponent(translation ? translation.value : "");
        fetch(url + query, { credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.json() : null; })
          .then(function (data) {
            if (!data || mine !== number) return;
            if (data.position && !typed) input.value = data.position;
            /* Which notes not out yet hold positions: why the proposal skips them. */
            var row = input.closest(".form-row");
            var held = row && row.querySelector(".position-held");
            if (held) held.textContent = data.held || "";
          })
          .catch(function () { /* the server fills an empty position on save */ });
      };
      onChange(series, propose);
      if (language) onChange(language, propose);
      if (translation) onChange(translation, propose);
    });
  }

  /* --- the navigation sidebar, collapsed beside the editor ------------------------------ */

  /* Closed with Django's own toggle (nav_sidebar.js, which ran before: it is deferred), so
     the toggle opens it again; the author's choice for the other admin pages, which that
     toggle stores, is put back as it was. */
  function collapseNavSidebar() {
    var main = document.getElementById("main");
    var toggle = document.getElementById("toggle-nav-sidebar");
    if (!main || !toggle || !main.classList.contains("shifted")) return;
    var key = "django.admin.navSidebarIsOpen";
    var kept = local ? local.getItem(key) : null;
    toggle.click();
    if (!local) return;
    if (kept === null) {
      local.removeItem(key);
    } else {
      local.setItem(key, kept);
    }
  }

  /* --- copy buttons for links (the share link) ---------------------------------------- */

  function copyButtons() {
    Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
      var label = button.textContent;
      button.addEventListener("click", function () {
        var text = button.getAttribute("data-copy");
        var done = function () {
          button.textContent = button.getAttribute("data-copied") || label;
          setTimeout(function () { button.textContent = label; }, 2000);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () {});
        } else {
          var area = document.createElement("textarea");
          area.value = text;
          document.body.appendChild(area);
          area.select();
          try { document.execCommand("copy"); done(); } catch (e) { /* select it by hand */ }
          document.body.removeChild(area);
        }
      });
    });
  }

  function start() {
    clearSavedDrafts();
    Array.prototype.forEach.call(document.querySelectorAll(".biji-editor"), function (root) {
      if (!root.bijiEditor) root.bijiEditor = new Editor(root);
    });
    if (document.querySelector(".biji-editor")) collapseNavSidebar();
    proposeSlugs();
    proposePositions();
    copyButtons();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
