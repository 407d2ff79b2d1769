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

  /* Glossary terms' tooltips (WCAG 1.4.13): one open at a time, on hover (the pointer may move
     onto it), keyboard focus or a first tap (a second tap follows the link); Escape closes it and
     leaves the focus. Placed inside the viewport. Without this, CSS shows it on hover/focus. */
  var open = null, dismissed = null, tapped = null, frame = 0;
  root.classList.add("term-tips");

  function termOf(node) {
    return node && node.closest ? node.closest(".term") : null;
  }
  function keyboardFocused(el) {
    try { return el.matches(":focus-visible"); } catch (e) { return false; }
  }
  /* Below the term's last line, or above it where there is no room below; 8 px off the edges. */
  function place(term) {
    var link = term.querySelector(".term-link"), tip = term.querySelector(".term-tip");
    var lines = link ? link.getClientRects() : [], at = lines[lines.length - 1];
    if (!tip || !at) return;
    tip.style.left = tip.style.top = "0px";
    var box = tip.getBoundingClientRect();
    var left = Math.max(8, Math.min(at.left, root.clientWidth - 8 - box.width));
    var top = at.bottom + 6;
    var above = top + box.height > root.clientHeight - 8 && at.top - 6 - box.height >= 8;
    if (above) top = at.top - 6 - box.height;
    tip.setAttribute("data-side", above ? "above" : "below");
    tip.style.left = Math.round(left) + "px";
    tip.style.top = Math.round(top) + "px";
  }
  function show(term) {
    if (open && open !== term) hide(open);
    open = term;
    term.classList.add("is-open");
    place(term);
  }
  function hide(term) {
    term.classList.remove("is-open");
    if (open === term) open = null;
  }
  function on(type, handler) {
    document.addEventListener(type, handler);
  }

  on("pointerover", function (event) {
    var term = termOf(event.target);
    if (event.pointerType === "touch" || !term || term === open) return;
    if (term === dismissed) {
      if (term.contains(event.relatedTarget)) return; /* still on it since Escape */
      dismissed = null;
    }
    show(term);
  });
  on("pointerout", function (event) {
    var term = termOf(event.target), focused = document.activeElement;
    if (event.pointerType === "touch" || term !== open || term.contains(event.relatedTarget)) return;
    if (!(term.contains(focused) && keyboardFocused(focused))) hide(term);
  });
  on("focusin", function (event) {
    var term = termOf(event.target);
    if (term && term !== open && keyboardFocused(event.target)) {
      dismissed = null;
      show(term);
    }
  });
  on("focusout", function (event) {
    var term = termOf(event.target);
    if (!term || term.contains(event.relatedTarget)) return;
    if (term === dismissed) dismissed = null;
    if (term === open && !term.matches(":hover")) hide(term);
  });
  on("keydown", function (event) {
    if (open && (event.key === "Escape" || event.key === "Esc")) {
      dismissed = open;
      hide(open);
    }
  });
  on("pointerdown", function (event) {
    tapped = event.pointerType === "touch" ? termOf(event.target) : null;
    if (open && !open.contains(event.target)) hide(open); /* a tap elsewhere */
  });
  on("click", function (event) {
    var term = event.target.closest ? termOf(event.target.closest(".term-link")) : null;
    var first = term && term === tapped && term !== open;
    tapped = null;
    if (first) {
      event.preventDefault();
      dismissed = null;
      show(term);
    }
  });
  function follow() {
    frame = 0;
    if (open) place(open);
  }
  function schedule() {
    if (open && !frame) frame = requestAnimationFrame(follow);
  }
  window.addEventListener("scroll", schedule, { passive: true, capture: true });
  window.addEventListener("resize", schedule);
})();
