/* Runs in <head>, before the page paints: apply the reader's remembered theme. */
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var theme = localStorage.getItem("biji-theme");
    if (theme === "dark" || theme === "light") root.setAttribute("data-theme", theme);
  } catch (e) { /* storage blocked: follow the system setting */ }
})();
