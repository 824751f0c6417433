/* The host's answer countdown on the projector, the phones and the host console. The state
 * carries only its end (question.countdown.ends_at, the server's clock), or the seconds left of
 * a paused one (paused_left); each page counts down from the server_time it was served with,
 * so a phone whose clock is off still ends on time.
 * A short tone at the end where the browser allows sound (after a tap or a key on the page). */
(function (global) {
  "use strict";
  var offset = 0;  // the server's clock minus this device's, ms
  var audio = null;

  function syncClock(serverTime) {
    var t = serverTime ? Date.parse(serverTime) : NaN;
    if (!isNaN(t)) { offset = t - Date.now(); }
  }

  function now() { return Date.now() + offset; }

  // Browsers allow sound only after the user touched the page: the first tap or key unlocks it.
  function unlockSound() {
    try {
      if (!audio) {
        var Ctx = global.AudioContext || global.webkitAudioContext;
        if (Ctx) { audio = new Ctx(); }
      }
      if (audio && audio.state === "suspended") { audio.resume(); }
    } catch (e) { audio = null; }
  }

  function beep() {
    if (!audio || audio.state !== "running") { return false; }
    var tone = audio.createOscillator(), gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.3;
    tone.connect(gain);
    gain.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.7);
    return true;
  }

  function label(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  /* ``onOver`` (optional) is called when a running countdown reaches zero on this page. */
  function Countdown(node, onOver) {
    this.node = node;
    this.key = null;  // what is shown: the end (ms), "p<seconds>" when paused, null for none
    this.endsAt = null;
    this.timer = null;
    this.over = false;  // a running countdown at zero (a paused one never is)
    this.onOver = onOver || null;
  }

  /* Show the state's countdown ({seconds, ends_at}, {seconds, paused_left} or null); the same
   * one again changes nothing. A paused one stands still with its seconds left and the word
   * the page gives in the node's data-paused-text. */
  Countdown.prototype.set = function (countdown) {
    var self = this;
    var paused = countdown && countdown.paused_left != null ? countdown.paused_left : null;
    var ends = paused == null && countdown && countdown.ends_at ? Date.parse(countdown.ends_at) : null;
    var key = paused != null ? "p" + paused : ends;
    if (key === this.key) { return; }
    this.key = key;
    this.endsAt = ends;
    this.over = false;
    global.clearInterval(this.timer);
    this.node.classList.remove("is-short", "is-over", "is-paused");
    delete this.node.dataset.paused;
    if (paused != null) {
      this.node.hidden = false;
      this.node.classList.add("is-paused");
      this.node.dataset.paused = "true";
      this.node.dataset.left = String(paused);
      var word = this.node.dataset.pausedText;
      this.node.textContent = label(paused) + (word ? " · " + word : "");
      return;
    }
    if (ends == null) {
      this.node.hidden = true;
      this.node.textContent = "";
      delete this.node.dataset.left;
      return;
    }
    // a page opened after the end shows 0:00 without a tone
    this.armed = ends > now();
    this.node.hidden = false;
    this.tick(true);
    this.timer = global.setInterval(function () { self.tick(false); }, 250);
  };

  /* ``quiet``: called from ``set``, inside the page's own render, which reads ``over`` itself. */
  Countdown.prototype.tick = function (quiet) {
    var left = Math.max(0, Math.ceil((this.endsAt - now()) / 1000));
    this.node.textContent = label(left);
    this.node.dataset.left = String(left);
    this.node.classList.toggle("is-short", left > 0 && left <= 10);
    this.node.classList.toggle("is-over", left === 0);
    if (left === 0) {
      global.clearInterval(this.timer);
      this.over = true;
      if (this.armed) {
        this.armed = false;
        this.node.dataset.sounded = beep() ? "yes" : "no";
      }
      if (!quiet && this.onOver) { this.onOver(); }
    }
  };

  global.document.addEventListener("pointerdown", unlockSound, {once: true});
  global.document.addEventListener("keydown", unlockSound, {once: true});

  global.KothCountdown = {Countdown: Countdown, syncClock: syncClock, now: now,
                          unlockSound: unlockSound, beep: beep, label: label};
})(window);
