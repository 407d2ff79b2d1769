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

  /* The cite box's button copies its reference. */
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var label = button.textContent, source = document.getElementById(button.dataset.copy);
    function say(text) {
      button.textContent = text;
      announce(text);
      setTimeout(function () { button.textContent = label; }, 3000);
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      copyText(source.textContent).then(function () { say(copiedLabel); }, function () { say(refusedLabel); });
    });
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
    if (event.pointerType === "touch" || !term || term !== open) return;
    if (term.contains(event.relatedTarget)) return;
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

  /* Footnotes (issue 38). From 1280 px a note's footnotes also stand in the margin beside their
     reference, placed absolutely: the column never moves. Elsewhere a reference opens its
     footnote in a popover. The list at the end stays: the sidenotes are a copy for the eye. */
  var wide = matchMedia("(min-width: 1280px)"), prose = document.querySelector(".page-note .prose");
  var sides = [], pop;
  function fill(box, ref) { /* the footnote, without its ids and its link back */
    var item = document.getElementById(ref.getAttribute("href").slice(1));
    if (!item) return;
    box.innerHTML = "<b>" + ref.textContent + "</b>" + item.innerHTML;
    box.querySelectorAll(".footnote-backref, .copy-code").forEach(function (el) { el.remove(); });
    box.querySelectorAll("[id]").forEach(function (el) { el.removeAttribute("id"); });
    box.lang = item.closest("[lang]").lang;
    return box;
  }
  var refs = document.querySelectorAll(".page-note .prose > :not(.footnote) .footnote-ref");
  refs.forEach(function (ref) {
    var side = document.createElement("aside");
    if (sides.some(function (s) { return s.ref.hash === ref.hash; }) || !fill(side, ref)) return;
    side.className = "sidenote";
    side.setAttribute("aria-hidden", "true"); /* the keyboard and screen readers have the list */
    side.querySelectorAll("a").forEach(function (a) { a.tabIndex = -1; });
    side.ref = ref;
    sides.push(prose.appendChild(side)); /* last: no :first-child changes */
  });
  /* Level with its reference, or under the one before; all reads, then all writes. */
  function level() {
    var origin = prose.getBoundingClientRect().top, free = 0;
    if (wide.matches) sides.map(function (side) {
      return [side.style, side.ref.getClientRects()[0], side.offsetHeight];
    }).forEach(function (s) {
      var top = s[1] ? Math.max(s[1].top - origin, free) : 0; /* none in a closed <details> */
      s[0].visibility = s[1] ? "" : "hidden";
      s[0].top = top + "px";
      if (s[1]) free = top + s[2] + 12;
    });
  }
  if (sides.length) {
    level(); /* before the first paint: a sidenote moved after it is a layout shift */
    if (window.ResizeObserver) new ResizeObserver(level).observe(prose); /* images, <details> */
    window.addEventListener("resize", level);
  }
  on("click", function (event) {
    var ref = event.target.closest(".prose .footnote-ref");
    var beside = wide.matches && sides.some(function (s) { return s.ref === ref; });
    if (!ref || beside || !root.showPopover) return;
    if (!pop) {
      pop = document.createElement("div");
      pop.className = "footnote-popover";
      pop.popover = "auto"; /* Escape and a tap elsewhere close it */
      pop.tabIndex = -1;
      pop.autofocus = true; /* focused when shown, the focus given back when closed */
      pop.addEventListener("focusout", function (e) {
        if (!pop.contains(e.relatedTarget)) pop.hidePopover();
      });
    }
    if (!fill(pop, ref)) return;
    event.preventDefault();
    ref.parentNode.after(pop); /* Tab goes on from the reference */
    pop.showPopover();
  });
})();
