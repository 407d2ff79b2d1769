/* Progressive enhancement only: every page works without this file. */
(function () {
  "use strict";
  var root = document.documentElement;

  /* Theme toggle: remembered in localStorage; without a choice, prefers-color-scheme rules. */
  var toggle = document.getElementById("theme-toggle");
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function isDark() {
    var chosen = root.getAttribute("data-theme");
    if (chosen) return chosen === "dark";
    return !!(media && media.matches);
  }
  function sync() {
    if (toggle) toggle.setAttribute("aria-pressed", isDark() ? "true" : "false");
  }
  if (toggle) {
    toggle.hidden = false;
    sync();
    toggle.addEventListener("click", function () {
      var next = isDark() ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("biji-theme", next); } catch (e) { /* not remembered */ }
      sync();
    });
    if (media && media.addEventListener) media.addEventListener("change", sync);
  }

  /* Copy buttons on highlighted code blocks. */
  var copyLabel = root.getAttribute("data-copy-label") || "Copy";
  var copiedLabel = root.getAttribute("data-copied-label") || "Copied";
  var refusedLabel = root.getAttribute("data-copy-refused-label") || "Copy failed";
  /* What a screen reader announces after a copy: the button's own text change is not read. */
  var announcer = null;
  function announce(text) {
    if (!announcer) {
      announcer = document.createElement("div");
      announcer.className = "visually-hidden";
      announcer.setAttribute("role", "status");
      announcer.setAttribute("aria-live", "polite");
      document.body.appendChild(announcer);
    }
    announcer.textContent = "";
    setTimeout(function () { announcer.textContent = text; }, 50);
  }
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }
  var blocks = document.querySelectorAll(".prose .highlight, .prose pre:not(.highlight pre)");
  Array.prototype.forEach.call(blocks, function (block) {
    var pre = block.tagName === "PRE" ? block : block.querySelector("pre");
    if (!pre) return;
    var holder = block.tagName === "PRE" ? pre.parentNode : block;
    if (block.tagName === "PRE") {
      var wrap = document.createElement("div");
      wrap.className = "code-wrap";
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(pre);
      holder = wrap;
    }
    holder.classList.add("has-copy");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-code";
    button.textContent = copyLabel;
    button.addEventListener("click", function () {
      var code = pre.querySelector("code") || pre;
      copyText(code.innerText).then(function () {
        button.textContent = copiedLabel;
        button.classList.add("copied");
        announce(copiedLabel);
        setTimeout(function () { button.textContent = copyLabel; button.classList.remove("copied"); }, 2000);
      }, function () {
        button.textContent = refusedLabel;
        announce(refusedLabel);
        setTimeout(function () { button.textContent = copyLabel; }, 4000);
      });
    });
    holder.appendChild(button);
  });

  /* Wide code, tables and display math scroll sideways: keyboard users must reach them. */
  function markScrollable() {
    var wide = document.querySelectorAll(".prose pre, .prose table, .prose math[display='block']");
    Array.prototype.forEach.call(wide, function (el) {
      if (el.scrollWidth > el.clientWidth + 1) {
        if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
      } else if (el.getAttribute("tabindex") === "0") {
        el.removeAttribute("tabindex");
      }
    });
  }
  markScrollable();
  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(markScrollable, 150);
  });
})();
