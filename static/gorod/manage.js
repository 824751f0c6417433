/* The organizer screen: start and end, the live statistics table (the engine's
 * statistics_table), the finished share, the rulings form and list, the attempts log. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.gorodEl, time = window.gorodTime;
  var page;

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
    var log = $("attempts");
    log.textContent = "";
    (state.attempts || []).forEach(function (a) {
      log.appendChild(el("tr", {"class": "verdict-" + a.verdict}, [el("td", {text: time(a.at)}),
        el("td", {text: a.team}), el("td", {text: a.level}), el("td", {}, [el("code", {text: a.text})]),
        el("td", {text: (T[a.verdict] || a.verdict) + (a.closed ? " ✓" : "")})]));
    });
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
    $("start-game").addEventListener("click", function () { page.post(page.config.startUrl); });
    $("end-game").addEventListener("click", function () {
      if (window.confirm(page.text.confirmEnd)) { page.post(page.config.endUrl); }
    });
    $("ruling-form").addEventListener("submit", submitRuling);
  });
})();
