/* The public statistics screen: the finished share while the game runs, the full statistics
 * table once it is over (rules: live statistics are for organizers). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var page;

  function render(state) {
    var T = page.text, game = state.game;
    $("game-status").textContent = T[game.status] || game.status;
    $("game-status").dataset.status = game.status;
    window.gorodPauseBanner(page, game, $("pause-banner"));
    $("finished-share").textContent = Math.round(game.finished_share * 100) + " %";
    $("stats-later").hidden = !!state.statistics;
    window.gorodStatsTable(page, state.statistics, $("stats-head"), $("stats-body"));
    // The organizer's live standings while the game runs (the full table replaces them after).
    var board = !state.statistics && state.leaderboard, body = $("leaderboard-body");
    $("leaderboard-box").hidden = !board;
    body.textContent = "";
    (board || []).forEach(function (row) {
      body.appendChild(window.gorodEl("tr", {"data-team": row.team}, [
        window.gorodEl("td", {text: row.place == null ? "–" : row.place}),
        window.gorodEl("td", {text: row.team}), window.gorodEl("td", {text: row.levels_closed}),
        window.gorodEl("td", {text: window.gorodDuration(row.time_s)})]));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.GorodPage(render);
    page.start();
  });
})();
