/* The set-up page's «Test run» card: make a test run of the game, reset or delete one. Each
 * button calls the GoRoD API (the services decide everything); a refusal is shown in the card,
 * next to the buttons, and a success reloads the page, which lists the test runs as they are. */
(function () {
  "use strict";
  var Live = window.Live, config = Live.readJson("test-run-config") || {};
  var error = document.getElementById("test-run-error");

  function show(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  function send(method, url, body) {
    show("");
    return Live.send(method, url, body).then(function (result) {
      if (result.ok) { window.location.reload(); } else { show(result.detail || config.failed); }
    });
  }

  var form = document.getElementById("test-run-form");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send("POST", config.create, {factor: parseInt(form.elements.factor.value, 10),
                                 teams: parseInt(form.elements.teams.value, 10)});
  });

  document.getElementById("test-run").addEventListener("click", function (event) {
    var button = event.target.closest("button[data-reset], button[data-delete]");
    if (!button) { return; }
    var run = button.closest("[data-test-run]");
    if (button.hasAttribute("data-reset")) {
      if (window.confirm(config.confirmReset)) { send("POST", run.dataset.resetUrl); }
    } else if (window.confirm(config.confirmDelete)) {
      send("DELETE", run.dataset.deleteUrl);
    }
  });
})();
