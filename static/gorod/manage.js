/* The organizer screen: start (confirmed) and end, the finished share against the rules' end
 * share, the team list (level, time on it, next deadline, last attempt), the live statistics
 * table (the engine's statistics_table), the rulings form and list, the attempts log filtered by
 * team, level and verdict (refused tries included). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.gorodEl, time = window.gorodTime, dur = window.gorodDuration;
  var page, current = null;

  function verdictText(a) {
    // The verdicts' labels are the filter's options (the model's choices, translated).
    var option = $("filter-verdict").querySelector("option[value='" + a.verdict + "']");
    return (option ? option.textContent : a.verdict) + (a.closed ? " ✓" : "");
  }

  function renderTeams(state) {
    var T = page.text, body = $("teams");
    body.textContent = "";
    (state.teams || []).forEach(function (t) {
      var last = t.last_attempt;
      body.appendChild(el("tr", {"data-team": t.name}, [
        el("td", {text: t.name}),
        el("td", {text: t.current_level != null ? t.level_number + " · " + t.current_level : (T[t.status] || t.status || "–")}),
        el("td", {"class": "on-level", "data-since": t.received_at || "", text: "–"}),
        el("td", {text: t.next_deadline ? time(t.next_deadline) : "–"}),
        el("td", {"class": last ? "verdict-" + last.verdict : "", text: last ? time(last.at) + " · " + last.level + " · " + last.text + " — " + verdictText(last) : "–"})
      ]));
    });
    tickTeams();
  }

  // The time on the level runs on the server's clock, from the state's received_at.
  function tickTeams() {
    Array.prototype.forEach.call(document.querySelectorAll("#teams td.on-level"), function (td) {
      var since = td.dataset.since;
      td.textContent = since ? dur(-page.secondsUntil(since)) : "–";
    });
  }

  function renderAttempts() {
    var log = $("attempts"), state = current || {};
    var team = $("filter-team").value, level = $("filter-level").value, verdict = $("filter-verdict").value;
    log.textContent = "";
    (state.attempts || []).filter(function (a) {
      return (!team || String(a.application) === team) && (!level || a.level === level) && (!verdict || a.verdict === verdict);
    }).forEach(function (a) {
      log.appendChild(el("tr", {"class": "verdict-" + a.verdict}, [el("td", {text: time(a.at)}),
        el("td", {text: a.team}), el("td", {text: a.level}), el("td", {}, [el("code", {text: a.text})]),
        el("td", {text: verdictText(a)})]));
    });
  }

  function fillSelect(select, options) {
    var keep = select.value;
    var signature = JSON.stringify(options);
    if (select.dataset.signature === signature) { return; }
    select.dataset.signature = signature;
    var first = select.querySelector("option[value='']");
    select.textContent = "";
    if (first) { select.appendChild(first); }
    options.forEach(function (o) { select.appendChild(el("option", {value: o[0], text: o[1]})); });
    if (keep && options.some(function (o) { return o[0] === keep; })) { select.value = keep; }
    else if (select.options.length) { select.selectedIndex = 0; }
  }

  function render(state) {
    var T = page.text, game = state.game, stats = state.statistics;
    var rulingLabels = window.Live.readJson("gorod-ruling-labels") || {};
    $("game-status").textContent = T[game.status] || game.status;
    $("game-status").dataset.status = game.status;
    $("finished-share").textContent = Math.round(game.finished_share * 100) + " %";
    $("next-deadline").textContent = state.next_deadline ? time(state.next_deadline) : "–";
    $("end-share").textContent = state.end_rule ? Math.round(state.end_rule.share * 100) + " %" : "–";
    $("end-allowed").hidden = !(state.end_rule && state.end_rule.allowed && game.status === "running");
    $("start-game").hidden = game.status !== "setup";
    $("end-game").hidden = game.status !== "running";
    $("record-link").hidden = game.status === "setup";
    window.gorodStatsTable(page, stats, $("stats-head"), $("stats-body"));
    fillSelect($("ruling-team"), (state.teams || []).map(function (t) { return [String(t.application), t.name]; }));
    fillSelect($("ruling-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    var rulings = $("rulings");
    rulings.textContent = "";
    (state.rulings || []).forEach(function (r) {
      rulings.appendChild(el("li", {text: time(r.created_at) + " · " + r.team + " · " +
        (rulingLabels[r.type] || r.type) + (r.minutes != null ? " " + r.minutes + " " + T.min : "") + (r.level ? " · " + T.level + " " + r.level : "") +
        (r.reason ? " · " + r.reason : "") + (r.by ? " · " + r.by : "")}));
    });
    var teamOptions = (state.teams || []).map(function (t) { return [String(t.application), t.name]; });
    fillSelect($("filter-team"), teamOptions);
    fillSelect($("filter-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    current = state;
    renderTeams(state);
    renderAttempts();
  }

  function submitRuling(event) {
    event.preventDefault();
    var form = $("ruling-form");
    var minutes = form.elements.minutes.value;
    page.post(page.config.rulingUrl, {
      application: parseInt(form.elements.application.value, 10),
      type: form.elements.type.value,
      minutes: minutes === "" ? null : parseFloat(minutes),
      level: form.elements.level.value || null,
      reason: form.elements.reason.value
    }).then(function (r) { if (r.ok) { form.elements.reason.value = ""; form.elements.minutes.value = ""; } });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.GorodPage(render);
    page.start();
    $("start-game").addEventListener("click", function () {
      if (window.confirm(page.config.confirmStart)) { page.post(page.config.startUrl); }
    });
    ["filter-team", "filter-level", "filter-verdict"].forEach(function (id) {
      $(id).addEventListener("change", renderAttempts);
    });
    window.setInterval(tickTeams, 1000);
    $("end-game").addEventListener("click", function () {
      if (window.confirm(page.text.confirmEnd)) { page.post(page.config.endUrl); }
    });
    $("ruling-form").addEventListener("submit", submitRuling);
  });
})();
