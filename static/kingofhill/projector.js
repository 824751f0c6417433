/* King of the Hill projector: a round board drawn as SVG from the public game state.
 *
 * Everything on screen is a function of the state S pushed by the server (see the projector
 * template). render() keeps one element per team, keyed by the team name, and only moves it,
 * so a token glides from its old step to its new one (a CSS transition on `transform`).
 *
 *   window.KothProjector.render(svgRoot, state, strings)      the board
 *   window.KothProjector.renderPanel(panelRoot, state, strings) title, question, King, standings
 *   window.KothProjector.renderPage(document, state, strings)  both, plus the winner banner
 *   window.KothProjector.geometry(teamCount, summit[, aspect, pxPerUnit])  pure layout helpers (tested)
 *
 * The live socket is the shared module's (js/live.js, Live.connect): it calls renderPage with
 * every newer state. How many holds win is the rules' number, read from state.game.holds_to_win.
 */
(function (global) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var TOKEN_BASE = 10;  // a token is drawn with r=10 and scaled to its cell
  var FALLBACK_COLOURS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4",
    "#46f0f0", "#f032e6", "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8",
    "#800000", "#aaffc3", "#808000", "#ffd8b1", "#000075", "#808080"];

  // ---------------------------------------------------------------- pure helpers

  /* Size class by team count: fonts, label style and the standings layout follow it. */
  function sizeClass(n) {
    if (n <= 12) { return "s"; }
    if (n <= 32) { return "m"; }
    return "l";
  }

  /* The smallest a board label may be on the screen, in CSS px. The board is drawn in user
   * units and scaled to its box, so on a small projector a fixed unit size came out at 13.7 px
   * for 8 teams at 1024x768. Names (up to 32 teams) keep 14 px, then 12 px where 13-32 of them
   * share the rim; 64 teams are labelled by their number (the standings name them), and 11 px
   * digits are still read from the back of a hall while 64 of them fit around the rim. */
  function labelFloorPx(n) {
    if (n <= 12) { return 14; }
    if (n <= 32) { return 12; }
    return 11;
  }

  /* Board geometry in SVG user units; the board centre is (0, 0), the rim has radius R.
   * Step 0 is the outer ring, step S-1 the ring next to the summit, step S the summit disc.
   * `pxPerUnit` (optional: CSS px per user unit as drawn) raises the labels to their floor. */
  function geometry(n, summit, aspect, pxPerUnit, extraWidth) {
    n = Math.max(1, n | 0);
    var S = Math.max(1, summit | 0);
    var size = sizeClass(n);
    var R = 400;
    var r0 = size === "l" ? 140 : (size === "m" ? 120 : 128);
    var ringW = (R - r0) / S;
    var slice = 2 * Math.PI / n;
    var g = {
      n: n, S: S, R: R, r0: r0, ringW: ringW, slice: slice, size: size,
      // as wide as the box the board is drawn in (labels use the room at the sides), 1000 high
      viewBox: viewBoxFor(size, aspect, extraWidth),
      labelRadius: R + 22,
      labelFont: n <= 8 ? 30 : n <= 12 ? 28 : n <= 16 ? 25 : n <= 24 ? 22 : n <= 32 ? 19 : 20,
      // rounded up: 13.99 px is not 14
      labelMin: pxPerUnit > 0 ? Math.ceil(100 * labelFloorPx(n) / pxPerUnit) / 100 : 0,
      kingTokenY: -0.2 * r0
    };
    g.labelFont = Math.max(g.labelFont, g.labelMin);
    /* Slope i spans [start(i), start(i) + slice]; slope 0 is centred at 12 o'clock. */
    g.start = function (i) { return -Math.PI / 2 - slice / 2 + i * slice; };
    g.mid = function (i) { return -Math.PI / 2 + i * slice; };
    /* The radius of the centre of a step's ring (0 for the summit). */
    g.stepRadius = function (step) {
      if (step >= S) { return 0; }
      return R - (Math.max(0, step) + 0.5) * ringW;
    };
    g.tokenRadius = function (step) {
      if (step >= S) { return Math.min(0.16 * r0, 22); }
      var rr = g.stepRadius(step);
      var arc = n === 1 ? 2 * Math.PI * rr : rr * slice;
      return Math.max(3.5, Math.min(0.42 * ringW, 0.4 * arc, 18));
    };
    /* Where the token of the i-th slope stands on a step: {x, y, r}. */
    g.tokenPos = function (i, step) {
      if (step >= S) { return {x: 0, y: g.kingTokenY, r: g.tokenRadius(S)}; }
      var rr = g.stepRadius(step);
      var a = g.mid(i);
      return {x: round(rr * Math.cos(a)), y: round(rr * Math.sin(a)), r: round(g.tokenRadius(step))};
    };
    /* Which step a point lies on, on which slope (the inverse, for tests). */
    g.locate = function (x, y) {
      var rr = Math.sqrt(x * x + y * y);
      if (rr <= r0) { return {step: S, slope: null}; }
      var step = Math.floor((R - rr) / ringW);
      var a = Math.atan2(y, x) + Math.PI / 2 + slice / 2;
      a = ((a % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      return {step: Math.max(0, Math.min(S - 1, step)), slope: Math.floor(a / slice) % n};
    };
    /* Anchor point and text-anchor of a slope's label just outside the rim. Near the top and
     * the bottom, where labels sit side by side, every other one is set one line further out
     * (for more than 12 teams) so that neighbours may be wider than their slope; for 64 teams
     * every other side label too, where 64 numbers at a legible size would touch. */
    g.labelPlace = function (i) {
      var a = g.mid(i);
      var c = Math.cos(a);
      var s = Math.sin(a);
      var anchor = c > 0.3 ? "start" : (c < -0.3 ? "end" : "middle");
      var rr = g.labelRadius + (anchor === "middle" ? 0 : 4);
      var y = rr * s + s * g.labelFont * 0.5;
      var odd = i % 2 === 1;
      var staggered = odd && (anchor === "middle" ? size !== "s" : size === "l");
      // where a leader from the rim ends: just short of the label
      var lx = rr * c, ly = y - (y < 0 ? -1 : 1) * g.labelFont * 0.62;
      if (staggered && anchor === "middle") {  // one row further out than the top/bottom label
        y = (s < 0 ? -1 : 1) * (g.labelRadius + g.labelFont * 1.85);
        ly = y - (y < 0 ? -1 : 1) * g.labelFont * 0.62;
      } else if (staggered) {  // one number's width further out than its neighbours
        rr += g.labelFont * 1.5;
        y = rr * s + s * g.labelFont * 0.5;
        lx = rr * c - (c > 0 ? 1 : -1) * 4;
        ly = y - s * g.labelFont * 0.5;
      }
      return {x: round(rr * c), y: round(y), anchor: anchor, staggered: staggered,
              leaderX: round(lx), leaderY: round(ly)};
    };
    return g;
  }

  function round(v) { return Math.round(v * 100) / 100; }

  function viewBoxFor(size, aspect, extraWidth) {
    var min = (size === "l" ? 1040 : 1110) + Math.round(extraWidth || 0);
    var w = Math.max(min, Math.min(1400, Math.round(1000 * (aspect || 0))));
    return [-w / 2, -500, w, 1000];
  }

  /* An annular sector between radii a < b and angles t0 < t1 as an SVG path. */
  function sectorPath(a, b, t0, t1) {
    if (t1 - t0 >= 2 * Math.PI - 1e-6) {  // a whole ring (one team)
      return "M " + b + " 0 A " + b + " " + b + " 0 1 1 " + (-b) + " 0 A " + b + " " + b + " 0 1 1 " + b + " 0 Z" +
        (a > 0 ? " M " + a + " 0 A " + a + " " + a + " 0 1 0 " + (-a) + " 0 A " + a + " " + a + " 0 1 0 " + a + " 0 Z" : "");
    }
    var large = (t1 - t0) > Math.PI ? 1 : 0;
    function pt(r, t) { return round(r * Math.cos(t)) + " " + round(r * Math.sin(t)); }
    return "M " + pt(b, t0) + " A " + b + " " + b + " 0 " + large + " 1 " + pt(b, t1) +
      " L " + pt(a, t1) + " A " + a + " " + a + " 0 " + large + " 0 " + pt(a, t0) + " Z";
  }

  function format(template, values) {
    return String(template == null ? "" : template).replace(/\{(\w+)\}/g, function (all, key) {
      return values && values[key] != null ? String(values[key]) : all;
    });
  }

  /* Black or white, whichever reads better on the given colour. */
  function inkFor(colour) {
    var m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    if (!m) { return "#fff"; }
    var lin = [m[1], m[2], m[3]].map(function (h) {
      var c = parseInt(h, 16) / 255;
      return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    });
    var L = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return L > 0.22 ? "#000" : "#fff";
  }

  /* The facts the screen shows, normalised from a state (tolerates a missing board). */
  function model(state) {
    state = state || {};
    var game = state.game || {};
    var board = state.board || {};
    var teams = (state.teams || []).map(function (t, i) {
      return {name: t.name, colour: t.colour || FALLBACK_COLOURS[i % FALLBACK_COLOURS.length], index: i};
    });
    var summit = board.summit || game.summit || 7;
    var byName = {};
    teams.forEach(function (t) { byName[t.name] = t; });
    var rows = (board.teams || []).map(function (r) {
      return {team: r.team, place: r.place, step: r.step || 0, points: r.points || 0,
              revolutionRight: !!r.revolution_right};
    });
    if (!rows.length) {  // before the first move: everyone at the start
      rows = teams.map(function (t, i) { return {team: t.name, place: i + 1, step: 0, points: 0}; });
    }
    var stepOf = {};
    rows.forEach(function (r) { stepOf[r.team] = r.step; });
    var q = state.question || null;
    var finished = game.status === "finished" || !!board.finished;
    return {
      title: game.title || "", status: game.status || "setup", summit: summit,
      main: game.main_questions || 0, reserve: game.reserve_questions || 0,
      teams: teams, byName: byName, rows: rows, stepOf: stepOf,
      king: board.king || null, holds: board.king_holds || 0, holdsToWin: game.holds_to_win || 0,
      played: board.question || 0,
      finished: finished, winner: board.winner || null, reason: board.finish_reason || null,
      question: finished ? null : q,
      revolutions: (!finished && q && q.revolutions) || [],
      jumps: (!finished && q && q.jumps) || []
    };
  }

  // ---------------------------------------------------------------- DOM helpers

  function el(name, attrs, parent) {
    var node = global.document.createElementNS(SVGNS, name);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function html(tag, cls, parent, text) {
    var node = global.document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text != null) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  var CROWN_PATH = "M -24 10 L -28 -14 L -14 -2 L 0 -20 L 14 -2 L 28 -14 L 24 10 Z";

  function crown(parent, cls) {
    var g = el("g", {"class": cls || "kp-crown"}, parent);
    el("path", {d: CROWN_PATH, "class": "kp-crown-shape"}, g);
    el("rect", {x: -24, y: 12, width: 48, height: 6, rx: 2, "class": "kp-crown-shape"}, g);
    [-28, 0, 28].forEach(function (x, k) {
      el("circle", {cx: x, cy: k === 1 ? -22 : -16, r: 3.5, "class": "kp-crown-gem"}, g);
    });
    return g;
  }

  function crownSvg(cls) {
    var svg = global.document.createElementNS(SVGNS, "svg");
    svg.setAttribute("viewBox", "-32 -28 64 50");
    svg.setAttribute("class", cls || "kp-crown-icon");
    svg.setAttribute("aria-hidden", "true");
    crown(svg, "kp-crown");
    return svg;
  }

  /* Shorten an SVG text until it is at most maxWidth wide (by measuring it). */
  function fitText(textNode, full, maxWidth) {
    textNode.textContent = full;
    if (!textNode.getComputedTextLength) { return; }
    var len = full.length;
    while (len > 1 && textNode.getComputedTextLength() > maxWidth) {
      len -= 1;
      textNode.textContent = full.slice(0, len).replace(/\s+$/, "") + "…";
    }
  }

  function boxOf(node) {
    try { var b = node.getBBox(); return {x: b.x, y: b.y, w: b.width, h: b.height}; } catch (e) { return null; }
  }

  function overlap(a, b, pad) {
    return a && b && a.w > 0 && b.w > 0 && a.x < b.x + b.w + pad && b.x < a.x + a.w + pad &&
      a.y < b.y + b.h + pad && b.y < a.y + a.h + pad;
  }

  /* Shorten labels until no two of them (and none with the edge of the picture) collide.
   * A label is {node: <text>, parts: [{node: <tspan>, full, len}]} (one or two lines). */
  function untangleLabels(labels, viewBox) {
    var n = labels.length;
    if (!n || !labels[0].node.getBBox) { return; }
    var minX = viewBox[0] + 4, maxX = viewBox[0] + viewBox[2] - 4;
    var minY = viewBox[1] + 2, maxY = viewBox[1] + viewBox[3] - 2;
    function size(l) { return Math.max.apply(null, l.parts.map(function (p) { return p.len; })); }
    function shorten(l) {
      var part = l.parts.reduce(function (a, b) { return b.len > a.len ? b : a; });
      if (part.len <= 1) { return false; }
      part.len -= 1;
      part.node.textContent = part.full.slice(0, part.len).replace(/\s+$/, "") + "…";
      return true;
    }
    for (var guard = 0; guard < 3000; guard++) {
      var changed = false;
      var boxes = labels.map(function (l) { return boxOf(l.node); });
      for (var i = 0; i < n; i++) {
        var b = boxes[i];
        if (b && b.w > 0 && (b.x < minX || b.x + b.w > maxX || b.y < minY || b.y + b.h > maxY)) {
          changed = shorten(labels[i]) || changed;
        }
        for (var d = 1; d <= Math.min(3, n - 1); d++) {
          var j = (i + d) % n;
          if (j !== i && overlap(b, boxes[j], 3)) {
            var first = size(labels[i]) >= size(labels[j]) ? labels[i] : labels[j];
            changed = shorten(first) || shorten(first === labels[i] ? labels[j] : labels[i]) || changed;
          }
        }
      }
      if (!changed) { break; }
    }
  }

  /* Two lines of about equal length, split at a space (or null when there is no space). */
  function splitInTwo(name) {
    var best = null;
    for (var k = 1; k < name.length - 1; k++) {
      if (name[k] === " " && (best === null || Math.abs(name.length / 2 - k) < Math.abs(name.length / 2 - best))) { best = k; }
    }
    return best === null ? null : [name.slice(0, best), name.slice(best + 1)];
  }

  /* A slope's label: its name (or number), on two lines when one line has no room at the side. */
  function makeLabel(text, full, place, viewBox, minFont) {
    var line = el("tspan", {x: place.x}, text);
    line.textContent = full;
    var label = {node: text, parts: [{node: line, full: full, len: full.length}]};
    if (place.anchor === "middle" || !text.getComputedTextLength) { return label; }
    var room = place.anchor === "start" ? viewBox[0] + viewBox[2] - 4 - place.x : place.x - viewBox[0] - 4;
    var lines = text.getComputedTextLength() > room ? splitInTwo(full) : null;
    if (lines) {
      line.textContent = lines[0];
      line.setAttribute("dy", "-0.55em");
      var second = el("tspan", {x: place.x, dy: "1.1em"}, text);
      second.textContent = lines[1];
      label.parts = [{node: line, full: lines[0], len: lines[0].length},
                     {node: second, full: lines[1], len: lines[1].length}];
    }
    // Still too wide: a somewhat smaller font before untangleLabels() has to cut the name.
    // Measured by the box untangleLabels() tests against the edge: the advance width
    // (getComputedTextLength) is a little narrower, so a name it called whole was cut by a
    // fraction of a unit («Выдры» at 1024x768 came out «Выд…»).
    var over = pastTheSide(text, place, viewBox);
    if (over > 0) {
      var font = parseFloat(text.getAttribute("font-size"));
      var widest = boxOf(text).w;
      // never below the legible floor: the board makes room, or the name is cut (untangleLabels)
      var fitted = Math.max(0.64 * font, minFont, font * (widest - over) / widest);
      text.setAttribute("font-size", round(fitted));
      label.short = Math.max(0, pastTheSide(text, place, viewBox));
    }
    return label;
  }

  /* How many user units a side label reaches past the edge untangleLabels() keeps it inside. */
  function pastTheSide(text, place, viewBox) {
    var b = boxOf(text);
    if (!b) { return 0; }
    return place.anchor === "start" ? b.x + b.w - (viewBox[0] + viewBox[2] - 4) : viewBox[0] + 4 - b.x;
  }

  // ---------------------------------------------------------------- the board

  /* Build the parts of the board that only change when the teams or the summit change. */
  function buildBoard(svg, m, g, strings) {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    svg.setAttribute("viewBox", g.viewBox.join(" "));
    svg.setAttribute("data-size", g.size);
    svg.setAttribute("data-teams", String(g.n));
    svg.setAttribute("data-summit", String(g.S));

    var base = el("g", {"class": "kp-base"}, svg);
    el("circle", {r: g.R + 12, "class": "kp-disc"}, base);
    // the penultimate ring: where revolutions start
    el("path", {d: sectorPath(g.r0, g.r0 + g.ringW, 0, 2 * Math.PI), "class": "kp-penultimate", "fill-rule": "evenodd"}, base);

    var slopes = el("g", {"class": "kp-slopes"}, svg);
    var labels = [];
    m.teams.forEach(function (t, i) {
      var t0 = g.start(i), t1 = t0 + g.slice;
      var slope = el("g", {"class": "kp-slope", "data-team": t.name, "data-index": String(i),
                           style: "--team: " + t.colour}, slopes);
      el("path", {d: sectorPath(g.r0, g.R, t0, t1), "class": "kp-sector"}, slope);
      el("path", {d: sectorPath(g.R, g.R + 12, t0, t1), "class": "kp-rim"}, slope);
      var place = g.labelPlace(i);
      if (place.staggered) {  // a short leader from the rim to a label set further out
        var ma = g.mid(i);
        el("line", {x1: round((g.R + 13) * Math.cos(ma)), y1: round((g.R + 13) * Math.sin(ma)),
                    x2: place.leaderX, y2: place.leaderY,
                    "class": "kp-leader"}, slope);
      }
      var text = el("text", {x: place.x, y: place.y, "text-anchor": place.anchor, "class": "kp-label",
                             "font-size": g.labelFont, "data-team": t.name}, slope);
      el("title", null, text).textContent = (i + 1) + ". " + t.name;
      labels.push(makeLabel(text, g.size === "l" ? String(i + 1) : t.name, place, g.viewBox, g.labelMin));
    });

    var grid = el("g", {"class": "kp-grid"}, svg);
    for (var k = 1; k < g.S; k++) {
      el("circle", {r: round(g.R - k * g.ringW), "class": "kp-ring"}, grid);
    }
    if (g.n > 1) {
      m.teams.forEach(function (t, i) {
        var a = g.start(i);
        el("line", {x1: round(g.r0 * Math.cos(a)), y1: round(g.r0 * Math.sin(a)),
                    x2: round((g.R + 12) * Math.cos(a)), y2: round((g.R + 12) * Math.sin(a)),
                    "class": "kp-border"}, grid);
      });
    }
    if (g.size === "s") {  // step numbers along the border at the top, between the last and the first slope
      var a = g.start(0);
      for (var s = 0; s < g.S; s++) {
        var rr = g.stepRadius(s);
        var num = el("g", {"class": "kp-stepnum", transform: "translate(" + round(rr * Math.cos(a)) + " " + round(rr * Math.sin(a)) + ")"}, grid);
        el("circle", {r: 11, "class": "kp-stepnum-bg"}, num);
        el("text", {"class": "kp-stepnum-text", y: 0.5}, num).textContent = String(s);
      }
    }

    var summit = el("g", {id: "koth-summit", "class": "kp-summit"}, svg);
    el("circle", {r: g.r0, "class": "kp-summit-disc"}, summit);
    el("circle", {r: g.r0, "class": "kp-summit-burst"}, summit);
    var free = el("g", {"class": "kp-summit-free"}, summit);
    el("text", {y: -g.r0 * 0.12, "class": "kp-summit-word", "font-size": round(g.r0 * 0.2)}, free).textContent = strings.summit || "Summit";
    el("text", {y: g.r0 * 0.3, "class": "kp-summit-step", "font-size": round(g.r0 * 0.34)}, free).textContent = String(g.S);

    el("g", {"class": "kp-tokens"}, svg);
    el("g", {"class": "kp-flags"}, svg);

    var kingLayer = el("g", {"class": "kp-summit-king"}, svg);
    var c = crown(kingLayer, "kp-crown");
    c.setAttribute("id", "koth-crown");
    c.setAttribute("transform", "translate(0 " + round(-0.6 * g.r0) + ") scale(" + round(g.r0 / 100) + ")");
    el("text", {id: "koth-king-name", y: round(0.24 * g.r0), "class": "kp-king-name",
                "font-size": round(0.25 * g.r0)}, kingLayer);
    var holds = el("g", {id: "koth-king-holds", "class": "kp-holds", "data-holds": "0"}, kingLayer);
    for (var p = 0; p < m.holdsToWin; p++) {
      el("circle", {cx: round((p - (m.holdsToWin - 1) / 2) * 0.22 * g.r0), cy: round(0.56 * g.r0),
                    r: round(0.075 * g.r0), "class": "kp-pip"}, holds);
    }

    untangleLabels(labels, g.viewBox);
    // how many user units the widest side label lacks at its floor (0: every one fits whole)
    return Math.max.apply(null, labels.map(function (l) { return l.short || 0; }).concat([0]));
  }

  /* The board's geometry for its box: px per user unit as drawn (the labels' floor follows
   * it), with `extraWidth` more user units at the sides for labels that lacked room. */
  function boardGeometry(m, box, extraWidth) {
    var aspect = box && box.height > 0 ? box.width / box.height : 0;
    var vb = viewBoxFor(sizeClass(m.teams.length), aspect, extraWidth);
    // preserveAspectRatio "meet": the board is scaled to fit its box
    var scale = aspect ? Math.min(box.width / vb[2], box.height / vb[3]) : 0;
    return geometry(m.teams.length, m.summit, aspect, scale, extraWidth);
  }

  /* The board's box as render() laid it out for (its "data-box"), in whole CSS px. */
  function boxSize(svg) {
    var box = svg.getBoundingClientRect();
    return Math.round(box.width) + "x" + Math.round(box.height);
  }

  function layoutKey(m) {
    return JSON.stringify([m.summit, m.holdsToWin, m.teams.map(function (t) { return [t.name, t.colour]; })]);
  }

  /* Draw the board for a state; called again with each new state (tokens then glide). */
  function render(svg, state, strings) {
    strings = strings || {};
    var m = model(state);
    var box = svg.getBoundingClientRect ? svg.getBoundingClientRect() : null;
    if (box) { svg.setAttribute("data-box", boxSize(svg)); }
    var g = boardGeometry(m, box, 0);
    var key = layoutKey(m) + "|" + g.viewBox.join(",") + "|" + g.labelFont;
    if (svg.__kothKey !== key) {
      var short = buildBoard(svg, m, g, strings);
      // A name lacks room at the side at its legible size: draw the board a little smaller
      // rather than cut the name (room on both sides; the font in units grows with it). Any
      // lack counts, a fraction of a unit too (the cut takes a whole letter), and each try
      // adds a unit more than it lacked so the last one does not stop just short.
      for (var extra = 0, tries = 0; short > 0 && tries < 6 && extra < 400; tries++) {
        extra = Math.min(400, extra + 2.5 * short + 1);
        g = boardGeometry(m, box, extra);
        short = buildBoard(svg, m, g, strings);
      }
      svg.__kothKey = key;
      svg.__kothKing = undefined;
    }
    var revolting = {}, jumping = {};
    m.revolutions.forEach(function (name) { revolting[name] = true; });
    m.jumps.forEach(function (name) { jumping[name] = true; });

    // slopes: who is revolting or jumping in this question
    Array.prototype.forEach.call(svg.querySelectorAll(".kp-slope"), function (slope) {
      var name = slope.getAttribute("data-team");
      slope.classList.toggle("is-revolting", !!revolting[name]);
      slope.classList.toggle("is-jumping", !!jumping[name]);
      slope.classList.toggle("is-king", name === m.king);
      slope.classList.toggle("is-winner", !!m.finished && name === m.winner);
      slope.setAttribute("data-step", String(m.stepOf[name] || 0));
    });

    // tokens, keyed by team name
    var layer = svg.querySelector(".kp-tokens");
    var existing = {};
    Array.prototype.forEach.call(layer.querySelectorAll(".kp-token"), function (node) {
      existing[node.getAttribute("data-team")] = node;
    });
    m.teams.forEach(function (t, i) {
      var step = m.stepOf[t.name] || 0;
      var isKing = m.king === t.name;
      if (isKing) { step = g.S; }
      var pos = g.tokenPos(i, Math.min(step, g.S));
      var node = existing[t.name];
      if (!node) {
        node = el("g", {"class": "kp-token", "data-team": t.name, style: "--team: " + t.colour}, layer);
        el("circle", {r: TOKEN_BASE + 5, "class": "kp-token-halo"}, node);
        el("circle", {r: TOKEN_BASE, "class": "kp-token-body", fill: t.colour}, node);
        el("title", null, node).textContent = t.name;
      }
      delete existing[t.name];
      var transform = "translate(" + pos.x + "px, " + pos.y + "px) scale(" + round(pos.r / TOKEN_BASE) + ")";
      if (node.style.transform !== transform) { node.style.transform = transform; }
      node.setAttribute("data-step", String(step));
      node.setAttribute("data-x", String(pos.x));
      node.setAttribute("data-y", String(pos.y));
      node.classList.toggle("is-king", isKing);
      node.classList.toggle("is-revolting", !!revolting[t.name]);
      node.classList.toggle("is-jumping", !!jumping[t.name]);
      if (isKing && layer.lastChild !== node) { layer.appendChild(node); }
    });
    Object.keys(existing).forEach(function (name) { layer.removeChild(existing[name]); });

    // revolution flags, just outside the revolting team's token on its own slope
    var flags = svg.querySelector(".kp-flags");
    while (flags.firstChild) { flags.removeChild(flags.firstChild); }
    m.teams.forEach(function (t, i) {
      if (!revolting[t.name]) { return; }
      var step = m.stepOf[t.name] || 0;
      var at = g.tokenPos(i, Math.max(0, Math.min(step, g.S - 1)));
      var a = g.mid(i);
      var out = at.r + Math.max(8, g.ringW * 0.45);
      var k = Math.max(0.55, Math.min(1.3, g.ringW / 40));
      var flag = el("g", {"class": "kp-flag", "data-team": t.name,
                          transform: "translate(" + round(at.x + out * Math.cos(a)) + " " + round(at.y + out * Math.sin(a)) + ") scale(" + round(k) + ")"}, flags);
      el("line", {x1: 0, y1: 12, x2: 0, y2: -16, "class": "kp-flag-pole"}, flag);
      el("path", {d: "M 0 -16 L 20 -10 L 0 -3 Z", "class": "kp-flag-cloth"}, flag);
      el("title", null, flag).textContent = (strings.revolution || "Revolution!") + " " + t.name;
    });

    // the summit: the King, the crown and how long the King has held
    var summit = svg.querySelector("#koth-summit");
    var kingLayer = svg.querySelector(".kp-summit-king");
    summit.setAttribute("data-king", m.king || "");
    summit.classList.toggle("has-king", !!m.king);
    kingLayer.style.display = m.king ? "" : "none";
    svg.querySelector(".kp-summit-free").style.display = m.king ? "none" : "";
    var nameNode = svg.querySelector("#koth-king-name");
    if (m.king) {
      var y = 0.24 * g.r0 + 0.12 * g.r0;
      fitText(nameNode, m.king, 1.8 * Math.sqrt(Math.max(0, g.r0 * g.r0 - y * y)));
    } else {
      nameNode.textContent = "";
    }
    var holds = svg.querySelector("#koth-king-holds");
    holds.setAttribute("data-holds", String(m.king ? m.holds : 0));
    Array.prototype.forEach.call(holds.querySelectorAll(".kp-pip"), function (pip, p) {
      pip.classList.toggle("is-on", !!m.king && p < m.holds);
    });
    if (svg.__kothKing !== undefined && m.king && svg.__kothKing !== m.king) {
      // a new King: a short burst on the summit (restart the animation)
      summit.classList.remove("is-new-king");
      void summit.getBoundingClientRect();
      summit.classList.add("is-new-king");
      global.clearTimeout(svg.__kothBurst);
      svg.__kothBurst = global.setTimeout(function () { summit.classList.remove("is-new-king"); }, 4000);
    }
    svg.__kothKing = m.king;
    svg.setAttribute("data-status", m.finished ? "finished" : m.status);
    return m;
  }

  // ---------------------------------------------------------------- the side panel

  function questionText(m, strings) {
    var q = m.question;
    if (m.finished) { return strings.finished || "The game is over"; }
    if (!q) {
      if (m.status === "setup" && !m.played) { return strings.setup || "The game will start soon"; }
      return format(strings.played, {number: m.played, total: m.main});
    }
    if (m.main && q.number > m.main) {
      return format(strings.reserve_question, {number: q.number - m.main, total: m.reserve});
    }
    return format(strings.question, {number: q.number, total: m.main || "?"});
  }

  function renderPanel(root, state, strings) {
    strings = strings || {};
    var m = model(state);
    var size = sizeClass(m.teams.length);
    var byId = function (id) { return root.querySelector("#" + id); };

    var title = byId("koth-title");
    if (title) { title.textContent = m.title || strings.title || ""; }

    // the question
    var qbox = byId("koth-question");
    var q = m.question;
    qbox.setAttribute("data-phase", q ? q.phase : (m.finished ? "finished" : "none"));
    qbox.setAttribute("data-number", q ? String(q.number) : "");
    byId("koth-question-number").textContent = questionText(m, strings);
    var partner = byId("koth-partner");
    partner.hidden = !(q && q.partner);
    var phase = byId("koth-phase");
    var bar = byId("koth-answer-bar");
    var progress = 0;
    if (!q) {
      phase.textContent = "";
    } else if (q.phase === "declaring") {
      phase.textContent = strings.declaring || "";
    } else if (q.phase === "answering") {
      phase.textContent = format(strings.answering, {answered: q.answered || 0, total: q.total || 0});
      progress = q.total ? (q.answered || 0) / q.total : 0;
    } else {
      phase.textContent = strings.closed || "";
      progress = 1;
    }
    phase.setAttribute("data-answered", q ? String(q.answered || 0) : "");
    phase.setAttribute("data-total", q ? String(q.total || 0) : "");
    bar.parentNode.hidden = !q || q.phase === "declaring";
    bar.style.width = Math.round(progress * 100) + "%";

    // the King
    var card = byId("koth-king-card");
    card.setAttribute("data-king", m.king || "");
    card.classList.toggle("has-king", !!m.king);
    var kingTeam = m.king && m.byName[m.king];
    card.style.setProperty("--team", kingTeam ? kingTeam.colour : "transparent");
    byId("koth-king-card-name").textContent = m.king || strings.no_king || "";
    var holdsText = byId("koth-king-holds-text");
    holdsText.textContent = m.king ? format(strings.holds, {holds: m.holds, max: m.holdsToWin}) : "";
    holdsText.setAttribute("data-holds", m.king ? String(m.holds) : "");
    var pips = byId("koth-king-card-pips");
    pips.innerHTML = "";
    if (m.king) {
      for (var p = 0; p < m.holdsToWin; p++) { html("span", "kp-pip" + (p < m.holds ? " is-on" : ""), pips); }
    }

    // revolution
    var rev = byId("koth-revolution");
    rev.hidden = !m.revolutions.length;
    rev.setAttribute("data-teams", m.revolutions.join("\n"));
    byId("koth-revolution-teams").textContent = m.revolutions.join(", ");

    // the host's countdown, and the last question revealed after its close
    var countdown = byId("koth-countdown");
    if (countdown && global.KothCountdown) {
      if (!countdown.__kothCountdown) { countdown.__kothCountdown = new global.KothCountdown.Countdown(countdown); }
      countdown.__kothCountdown.set(q && q.phase === "answering" ? q.countdown : null);
    }
    var reveal = root.ownerDocument.getElementById("koth-reveal"), shown = state && state.reveal;
    var screen = state && state.shown;
    if (global.KothShown) { global.KothShown.render(root.ownerDocument.getElementById("koth-shown"), screen); }
    if (reveal) {
      // a question shown after its close already says its answer: one card, not two
      reveal.hidden = !shown || !!(screen && screen.after);
      reveal.setAttribute("data-number", shown ? String(shown.number) : "");
      reveal.querySelector("#koth-reveal-text").textContent = shown ? format(strings.reveal_question, {number: shown.number}) +
        (shown.text ? ": " + shown.text : "") : "";
      reveal.querySelector("#koth-reveal-answer").textContent = shown && shown.answer_key ?
        format(strings.reveal_answer, {answer: shown.answer_key}) : "";
    }

    // standings
    renderStandings(byId("koth-standings"), m, size, strings);
    return m;
  }

  function renderStandings(box, m, size, strings) {
    var before = {};
    Array.prototype.forEach.call(box.querySelectorAll(".kp-row"), function (row) {
      before[row.getAttribute("data-team")] = row.getBoundingClientRect().top;
    });
    box.setAttribute("data-size", size);
    // one column while its font stays legible from the back of the hall, else two
    // the fewest columns whose names are legible and whole; else the largest font
    var options = size === "l" ? [2] : (m.rows.length > 12 ? [1, 2] : [1]);
    var best = null;
    options.forEach(function (cols) {
      var fit = fillStandings(box, m, size, strings, cols);
      // legible first (14 px), then whole names, then the larger font
      var score = [fit.font >= 14 ? 1 : 0, fit.clipped ? 0 : 1, fit.font];
      var better = !best || score[0] - best.score[0] || score[1] - best.score[1] || score[2] - best.score[2];
      if (!best || better > 0) { best = {cols: cols, font: fit.font, score: score}; }
    });
    if (box.getAttribute("data-columns") !== String(best.cols)) { fillStandings(box, m, size, strings, best.cols); }
    var font = best.font;
    box.setAttribute("data-font", String(font));
    // FLIP: rows that changed place slide from where they were
    Array.prototype.forEach.call(box.querySelectorAll(".kp-row[data-team]"), function (row) {
      var old = before[row.getAttribute("data-team")];
      if (old == null) { return; }
      var dy = old - row.getBoundingClientRect().top;
      if (Math.abs(dy) < 1 || Math.abs(dy) > 600) { return; }
      row.style.transition = "none";
      row.style.transform = "translateY(" + dy + "px)";
      void row.offsetHeight;
      row.style.transition = "";
      row.style.transform = "";
    });
  }

  /* Draw the standings in `cols` columns; returns the largest font (px) at which they fit and
   * whether some name is still cut short at it. */
  function fillStandings(box, m, size, strings, cols) {
    box.innerHTML = "";
    box.setAttribute("data-columns", String(cols));
    var perCol = Math.ceil(m.rows.length / cols) || 1;
    box.style.setProperty("--rows", String(perCol));
    var revolting = {};
    m.revolutions.forEach(function (name) { revolting[name] = true; });
    for (var c = 0; c < cols; c++) {
      var col = html("ol", "kp-col", box);
      var head = html("li", "kp-row kp-head", col);
      html("span", "kp-place", head, strings.place || "#");
      html("span", "kp-name", head, strings.team || "");
      html("span", "kp-step", head, strings.step || "");
      html("span", "kp-points", head, strings.points || "");
      m.rows.slice(c * perCol, (c + 1) * perCol).forEach(function (r) {
        var t = m.byName[r.team] || {colour: "#888", index: 0};
        var isKing = r.team === m.king;
        var row = html("li", "kp-row", col);
        row.setAttribute("data-team", r.team);
        row.setAttribute("data-place", String(r.place));
        row.setAttribute("data-step", String(isKing ? m.summit : r.step));
        row.setAttribute("data-points", String(r.points));
        row.classList.toggle("is-king", isKing);
        row.classList.toggle("is-winner", m.finished && r.team === m.winner);
        row.classList.toggle("is-revolting", !!revolting[r.team]);
        html("span", "kp-place", row, String(r.place));
        var name = html("span", "kp-name", row);
        var sw = html("span", "kp-swatch", name, size === "l" ? String(t.index + 1) : "");
        sw.style.background = t.colour;
        sw.style.color = inkFor(t.colour);
        html("span", "kp-name-text", name, r.team);
        if (isKing) { name.appendChild(crownSvg("kp-crown-icon")); }
        if (revolting[r.team]) { html("span", "kp-flag-icon", name, "⚑"); }
        var step = html("span", "kp-step", row, isKing || r.step >= m.summit ? "" : String(r.step));
        if (isKing || r.step >= m.summit) { step.appendChild(crownSvg("kp-crown-icon")); }
        html("span", "kp-points", row, String(r.points));
      });
    }
    // the largest font at which every row fits
    var font = {s: 36, m: 28, l: 23}[size];
    var floorForNames = 14;  // below it a name may end in "…" rather than shrink further
    box.style.setProperty("--font", font + "px");
    var names = box.querySelectorAll(".kp-row[data-team] .kp-name-text");
    function clipped() {
      for (var k = 0; k < names.length; k++) { if (names[k].scrollWidth > names[k].clientWidth + 1) { return true; } }
      return false;
    }
    while (font > 8 && (box.scrollHeight > box.clientHeight || (font > floorForNames && clipped()))) {
      font -= 1;
      box.style.setProperty("--font", font + "px");
    }
    // a narrow number column cannot hold the whole word: the short one
    var head = font < 22 ? [strings.step_short, strings.points_short] : [strings.step, strings.points];
    Array.prototype.forEach.call(box.querySelectorAll(".kp-row.kp-head"), function (row) {
      row.querySelector(".kp-step").textContent = head[0] || strings.step || "";
      row.querySelector(".kp-points").textContent = head[1] || strings.points || "";
    });
    return {font: font, clipped: clipped()};
  }

  function renderBanner(banner, m, strings) {
    if (!banner) { return; }
    var show = m.finished && !!m.winner;
    banner.hidden = !show;
    banner.setAttribute("data-winner", show ? m.winner : "");
    if (!show) { return; }
    banner.querySelector("#koth-winner-name").textContent = m.winner;
    var reasons = {king_held: strings.reason_king_held, questions_exhausted: strings.reason_questions_exhausted,
                   no_challenger: strings.reason_no_challenger};
    banner.querySelector("#koth-winner-reason").textContent = reasons[m.reason] || "";
    var t = m.byName[m.winner];
    banner.style.setProperty("--team", t ? t.colour : "#ffd34d");
  }

  function renderPage(doc, state, strings) {
    doc = doc || global.document;
    var root = doc.getElementById("koth-projector");
    // the panel's width follows the team count: set it first, the board fills what is left
    root.setAttribute("data-size", sizeClass(((state && state.teams) || []).length));
    // the chrome scales with the screen (1 at 1920x1080), never below what a hall can read
    var win = doc.defaultView || global;
    var k = Math.max(0.6, Math.min(1, win.innerWidth / 1920, win.innerHeight / 1080));
    root.style.setProperty("--k", String(Math.round(k * 1000) / 1000));
    var m = render(doc.getElementById("koth-board"), state, strings);
    renderPanel(root, state, strings);
    renderBanner(doc.getElementById("koth-winner"), m, strings || {});
    root.setAttribute("data-status", m.finished ? "finished" : m.status);
    return m;
  }

  global.KothProjector = {
    render: render, renderPanel: renderPanel, renderPage: renderPage, geometry: geometry,
    sizeClass: sizeClass, sectorPath: sectorPath, format: format, inkFor: inkFor, model: model
  };

  // ---------------------------------------------------------------- boot

  function boot() {
    var root = global.document.getElementById("koth-projector");
    if (!root) { return; }
    var strings = {};
    var initial = {version: -1, state: null};
    try { strings = JSON.parse(global.document.getElementById("koth-strings").textContent); } catch (e) { /* keep defaults */ }
    try { initial = JSON.parse(global.document.getElementById("koth-state").textContent) || initial; } catch (e) { /* wait for the socket */ }
    var current = null;

    function apply(state) {
      if (!state) { return; }
      current = state;
      try {
        renderPage(global.document, state, strings);
      } catch (err) {  // never show an error to the hall; keep the last good picture
        if (global.console) { global.console.error(err); }
      }
    }
    if (global.KothCountdown) { global.KothCountdown.syncClock(initial.server_time); }
    if (initial.state) { apply(initial.state); }
    var full = global.document.getElementById("koth-fullscreen");
    if (full) {
      var canFull = !!global.document.documentElement.requestFullscreen;
      var showButton = function () { full.hidden = !canFull || !!global.document.fullscreenElement; };
      full.addEventListener("click", function () {
        if (global.KothCountdown) { global.KothCountdown.unlockSound(); }  // a click allows sound
        global.document.documentElement.requestFullscreen().catch(function () { /* refused */ });
      });
      global.document.addEventListener("fullscreenchange", showButton);
      showButton();
    }
    var resizeTimer = null;
    var relayout = function () {  // the board's viewBox and its labels' floor follow its box
      global.clearTimeout(resizeTimer);
      resizeTimer = global.setTimeout(function () { apply(current); }, 200);
    };
    global.addEventListener("resize", relayout);
    // The board's box changes without the window's too: a shown question's picture loads and
    // its card above the board grows. Laid out for the box it had before, the labels were
    // drawn at 8 px under a picture at 1024x768.
    var board = global.document.getElementById("koth-board");
    if (board && global.ResizeObserver) {
      new global.ResizeObserver(function () {
        if (board.getAttribute("data-box") !== boxSize(board)) { relayout(); }
      }).observe(board);
    }
    // The socket, versions and resync are the shared live module's (js/live.js).
    global.Live.connect({
      path: root.getAttribute("data-ws-path"),
      stateUrl: root.getAttribute("data-state-url") || null,
      version: initial.version,
      state: initial.state,  // what the first delta patches
      onState: apply
    });
  }

  if (global.document.readyState === "loading") {
    global.document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})(window);
