/* The GoRoD organizer screen, team phone and statistics on the shared Live.Page
 * (js/live.js): the "gorod-*" config, texts and state, countdowns to server-given deadlines
 * corrected by the server clock's offset, and the statistics table. No rule lives here: the
 * server's state says everything. */
(function (global) {
  "use strict";
  var Live = global.Live, el = Live.el;
  var config = Live.readJson("gorod-config") || {};
  // times in the game's zone, not the device's (Live.timeIn)
  var time = Live.timeIn(config.timeZone);

  function duration(seconds) {
    if (seconds == null) { return "–"; }
    seconds = Math.max(0, Math.round(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return (h ? h + ":" + pad(m) : m) + ":" + pad(s);
  }

  function GorodPage(render) {
    this.offsetMs = 0;
    Live.Page.call(this, {prefix: "gorod", render: render});
    // The server's clock against ours (states carry no time): countdowns use the server's.
    var initial = Live.readJson("gorod-state");
    if (initial && initial.server_time) {
      this.offsetMs = new Date(initial.server_time).getTime() - Date.now();
    }
  }
  GorodPage.prototype = Object.create(Live.Page.prototype);
  GorodPage.prototype.constructor = GorodPage;

  GorodPage.prototype.secondsUntil = function (iso) {
    if (!iso) { return null; }
    return (new Date(iso).getTime() - (Date.now() + this.offsetMs)) / 1000;
  };

  // While the whole game is paused every team's clock stands at the pause's start: a
  // countdown shows what was left then (the server moves the deadlines at the resume).
  GorodPage.prototype.secondsLeft = function (iso, game) {
    if (!iso) { return null; }
    if (game && game.paused_since) {
      return (new Date(iso).getTime() - new Date(game.paused_since).getTime()) / 1000;
    }
    return this.secondsUntil(iso);
  };

  // "The game is paused since 22:10:05" on every GoRoD screen, or nothing.
  function pauseBanner(page, game, node) {
    var paused = !!(game && game.paused_since);
    node.hidden = !paused;
    node.textContent = paused ? page.text.paused + " " + time(game.paused_since) : "";
    node.dataset.since = paused ? game.paused_since : "";
  }

  function cellText(page, cell, row) {
    var T = page.text;
    if (!cell) { return ""; }
    // A stopped team's open level is no longer being played.
    if (!cell.outcome) { return (row.status === "playing" ? T.open : T.notClosed) + " · " + T.hints + " " + cell.hints_shown; }
    return (T[cell.outcome] || cell.outcome) + " " + time(cell.closed_at) + " (" + duration(cell.time_s) + ")";
  }

  // The engine's statistics_table: one row per team in standings order, one cell per level.
  function statsTable(page, stats, head, body) {
    var T = page.text;
    head.textContent = ""; body.textContent = "";
    if (!stats) { return; }
    var cols = [T.place, T.team].concat(stats.levels.map(function (l) { return T.level + " " + l; }))
      .concat([T.penalty, T.bonus, T.total, T.status]);
    head.appendChild(el("tr", {}, cols.map(function (c) { return el("th", {text: c}); })));
    stats.rows.forEach(function (row) {
      var cells = [el("td", {text: row.place == null ? "–" : row.place}), el("td", {text: row.team})];
      row.cells.forEach(function (cell, i) {
        cells.push(el("td", {"class": "outcome-" + (cell ? cell.outcome || "open" : "none"),
                             "data-level": stats.levels[i], text: cellText(page, cell, row)}));
      });
      cells.push(el("td", {text: duration(row.penalty_s)}), el("td", {text: duration(row.bonus_s)}),
                 el("td", {text: duration(row.total_s)}), el("td", {text: T[row.status] || row.status}));
      body.appendChild(el("tr", {"data-team": row.team}, cells));
    });
  }

  global.GorodPage = GorodPage;
  global.gorodStatsTable = statsTable;
  global.gorodPauseBanner = pauseBanner;
  global.gorodEl = el;
  global.gorodTime = time;
  global.gorodDuration = duration;
})(window);
