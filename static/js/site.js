/* Site-wide behaviour that pages once wrote as inline handlers: the Content-Security-Policy
 * (config/settings.py) runs scripts from the site's static files only.
 *
 * - An element with data-print prints the page (the statistics, results and season tables).
 */
(function (global) {
  "use strict";
  global.document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-print]") : null;
    if (!target) return;
    event.preventDefault();
    global.print();
  });
})(window);
