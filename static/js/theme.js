/* Runs in <head>, before the page paints: apply the reader's remembered theme. */
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var theme = localStorage.getItem("biji-theme");
    if (theme === "dark" || theme === "light") root.setAttribute("data-theme", theme);
  } catch (e) { /* storage blocked: follow the system setting */ }
  /* Paint nothing before the page is whole. A busy browser may paint a half-parsed page and
     paint again as the rest arrives, moving what it painted: on a phone the header's tools
     sit at the right edge, so each tool arriving pushed the others left; a list's line moved
     as its last link's text came. Pages are a few KB of HTML, so waiting for the footer costs
     nothing a reader sees. Written here rather than in the markup because the HTML checker
     accepts `blocking` on stylesheets only; a render-blocking element may still be added
     while the parser is in <head>. Browsers without rel=expect ignore it. */
  if (document.body === null) {
    var expect = document.createElement("link");
    expect.rel = "expect";
    expect.href = "#site-footer";
    expect.setAttribute("blocking", "render");
    document.head.appendChild(expect);
  }
})();
