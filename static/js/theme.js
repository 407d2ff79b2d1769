/* Runs in <head>, before the page paints: apply the reader's remembered theme. */
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var theme = localStorage.getItem("biji-theme");
    if (theme === "dark" || theme === "light") root.setAttribute("data-theme", theme);
  } catch (e) { /* storage blocked: follow the system setting */ }
  /* No paint before the page is whole: a half-parsed paint moves things (tests/browser/
     test_layout_stability.py). In script, as the HTML checker refuses `blocking` here. */
  if (document.body === null) {
    var expect = document.createElement("link");
    expect.rel = "expect";
    expect.href = "#site-footer";
    expect.setAttribute("blocking", "render");
    document.head.appendChild(expect);
  }
})();
