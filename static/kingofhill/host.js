/* The host console: everything is rendered from the server's host state (so a reload loses
 * nothing); every button is a POST to the API. Keyboard, by physical key whatever the layout
 * (KeyS is «ы» in ЙЦУКЕН): S start, A announce, C close, P partner mark, a group's number (any
 * number of digits) marks it correct, Shift incorrect; Space pauses or resumes the countdown,
 * "=" and "-" add or remove 10 seconds; M merges the first suggested groups, Shift+M keeps
 * them apart. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = function (tag, attrs, children) { return window.kothEl(tag, attrs, children); };
  var page, current = null, countdown = null;
  var FIELDS = ["q-text", "q-key", "q-variants"];
  var draftFor = null;  // the question number whose draft the form holds

  // The announce form is the one thing the server does not hold until the announcement, so
  // it is kept per question in localStorage: a reload (or a crashed laptop) loses nothing.
  function draftKey(number) { return "koth:" + page.config.game + ":draft:q" + number; }

  function saveDraft() {
    if (draftFor == null) { return; }
    var draft = {};
    FIELDS.forEach(function (id) { draft[id] = $(id).value; });
    try { window.localStorage.setItem(draftKey(draftFor), JSON.stringify(draft)); }
    catch (e) { /* private mode: the draft just is not kept */ }
  }

  function restoreDraft(number) {
    if (draftFor === number) { return; }
    draftFor = number;
    var draft = null;
    try { draft = JSON.parse(window.localStorage.getItem(draftKey(number)) || "null"); }
    catch (e) { draft = null; }
    FIELDS.forEach(function (id) { $(id).value = draft && draft[id] || ""; });
  }

  // A change of a played question that changes the outcome comes back 409 with what it would
  // change ("detail"): the console says so right next to the control that asked ("anchor", a
  // selector that survives re-renders), and the host applies it (sent again with confirm:
  // true) or cancels. A refusal of such a change is shown there too, not at the page's top.
  var pending = null;  // {anchor, action, body, detail, ask}

  function api(action, body, anchor) {
    return page.post(page.config.api + action + "/", body).then(function (result) {
      var data = result.data || {};
      if (result.ok || !anchor || result.network) {
        if (anchor) { settle(null); }
        return result;
      }
      page.showError("");
      settle({anchor: anchor, action: action, body: body, detail: data.detail || "",
              ask: !!data.change && !(body && body.confirm)});
      return result;
    });
  }

  function settle(next) {
    pending = next;
    if (current) { render(current); }  // a checkbox the host ticked goes back to the state
  }

  function placePending() {
    var old = document.getElementById("past-confirm");
    if (old) { old.remove(); }
    var at = pending && document.querySelector(pending.anchor);
    if (!at) { return; }
    var T = page.text, p = pending;
    var box = el("div", {id: "past-confirm", class: p.ask ? "koth-confirm" : "koth-error",
                         role: "alert"}, [el("p", {id: "past-confirm-text", text: p.detail})]);
    if (p.ask) {
      var apply = el("button", {type: "button", id: "past-confirm-apply", text: T.apply});
      var cancel = el("button", {type: "button", id: "past-confirm-cancel", class: "secondary",
                                 text: T.cancel});
      apply.addEventListener("click", function () {
        apply.disabled = true;
        api(p.action, Object.assign({}, p.body, {confirm: true}), p.anchor);
      });
      cancel.addEventListener("click", function () { settle(null); });
      box.appendChild(el("p", {}, [apply, document.createTextNode(" "), cancel]));
    } else {
      var ok = el("button", {type: "button", class: "secondary", text: T.dismiss});
      ok.addEventListener("click", function () { settle(null); });
      box.appendChild(ok);
    }
    var row = at.closest("tr"), group = at.closest("li"), label = at.closest("label");
    if (row) {  // a table row takes the message as a row of its own, right under it
      var cell = el("td", {colspan: String(row.children.length)}, [box]);
      row.after(el("tr", {class: "koth-confirm-row"}, [cell]));
    } else if (group) {
      group.appendChild(box);  // a full-width line of the answer group
    } else {
      (label || at).after(box);
    }
  }

  function verdictText(v) {
    var T = page.text;
    return v === true ? T.correct : v === false ? T.incorrect : v === "mixed" ? T.mixed : T.unjudged;
  }

  function render(state) {
    current = state;
    var T = page.text, host = state.host, q = host.question, board = state.board;
    var status = state.game.status;
    $("question-title").textContent = status === "setup" ? T.setup :
      T.question + " " + q.number + " / " + state.game.main_questions +
      (state.game.reserve_questions ? " (+" + state.game.reserve_questions + ")" : "");
    $("question-phase").textContent = status === "finished" ? T.finished + " " + board.winner :
      (q ? T[q.phase] : "");
    document.body.dataset.phase = status === "running" && q ? q.phase : status;
    $("start").hidden = status !== "setup";
    $("start").disabled = !host.can.start;
    $("announce").disabled = !host.can.announce;
    $("announce-form").hidden = !(q && q.phase === "declaring" && status === "running");
    if (q && q.phase === "declaring") { restoreDraft(q.number); }
    renderQuestion(q, host.bank, status);
    ["projector", "phones"].forEach(function (screen) {
      var select = $("show-" + screen);
      if (document.activeElement !== select) { select.value = host.screens[screen]; }
    });
    var answering = !!(q && q.phase === "answering" && status === "running");
    $("countdown-controls").hidden = !host.can.countdown;
    var shown = answering && state.question ? state.question.countdown : null;
    $("countdown-stop").hidden = !shown;
    $("countdown-running").hidden = !shown;
    var paused = !!(shown && shown.paused_left != null);
    $("countdown-pause").dataset.paused = String(paused);
    $("countdown-pause-label").textContent = paused ? T.resume : T.pause;
    if (!countdown) { countdown = new window.KothCountdown.Countdown($("countdown")); }
    countdown.set(shown);
    $("answers-after-zero-box").hidden = status === "finished";
    $("answers-after-zero").checked = !!state.game.answers_after_zero;
    $("reveal").hidden = !host.can.reveal;
    $("reveal").textContent = host.revealed ? T.unreveal : T.reveal;
    $("close").disabled = !host.can.close;
    $("close").hidden = status !== "running";
    var why = "";
    if (status === "running" && !host.can.close && q) {
      why = q.phase === "declaring" ? T.announceFirst : host.unjudged ? T.unjudgedLeft + " " + host.unjudged : "";
    }
    $("close-reason").textContent = why;
    $("close-reason").hidden = !why;
    $("partner").checked = !!(q && q.partner);
    $("partner").disabled = !q || status === "setup";

    var decl = $("declarations");
    decl.replaceChildren.apply(decl, host.declarations.map(function (d) {
      return el("tr", {"data-team": d.team}, [
        el("td", {text: d.team}), el("td", {text: T[d.kind] || d.kind}),
        el("td", {text: d.counts ? T.yes : T.no + " — " + page.reason(d.reason)})]);
    }));

    $("answered-counter").textContent = host.answered + " " + T.of + " " + host.total + " " + T.answered;
    $("unanswered").textContent = host.unanswered.length && q && q.phase === "answering"
      ? T.waitingFor + " " + host.unanswered.join(", ") : "";
    var connected = host.connected || [], names = state.teams.map(function (t) { return t.name; });
    var away = names.filter(function (n) { return connected.indexOf(n) < 0; });
    $("presence").textContent = T.connected + " " + connected.length + " " + T.of + " " + names.length +
      (away.length ? " · " + T.offline + " " + away.join(", ") : "");
    $("presence").dataset.connected = connected.join("\n");
    $("end-links").hidden = status !== "finished";
    var groups = $("groups");
    var offered = {};  // a suggestion beside its first group
    (host.suggestions || []).forEach(function (s, i) { offered[s.keys[0]] = {s: s, first: i === 0}; });
    groups.replaceChildren.apply(groups, host.groups.map(function (g) {
      var yes = el("button", {type: "button", text: "✓ " + g.index, class: "koth-yes",
                              title: T.correct + " (" + g.index + ")"});
      var no = el("button", {type: "button", text: "✗", class: "secondary koth-no",
                             title: T.incorrect + " (Shift+" + g.index + ")"});
      yes.addEventListener("click", function () { judge(g, true, "yes"); });
      no.addEventListener("click", function () { judge(g, false, "no"); });
      yes.dataset.past = "yes";
      no.dataset.past = "no";
      return el("li", {class: "koth-group", "data-key": g.key, "data-verdict": String(g.verdict)}, [
        el("span", {class: "koth-group-text", text: g.texts.join(" / ")}),
        el("span", {class: "koth-group-count", text: "× " + g.count}),
        el("span", {class: "muted", text: g.teams.join(", ")}),
        el("span", {class: "koth-verdict", text: verdictText(g.verdict) + (g.matches_key ? " (" + T.key + ")" : "")}),
        yes, no, g.forms.length > 1 ? splitButton(g) : null,
        offered[g.key] ? suggestionBox(offered[g.key].s, offered[g.key].first, host.groups) : null]);
    }));

    $("king-line").textContent = (board.king ? T.king + " " + board.king : T.noKing) +
      (host.challengers.length ? " · " + T.challengers + " " + host.challengers.join(", ") : "");
    var standings = $("standings");
    standings.replaceChildren.apply(standings, board.teams.map(function (t) {
      return el("tr", {"data-team": t.team}, [
        el("td", {text: t.place}), el("td", {text: t.team}), el("td", {text: t.step}),
        el("td", {text: t.points}), el("td", {text: t.revolution_right ? T.yes : T.no})]);
    }));

    // the host's open questions and scroll survive the re-render of every live update
    var history = $("history");
    var opened = {};
    Array.prototype.forEach.call(history.querySelectorAll("details[open]"), function (d) {
      opened[d.dataset.question] = true;
    });
    var scrolled = history.scrollTop;
    history.replaceChildren.apply(history, host.history.map(function (h) {
      var partner = el("input", {type: "checkbox", checked: h.partner, "data-past": "partner"});
      partner.addEventListener("change", function () {
        api("partner", {question: h.number, partner: partner.checked},
            'details[data-question="' + h.number + '"] [data-past="partner"]');
      });
      var ignored = Object.keys(h.ignored).map(function (team) {
        return team + ": " + page.reason(h.ignored[team]);
      });
      var rows = h.answers.map(function (a) {
        var flip = el("button", {type: "button", class: "secondary", text: T.flip});
        flip.addEventListener("click", function () {
          api("verdict", {answer: a.id, verdict: !a.verdict}, 'tr[data-answer="' + a.id + '"] button');
        });
        return el("tr", {"data-answer": a.id}, [el("td", {text: a.team}), el("td", {text: a.text}),
          el("td", {text: window.kothTime(a.at)}), el("td", {text: verdictText(a.verdict)}), el("td", {}, [flip])]);
      });
      var appeals = (h.appeals || []).map(function (a) {
        var said = {open: T.appealOpen, accepted: T.appealAccepted, rejected: T.appealRejected}[a.status];
        return el("p", {class: "koth-appeal-state", "data-status": a.status,
                        text: said + " " + a.team + " — «" + a.text + "»" + (a.answer ? " → " + a.answer : "")});
      });
      // A question a changed verdict took out of the game stays, marked, with its answers.
      var voided = h.counts === false;
      return el("details", {class: "koth-history", "data-question": h.number, "data-counts": String(!voided),
                            open: !!opened[h.number]}, [
        el("summary", {text: T.question + " " + h.number + (voided ? " · " + T.voided : "") +
                             (h.answer_key ? " · " + T.answerKey + " " + h.answer_key : "")}),
        el("label", {class: "koth-check"}, [partner, document.createTextNode(" " + T.partner)]),
        ignored.length ? el("p", {class: "muted", text: T.ignored + " " + ignored.join("; ")}) : null,
        rows.length ? el("table", {}, [el("tbody", {}, rows)]) : el("p", {class: "muted", text: T.noAnswers})]
        .concat(appeals));
    }));
    history.scrollTop = scrolled;
    renderAppeals(host.appeals || []);
    placePending();
  }

  // Open appeals, each with its question and team: Accept previews what the flip moves (the
  // change of the past's 409, confirmed in place), Reject needs the answer the phone shows.
  // A half-typed answer survives the re-render of every live update.
  function renderAppeals(open) {
    var T = page.text, list = $("appeals"), typed = {};
    Array.prototype.forEach.call(list.querySelectorAll("input[data-appeal]"), function (input) {
      typed[input.dataset.appeal] = input.value;
    });
    $("appeals-box").hidden = !open.length;
    list.replaceChildren.apply(list, open.map(function (a) {
      var anchor = 'li[data-appeal="' + a.id + '"] .koth-appeal-accept';
      var accept = el("button", {type: "button", class: "koth-appeal-accept", text: T.appealAccept});
      accept.addEventListener("click", function () { api("appeal/accept", {appeal: a.id}, anchor); });
      var answer = el("input", {type: "text", maxlength: "500", "data-appeal": a.id,
                                placeholder: T.appealAnswer, "aria-label": T.appealAnswer});
      answer.value = typed[a.id] || "";
      var reject = el("button", {type: "button", class: "secondary koth-appeal-reject", text: T.appealReject});
      reject.addEventListener("click", function () {
        api("appeal/reject", {appeal: a.id, answer: answer.value}, anchor);
      });
      return el("li", {"data-appeal": a.id, "data-question": a.number}, [
        el("p", {text: T.question + " " + a.number + " · " + a.team + ": «" + a.text + "»"}),
        el("p", {}, [accept, document.createTextNode(" "), answer, document.createTextNode(" "), reject])]);
    }));
  }

  // After the announcement the host keeps the question, its key and note in view; before it,
  // the form says what "announce" will take from the bank when left empty.
  function renderQuestion(q, bank, status) {
    var T = page.text;
    var shown = !!(q && q.phase !== "declaring" && status === "running" && (q.text || q.answer_key || q.note || q.image));
    $("current-question").hidden = !shown;
    var image = $("current-image");
    if (shown && q.image) {
      if (image.getAttribute("src") !== q.image) { image.setAttribute("src", q.image); }
      image.hidden = false;
    } else { image.removeAttribute("src"); image.hidden = true; }
    if (shown) {
      $("current-text").textContent = q.text;
      $("current-key").textContent = q.answer_key ? T.answerKey + " " + q.answer_key +
        (q.variants.length ? " · " + T.variants + " " + q.variants.join(" | ") : "") : "";
      $("current-note").textContent = q.note ? T.note + " " + q.note : "";
    }
    var next = bank && bank.next;
    var declaring = !!(q && q.phase === "declaring" && status === "running");
    $("bank-next").hidden = !(declaring && next);
    if (declaring && next) {
      $("bank-next-head").textContent = T.bankNext + " " + bank.left;
      $("bank-next-text").textContent = next.text +
        (next.answer_key ? " — " + T.answerKey + " " + next.answer_key : "") +
        (next.partner ? " · " + T.partner : "") + (next.note ? " · " + T.note + " " + next.note : "");
    }
  }

  // A merge the console suggests, beside the group it keeps: the other groups by number and
  // text with why each is the same answer; the first suggestion also answers M / Shift+M.
  function suggestionBox(s, first, groups) {
    var T = page.text;
    var byKey = {};
    groups.forEach(function (g) { byKey[g.key] = g; });
    var others = s.keys.slice(1).map(function (key, i) {
      var g = byKey[key];
      return (g ? g.index + " «" + g.texts.join(" / ") + "»" : "«" + key + "»") +
        " (" + (T.reasons[s.reasons[i]] || s.reasons[i]) + ")";
    });
    var merge = el("button", {type: "button", class: "koth-merge", "data-past": "merge"},
                   keyed(T.merge, first ? "" : null));
    var apart = el("button", {type: "button", class: "secondary koth-apart", "data-past": "apart"},
                   keyed(T.apart, first ? "Shift+" : null));
    merge.addEventListener("click", function () { suggest("merge", s); });
    apart.addEventListener("click", function () { suggest("apart", s); });
    return el("div", {class: "koth-suggestion", "data-keys": s.keys.join("\n")}, [
      el("span", {text: T.sameAnswer + " " + others.join(", ")}), merge, apart]);
  }

  // A button's text with its key, "Merge (M)", the key labelled in the layout in use.
  function keyed(text, shift) {
    var parts = [document.createTextNode(text)];
    if (shift === null) { return parts; }
    var key = el("kbd", {"data-code": "KeyM", text: "M"});
    labelKey(key);
    return parts.concat([document.createTextNode(" (" + shift), key, document.createTextNode(")")]);
  }

  function splitButton(g) {
    var split = el("button", {type: "button", class: "secondary koth-split", "data-past": "split",
                              text: page.text.split, title: page.text.splitTitle});
    split.addEventListener("click", function () {
      api("groups/split", {question: current.host.question.number, key: g.key},
          "#groups > li:nth-child(" + g.index + ') [data-past="split"]');
    });
    return split;
  }

  function suggest(action, s) {
    var index = current.host.groups.findIndex(function (g) { return g.key === s.keys[0]; }) + 1;
    api("groups/" + action, {question: current.host.question.number, keys: s.keys},
        "#groups > li:nth-child(" + index + ') [data-past="' + action + '"]');
  }

  function judge(group, verdict, which) {
    var q = current.host.question;
    // The anchor names the group by its index: keys are the teams' own texts.
    api("judge", {question: q.number, normalized: group.key, verdict: verdict},
        which ? "#groups > li:nth-child(" + group.index + ') [data-past="' + which + '"]' : null);
  }

  function announce(event) {
    if (event) { event.preventDefault(); }
    if (!current.host.can.announce) { return; }
    var number = current.host.question.number;
    var body = {
      text: $("q-text").value, answer_key: $("q-key").value,
      variants: $("q-variants").value.split("\n").filter(function (v) { return v.trim(); }),
      show_projector: $("q-show-projector").value, show_phones: $("q-show-phones").value
    };
    var file = $("q-image").files && $("q-image").files[0];
    if (file) {  // a picture goes as a multipart upload, the rest of the form beside it
      var form = new FormData();
      Object.keys(body).forEach(function (key) {
        [].concat(body[key]).forEach(function (value) { form.append(key, value); });
      });
      form.append("image", file);
      body = form;
    }
    api("announce", body).then(function (result) {
      if (!result.ok) { return; }
      try { window.localStorage.removeItem(draftKey(number)); } catch (e) { /* nothing kept */ }
      FIELDS.concat(["q-image", "q-show-projector", "q-show-phones"]).forEach(function (id) { $(id).value = ""; });
    });
  }

  function typing(target) {
    return target && (target.tagName === "INPUT" && target.type !== "checkbox" ||
                      target.tagName === "TEXTAREA" || target.isContentEditable);
  }

  // A group's number by keyboard, for any number of groups: digits gather for a moment ("1",
  // "2" is group 12) and are judged as soon as no longer number is possible, on Enter, or
  // after the pause; Shift with any digit means incorrect.
  var typed = {digits: "", incorrect: false, timer: null};

  function showTyped() { $("key-buffer").textContent = typed.digits ? "#" + typed.digits + (typed.incorrect ? " ✗" : " ✓") : ""; }

  function commitTyped() {
    window.clearTimeout(typed.timer);
    var group = current.host.groups[Number(typed.digits) - 1];
    if (group) { judge(group, !typed.incorrect, typed.incorrect ? "no" : "yes"); }
    typed.digits = "";
    typed.incorrect = false;
    showTyped();
  }

  function typeDigit(d, shift) {
    window.clearTimeout(typed.timer);
    if (!typed.digits && d === "0") { return; }
    typed.digits += d;
    typed.incorrect = typed.incorrect || shift;
    showTyped();
    if (Number(typed.digits) * 10 > current.host.groups.length) { commitTyped(); return; }
    typed.timer = window.setTimeout(commitTyped, 1200);
  }

  // Letters by physical key (event.code), so ЙЦУКЕН or any other layout works the same: the
  // help shows each key in the layout in use.
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) { return; }
    var host = current.host, code = event.code;
    var digit = /^(?:Digit|Numpad)([0-9])$/.exec(code);
    if (digit) {
      if (host.groups.length) { typeDigit(digit[1], event.shiftKey); event.preventDefault(); }
      return;
    }
    if ((code === "Enter" || code === "NumpadEnter" || event.key === "Enter") && typed.digits) {
      commitTyped(); event.preventDefault(); return;
    }
    if (code === "KeyA" && host.can.announce) { announce(); }
    else if (code === "KeyC" && host.can.close) { api("close"); }
    else if (code === "KeyS" && host.can.start) { api("start"); }
    else if (code === "Space" && countdownShown()) { pauseOrResume(); }
    else if ((code === "Equal" || code === "NumpadAdd") && countdownShown()) { adjust(10); }
    else if ((code === "Minus" || code === "NumpadSubtract") && countdownShown()) { adjust(-10); }
    else if (code === "KeyM" && host.suggestions && host.suggestions.length) {
      suggest(event.shiftKey ? "apart" : "merge", host.suggestions[0]);
    }
    else if (code === "KeyP" && host.question && current.game.status !== "setup") {
      api("partner", {question: host.question.number, partner: !host.question.partner}, "#partner");
    } else { return; }
    event.preventDefault();
  }

  // The countdown's own buttons (and keys) show only while the answers have one.
  function countdownShown() { return !$("countdown-running").hidden; }

  function pauseOrResume() {
    api($("countdown-pause").dataset.paused === "true" ? "countdown/resume" : "countdown/pause");
  }

  function adjust(seconds) { api("countdown/adjust", {seconds: seconds}); }

  // Each key's label: its Latin letter, and the layout's own letter when that differs ("A/Ф").
  // Without the Keyboard Map API (Firefox, Safari) the Latin letters stay.
  var layout = null;  // the keyboard's layout map, once known

  function labelKey(k) {
    if (!layout) { return; }
    var latin = k.dataset.latin || k.textContent, local = (layout.get(k.dataset.code) || "").toUpperCase();
    k.dataset.latin = latin;
    k.textContent = local && local !== latin ? latin + "/" + local : latin;
  }

  function labelKeys() {
    var kb = navigator.keyboard;
    if (!kb || typeof kb.getLayoutMap !== "function") { return; }
    kb.getLayoutMap().then(function (map) {
      layout = map;
      Array.prototype.forEach.call(document.querySelectorAll("kbd[data-code]"), labelKey);
    }, function () { /* not allowed here (e.g. in a frame): the Latin letters stay */ });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.KothPage(render);
    page.start();
    $("start").addEventListener("click", function () { api("start"); });
    $("announce-form").addEventListener("submit", announce);
    FIELDS.forEach(function (id) { $(id).addEventListener("input", saveDraft); });
    $("close").addEventListener("click", function () { api("close"); });
    $("countdown-start").addEventListener("click", function () {
      api("countdown", {seconds: Number($("countdown-seconds").value) || 0});
    });
    $("countdown-stop").addEventListener("click", function () { api("countdown", {seconds: 0}); });
    $("countdown-pause").addEventListener("click", pauseOrResume);
    $("countdown-plus").addEventListener("click", function () { adjust(10); });
    $("countdown-minus").addEventListener("click", function () { adjust(-10); });
    $("answers-after-zero").addEventListener("change", function () {
      api("answers-after-zero", {taken: $("answers-after-zero").checked}, "#answers-after-zero");
    });
    ["projector", "phones"].forEach(function (screen) {
      $("show-" + screen).addEventListener("change", function () {
        api("screens", {projector: $("show-projector").value, phones: $("show-phones").value},
            "#show-" + screen);
      });
    });
    $("reveal").addEventListener("click", function () { api("reveal", {reveal: !current.host.revealed}); });
    $("partner").addEventListener("change", function () {
      api("partner", {question: current.host.question.number, partner: $("partner").checked},
          "#partner");
    });
    document.addEventListener("keydown", onKey);
    labelKeys();
  });
})();
