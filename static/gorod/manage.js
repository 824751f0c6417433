/* The organizer screen: start (confirmed) and end, the finished share against the rules' end
 * share, the team list (level, time on it, next deadline, last attempt), the live statistics
 * table (the engine's statistics_table), the rulings form and list, the attempts log filtered by
 * team, level and verdict (refused tries included), the messages and bonus hints to teams with
 * who has seen each. */
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
        // While the game is paused no deadline stands: the resume moves them all.
        el("td", {text: t.next_deadline && !state.game.paused_since ? time(t.next_deadline) : "–"}),
        el("td", {"class": last ? "verdict-" + last.verdict : "", text: last ? time(last.at) + " · " + last.level + " · " + last.text + " — " + verdictText(last) : "–"})
      ]));
    });
    tickTeams();
  }

  // The time on the level runs on the server's clock, from the state's received_at.
  function tickTeams() {
    Array.prototype.forEach.call(document.querySelectorAll("#teams td.on-level"), function (td) {
      var since = td.dataset.since;
      td.textContent = since ? dur(-page.secondsLeft(since, current && current.game)) : "–";
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
    $("pause-game").hidden = game.status !== "running" || !!game.paused_since;
    $("resume-game").hidden = game.status !== "running" || !game.paused_since;
    $("end-force-majeure").hidden = game.status !== "running";
    window.gorodPauseBanner(page, game, $("pause-banner"));
    var pauses = $("pauses");
    pauses.textContent = "";
    (state.pauses || []).forEach(function (p) {
      pauses.appendChild(el("li", {"data-open": p.ended_at ? "false" : "true",
        text: T.pauseOf + " " + time(p.started_at) + (p.ended_at ? " – " + time(p.ended_at) + " (" + T.resumedAt + ")" : "") +
          (p.reason ? " · " + p.reason : "") + (p.by ? " · " + p.by : "")}));
    });
    $("record-link").hidden = game.status === "setup";
    $("leaderboard-public").checked = !!state.leaderboard;
    $("auto-start-box").hidden = game.status !== "setup";
    $("scenario-public-box").hidden = game.status !== "finished";
    window.gorodStatsTable(page, stats, $("stats-head"), $("stats-body"));
    fillSelect($("ruling-team"), (state.teams || []).map(function (t) { return [String(t.application), t.name]; }));
    fillSelect($("ruling-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    fillSelect($("fix-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    $("level-fix-box").hidden = game.status === "setup";
    var rulings = $("rulings");
    rulings.textContent = "";
    (state.rulings || []).forEach(function (r) {
      // Rulings are corrected after the night too (a protest answered); the preview says when
      // that makes the published results out of date, and Confirm applies it anyway.
      var running = (game.status === "running" || game.status === "finished") && !r.undone_at;
      var last = (r.history || [])[r.history ? r.history.length - 1 : 0];
      rulings.appendChild(el("li", {"data-ruling": r.id, "class": r.undone_at ? "undone" : ""}, [
        el("span", {text: time(r.created_at) + " · " + r.team + " · " +
          (rulingLabels[r.type] || r.type) + (r.minutes != null ? " " + minutesText(r.minutes) + " " + T.min : "") + (r.level ? " · " + T.level + " " + r.level : "") +
          (r.reason ? " · " + r.reason : "") + (r.by ? " · " + r.by : "")}),
        last ? el("span", {"class": "gorod-note", text: " — " + (last.action === "undo" ? T.undone : T.corrected) + " " +
          time(last.at) + " · " + last.by + " · " + last.reason}) : null,
        running && r.minutes != null ? el("button", {type: "button", "class": "secondary ruling-edit", "data-id": r.id, "data-minutes": r.minutes, text: T.edit}) : null,
        running ? el("button", {type: "button", "class": "secondary ruling-undo", "data-id": r.id, text: T.undo}) : null
      ]));
    });
    renderRequests(state);
    renderAlarms(state);
    fillSelect($("message-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    fillSelect($("message-team"), (state.teams || []).map(function (t) { return [String(t.application), t.name]; }));
    renderMessages(state);
    var teamOptions = (state.teams || []).map(function (t) { return [String(t.application), t.name]; });
    fillSelect($("filter-team"), teamOptions);
    fillSelect($("filter-level"), (state.level_list || []).map(function (l) { return [l.label, l.label]; }));
    current = state;
    renderTeams(state);
    renderAttempts();
  }

  // A credited bonus is to the second (17.3333… min): shown to a tenth, in the page's numbers.
  function minutesText(value) {
    return new Intl.NumberFormat(document.documentElement.lang || undefined,
                                 {maximumFractionDigits: 1}).format(value);
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, key) { return values[key]; });
  }

  function messageTo(m) {
    var T = page.text;
    if (m.kind === "bonus_hint") { return fill(T.bonusOn, {level: m.level}) + (m.later ? " " + T.alsoLater : ""); }
    if (m.audience === "level") { return fill(T.toLevel, {level: m.level}); }
    return m.audience === "team" ? "→ " + m.team : T.toAll;
  }

  // The messages sent, the latest first: whom each reached, and whose phones have shown it.
  function renderMessages(state) {
    var T = page.text, list = $("messages"), names = {};
    (state.teams || []).forEach(function (t) { names[t.application] = t.name; });
    list.textContent = "";
    (state.messages || []).forEach(function (m) {
      var teams = m.reached.map(function (pk) { return {team: names[pk] || pk, seen_at: m.seen_by[pk]}; });
      var seen = teams.filter(function (t) { return t.seen_at; }), unseen = teams.filter(function (t) { return !t.seen_at; });
      list.appendChild(el("li", {"data-message": m.id, "data-kind": m.kind}, [
        el("span", {text: time(m.at) + " · " + messageTo(m) + " · " + m.text + (m.by ? " · " + m.by : "")}),
        el("span", {"class": "gorod-seen", "data-seen": seen.length, "data-of": m.of, text: " — " + fill(T.seenBy, {k: seen.length, n: m.of}) +
          (seen.length ? ": " + seen.map(function (t) { return t.team + " " + time(t.seen_at); }).join(", ") : "") +
          (unseen.length ? "; " + T.notSeenYet + ": " + unseen.map(function (t) { return t.team; }).join(", ") : "")})
      ]));
    });
  }

  // The form shows the fields its choice needs: a bonus hint goes to a level's teams.
  function messageFields() {
    var bonus = $("message-kind").value === "bonus_hint";
    if (bonus) { $("message-audience").value = "level"; }
    $("message-audience").disabled = bonus;
    var audience = $("message-audience").value;
    $("message-level-field").hidden = audience !== "level";
    $("message-team-field").hidden = audience !== "team";
    $("message-later-field").hidden = !bonus;
  }

  function sendMessage(event) {
    event.preventDefault();
    var form = $("message-form"), audience = $("message-audience").value, bonus = $("message-kind").value === "bonus_hint";
    $("message-send").disabled = true;
    page.post(page.config.messageUrl, {
      text: form.elements.text.value, kind: form.elements.kind.value, audience: audience,
      level: audience === "level" ? form.elements.level.value : null,
      application: audience === "team" ? parseInt(form.elements.application.value, 10) : null,
      later: bonus && form.elements.later.checked
    }).then(function (r) {
      $("message-send").disabled = false;
      // The refusal next to the form that caused it (the page's error line says it too).
      $("message-error").textContent = r.ok ? "" : ((r.data && r.data.detail) || page.text.notSent);
      $("message-error").hidden = r.ok;
      if (r.ok) { form.elements.text.value = ""; form.elements.later.checked = false; }
    });
  }

  // Safety alarms (a missed check-in on a dangerous level), the longest overdue first: the
  // team, its level, since when, its last signs of life, and the acknowledgement.
  function renderAlarms(state) {
    var C = page.config, alarms = state.alarms || [], list = $("alarms");
    $("alarms-box").hidden = !alarms.length;
    list.textContent = "";
    alarms.forEach(function (a) {
      list.appendChild(el("li", {"data-alarm": a.application}, [
        el("strong", {text: a.team}),
        el("span", {text: " · " + C.alarmLevel + " " + a.level + " · " + C.alarmOverdue + " " + time(a.overdue_since) +
          " · " + C.alarmLastCode + ": " + (a.last_attempt ? time(a.last_attempt) : C.alarmNever) +
          " · " + C.alarmLastCheckin + ": " + (a.last_checkin ? time(a.last_checkin) : C.alarmNever) + " "}),
        el("button", {type: "button", "class": "alarm-acknowledge", "data-id": a.application, text: C.acknowledge})
      ]));
    });
  }

  // What waits for the organizer: timeout requests (3.10) and photos of photo-proof levels.
  function renderRequests(state) {
    var T = page.text, running = state.game.status === "running";
    var list = $("timeout-requests"), photos = $("photos"), waiting = 0;
    list.textContent = ""; photos.textContent = "";
    (state.timeout_requests || []).forEach(function (t) {
      var pending = t.status === "pending" && running;
      waiting += pending ? 1 : 0;
      list.appendChild(el("li", {"data-request": t.id, "class": "request-" + t.status}, [
        el("span", {text: time(t.asked_at) + " · " + t.team + " " + T.asksTimeout + " " + t.minutes + " " + T.min + " · " + t.reason +
          " — " + (T[t.status] || t.status) + (t.answer ? " · " + t.answer : "")}),
        pending ? el("button", {type: "button", "class": "timeout-confirm", "data-id": t.id, text: T.confirm}) : null,
        pending ? el("button", {type: "button", "class": "secondary timeout-refuse", "data-id": t.id, text: T.refuse}) : null
      ]));
    });
    (state.photos || []).forEach(function (p) {
      var pending = p.status === "pending" && running;
      waiting += pending ? 1 : 0;
      photos.appendChild(el("li", {"data-photo": p.id, "class": "photo-" + p.status}, [
        el("a", {href: p.url, target: "_blank", rel: "noopener"}, [el("img", {src: p.url, alt: T.photoOf + " " + p.level + " · " + p.team})]),
        el("span", {text: time(p.uploaded_at) + " · " + p.team + " · " + T.photoOf + " " + p.level + " — " + (T[p.status] || p.status) + (p.answer ? " · " + p.answer : "")}),
        pending ? el("button", {type: "button", "class": "photo-accept", "data-id": p.id, text: T.accept}) : null,
        pending ? el("button", {type: "button", "class": "secondary photo-reject", "data-id": p.id, text: T.reject}) : null
      ]));
    });
    $("requests-empty").hidden = waiting > 0;
  }

  function onAction(event) {
    var b = event.target.closest("button[data-id]");
    if (!b) { return; }
    var C = page.config, id = b.dataset.id, answer;
    if (b.classList.contains("ruling-undo")) {
      askUndo(id);
    } else if (b.classList.contains("ruling-edit")) {
      var minutes = window.prompt(C.askEditMinutes, b.dataset.minutes);
      if (minutes === null || minutes === "") { return; }
      askEdit(id, parseFloat(minutes));
    } else if (b.classList.contains("timeout-confirm") || b.classList.contains("timeout-refuse")) {
      var confirm = b.classList.contains("timeout-confirm");
      answer = confirm ? "" : window.prompt(C.askRefuse);
      if (answer === null) { return; }
      page.post(C.apiBase + "timeouts/" + id + "/", {accept: confirm, answer: answer});
    } else if (b.classList.contains("alarm-acknowledge")) {
      if (window.confirm(C.askAcknowledge)) { page.post(C.apiBase + "alarms/" + id + "/acknowledge/", {}); }
    } else if (b.classList.contains("photo-accept") || b.classList.contains("photo-reject")) {
      var accept = b.classList.contains("photo-accept");
      answer = accept ? "" : window.prompt(C.askRefuse);
      if (answer === null) { return; }
      page.post(C.apiBase + "photos/" + id + "/", {accept: accept, answer: answer});
    }
  }

  // A ruling and an undo are asked first with their preview (what the engine says they change
  // in the standings), right under what asked, as the King of the Hill console asks a change of
  // the past: Confirm applies it, Cancel changes nothing. A refusal is shown there too.
  function closePreview() {
    var old = $("ruling-preview");
    if (old) { old.remove(); }
  }

  function showPreview(anchor, result, apply, extra) {
    var C = page.config, data = result.data || {};
    closePreview();
    page.showError("");
    var box = el("div", {id: "ruling-preview", role: "alert",
                         "class": result.ok ? "gorod-preview" : "gorod-preview gorod-error"}, [
      el("p", {id: "ruling-preview-text", text: result.ok ? data.text : (data.detail || C.failed)})
    ].concat(result.ok ? (extra || []) : []));
    var buttons = el("p", {}, []);
    if (result.ok) {
      var yes = el("button", {type: "button", id: "ruling-preview-confirm", text: C.confirmRuling});
      yes.addEventListener("click", function () {
        apply(!!data.results_published).then(function (r) {
          if (r.ok) { closePreview(); return; }
          page.showError("");
          $("ruling-preview-text").textContent = (r.data && r.data.detail) || C.failed;
          box.classList.add("gorod-error");
        });
      });
      buttons.appendChild(yes);
    }
    var no = el("button", {type: "button", id: "ruling-preview-cancel", "class": "secondary",
                           text: result.ok ? C.cancelRuling : C.close});
    no.addEventListener("click", closePreview);
    buttons.appendChild(no);
    box.appendChild(buttons);
    anchor.after(box);
  }

  // Under the list of rulings, not in it: a push re-renders the list.
  function askUndo(id) {
    var C = page.config, url = C.apiBase + "rulings/" + id + "/undo/";
    page.post(url + "preview/").then(function (result) {
      var reason = el("input", {id: "undo-reason", maxlength: "500"});
      var label = el("label", {}, [el("span", {text: C.askUndo + " "}), reason]);
      showPreview($("rulings"), result, function (confirm) {
        return page.post(url, {reason: reason.value, confirm: confirm});
      }, [label]);
    });
  }

  // A correction of the minutes: its preview, with why it is corrected, under the list.
  function askEdit(id, minutes) {
    var C = page.config, url = C.apiBase + "rulings/" + id + "/";
    page.post(url + "edit/preview/", {minutes: minutes}).then(function (result) {
      var reason = el("input", {id: "edit-reason", maxlength: "500"});
      var label = el("label", {}, [el("span", {text: C.askEditReason + " "}), reason]);
      showPreview($("rulings"), result, function (confirm) {
        return page.post(url, {minutes: minutes, reason: reason.value, confirm: confirm});
      }, [label]);
    });
  }

  function submitRuling(event) {
    event.preventDefault();
    var form = $("ruling-form");
    var minutes = form.elements.minutes.value;
    var body = {
      application: parseInt(form.elements.application.value, 10),
      type: form.elements.type.value,
      minutes: minutes === "" ? null : parseFloat(minutes),
      level: form.elements.level.value || null,
      reason: form.elements.reason.value
    };
    page.post(page.config.rulingUrl + "preview/", body).then(function (result) {
      showPreview(form, result, function (confirm) {
        return page.post(page.config.rulingUrl, Object.assign({}, body, {confirm: confirm}))
          .then(function (r) {
            if (r.ok) { form.elements.reason.value = ""; form.elements.minutes.value = ""; }
            return r;
          });
      });
    });
  }

  // Fixing a level during play: the form starts from the level as it is; its preview (who is
  // credited what, how the places move) comes before Confirm, as a ruling's does.
  var FIX_FIELDS = ["task", "hint1", "hint2", "codes"];

  function openFix(event) {
    event.preventDefault();
    var level = $("fix-level").value, C = page.config;
    if (!level) { return; }
    closePreview();
    Live.send("GET", C.levelFixUrl + "?level=" + encodeURIComponent(level)).then(function (r) {
      if (!r.ok) { page.showError(r.detail || C.failed); return; }
      var data = r.data, form = $("level-fix-form");
      form.dataset.level = data.level;
      FIX_FIELDS.forEach(function (k) { form.elements[k].value = data[k] || ""; });
      form.elements.reason.value = "";
      form.hidden = false;
      $("fix-task").focus();
    });
  }

  function closeFix() {
    closePreview();
    $("level-fix-form").hidden = true;
    $("fix-open").focus();
  }

  function previewFix(event) {
    event.preventDefault();
    var form = $("level-fix-form"), C = page.config;
    var body = {level: form.dataset.level, reason: form.elements.reason.value};
    FIX_FIELDS.forEach(function (k) { body[k] = form.elements[k].value; });
    page.post(C.levelFixUrl + "preview/", body).then(function (result) {
      showPreview(form, result, function (confirm) {
        return page.post(C.levelFixUrl, Object.assign({}, body, {confirm: confirm})).then(function (r) {
          if (r.ok) { form.hidden = true; }
          return r;
        });
      });
      var yes = $("ruling-preview-confirm");
      if (yes) { yes.focus(); }
    });
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
    $("pause-game").addEventListener("click", function () {
      var reason = window.prompt(page.text.askPause, "");
      if (reason !== null) { page.post(page.config.pauseUrl, {reason: reason}); }
    });
    $("resume-game").addEventListener("click", function () {
      if (window.confirm(page.text.confirmResume)) { page.post(page.config.resumeUrl); }
    });
    $("end-force-majeure").addEventListener("click", function () {
      var reason = window.prompt(page.text.askForceMajeure, "");
      if (reason !== null) { page.post(page.config.forceMajeureUrl, {reason: reason}); }
    });
    $("ruling-form").addEventListener("submit", submitRuling);
    $("message-form").addEventListener("submit", sendMessage);
    $("level-fix-open").addEventListener("submit", openFix);
    $("level-fix-form").addEventListener("submit", previewFix);
    $("fix-cancel").addEventListener("click", closeFix);
    $("level-fix-form").addEventListener("keydown", function (event) {
      if (event.key === "Escape") { closeFix(); }
    });
    ["message-kind", "message-audience"].forEach(function (id) { $(id).addEventListener("change", messageFields); });
    messageFields();
    $("gorod-manage").addEventListener("click", onAction);
    $("leaderboard-public").addEventListener("change", function (event) {
      page.post(page.config.apiBase + "leaderboard/", {public: event.target.checked});
    });
    // A refused switch (the set-up would stop the start, the game has not ended) goes back.
    [["auto-start", "autostart/"], ["scenario-public", "scenario/publish/"]].forEach(function (pair) {
      $(pair[0]).addEventListener("change", function (event) {
        var box = event.target;
        page.post(page.config.apiBase + pair[1], {on: box.checked}).then(function (r) {
          if (!r.ok) { box.checked = !box.checked; }
        });
      });
    });
  });
})();
