/* Shared bits of the GoRoD organizer screen and team phone: config, CSRF'd JSON posts, a
 * LiveSocket whose pushed states and action replies render the same way (newest version wins),
 * and countdowns to server-given deadlines corrected by the server clock's offset. No rule
 * lives here: the server's state says everything. */
(function (global) {
  "use strict";

  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function cookie(name) {
    var match = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
    return match ? decodeURIComponent(match[1]) : "";
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") { node.textContent = attrs[key]; }
      else if (key === "class") { node.className = attrs[key]; }
      else { node.setAttribute(key, attrs[key]); }
    });
    (children || []).forEach(function (child) { if (child) { node.appendChild(child); } });
    return node;
  }

  function time(iso) {
    if (!iso) { return ""; }
    return new Date(iso).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"});
  }

  function duration(seconds) {
    if (seconds == null) { return "–"; }
    seconds = Math.max(0, Math.round(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return (h ? h + ":" + pad(m) : m) + ":" + pad(s);
  }

  function GorodPage(render) {
    var self = this;
    this.config = readJson("gorod-config");
    this.text = readJson("gorod-text") || {};
    this.render = function (state) {
      // The server's "now" against ours: countdowns use the server's clock.
      if (state && state.game && state.game.now) {
        self.offsetMs = new Date(state.game.now).getTime() - Date.now();
      }
      render(state);
    };
    this.offsetMs = 0;
    this.errorBox = document.getElementById("gorod-error");
    var initial = readJson("gorod-state");
    var status = document.getElementById("live-status");
    this.live = new global.LiveSocket({
      path: this.config.ws,
      stateUrl: this.config.stateUrl,
      version: initial.version,
      onState: function (state) { self.render(state); },
      onStatus: function (s) {
        if (!status) { return; }
        status.dataset.status = s;
        status.textContent = status.dataset[s] || s;
      }
    });
    this.initial = initial.state;
  }

  GorodPage.prototype.start = function () { this.render(this.initial); return this; };

  GorodPage.prototype.secondsUntil = function (iso) {
    if (!iso) { return null; }
    return (new Date(iso).getTime() - (Date.now() + this.offsetMs)) / 1000;
  };

  GorodPage.prototype.showError = function (message) {
    if (!this.errorBox) { return; }
    this.errorBox.textContent = message || "";
    this.errorBox.hidden = !message;
  };

  GorodPage.prototype.post = function (url, body) {
    var self = this;
    return global.fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "Accept": "application/json",
                "X-CSRFToken": cookie("csrftoken")},
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var detail = data.detail || Object.keys(data).map(function (k) { return k + ": " + data[k]; }).join("; ");
          self.showError(detail || ("HTTP " + response.status));
          return {ok: false, data: data, network: false};
        }
        self.showError("");
        if (data.version != null && data.version >= self.live.version) {
          self.live.version = data.version;
          self.render(data.state);
        }
        return {ok: true, data: data};
      });
    }, function () { return {ok: false, network: true}; });
  };

  function cellText(page, cell) {
    var T = page.text;
    if (!cell) { return ""; }
    if (!cell.outcome) { return T.open + " · " + T.hints + " " + cell.hints_shown; }
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
                             "data-level": stats.levels[i], text: cellText(page, cell)}));
      });
      cells.push(el("td", {text: duration(row.penalty_s)}), el("td", {text: duration(row.bonus_s)}),
                 el("td", {text: duration(row.total_s)}), el("td", {text: T[row.status] || row.status}));
      body.appendChild(el("tr", {"data-team": row.team}, cells));
    });
  }

  global.GorodPage = GorodPage;
  global.gorodStatsTable = statsTable;
  global.gorodEl = el;
  global.gorodTime = time;
  global.gorodDuration = duration;
})(window);
