/* The editor's preview frame (templates/admin/blog/editor_frame.html). The admin page calls
   window.bijiShowPreview(html, lang) with the body as readers get it; the reader's own
   site.js then runs again over it, so code blocks get the very same copy button. */
(function () {
  "use strict";
  window.bijiShowPreview = function (html, lang) {
    var prose = document.querySelector(".prose");
    if (!prose) return;
    prose.innerHTML = html;
    if (lang) {
      prose.setAttribute("lang", lang);
      document.documentElement.setAttribute("lang", lang);
    }
    var old = document.getElementById("site-js");
    if (old) {
      var script = document.createElement("script");
      script.src = old.src;
      script.id = "site-js";
      old.parentNode.removeChild(old);
      document.body.appendChild(script);
    }
  };
  window.bijiScrollTo = function (ratio) {
    var max = document.documentElement.scrollHeight - window.innerHeight;
    window.scrollTo(0, Math.max(0, Math.round(max * ratio)));
  };
})();
