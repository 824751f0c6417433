/* The host's answer countdown on the projector, the phones and the host console. The state
 * carries only its end (question.countdown.ends_at, the server's clock); each page counts down
 * from the server_time it was served with, so a phone whose clock is off still ends on time.
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

  function Countdown(node) {
    this.node = node;
    this.endsAt = null;
    this.timer = null;
  }

  /* Show the state's countdown ({seconds, ends_at} or null); the same end again changes nothing. */
  Countdown.prototype.set = function (countdown) {
    var self = this;
    var ends = countdown && countdown.ends_at ? Date.parse(countdown.ends_at) : null;
    if (ends === this.endsAt) { return; }
    this.endsAt = ends;
    global.clearInterval(this.timer);
    this.node.classList.remove("is-short", "is-over");
    if (ends == null) {
      this.node.hidden = true;
      this.node.textContent = "";
      delete this.node.dataset.left;
      return;
    }
    // a page opened after the end shows 0:00 without a tone
    this.armed = ends > now();
    this.node.hidden = false;
    this.tick();
    this.timer = global.setInterval(function () { self.tick(); }, 250);
  };

  Countdown.prototype.tick = function () {
    var left = Math.max(0, Math.ceil((this.endsAt - now()) / 1000));
    this.node.textContent = label(left);
    this.node.dataset.left = String(left);
    this.node.classList.toggle("is-short", left > 0 && left <= 10);
    this.node.classList.toggle("is-over", left === 0);
    if (left === 0) {
      global.clearInterval(this.timer);
      if (this.armed) {
        this.armed = false;
        this.node.dataset.sounded = beep() ? "yes" : "no";
      }
    }
  };

  global.document.addEventListener("pointerdown", unlockSound, {once: true});
  global.document.addEventListener("keydown", unlockSound, {once: true});

  global.KothCountdown = {Countdown: Countdown, syncClock: syncClock, now: now,
                          unlockSound: unlockSound, beep: beep, label: label};
})(window);
